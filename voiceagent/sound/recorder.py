"""The microphone: one utterance at a time (push-to-talk) or a stream of them (kiosk).

The PortAudio callback only copies each 512-sample block to a queue (slow callbacks lose
audio silently); everything else — level meter, VAD, end-of-speech — runs in the reading
thread. Sounds that never reach the minimum speech length come back as empty audio, so noise
never reaches the language model.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from voiceagent.audio import STT_RATE, Audio
from voiceagent.config import AudioConfig
from voiceagent.errors import DeviceError
from voiceagent.sound import devices
from voiceagent.speech.vad import BLOCK, BLOCK_MS, Endpointer, Event, SileroVAD

log = logging.getLogger(__name__)

PREROLL_MS = 300
"""Audio kept from before the first speech block, so the first syllable is not clipped."""
TAIL_MS = 300
"""Silence kept after the last speech block; the rest of the silence window is dropped."""
STALL_S = 2.0
"""No block for this long means the device has gone away."""
_PREROLL_BLOCKS = int(PREROLL_MS / BLOCK_MS)
_QUEUE_BLOCKS = int(60_000 / BLOCK_MS)
"""A minute of audio may wait unread (while the kiosk loop is busy answering)."""


class StreamLost(DeviceError):
    """The input stream stopped delivering audio (device unplugged, sound server gone)."""


class _BlockStream:
    """A sounddevice InputStream delivering float32 16 kHz mono blocks of BLOCK samples.

    A device that refuses 16 kHz is opened at its own rate and each block resampled.
    """

    def __init__(self, device: str | int) -> None:
        sd = devices.sounddevice()
        self.device = devices.resolve(device, "input")
        self.queue: queue.Queue[np.ndarray] = queue.Queue(maxsize=_QUEUE_BLOCKS)
        self.dropped = 0
        """Blocks lost because nobody read the queue for a minute."""
        self._rate = STT_RATE
        try:
            self._stream = self._open(sd, STT_RATE)
        except sd.PortAudioError:
            self._rate = int(self.device.default_rate)
            with devices.portaudio_errors(f"opening microphone {self.device.name!r}"):
                self._stream = self._open(sd, self._rate)
        with devices.portaudio_errors(f"starting microphone {self.device.name!r}"):
            self._stream.start()
        self._last_block = time.monotonic()

    def _open(self, sd: Any, rate: int) -> Any:
        return sd.InputStream(samplerate=rate, channels=1, dtype="float32",
                              blocksize=round(BLOCK * rate / STT_RATE),
                              device=self.device.index, callback=self._callback)

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        try:
            self.queue.put_nowait(indata[:, 0].copy())
        except queue.Full:
            self.dropped += 1

    def read(self, timeout: float = 0.1) -> np.ndarray | None:
        """The next block, or None if none came within `timeout`; StreamLost if it stalled."""
        try:
            block = self.queue.get(timeout=timeout)
        except queue.Empty:
            if time.monotonic() - self._last_block > STALL_S or not self._stream.active:
                raise StreamLost(f"microphone {self.device.name!r} stopped delivering "
                                 "audio") from None
            return None
        self._last_block = time.monotonic()
        if self._rate != STT_RATE:
            block = Audio(block, self._rate).resampled(STT_RATE).samples
            block = np.resize(block, BLOCK)
        return block

    def drain(self, keep: int = 0) -> list[np.ndarray]:
        """Throw away queued blocks except the newest `keep`, which are returned."""
        kept: deque[np.ndarray] = deque(maxlen=keep or None)
        while True:
            try:
                kept.append(self.queue.get_nowait())
            except queue.Empty:
                break
        return list(kept) if keep else []

    def close(self) -> None:
        try:
            self._stream.abort()
            self._stream.close()
        except Exception as exc:  # a dead device may fail to close; nothing left to save
            log.debug("closing the input stream failed: %s", exc)


class MicRecorder:
    """The Recorder port on a real microphone, with Silero VAD end-of-speech detection.

    Use either record() (one utterance per call) or utterances() (kiosk), not both at once.
    """

    def __init__(self, config: AudioConfig, *,
                 on_level: Callable[[float], None] | None = None) -> None:
        self._config = config
        self._on_level = on_level
        self._vad = SileroVAD()
        self._stream: _BlockStream | None = None
        self._paused = threading.Event()

    # -- push-to-talk / one utterance ---------------------------------------------------------

    def record(self, stop: threading.Event | None = None, *, end_on_silence: bool = True) -> Audio:
        """One utterance: ends on `stop` (key release), VAD end of speech or the length cap.

        Empty audio means nothing but silence or noise was heard. Without `stop`, gives up
        after `listen_timeout_s` with no speech. With `end_on_silence=False` (press-to-start,
        press-to-stop) pauses do not end it: everything until `stop` is kept.
        """
        timeout = self._config.listen_timeout_s if stop is None else None
        if self._stream is not None:  # start from now, with a little of just before
            recent = self._stream.drain(keep=_PREROLL_BLOCKS)
            return self._listen(self._stream, stop, timeout, recent, end_on_silence)
        stream = _BlockStream(self._config.input_device)
        try:
            return self._listen(stream, stop, timeout, [], end_on_silence)
        finally:
            stream.close()

    # -- kiosk / continuous -------------------------------------------------------------------

    def utterances(self, stop: threading.Event) -> Iterator[Audio]:
        """Utterances from one long-lived stream until `stop` is set; noise is skipped.

        If the device fails, the stream is reopened (once a second) until it comes back.
        """
        failing = False
        while not stop.is_set():
            try:
                self.open()
                assert self._stream is not None
                if failing:
                    log.warning("microphone %r is back", self._stream.device.name)
                    failing = False
                audio = self._listen(self._stream, stop, None, [])
            except DeviceError as exc:
                # Said once; then retried quietly every second until the device is back.
                (log.debug if failing else log.warning)("%s (retrying every second)", exc)
                failing = True
                self.close()
                stop.wait(1.0)
                if not stop.is_set():
                    self._rescan()
                continue
            if audio.seconds > 0:
                yield audio
        self.close()

    def pause(self) -> None:
        """Ignore the microphone (half duplex: while the assistant speaks)."""
        self._paused.set()

    def resume(self) -> None:
        """Listen again; whatever was captured while paused is thrown away."""
        if self._stream is not None:
            self._stream.drain()
        self._paused.clear()

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.pause()
        try:
            yield
        finally:
            self.resume()

    def open(self) -> None:
        """Keep one input stream open across record() calls (a no-op if already open)."""
        if self._stream is None:
            self._stream = _BlockStream(self._config.input_device)

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

    def _listen(self, stream: _BlockStream, stop: threading.Event | None,
                timeout_s: float | None, recent: list[np.ndarray],
                end_on_silence: bool = True) -> Audio:
        """Read blocks until an utterance ends; empty audio for none."""
        cfg = self._config
        self._vad.reset()
        endpointer = Endpointer(cfg.vad_threshold, cfg.silence_ms, cfg.min_speech_ms)
        preroll: deque[np.ndarray] = deque(recent, maxlen=_PREROLL_BLOCKS)
        blocks: list[np.ndarray] = []
        max_blocks = int(cfg.max_utterance_s * 1000 / BLOCK_MS)
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        heard = False  # without end_on_silence: speech was heard at some point
        while not (stop is not None and stop.is_set()):
            if deadline is not None and not endpointer.hearing and time.monotonic() > deadline:
                log.info("no speech within %.0f s", timeout_s)
                return Audio.silence(0)
            block = stream.read()
            if block is None:
                continue
            if self._paused.is_set():  # start afresh once resumed
                endpointer.reset()
                self._vad.reset()
                blocks.clear()
                preroll.clear()
                continue
            if self._on_level is not None:
                self._on_level(float(np.sqrt(np.mean(np.square(block)))))
            was_hearing = endpointer.hearing
            event = endpointer.push(self._vad(block))
            if not end_on_silence:  # keep it all; the transcriber's VAD trims the silence
                heard = heard or endpointer.hearing
                blocks.append(block)
                if len(blocks) >= max_blocks:
                    log.info("recording cut at max_utterance_s = %s", cfg.max_utterance_s)
                    return _join(blocks) if heard else Audio.silence(0)
                continue
            if endpointer.hearing and not was_hearing:
                blocks = [*preroll]
            if was_hearing or endpointer.hearing:
                blocks.append(block)
            else:
                preroll.append(block)
            if event is Event.ENDED:
                drop = int((cfg.silence_ms - TAIL_MS) / BLOCK_MS)
                return _join(blocks[: len(blocks) - max(drop, 0)])
            if event is Event.DISCARDED:
                log.debug("ignored %.2f s of sound shorter than min_speech_ms",
                          len(blocks) * BLOCK_MS / 1000)
                blocks = []
            if endpointer.started and len(blocks) >= max_blocks:
                log.info("utterance cut at max_utterance_s = %s", cfg.max_utterance_s)
                return _join(blocks)
        # Stopped (key released): keep what was said if it counts as speech.
        if heard:
            return _join([*preroll, *blocks])
        if endpointer.started:
            return _join(blocks)
        return Audio.silence(0)

    def _rescan(self) -> None:
        try:
            devices.rescan()
        except DeviceError as exc:
            log.debug("%s", exc)


def _join(blocks: list[np.ndarray]) -> Audio:
    if not blocks:
        return Audio.silence(0)
    return Audio(np.concatenate(blocks).astype(np.float32), STT_RATE)
