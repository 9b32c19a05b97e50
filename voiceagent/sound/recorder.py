"""The microphone: one utterance at a time (push-to-talk) or a stream of them (kiosk).

The block path, in order:

    device (any rate) ─▶ PortAudio callback: copy + "paused?" tag into a queue
      ─▶ soxr streaming resampler ─▶ 512-sample 16 kHz blocks (sound/mic_stream.py)
      ─▶ MicRecorder.processors, in list order ─▶ level meter ─▶ UtteranceCutter (VAD)
      ─▶ at each short pause, the words so far and the turn model judge how long it may last
         (speech/drafts.py)

`processors` is the seam for per-block work such as echo cancellation on the mic signal or a
wake-word gate: each is a callable taking one float32 block of BLOCK samples at 16 kHz and
returning the block to pass on (changed or not) or None to withhold it from the cutter. They
see every block in capture order, also while paused (an echo canceller must keep adapting,
a wake word may be said over the assistant); `recorder.is_paused` tells which is which.
Append to the list before listening starts.

The PortAudio callback only queues blocks (slow callbacks lose audio silently); everything
else runs in the reading thread. Blocks captured while paused (half duplex: the assistant is
speaking) still go through the cutter: speech that starts there is not answered, but it is
logged and handed to `on_ignored` (a kiosk can play a short "I could not listen" sound), so
a request never vanishes without a trace. Sounds that never reach the minimum speech length
come back as empty audio, so noise never reaches the language model.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from voiceagent.audio import Audio
from voiceagent.config import AudioConfig
from voiceagent.errors import DeviceError
from voiceagent.sound import devices
from voiceagent.sound.mic_stream import Block, BlockSource, MicStream
from voiceagent.speech.cutter import Utterance, UtteranceCutter
from voiceagent.speech.drafts import Drafts, Verdict
from voiceagent.speech.vad import BLOCK_MS, SileroVAD

log = logging.getLogger(__name__)

BlockProcessor = Callable[[np.ndarray], "np.ndarray | None"]
"""Per-block work before the cutter (see the module docstring); None withholds the block."""


class MicRecorder:
    """The Recorder port on a real microphone, cut into utterances by UtteranceCutter.

    Use either record() (one utterance per call) or utterances() (kiosk), not both at once.
    `source` replaces the device (testing.FakeBlockSource); it is given the pause flag.
    """

    def __init__(
        self,
        config: AudioConfig,
        *,
        on_level: Callable[[float], None] | None = None,
        on_ignored: Callable[[Utterance], None] | None = None,
        processors: list[BlockProcessor] | None = None,
        source: Callable[[threading.Event], BlockSource] | None = None,
    ) -> None:
        self._config = config
        self._on_level = on_level
        self.on_ignored = on_ignored
        """Called with each utterance that began while paused (it is not answered)."""
        self.processors: list[BlockProcessor] = list(processors or [])
        """Per-block work before the cutter, in order (see the module docstring)."""
        self._open_source = source or (lambda paused: MicStream(config.input_device, paused))
        self._vad = SileroVAD()
        self.drafts: Drafts | None = None
        """Set once speech recognition is loaded: pauses are then judged (drafts.py)."""
        self._draft_ms = 200.0
        """How long a judgement takes, in stream time (moving average)."""
        self._open = False
        """The last pause judged was open, with words heard (its transcript may start once
        the pause has lasted what the utterance keeps of it)."""
        self._stream: BlockSource | None = None
        self._paused = threading.Event()

    # -- push-to-talk / one utterance ---------------------------------------------------------

    def record(self, stop: threading.Event | None = None, *, end_on_silence: bool = True) -> Audio:
        """One utterance: ends on `stop` (key release), VAD end of speech or the length cap.

        Empty audio means nothing but silence or noise was heard. Without `stop`, gives up
        after `listen_timeout_s` with no speech. With `end_on_silence=False` (press-to-start,
        press-to-stop) pauses do not end it: everything until `stop` is kept.
        """
        timeout = self._config.listen_timeout_s if stop is None else None
        cutter = self._cutter(keep_all=not end_on_silence)
        if self._stream is not None:  # start from now, with the pre-roll from just before
            recent = self._stream.drain(keep=int(self._config.preroll_ms / BLOCK_MS))
            cutter.prime([b for b, _paused in recent])
            return self._listen(self._stream, stop, timeout, cutter)
        stream = self._open_source(self._paused)
        try:
            return self._listen(stream, stop, timeout, cutter)
        finally:
            stream.close()

    # -- kiosk / continuous -------------------------------------------------------------------

    def utterances(self, stop: threading.Event) -> Iterator[Audio]:
        """Utterances from one long-lived stream until `stop` is set; noise is skipped.

        If the device fails, the stream is reopened (once a second) until it comes back.
        """
        failing = False
        cutter: UtteranceCutter | None = None
        while not stop.is_set():
            try:
                stream = self.open()
                if failing:
                    log.warning("microphone %r is back", stream.name)
                    failing = False
                if cutter is None:
                    cutter = self._cutter()
                audio = self._listen(stream, stop, None, cutter)
            except DeviceError as exc:
                # Said once; then retried quietly every second until the device is back.
                (log.debug if failing else log.warning)("%s (retrying every second)", exc)
                failing = True
                cutter = None
                self.close()
                stop.wait(1.0)
                if not stop.is_set():
                    self._rescan()
                continue
            if audio.seconds > 0:
                yield audio
        self.close()

    def pause(self) -> None:
        """Do not answer the microphone (half duplex: while the assistant speaks)."""
        self._paused.set()

    def resume(self) -> None:
        """Listen again. Speech captured while paused is not answered, only reported."""
        self._paused.clear()

    @property
    def is_paused(self) -> bool:
        return self._paused.is_set()

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.pause()
        try:
            yield
        finally:
            self.resume()

    def open(self) -> BlockSource:
        """Keep one input stream open across record() calls (a no-op if already open)."""
        if self._stream is None:
            self._stream = self._open_source(self._paused)
        return self._stream

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def __enter__(self) -> MicRecorder:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the shared loop ----------------------------------------------------------------------

    def _cutter(self, *, keep_all: bool = False) -> UtteranceCutter:
        self._vad.reset()
        cutter = UtteranceCutter.from_config(self._vad, self._config, keep_all=keep_all)
        cutter.draft_lead_ms = self._draft_ms + BLOCK_MS
        return cutter

    def _listen(self, stream: BlockSource, stop: threading.Event | None,
                timeout_s: float | None, cutter: UtteranceCutter) -> Audio:
        """Read blocks until an utterance ends; empty audio for none."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not (stop is not None and stop.is_set()):
            if deadline is not None and not cutter.hearing and time.monotonic() > deadline:
                log.info("no speech within %.0f s", timeout_s)
                return Audio.silence(0)
            item = stream.read()
            if item is None:
                continue
            utterance = self._feed(cutter, item)
            if utterance is None and self.drafts is not None and cutter.draft_due:
                self._judge(self.drafts, stream, cutter)
            if utterance is None and self._open and cutter.settled_due:
                self._settle(cutter)
            if utterance is not None:
                if not utterance.while_paused:
                    return utterance.audio
                self._ignored(utterance)
        utterance = cutter.finish()  # stopped (key released): keep what counts as speech
        if utterance is None:
            return Audio.silence(0)
        if utterance.while_paused:
            self._ignored(utterance)
            return Audio.silence(0)
        return utterance.audio

    def _feed(self, cutter: UtteranceCutter, item: Block) -> Utterance | None:
        """One block through the processors and the level meter into the cutter."""
        block: np.ndarray | None = item[0]
        for process in self.processors:
            if block is None:
                return None
            block = process(block)
        if block is None:
            return None
        if self._on_level is not None and not item[1]:
            self._on_level(float(np.sqrt(np.mean(np.square(block)))))
        return cutter.push(block, paused=item[1])

    def _judge(self, drafts: Drafts, stream: BlockSource, cutter: UtteranceCutter) -> None:
        """Judge the pause from the utterance so far (speech/drafts.py) and set how long it may
        last; the blocks that arrived meanwhile are read next, as usual, so speech among them
        starts a new pause and the verdict no longer counts."""
        self._open = False
        try:
            draft = drafts.judge(cutter.peek(), short=cutter.short_phrase)
        except Exception as exc:  # e.g. a remote Whisper gone: the silence window decides
            log.debug("judging a pause failed: %s", exc)
            return
        # the judgement's cost in stream time: what the stream captured meanwhile (nothing
        # for a file), so where an utterance ends never depends on how fast this machine is
        took_ms = stream.queued() * BLOCK_MS
        self._draft_ms = 0.7 * self._draft_ms + 0.3 * took_ms  # the next ones start that early
        cutter.draft_lead_ms = self._draft_ms + BLOCK_MS
        self._open = draft.verdict is Verdict.OPEN and bool(draft.text)
        if draft.verdict is Verdict.FINISHED:
            cutter.end_after(self._config.turn_end_ms)
        elif draft.verdict is Verdict.UNFINISHED:
            cutter.hold(self._config.hold_ms)

    def _settle(self, cutter: UtteranceCutter) -> None:
        """A pause judged open has lasted what the utterance keeps of it: have the request's
        transcript started on the utterance as the silence window will hand it over."""
        audio = cutter.settled()
        read_ahead = self.drafts.read_ahead if self.drafts is not None else None
        if read_ahead is not None:
            try:
                read_ahead(audio)
            except Exception:  # a head start only
                log.exception("starting the transcript ahead failed")

    def _ignored(self, utterance: Utterance) -> None:
        log.info("heard %.1f s of speech while the assistant was speaking (half duplex); it "
                 "was not answered", utterance.audio.seconds)
        if self.on_ignored is not None:
            try:
                self.on_ignored(utterance)
            except Exception as exc:  # a failing chime must not stop the listener
                log.warning("on_ignored failed: %s", exc)

    def _rescan(self) -> None:
        try:
            devices.rescan()
        except DeviceError as exc:
            log.debug("%s", exc)
