"""How soon push-to-talk says "got it": key release to the chime at the speaker, on the
PulseAudio test devices. Not a test (no assertions); run:

    .venv/bin/python -m tests.measure_ptt_chime [presses]

The real push-to-talk front end (KeyedFrontEnd), microphone recorder and chime player run on a
private sound server; key presses come from a script, and the speaker's monitor is recorded
with every sample on this process's clock (bench/capture.py), so the chime's onset is compared
with the moment the key was released. The turn after it is not measured (a stand-in answers).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.pulse import PulseServer


def main(presses: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="ptt-chime-"))
    pulse = PulseServer(root)
    os.environ.update(pulse.env)
    pulse.start()
    try:
        for what, name in (("sink", "speaker"), ("source", "mic")):
            subprocess.run(["pactl", f"set-default-{what}", name], check=True, env=os.environ)
        print(_measure(presses))
    finally:
        pulse.stop()


def _measure(presses: int) -> str:
    import numpy as np

    from voiceagent.bench.capture import RATE, Capture
    from voiceagent.bench.onset import first_sound
    from voiceagent.config_file import config_from_dict
    from voiceagent.frontends import KeyedFrontEnd
    from voiceagent.modes import _chime
    from voiceagent.sound.player import SoundPlayer
    from voiceagent.sound.recorder import MicRecorder
    from voiceagent.triggers import KeyEvent, KeySource

    class Keys(KeySource):
        holds = True

        def _run(self) -> None:
            self._closed.wait()

    class Answers:  # the turn is not measured
        def answer_audio(self, *_a: object, **_k: object) -> None:
            return None

        def interrupt(self) -> None:
            pass

    config = config_from_dict({})
    speaker = Capture("speaker.monitor")
    speaker.wait_started()
    recorder = MicRecorder(config.audio)
    recorder.open()
    keys = Keys().start()
    front = KeyedFrontEnd(Answers(), recorder.record, keys,  # type: ignore[arg-type]
                          chime=_chime(config, SoundPlayer(config.audio)))
    stop = threading.Event()
    thread = threading.Thread(target=front.run, args=(stop,), daemon=True)
    thread.start()
    released = []
    for _ in range(presses):
        keys.events.put(KeyEvent("down"))
        time.sleep(1.0)  # the "listening" chime plays and ends
        released.append(time.monotonic())
        keys.events.put(KeyEvent("up"))
        time.sleep(1.0)
    stop.set()
    keys.close()
    thread.join(5)
    recorder.close()
    waits = []
    for at in released:
        window, first = speaker.window(at, at + 0.9)
        onset = first_sound(np.asarray(window), RATE)
        if onset is not None:
            waits.append(first + onset - at)
    speaker.close()
    ms = sorted(round(w * 1000) for w in waits)
    return (f"key release -> 'got it' chime at the speaker, {len(ms)}/{presses} presses: "
            f"median {statistics.median(ms)} ms, max {max(ms)} ms ({ms})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
