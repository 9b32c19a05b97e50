"""Keys, a listener and a microphone without devices: ScriptedKeys and ScriptedListen for the
keyed front end, FakeBlockSource for the recorder's block loop."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

import numpy as np

from voiceagent.audio import Audio
from voiceagent.triggers import KeyEvent, KeySource


class ScriptedKeys(KeySource):
    """A KeySource the test presses: `press()`, `release()` and `quit()` queue key events;
    no thread reads a device. `holds` picks hold-to-talk (True) or press to start and stop."""

    def __init__(self, *, holds: bool = False) -> None:
        super().__init__()
        self.holds = holds

    def press(self) -> None:
        self.events.put(KeyEvent("down"))

    def release(self) -> None:
        self.events.put(KeyEvent("up"))

    def quit(self) -> None:
        self.events.put(KeyEvent("quit"))

    def _run(self) -> None:
        self._closed.wait()


class ScriptedListen:
    """The front end's `listen(stop, end_on_silence=...)` without a microphone: each call
    "records" until the front end sets `stop` and returns the next clip of its script.

    `listening` is set while a recording runs (a test presses the next key only then);
    `silence_ends` makes a hold-to-talk recording end by itself, as a pause would.
    """

    def __init__(self, *clips: Audio, silence_ends: bool = False) -> None:
        self._clips = deque(clips)
        self.silence_ends = silence_ends
        self.listening = threading.Event()
        self.calls: list[bool] = []
        """end_on_silence of each call, in order."""

    def __call__(self, stop: threading.Event, *, end_on_silence: bool) -> Audio:
        self.calls.append(end_on_silence)
        self.listening.set()
        try:
            if not (end_on_silence and self.silence_ends):
                stop.wait(10)
            return self._clips.popleft() if self._clips else Audio.silence(0)
        finally:
            self.listening.clear()


# --- a microphone without a device -----------------------------------------------------------


class FakeBlockSource:
    """A microphone for MicRecorder(source=...) and cutter tests: plays a script of 16 kHz
    clips as 512-sample blocks, one per read(), with no device and no waiting.

    Callables in the script run when reached (e.g. `mic.pause`), so a test says exactly
    which audio arrives while paused. Each block carries the pause flag as it was when the
    block was read (for a real device: when it was captured). After the script, `done` is
    set and read() returns None.
    """

    name = "fake microphone"

    def __init__(self, *script: Audio | Callable[[], object], paused: threading.Event | None = None,
                 done: threading.Event | None = None, block: int = 512) -> None:
        self._script: deque[Audio | Callable[[], object]] = deque(script)
        self._paused = paused or threading.Event()
        self.done = done or threading.Event()
        self._block = block
        self._pending = np.zeros(0, dtype=np.float32)
        self.closed = False
        self.blocks_read = 0

    def read(self, timeout: float = 0.1) -> tuple[np.ndarray, bool] | None:
        while len(self._pending) < self._block:
            if not self._script:
                self.done.set()
                return None
            item = self._script.popleft()
            if isinstance(item, Audio):
                self._pending = np.concatenate([self._pending, item.samples.astype(np.float32)])
            else:
                item()
        block, self._pending = self._pending[: self._block], self._pending[self._block:]
        self.blocks_read += 1
        return block, self._paused.is_set()

    def drain(self, keep: int = 0) -> list[tuple[np.ndarray, bool]]:
        return []

    def queued(self) -> int:
        """Nothing waits unread: a script plays as fast as it is read (stream time stands
        still while the listener works, whatever the machine's speed)."""
        return 0

    def close(self) -> None:
        self.closed = True
