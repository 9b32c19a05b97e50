#!/usr/bin/env bash
# Runs the whole voiceagent test suite on real models and real (virtual) audio devices.
# Installs what the tests need first: a private PulseAudio with null sinks stands in for the
# sound card (the tests start and stop it themselves), and the install of ./install.sh.
# iproute2 (`ip`): the zeroconf test sets up loopback in a private network namespace.
# The hub's tests run the real wyoming-satellite 1.0.0 from its own venv (.venv-satellite/).
set -euo pipefail
cd "$(dirname "$0")"

scripts/apt-ensure.sh pulseaudio pulseaudio-utils libasound2-plugins libportaudio2 sox tmux iproute2
# (an install from before the tests ran on several cores lacks pytest-xdist: install.sh adds it)
[ -x .venv/bin/voiceagent ] && .venv/bin/python -c "import xdist" 2>/dev/null \
    || ./install.sh --no-start
scripts/satellite-venv.sh

# A selection of one's own (`./test.sh -m "not real"`) runs as given, in one process.
case " $* " in *" -m "*) exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@" ;; esac
# Exit status 5 is "no test selected" (a file given with only one kind of test in it).
run() { .venv/bin/python -m pytest -q -p no:cacheprovider "$@" || [ $? -eq 5 ]; }
# The tests of single parts, one worker per core; then the tests of the real models, audio
# devices and servers, one at a time (they share the sound server and the CPU they measure).
status=0
run -m "not real and not audio" -n auto "$@" || status=1
run -m "real or audio" "$@" || status=1
exit "$status"
