"""Cutting a stream of 16 kHz blocks into utterances: blocks in, utterances out, no devices.

The microphone (sound/recorder.py) feeds every 512-sample block to `UtteranceCutter.push`,
which scores it with the VAD and returns an `Utterance` when one ends. Choices measured on
piper speech made soft (down to -26 dB with a 0.6 s fade-in) with Silero v6:

- The onset is the first block over the threshold, moved back over the blocks just before it
  that already score above `ONSET_THRESHOLD` (a soft "f", "s" or "h" scores 0.15-0.5), and
  `preroll_ms` more is kept before that: Silero reached 0.5 up to 450 ms after a soft start.
- A pause does not end the utterance until `silence_ms` of silence; while less than
  `SHORT_PHRASE_MS` of speech has been heard (a name or wake word: "Picovoice, make me a large
  coffee"), the window is `pause_grace_ms` longer. Speech in the window (`vad.RESUME_MS` of it
  in a row: shorter blips of room noise are part of the pause) starts it again.
- `max_utterance_s` cuts a monologue; only `TAIL_MS` of the closing silence is kept.
- With `turn_ms`, once per pause (a judgement's duration before `turn_ms` of silence, so it is
  ready by then) `draft_due` is true: the listener judges `peek()` (the utterance so far:
  speech/drafts.py) while it keeps listening, and sets this pause's window: `end_after(turn_ms)`
  when the turn is finished, `hold(ms)` longer when it is not, else the usual window. Speech
  before the window is over starts a new pause and a new judgement. An utterance cut early
  at a pause judged finished is exactly the audio judged then (the rest is that pause's
  silence); and once a pause has lasted `TAIL_MS`, `settled()` is what the usual window will
  hand over if no speech comes: so a transcript started on either (speech/read_ahead.py) is
  the utterance's own.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from voiceagent.audio import STT_RATE, Audio
from voiceagent.config import AudioConfig
from voiceagent.speech.vad import BLOCK_MS, Endpointer, Event

log = logging.getLogger(__name__)

ONSET_THRESHOLD = 0.15
"""Blocks scoring this much right before the speech onset are its soft start."""
TAIL_MS = 300
"""Silence kept after the last speech block; the rest of the silence window is dropped."""
SHORT_PHRASE_MS = 1000
"""Less speech than this so far gets the longer pause window (`pause_grace_ms`)."""
MIN_DRAFT_MS = 150
"""No draft before this much silence: the VAD's score of a word's last sound lags a little."""
_MAX_ONSET_BLOCKS = int(1000 / BLOCK_MS)
"""How far back a soft start is followed (besides the pre-roll)."""


@dataclass(frozen=True)
class Utterance:
    """One utterance cut from the stream."""

    audio: Audio
    """16 kHz mono: pre-roll, the speech, and a short tail of silence."""
    while_paused: bool = False
    """Its speech began in a block marked paused (the assistant was speaking)."""
    cut: str = "silence"
    """Why it ended: "silence", "turn" (heard as finished: the pause was shortened), "max"
    (max_utterance_s) or "stop" (finish() was called)."""


class UtteranceCutter:
    """Turns consecutive 512-sample 16 kHz blocks into utterances (see module docstring).

    With `keep_all` (press-to-start, press-to-stop) pauses never end it: every block is kept
    until finish() or the length cap, and returned if any speech was heard.
    """

    def __init__(
        self,
        vad: Callable[[np.ndarray], float],
        *,
        threshold: float = 0.5,
        silence_ms: int = 700,
        min_speech_ms: int = 250,
        max_utterance_s: float = 15.0,
        preroll_ms: int = 600,
        pause_grace_ms: int = 500,
        turn_ms: int = 0,
        keep_all: bool = False,
    ) -> None:
        self._vad = vad
        self._turn_ms = turn_ms
        self.draft_lead_ms = 200.0
        """How long a judgement takes here (the listener measures it): it starts that early."""
        self._endpointer = Endpointer(threshold, silence_ms, min_speech_ms,
                                      pause_grace_ms=pause_grace_ms,
                                      short_phrase_ms=SHORT_PHRASE_MS)
        self._preroll = int(preroll_ms / BLOCK_MS)
        self._max_blocks = max(1, int(max_utterance_s * 1000 / BLOCK_MS))
        self._keep_all = keep_all
        self._history: deque[tuple[np.ndarray, float, bool]] = deque(
            maxlen=self._preroll + _MAX_ONSET_BLOCKS + 1)
        self.reset()

    @classmethod
    def from_config(cls, vad: Callable[[np.ndarray], float], config: AudioConfig, *,
                    keep_all: bool = False) -> UtteranceCutter:
        return cls(vad, threshold=config.vad_threshold, silence_ms=config.silence_ms,
                   min_speech_ms=config.min_speech_ms, max_utterance_s=config.max_utterance_s,
                   preroll_ms=config.preroll_ms, pause_grace_ms=config.pause_grace_ms,
                   turn_ms=config.turn_end_ms, keep_all=keep_all)

    def reset(self) -> None:
        """Forget everything (a new stream; the VAD's own state is the caller's)."""
        self._endpointer.reset()
        self._history.clear()
        self._blocks: list[np.ndarray] = []
        self._trailing = 0
        self._onset_paused = False
        self._heard = False
        self._drafted = -1.0
        self._peeked = 0
        self._settled = -1.0

    @property
    def hearing(self) -> bool:
        """Speech is under way (not yet ended or discarded)."""
        return self._endpointer.hearing

    @property
    def draft_due(self) -> bool:
        """The utterance has paused for `draft_lead_ms` less than `turn_ms` (so a judgement
        is ready by then; never before MIN_DRAFT_MS) and this pause is not judged yet."""
        ep = self._endpointer
        return (self._turn_ms > 0 and not self._keep_all and ep.started
                and not self._onset_paused and ep.pending == 0
                and ep.silent_ms >= max(MIN_DRAFT_MS, self._turn_ms - self.draft_lead_ms)
                and self._drafted != ep.speech_ms)

    @property
    def settled_due(self) -> bool:
        """This pause has lasted `TAIL_MS` (what the utterance keeps of it) and `settled()`
        was not taken in it yet."""
        ep = self._endpointer
        return (not self._keep_all and ep.started and ep.pending == 0
                and self._trailing >= int(TAIL_MS / BLOCK_MS) and self._settled != ep.speech_ms)

    def settled(self) -> Audio:
        """The utterance as the usual silence window will end it if no speech comes."""
        self._settled = self._endpointer.speech_ms
        return Audio(np.concatenate(self._kept()).astype(np.float32), STT_RATE)

    @property
    def short_phrase(self) -> bool:
        """Only a short first phrase has been heard (it may be a name: it gets the grace)."""
        return self._endpointer.short

    def peek(self) -> Audio:
        """The utterance so far, to judge; marks this pause as judged."""
        self._drafted = self._endpointer.speech_ms
        kept = self._kept()
        self._peeked = len(kept)
        return Audio(np.concatenate(kept).astype(np.float32), STT_RATE)

    def end_after(self, ms: float) -> None:
        """End at `ms` of silence in this pause (its words were heard as finished)."""
        self._endpointer.end_ms = ms

    def hold(self, ms: float) -> None:
        """Wait `ms` longer than usual in this pause (the words so far are unfinished)."""
        self._endpointer.held_ms = ms

    def prime(self, blocks: list[np.ndarray]) -> None:
        """Blocks from just before listening started: pre-roll only, never scored."""
        for block in blocks:
            self._history.append((block, 0.0, False))
        if self._keep_all:
            self._blocks.extend(blocks)

    def push(self, block: np.ndarray, *, paused: bool = False) -> Utterance | None:
        """Score one block; the finished utterance if this block ended one."""
        probability = self._vad(block)
        self._history.append((block, probability, paused))
        ep = self._endpointer
        was_hearing, shortened = ep.hearing, ep.end_ms is not None
        judged = self._judged_last()
        event = ep.push(probability)
        if self._keep_all:
            self._blocks.append(block)
            if ep.hearing and not self._heard:
                self._heard, self._onset_paused = True, paused
            if len(self._blocks) >= self._max_blocks:
                log.info("recording cut at max_utterance_s")
                if self._heard:
                    return self._take("max")
                self._drop()
            return None
        if ep.hearing and not was_hearing:
            self._blocks = self._onset()
            self._onset_paused = paused
            self._trailing = 0
        elif was_hearing:
            self._blocks.append(block)
            self._trailing = self._trailing + 1 if ep.silent_ms > 0 or not ep.hearing else 0
        if event is Event.ENDED:
            self._blocks = self._blocks[:self._peeked] if judged and shortened else self._kept()
            return self._take("turn" if shortened else "silence")
        if event is Event.DISCARDED:
            log.debug("ignored %.2f s of sound shorter than min_speech_ms",
                      len(self._blocks) * BLOCK_MS / 1000)
            self._blocks = []
        if ep.started and len(self._blocks) >= self._max_blocks:
            log.info("utterance cut at max_utterance_s")
            return self._take("max")
        return None

    def finish(self) -> Utterance | None:
        """The stream stops here (key released): what was said, if it counts as speech."""
        if self._keep_all and self._heard:
            return self._take("stop")
        if not self._keep_all and self._endpointer.started:
            return self._take("stop")
        self._drop()
        return None

    def _onset(self) -> list[np.ndarray]:
        """The blocks from the soft start of the speech, with the pre-roll before it."""
        history = list(self._history)
        first = len(history) - 1
        while first > 0 and history[first - 1][1] >= ONSET_THRESHOLD:
            first -= 1
        return [b for b, _p, _paused in history[max(0, first - self._preroll):]]

    def _judged_last(self) -> bool:
        """No speech came after the last judged pause (cut there, it ends as judged)."""
        ep = self._endpointer
        return self._peeked > 0 and ep.hearing and self._drafted == ep.speech_ms

    def _kept(self) -> list[np.ndarray]:
        """The blocks without the closing silence beyond `TAIL_MS`."""
        keep = len(self._blocks) - max(0, self._trailing - int(TAIL_MS / BLOCK_MS))
        return self._blocks[:keep]

    def _take(self, cut: str) -> Utterance:
        audio = Audio(np.concatenate(self._blocks).astype(np.float32), STT_RATE)
        utterance = Utterance(audio, self._onset_paused, cut)
        self._drop()
        return utterance

    def _drop(self) -> None:
        self._endpointer.reset()
        self._blocks = []
        self._trailing = 0
        self._onset_paused = False
        self._heard = False
        self._drafted = -1.0
        self._peeked = 0
        self._settled = -1.0
