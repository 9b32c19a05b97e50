#!/usr/bin/env bash
# Soak test: N mixed turns (recorded and synthesised questions, local commands, LLM answers,
# tool errors, silence, noise) spoken into a live kiosk on a private PulseAudio; samples the
# assistant's and the LLM server's RSS, fds and threads; reports the slope per 100 turns and
# every failed turn; checks every turn's lines are in the session file. Exit 1 on growth.
#   scripts/soak.sh N [--json report.json] [--keep] [--model qwen2.5-coder-1.5b]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/apt-ensure.sh pulseaudio pulseaudio-utils libasound2-plugins libportaudio2
exec .venv/bin/python scripts/soak.py "$@"
