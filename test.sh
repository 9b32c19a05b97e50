#!/usr/bin/env bash
# Runs the whole voiceagent test suite on real models and real (virtual) audio devices.
# Installs what the tests need first: a private PulseAudio with null sinks stands in for the
# sound card (the tests start and stop it themselves), and the install of ./install.sh.
set -euo pipefail
cd "$(dirname "$0")"

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
test_packages=(pulseaudio pulseaudio-utils libasound2-plugins libportaudio2 sox tmux)
missing=()
for p in "${test_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt: installing test packages ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi
[ -x .venv/bin/voiceagent ] || ./install.sh --no-start

exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
