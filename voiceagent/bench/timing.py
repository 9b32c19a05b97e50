"""What records when each part of a bench turn ran: the turn's events, and each synthesis
and playback (playback kept at real-time pace and discarded, so "first audio" is when the
first sample would be heard)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from voiceagent.agent.events import Event
from voiceagent.audio import Audio
from voiceagent.ports import Synthesizer


class StageLog:
    """Start and end (monotonic seconds) of each synthesis and playback in the current turn."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float, float]] = []
        """(stage, start, end, seconds of audio)."""
        self._lock = threading.Lock()

    def add(self, stage: str, start: float, audio_s: float) -> None:
        with self._lock:
            self.spans.append((stage, start, time.monotonic(), audio_s))

    def take(self) -> list[tuple[str, float, float, float]]:
        with self._lock:
            spans, self.spans = self.spans, []
        return spans


class TimedSynthesizer:
    """Wraps a Synthesizer to log how long each clip took to make (the TTS real-time factor)."""

    def __init__(self, inner: Synthesizer, log: StageLog) -> None:
        self._inner = inner
        self._log = log

    def synthesize(self, text: str) -> Iterator[Audio]:
        clips = iter(self._inner.synthesize(text))
        while True:
            start = time.monotonic()
            clip = next(clips, None)
            if clip is None:
                return
            self._log.add("tts", start, clip.seconds)
            yield clip


class PacedPlayer:
    """A Player that takes as long as the clip would sound, and discards it."""

    def __init__(self, log: StageLog) -> None:
        self._log = log
        self._stop = threading.Event()

    def play(self, audio: Audio) -> None:
        self._stop.clear()
        start = time.monotonic()
        self._stop.wait(audio.seconds)
        self._log.add("playback", start, audio.seconds)

    def stop(self) -> None:
        self._stop.set()


class TurnLog:
    """Every event of the current turn, and the monotonic time its clock started."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.t0 = 0.0

    def __call__(self, event: Event) -> None:
        if event.type == "turn_start":
            self.t0 = time.monotonic() - event.t
            self.events = []
        self.events.append(event)
