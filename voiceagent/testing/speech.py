"""Speech without piper, Whisper or a sound card: a synthesizer and a player that keep what
they were given, and a transcriber that answers from a script."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from voiceagent.audio import Audio


class FakeSynthesizer:
    """A Synthesizer making one short tone clip per sentence; `texts` keeps what it was asked."""

    def __init__(self, seconds: float = 0.05, rate: int = 22050) -> None:
        self.seconds = seconds
        self.rate = rate
        self.texts: list[str] = []

    def synthesize(self, text: str) -> Iterator[Audio]:
        self.texts.append(text)
        n = int(self.seconds * self.rate)
        yield Audio(np.full(n, 0.1, dtype=np.float32), self.rate)


class RecordingPlayer:
    """A Player that keeps every clip and takes real time to "play" it (so stop() matters)."""

    def __init__(self) -> None:
        self.played: list[Audio] = []
        self._stop = threading.Event()

    def play(self, audio: Audio) -> None:
        self._stop.clear()
        self.played.append(audio)
        self._stop.wait(audio.seconds)

    def stop(self) -> None:
        self._stop.set()


class FakeTranscriber:
    """A Transcriber answering from a list of transcripts (plain text, or a Transcript with
    its doubt and words), one per call."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.heard: list[Audio] = []

    def transcribe(self, audio: Audio) -> str:
        self.heard.append(audio)
        return self.texts.pop(0)
