"""The request's transcript started at the pause the utterance ends with (speech/read_ahead.py)."""

from __future__ import annotations

import threading

import numpy as np

from voiceagent.audio import Audio
from voiceagent.speech.read_ahead import ReadAhead


class Counting:
    """A transcriber that says how many times it ran, and can be held mid-transcription."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[int] = []
        self.release = threading.Event()
        self.release.set()
        self.entered = threading.Event()
        """Set when a transcription has begun (and may be held at `release`)."""
        self.fail = fail

    def transcribe(self, audio: Audio) -> str:
        self.entered.set()
        self.release.wait(60)
        self.calls.append(len(audio.samples))
        if self.fail:
            self.fail = False
            raise RuntimeError("model gone")
        return f"{len(audio.samples)} samples"


def clip(n: int, value: float = 0.1) -> Audio:
    return Audio(np.full(n, value, dtype=np.float32), 16000)


def test_the_same_audio_is_transcribed_once_and_other_audio_as_usual():
    inner = Counting()
    ahead = ReadAhead(inner)
    inner.release.clear()  # still running when the request asks for it: it waits for it
    ahead.start(clip(1600))
    threading.Timer(0.05, inner.release.set).start()
    assert ahead.transcribe(clip(1600)) == "1600 samples"
    assert inner.calls == [1600] and ahead.used == 1
    ahead.start(clip(1600))
    assert ahead.transcribe(clip(1600, value=0.2)) == "1600 samples"  # other samples
    assert ahead.transcribe(clip(3200)) == "3200 samples"
    assert ahead.used == 1 and 3200 in inner.calls


def test_a_failed_start_is_transcribed_again_and_only_the_latest_start_waits():
    inner = Counting(fail=True)
    ahead = ReadAhead(inner)
    ahead.start(clip(800))
    assert ahead.transcribe(clip(800)) == "800 samples" and ahead.used == 0
    inner.release.clear()
    inner.entered.clear()
    ahead.start(clip(800, value=0.3))  # other samples: not the failed start's
    assert inner.entered.wait(60)  # the first is under way (however slow the machine) ...
    ahead.start(clip(1600))  # ... so this one waits for it: replaced by the next one
    ahead.start(clip(2400))
    inner.release.set()
    assert ahead.transcribe(clip(2400)) == "2400 samples" and ahead.used == 1
    assert 1600 not in inner.calls and inner.calls.count(2400) == 1
