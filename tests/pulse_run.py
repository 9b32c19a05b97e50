"""Run a command against a private PulseAudio daemon with the test devices (tests/pulse.py):
a virtual microphone fed through the sink "micfeed" and a virtual speaker "speaker". Not a test;
this is how `bench --live` is run on a machine without a sound card:

    .venv/bin/python -m tests.pulse_run voiceagent bench --live --feed-sink micfeed \\
        --mic-source mic --speaker-source speaker.monitor [...]

The command's exit status is returned; the daemon is stopped after it, also on Ctrl-C.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.pulse import PulseServer


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="voiceagent-pulse-"))
    pulse = PulseServer(root)
    try:
        pulse.start()
        command = argv
        if argv[0] == "voiceagent":  # this venv's, whatever PATH says
            command = [sys.executable, "-m", "voiceagent", *argv[1:]]
        return subprocess.call(command, env={**os.environ, **pulse.env})
    except KeyboardInterrupt:
        return 130
    finally:
        pulse.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
