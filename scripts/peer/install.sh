#!/usr/bin/env bash
# The peer for `voiceagent bench --live --peer VENV`: pipecat 1.14's local pipeline
# (scripts/peer/peer_pipecat.py) in its own venv, never in the project's.
#   scripts/peer/install.sh [VENV]        (default: /work/venvs/peer)
# Needs the package registry (PyPI, apt), so it runs at install time, never during a bench.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${1:-/work/venvs/peer}"
"$here/../apt-ensure.sh" portaudio19-dev python3-venv pulseaudio pulseaudio-utils libasound2-plugins
python="${PYTHON:-python3}"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "pipecat-ai[whisper,silero,local,openai]==1.14.*" piper-tts
"$venv/bin/python" -c "import pipecat, piper, pyaudio; print('peer venv ready:', pipecat.__version__)"
