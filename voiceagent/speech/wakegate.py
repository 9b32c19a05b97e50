"""The wake-word gate: the per-block step between echo cancellation and the utterance cutter.

Only audio heard after the wake word (or inside a follow-up window the kiosk opened) reaches
the cutter; everything else reaches it as silence, so Whisper never runs on audio that was
not addressed to the assistant, and the cutter's pre-roll never holds stale audio. The
detector fires a little after the word ends, often inside the request's first word when it
is said in one breath; the gate keeps the last seconds of audio, so the cutter hears the
request from where the wake word ended (`ended_ago`), minus any silence before it, and from
then on that much late: never the wake word's own sound, never without the first word. While the
assistant speaks (with echo cancellation on), the gate also watches for short utterances of
its own — "stop", "cancel" — and hands them to `on_short` for a quick check, without ever
letting them into the cutter. Blocks in, blocks out: no devices, no threads.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import Protocol

import numpy as np

from voiceagent.audio import STT_RATE, Audio
from voiceagent.speech.cutter import UtteranceCutter
from voiceagent.speech.runon import FRAME, Recent, energy_db
from voiceagent.speech.vad import BLOCK_MS

log = logging.getLogger(__name__)

SHORT_MAX_S = 2.5
"""Longer utterances over the assistant's speech are not stop commands (and not checked)."""
SHORT_SILENCE_MS = 300
"""Silence that ends a short utterance over the assistant's speech: a quick "stop"."""
FAINT_RATIO = 10 ** (15 / 10)
"""Over the assistant's speech, blocks less than 15 dB above the quietest of the last few
seconds (the room's noise floor) are not a person talking to it: the echo canceller's
residue of its own voice sits there, and Whisper would transcribe it."""
FLOOR_BLOCKS = 150
"""Blocks (~5 s) over which the noise floor is the quietest one."""
HISTORY_S = 3.0
"""Audio kept to start the request from where the wake word ended."""
ENDED_AGO = 3 * 512
"""Where the wake word ended when the detector does not say (~0.1 s before it fired)."""
ONSET_DB = 10.0
"""After the wake word, sound this much above the quietest 10 ms is the request starting."""
LEAD_S = 0.1
"""Kept before the request's first loud sound (a soft "f" or "h" comes first)."""
FADE_IN = 80
"""Samples (5 ms) of fade-in where the request's audio starts: no click for the cutter."""


class Detector(Protocol):
    """A wake word detector (speech/wakeword.py): True when the block ended the wake word,
    and then how many samples back the word ended (`ended_ago`)."""

    def __call__(self, block: np.ndarray) -> bool: ...


class WakeGate:
    """Gates mic blocks by the wake word; see the module docstring.

    `wake` is the detector (None: no wake word, every utterance passes while idle);
    `watch` makes a fresh cutter used to tell when speech after the wake word is under way
    and over (so the gate never closes mid-sentence), and one for short utterances.
    """

    def __init__(
        self,
        wake: Detector | None,
        watch: Callable[..., UtteranceCutter],
        *,
        listen_s: float = 5.0,
        on_wake: Callable[[], None] = lambda: None,
        on_short: Callable[[Audio], None] | None = None,
        deaf: Callable[[], bool] = lambda: False,
        echo_only: Callable[[], bool] = lambda: False,
    ) -> None:
        self._wake = wake
        self._watch_factory = watch
        self._listen_blocks = int(listen_s * 1000 / BLOCK_MS)
        self.on_wake = on_wake
        """Called in the reading thread when the wake word fires (barge-in goes here)."""
        self.on_short = on_short
        """Called with each short utterance heard while `busy` (a stop word?)."""
        self._deaf = deaf
        """True while the microphone must be ignored altogether (half duplex, speaking)."""
        self._echo_only = echo_only
        """True when the block just given was little but the speaker's echo (see echo.py):
        the short-utterance check hears it as silence, so the assistant's own words never
        reach it."""
        self._floor: deque[float] = deque(maxlen=FLOOR_BLOCKS)
        self.busy = False
        """The assistant is answering: the cutter hears nothing unless the wake word fires."""
        self._open_blocks: int | None = None
        """Blocks left before an open gate closes if nobody starts speaking; None = closed."""
        self._watch: UtteranceCutter | None = None
        self._short: UtteranceCutter | None = None
        self._history = Recent(HISTORY_S)
        self._late = 0
        """While open after the wake word: how many samples late the cutter hears the
        stream (the request started that far back)."""
        self.wakes = 0
        """How often the wake word fired (for logs and tests)."""

    @property
    def is_open(self) -> bool:
        return self._open_blocks is not None or (self._wake is None and not self.busy)

    def open(self, seconds: float) -> None:
        """Let speech through without the wake word for `seconds` (a follow-up answer)."""
        self._open_blocks = int(seconds * 1000 / BLOCK_MS)
        self._watch = self._watch_factory()
        self._late = 0

    def close(self) -> None:
        """The cutter delivered an utterance: wait for the wake word again."""
        self._open_blocks = None
        self._watch = None
        self._late = 0

    def __call__(self, block: np.ndarray) -> np.ndarray:
        silence = np.zeros_like(block)
        self._history.add(block)
        if self._deaf():
            self._short = None
            return silence
        if self._wake is not None and self._wake(block):
            self.wakes += 1
            log.info("wake word heard%s", " over the answer: interrupting" if self.busy else "")
            self._short = None
            self.open(self._listen_blocks * BLOCK_MS / 1000)
            start = self._request_start(int(getattr(self._wake, "ended_ago", ENDED_AGO)))
            self._late = max(0, start - len(block))
            out = self._late_block(len(block)).copy()
            first = max(0, len(block) - start)  # where the request starts in this block
            out[:first] = 0.0  # the wake word: not heard
            fade = min(FADE_IN, len(out) - first)
            out[first:first + fade] *= np.linspace(0.0, 1.0, fade, dtype=np.float32)
            self.on_wake()
            self._follow(out)
            return out
        if self._open_blocks is not None:
            if self._late:
                block = self._late_block(len(block))
            self._follow(block)
            return block
        if self.busy:
            self._spot_short(block)
            return silence
        return block if self._wake is None else silence

    def _late_block(self, size: int) -> np.ndarray:
        """The `size` samples that ended `_late` samples ago."""
        out = self._history.between(self._late + size, self._late)
        if len(out) < size:  # the stream is younger than that
            out = np.concatenate([np.zeros(size - len(out), dtype=np.float32), out])
        return out

    def _request_start(self, ended_ago: int) -> int:
        """How far back the request starts: where the wake word ended, less the silence
        between them (the cutter then hears it no later than it must)."""
        after = self._history.last(ended_ago)
        db = energy_db(after)
        if len(db) == 0:
            return len(after)
        loud = np.flatnonzero(db > db.min() + ONSET_DB)
        lead = int(LEAD_S * STT_RATE)
        if len(loud) == 0:  # nothing said yet: it will come live
            return min(len(after), FADE_IN)
        return min(len(after), len(after) - int(loud[0]) * FRAME + lead)

    def _follow(self, block: np.ndarray) -> None:
        """Keep the gate open while speech is under way; close it once it ended or if none
        started in time. The watch hears what the cutter hears."""
        assert self._watch is not None and self._open_blocks is not None
        ended = self._watch.push(block) is not None
        if ended:
            self.close()
        elif not self._watch.hearing:
            self._open_blocks -= 1
            if self._open_blocks <= 0:
                log.info("nothing said after the wake word; waiting for it again")
                self.close()

    def _spot_short(self, block: np.ndarray) -> None:
        if self.on_short is None:
            return
        if self._short is None:
            self._short = self._watch_factory(silence_ms=SHORT_SILENCE_MS,
                                              max_utterance_s=SHORT_MAX_S)
        power = float(np.mean(np.square(block)))
        self._floor.append(power)
        faint = power < min(self._floor) * FAINT_RATIO  # hiss, or what is left of its echo
        quiet = faint or self._echo_only()
        utterance = self._short.push(np.zeros_like(block) if quiet else block)
        if utterance is not None and utterance.cut == "silence":
            self.on_short(utterance.audio)
