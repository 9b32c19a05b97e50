"""End-of-speech detection on a live stream, with the Silero VAD shipped inside faster-whisper.

The microphone delivers 512-sample blocks at 16 kHz (~32 ms); `SileroVAD` scores each block
while keeping the model's recurrent state, and `Endpointer` turns the scores into "an
utterance started" / "it ended" decisions with a silence window and a minimum speech length,
so a cough or a door never becomes a request.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from voiceagent.audio import STT_RATE

BLOCK = 512
"""Samples per VAD block at 16 kHz: what Silero VAD is trained on."""
BLOCK_MS = BLOCK * 1000 / STT_RATE
_CONTEXT = 64
"""Silero v5/v6 sees the last 64 samples of the previous block in front of each block."""
STALE_S = 5.0
"""After this long without a block that sounds like speech, the model's recurrent state is
cleared. Left to run over minutes of room noise it drifts deaf: after 2 min of kitchen noise
at 10 dB below a real request, the cutter heard 4 of 15 requests whole, 14 with a fresh state
(docs/endpointing.md, "Two minutes of a room"). pipecat clears it every 5 s for the same
reason; here only between words, so an utterance is never scored across a reset."""
_STALE_BLOCKS = round(STALE_S * STT_RATE / BLOCK)
_SPEECH = 0.5
"""A score from which a block sounds like speech (keeps the state: it is in use)."""


class SileroVAD:
    """Speech probability of consecutive blocks; `reset()` between unrelated streams. The
    state is also cleared after `STALE_S` without speech, so a long stream stays a fresh one."""

    def __init__(self) -> None:
        from faster_whisper.vad import get_vad_model  # heavy: onnxruntime

        self._session = get_vad_model().session
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(_CONTEXT, dtype=np.float32)
        self._quiet = 0
        """Blocks in a row that did not sound like speech."""

    def __call__(self, block: np.ndarray) -> float:
        """The probability (0..1) that this 512-sample, 16 kHz block holds speech."""
        block = np.asarray(block, dtype=np.float32).reshape(-1)
        if len(block) != BLOCK:
            raise ValueError(f"VAD blocks must be {BLOCK} samples, got {len(block)}")
        if not block.any():
            # Digital silence (a wake gate's closed output, an idle sink) is never speech, and
            # a minute of it left the model's state deaf to the next request: skip the model.
            self._context = block[-_CONTEXT:]
            return self._scored(0.0)
        x = np.concatenate([self._context, block])[None, :]
        out, self._h, self._c = self._session.run(
            None, {"input": x, "h": self._h, "c": self._c}
        )
        self._context = block[-_CONTEXT:]
        return self._scored(float(np.ravel(out)[0]))

    def _scored(self, probability: float) -> float:
        """Count quiet blocks; clear the recurrent state once they add up to `STALE_S`."""
        self._quiet = 0 if probability >= _SPEECH else self._quiet + 1
        if self._quiet >= _STALE_BLOCKS:
            self._h = np.zeros_like(self._h)
            self._c = np.zeros_like(self._c)
            self._quiet = 0
        return probability


class Event(Enum):
    """What one block changed."""

    NONE = "none"
    STARTED = "started"
    """Enough speech was heard: this is an utterance (not noise)."""
    ENDED = "ended"
    """The utterance ended: silence for the whole window after speech."""
    DISCARDED = "discarded"
    """A short sound that never reached the minimum speech length; forget it."""


RESUME_MS = 96
"""After a pause starts, speech resumes only after this much speech in a row; shorter blips
(a clatter, a breath, Silero's last flickers as it leaves a word in room noise) are silence."""
_RESUME_BLOCKS = round(RESUME_MS / BLOCK_MS)


@dataclass
class Endpointer:
    """Turns per-block speech probabilities into utterance start and end decisions."""

    threshold: float = 0.5
    """Probability from which a block counts as speech."""
    silence_ms: int = 700
    """This much silence after speech ends the utterance."""
    min_speech_ms: int = 250
    """Less speech than this in total is noise."""
    pause_grace_ms: int = 0
    """Added to the silence window while the speech so far is shorter than `short_phrase_ms`:
    a name or wake word followed by a pause ("Picovoice, make me a coffee") is not the end."""
    short_phrase_ms: int = 1000
    """Speech shorter than this so far still gets the pause grace."""

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.speech_ms = 0.0
        """Speech heard so far in the current candidate utterance."""
        self.silent_ms = 0.0
        """Silence since the last speech block (blips that did not resume speech count)."""
        self.pending = 0
        """Speech blocks in a row during a pause, not yet enough to resume speech."""
        self.started = False
        """True once the candidate counts as an utterance."""
        self.held_ms = 0.0
        """Added to the window for this pause only (the words so far sound unfinished)."""
        self.end_ms: float | None = None
        """This pause's window when the words so far were heard as finished."""

    @property
    def hearing(self) -> bool:
        """Some speech has been heard and not yet discarded or ended."""
        return self.speech_ms > 0

    @property
    def short(self) -> bool:
        """The speech so far is a short first phrase (it may be a name) that gets the grace."""
        return self.pause_grace_ms > 0 and self.speech_ms < self.short_phrase_ms

    @property
    def window_ms(self) -> float:
        """Silence that ends the utterance now: longer after only a short phrase."""
        if self.end_ms is not None:
            return self.end_ms
        grace = self.pause_grace_ms if self.short else 0
        return self.silence_ms + grace + self.held_ms

    def push(self, probability: float) -> Event:
        speaking = probability >= self.threshold
        if self.hearing and self.silent_ms == 0 and self.pending == 0:
            # Hysteresis as in Silero's own iterator: leaving speech needs a lower score.
            speaking = probability >= self.threshold - 0.15
        if speaking and self.hearing and self.silent_ms > 0:
            self.pending += 1  # a pause: speech resumes only after RESUME_MS of it in a row
            if self.pending < _RESUME_BLOCKS:
                return Event.NONE
        if speaking:
            self.speech_ms += BLOCK_MS * max(1, self.pending)
            self.silent_ms = 0.0
            self.pending = 0
            self.held_ms = 0.0
            self.end_ms = None
            if not self.started and self.speech_ms >= self.min_speech_ms:
                self.started = True
                return Event.STARTED
            return Event.NONE
        if not self.hearing:
            return Event.NONE
        self.silent_ms += BLOCK_MS * (1 + self.pending)  # the blip was part of the pause
        self.pending = 0
        if self.silent_ms < self.window_ms:
            return Event.NONE
        event = Event.ENDED if self.started else Event.DISCARDED
        self.reset()
        return event
