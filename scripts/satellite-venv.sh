#!/usr/bin/env bash
# The real wyoming-satellite 1.0.0 for the hub's tests, in its own venv (.venv-satellite/):
# it pins wyoming 1.4.1, which conflicts with voiceagent's wyoming>=1.10. Run by test.sh at
# set-up, never while tests run. Start a satellite as `.venv-satellite/bin/python -m
# wyoming_satellite ...` (1.0.0's console script is broken).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${SATELLITE_VENV:-.venv-satellite}
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import wyoming_satellite' 2>/dev/null; then
  exit 0
fi
python=${PYTHON:-python3}
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "wyoming-satellite==1.0.0"
