"""The wake-word gate: the per-block step between echo cancellation and the utterance cutter.

Only audio heard after the wake word (or inside a follow-up window the kiosk opened) reaches
the cutter; everything else reaches it as silence, so Whisper never runs on audio that was
not addressed to the assistant, and the cutter's pre-roll never holds stale audio. While the
assistant speaks (with echo cancellation on), the gate also watches for short utterances of
its own — "stop", "cancel" — and hands them to `on_short` for a quick check, without ever
letting them into the cutter. Blocks in, blocks out: no devices, no threads.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

import numpy as np

from voiceagent.audio import Audio
from voiceagent.speech.cutter import UtteranceCutter
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
REWIND_BLOCKS = 3
"""The wake word fires ~0.2 s after it ends, as the next word may begin: the request starts
this many blocks (~0.1 s) before the firing block's end, so its first sound is not cut."""


class WakeGate:
    """Gates mic blocks by the wake word; see the module docstring.

    `wake` is the detector (None: no wake word, every utterance passes while idle);
    `watch` makes a fresh cutter used to tell when speech after the wake word is under way
    and over (so the gate never closes mid-sentence), and one for short utterances.
    """

    def __init__(
        self,
        wake: Callable[[np.ndarray], bool] | None,
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
        self._recent: deque[np.ndarray] = deque(maxlen=REWIND_BLOCKS)
        """The latest blocks; after a wake-up, the cutter hears them this much late."""
        self._delayed = False
        self.wakes = 0
        """How often the wake word fired (for logs and tests)."""

    @property
    def is_open(self) -> bool:
        return self._open_blocks is not None or (self._wake is None and not self.busy)

    def open(self, seconds: float) -> None:
        """Let speech through without the wake word for `seconds` (a follow-up answer)."""
        self._open_blocks = int(seconds * 1000 / BLOCK_MS)
        self._watch = self._watch_factory()

    def close(self) -> None:
        """The cutter delivered an utterance: wait for the wake word again."""
        self._open_blocks = None
        self._watch = None
        self._delayed = False

    def __call__(self, block: np.ndarray) -> np.ndarray:
        silence = np.zeros_like(block)
        self._recent.append(block)
        if self._deaf():
            self._short = None
            return silence
        if self._wake is not None and self._wake(block):
            self.wakes += 1
            log.info("wake word heard%s", " over the answer: interrupting" if self.busy else "")
            self._short = None
            self.open(self._listen_blocks * BLOCK_MS / 1000)
            self._delayed = True  # from now on the cutter hears the blocks a little late
            self.on_wake()
            return self._recent[0]
        if self._open_blocks is not None:
            self._follow(block)
            return self._recent[0] if self._delayed else block
        if self.busy:
            self._spot_short(block)
            return silence
        return block if self._wake is None else silence

    def _follow(self, block: np.ndarray) -> None:
        """Keep the gate open while speech is under way; close it once it ended or if none
        started in time."""
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
