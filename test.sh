#!/usr/bin/env bash
# Runs the whole voiceagent test suite on real models and real (virtual) audio devices.
# Installs what the tests need first: a private PulseAudio with null sinks stands in for the
# sound card (the tests start and stop it themselves), and the install of ./install.sh.
# iproute2 (`ip`): the zeroconf test sets up loopback in a private network namespace.
# The hub's tests run the real wyoming-satellite 1.0.0 from its own venv (.venv-satellite/).
set -euo pipefail
cd "$(dirname "$0")"

scripts/apt-ensure.sh pulseaudio pulseaudio-utils libasound2-plugins libportaudio2 sox tmux iproute2
[ -x .venv/bin/voiceagent ] || ./install.sh --no-start
scripts/satellite-venv.sh

exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
