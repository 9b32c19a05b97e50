"""The microphone as a stream of 16 kHz blocks: the sounddevice input behind the recorder.

The PortAudio callback only copies each block into a queue with its "paused?" tag (slow
callbacks lose audio silently); resampling and re-cutting into BLOCK-sample blocks happen in
the thread that reads. `BlockSource` is what the recorder reads from: this stream, a hub
satellite (hub/stream.py) or testing.FakeBlockSource.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from typing import Any, Protocol

import numpy as np

from voiceagent.audio import STT_RATE, Reblocker, Resampler
from voiceagent.errors import DeviceError
from voiceagent.sound import devices
from voiceagent.sound.bounded import bounded, forget_portaudio_at_exit
from voiceagent.speech.vad import BLOCK, BLOCK_MS

log = logging.getLogger(__name__)

STALL_S = 2.0
"""No block for this long means the device has gone away."""
CLOSE_S = 5.0
"""How long closing a stream may take before it is left to itself."""
QUEUE_BLOCKS = int(60_000 / BLOCK_MS)
"""A minute of audio may wait unread (while the kiosk loop is busy answering)."""

Block = tuple[np.ndarray, bool]
"""One 512-sample 16 kHz block and whether it was captured while the listener was paused."""


class BlockSource(Protocol):
    """Where blocks come from: MicStream, a hub satellite or testing.FakeBlockSource."""

    name: str

    def read(self, timeout: float = 0.1) -> Block | None:
        """The next block, None if none came within `timeout`; StreamLost if it stalled."""
        ...

    def drain(self, keep: int = 0) -> list[Block]:
        """Throw away what is queued except the newest `keep` blocks, which are returned."""
        ...

    def queued(self) -> int:
        """Blocks captured but not read yet: how far the reader lags behind the stream. The
        listener measures its own work (a draft) in these, so what it decides depends on the
        audio, never on the speed of the machine (a file source queues nothing)."""
        ...

    def close(self) -> None: ...


class StreamLost(DeviceError):
    """The input stream stopped delivering audio (device unplugged, sound server gone)."""


class MicStream:
    """A sounddevice InputStream delivering 16 kHz mono blocks of BLOCK samples.

    A device that refuses 16 kHz is opened at its own rate; one soxr stream resamples all of
    its blocks (state kept across them) and the output is re-cut into BLOCK-sample blocks.
    """

    def __init__(self, device: str | int, paused: threading.Event) -> None:
        sd = devices.sounddevice()
        self.device = devices.resolve(device, "input")
        self.name = self.device.name
        self._paused = paused
        self.queue: queue.Queue[Block] = queue.Queue(maxsize=QUEUE_BLOCKS)
        self.dropped = 0
        """Blocks lost because nobody read the queue for a minute."""
        self._rate = STT_RATE
        self._reblock = Reblocker(BLOCK)
        self._ready: deque[Block] = deque()
        self._stream, self._rate = bounded(lambda: self._start(sd),
                                           f"starting microphone {self.name!r}",
                                           discard=lambda started: _close_stream(started[0]))
        self._resample = Resampler(self._rate, STT_RATE) if self._rate != STT_RATE else None
        self._last_block = time.monotonic()

    def _start(self, sd: Any) -> tuple[Any, int]:
        """The stream, open and started, and its rate: 16 kHz or the device's own."""
        rate = STT_RATE
        try:
            stream = self._open(sd, rate)
        except sd.PortAudioError:
            rate = int(self.device.default_rate)
            with devices.portaudio_errors(f"opening microphone {self.name!r}"):
                stream = self._open(sd, rate)
        with devices.portaudio_errors(f"starting microphone {self.name!r}"):
            stream.start()
        return stream, rate

    def _open(self, sd: Any, rate: int) -> Any:
        return sd.InputStream(samplerate=rate, channels=1, dtype="float32",
                              blocksize=round(BLOCK * rate / STT_RATE),
                              device=self.device.index, callback=self._callback)

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        try:
            self.queue.put_nowait((indata[:, 0].copy(), self._paused.is_set()))
        except queue.Full:
            self.dropped += 1

    def _convert(self, raw: Block) -> None:
        samples, paused = raw
        if self._resample is not None:
            samples = self._resample(samples)
        self._ready.extend((b, paused) for b in self._reblock(samples))

    def read(self, timeout: float = 0.1) -> Block | None:
        while not self._ready:
            try:
                raw = self.queue.get(timeout=timeout)
            except queue.Empty:
                if time.monotonic() - self._last_block > STALL_S or not self._stream.active:
                    raise StreamLost(f"microphone {self.name!r} stopped delivering "
                                     "audio") from None
                return None
            self._last_block = time.monotonic()
            self._convert(raw)
        return self._ready.popleft()

    def queued(self) -> int:
        return self.queue.qsize() + len(self._ready)

    def drain(self, keep: int = 0) -> list[Block]:
        while True:
            try:
                self._convert(self.queue.get_nowait())
            except queue.Empty:
                break
        kept = list(self._ready)[-keep:] if keep else []
        self._ready.clear()
        return kept

    def close(self) -> None:
        """Stop and release the stream, waiting at most CLOSE_S: on a sound server that
        died under it, PortAudio's abort can wait for ever on its audio thread, and a kiosk
        must still reopen its microphone, or exit when told to."""
        closer = threading.Thread(target=self._close, name="mic-close", daemon=True)
        closer.start()
        closer.join(CLOSE_S)
        if closer.is_alive():
            log.warning("microphone %r did not close within %.0f s; left behind",
                        self.name, CLOSE_S)
            forget_portaudio_at_exit()

    def _close(self) -> None:
        _close_stream(self._stream)


def _close_stream(stream: Any) -> None:
    try:
        stream.abort()
        stream.close()
    except Exception as exc:  # a dead device may fail to close; nothing left to save
        log.debug("closing the input stream failed: %s", exc)

