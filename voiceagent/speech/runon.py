"""The wake word run on into the request: where one ends and the other begins, and a second
look at a wake word the next word cut short.

microWakeWord models average their last few outputs (150 ms) and were trained on the wake
word followed by a pause; said in one breath ("Alexa what time is it"), the request's first
sound enters that window and the average falls short (measured on real "alexa" recordings
glued to real requests with no gap: 72 % fired, against 95 % alone). What the model has
heard up to the end of the word is the same as when a pause follows. So when the stream
comes close (a candidate) but does not fire, the audio up to the end of the word is scored
again by a fresh copy of the model with silence put after it: "would it have fired had the
speaker paused here?" The end of the word is the quietest moment around where the model's
probability rose, the dip between two words (real speech has one even without a pause).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from voiceagent.audio import STT_RATE

FRAME = 160
"""10 ms energy frames for finding the dip between two words."""
BEFORE_S = 0.05
AFTER_S = 0.15
"""Where to look for the end of the word around the moment the probability rose: the model
rises 0-80 ms before the word ends (median 38 ms on real "alexa" recordings)."""
CONTEXT_S = 1.5
"""Audio before the end of the word that the second look scores (the longest built-in wake
phrase, "hey mycroft", takes about 1 s)."""
PAUSE_S = 0.45
"""The silence the second look puts after the word: more than the model needs to fire."""
FADE_S = 0.02
"""Fade-out at the end of the word, so the cut is not a click the model hears."""


class Recent:
    """The last `seconds` of a stream of blocks, addressed by how far back a sample is."""

    def __init__(self, seconds: float) -> None:
        self._cap = int(seconds * STT_RATE)
        self._blocks: deque[np.ndarray] = deque()
        self._size = 0

    def add(self, block: np.ndarray) -> None:
        self._blocks.append(np.asarray(block, dtype=np.float32).reshape(-1))
        self._size += len(self._blocks[-1])
        while self._blocks and self._size - len(self._blocks[0]) >= self._cap:
            self._size -= len(self._blocks.popleft())

    def __len__(self) -> int:
        return self._size

    def last(self, samples: int) -> np.ndarray:
        """The newest `samples` (fewer if not that many were kept)."""
        samples = min(samples, self._size)
        if samples <= 0:
            return np.zeros(0, dtype=np.float32)
        out: list[np.ndarray] = []
        need = samples
        for block in reversed(self._blocks):
            out.append(block[-need:] if len(block) > need else block)
            need -= len(out[-1])
            if need <= 0:
                break
        return np.concatenate(out[::-1])

    def between(self, start_ago: int, end_ago: int) -> np.ndarray:
        """Samples from `start_ago` back to `end_ago` back (start_ago >= end_ago >= 0)."""
        chunk = self.last(start_ago)
        return chunk[: max(0, len(chunk) - end_ago)]

    def clear(self) -> None:
        self._blocks.clear()
        self._size = 0


def energy_db(samples: np.ndarray) -> np.ndarray:
    """Energy of consecutive 10 ms frames in dB, smoothed over 30 ms."""
    n = len(samples) // FRAME
    if n == 0:
        return np.zeros(0)
    power = np.mean(np.square(samples[: n * FRAME].reshape(n, FRAME), dtype=np.float64), axis=1)
    db = 10 * np.log10(power + 1e-10)
    return np.convolve(db, np.ones(3) / 3, mode="same") if n >= 3 else db


def word_end(recent: Recent, rose_ago: int) -> int:
    """How far back the wake word ended: the quietest 10 ms around the moment its
    probability rose (`rose_ago` samples back)."""
    start = rose_ago + int(BEFORE_S * STT_RATE)
    end = max(0, rose_ago - int(AFTER_S * STT_RATE))
    db = energy_db(recent.between(start, end))
    if len(db) == 0:
        return rose_ago
    quietest = int(np.argmin(db))
    return max(0, start - (quietest * FRAME + FRAME // 2))


def isolated(recent: Recent, end_ago: int) -> np.ndarray:
    """The audio before `end_ago` as if a pause followed: faded out, then silence."""
    head = recent.between(end_ago + int(CONTEXT_S * STT_RATE), end_ago).copy()
    fade = min(len(head), int(FADE_S * STT_RATE))
    if fade:
        head[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
    return np.concatenate([head, np.zeros(int(PAUSE_S * STT_RATE), dtype=np.float32)])
