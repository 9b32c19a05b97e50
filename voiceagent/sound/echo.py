"""Echo cancellation: take what the speaker played out of what the microphone hears.

The player hands every buffer it plays to `Reference.played` with PortAudio's time at which
it reaches the speaker (the reverse stream); `EchoCanceller` looks up what was playing when
each microphone block was captured and gives both to WebRTC's AEC3 (`pywebrtc-audio`, wheels
for x86-64 and aarch64), which learns the room's echo path and subtracts it. Input and output
streams share PortAudio's clock, so the two line up within a few ms; AEC3's own delay
estimator absorbs the acoustic path and the rest, as long as the far end comes first — so
the far end is handed over `LEAD_MS` early.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

import numpy as np

from voiceagent.audio import STT_RATE, Resampler
from voiceagent.errors import ConfigError

log = logging.getLogger(__name__)

LEAD_MS = 40
"""The far end is given this much ahead of the capture time, so it never arrives after its
echo (AEC3 cannot cancel an echo of audio it has not seen yet)."""
KEEP_S = 8
"""Seconds of played audio kept for lookup (a microphone backlog older than this has lost its
echo reference; it is cancelled as if nothing had played)."""
BURST_BLOCKS = 5
"""This many blocks in a row read later than their count says is a burst (see _capture_time)."""
ECHO_ONLY_RATIO = 10 ** (-6 / 10)
"""Cancelling took away more than 6 dB: the block was mostly echo (a person talking over
it keeps their own level)."""
SLACK_S = 1.0
"""The counted capture time may trail even the quickest read of the last LAG_BLOCKS by this
much before it is taken as lost blocks or clock drift (a reader that falls behind under load
is not a reason: its blocks still carry their own times)."""
LAG_BLOCKS = 900
"""Reads (~30 s) over which the quickest one is taken."""
STATS_BLOCKS = 150
"""Blocks (~5 s) of playback per debug line on how much echo was removed."""
JUMP_S = 0.25
"""A buffer this far from where the previous one ended starts a new clip (a player that does
not say where clips start)."""


class Reference:
    """What the speaker played, on PortAudio's clock, at 16 kHz (the AEC's far end).

    `played` is called from the player's audio callback, so it only queues; the resampling
    and placement happen in the reading thread (`span`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: deque[tuple[np.ndarray, int, float, bool]] = deque(maxlen=4096)
        size = KEEP_S * STT_RATE
        self._ring = np.zeros(size, dtype=np.float32)
        self._stamp = np.full(size, -1, dtype=np.int64)
        """Absolute sample index held by each ring slot; others read as silence."""
        self._expected = 0.0
        """When the next chunk of the current clip should play (PortAudio time)."""
        self._next: int | None = None
        """Where the next chunk continues the current clip (16 kHz samples)."""
        self._rate = 0
        self._resampler: Resampler | None = None
        self.last_played = 0.0
        """PortAudio time at which the latest played buffer ends (0 = never)."""

    def played(self, samples: np.ndarray, rate: int, dac_time: float,
               first: bool = False) -> None:
        """The player's tap: `samples` (mono float32 at `rate`) reach the speaker at
        `dac_time` (PortAudio clock, seconds); `first` starts a clip. Cheap: safe inside an
        audio callback."""
        with self._lock:
            self._pending.append((np.array(samples, dtype=np.float32), rate, dac_time, first))
        self.last_played = dac_time + len(samples) / rate

    def span(self, start: float, n: int) -> np.ndarray:
        """The `n` samples (16 kHz) that played from PortAudio time `start`; silence where
        nothing did."""
        self._absorb()
        first = round(start * STT_RATE)
        index = np.arange(first, first + n, dtype=np.int64)
        slots = index % len(self._ring)
        return np.where(self._stamp[slots] == index, self._ring[slots], 0.0).astype(np.float32)

    def playing(self, at: float, within: float = 0.3) -> bool:
        """Something played at PortAudio time `at`, or ends less than `within` s before it."""
        return self.last_played > 0 and at < self.last_played + within

    def _absorb(self) -> None:
        with self._lock:
            chunks = list(self._pending)
            self._pending.clear()
        for samples, rate, dac_time, first in chunks:
            # A clip is placed by its first buffer's time and then laid end to end: the times
            # of later buffers jitter by tens of ms (ALSA's pulse plugin reports the callback's
            # own time), and a far end that jumps about keeps AEC3 re-learning.
            if (first or self._next is None or rate != self._rate
                    or abs(dac_time - self._expected) > JUMP_S):
                self._rate = rate
                self._resampler = Resampler(rate) if rate != STT_RATE else None
                self._next = round(dac_time * STT_RATE)
                self._expected = dac_time
            self._expected += len(samples) / rate
            out = self._resampler(samples) if self._resampler else samples
            self._write(self._next, out)
            self._next += len(out)

    def _write(self, at: int, samples: np.ndarray) -> None:
        if len(samples) > len(self._ring):  # only the newest KEEP_S are kept
            at += len(samples) - len(self._ring)
            samples = samples[-len(self._ring):]
        index = np.arange(at, at + len(samples), dtype=np.int64)
        slots = index % len(self._ring)
        self._ring[slots] = samples
        self._stamp[slots] = index


class EchoCanceller:
    """WebRTC AEC3 with noise suppression and a high-pass filter, on 16 kHz mic blocks.

    Call it on every captured block in order (it learns the echo path as it goes), with the
    block's capture time when the device gives one.
    """

    def __init__(self, reference: Reference, *, noise_suppression: bool = True,
                 clock: Callable[[], float] = time.time) -> None:
        try:
            from pywebrtc_audio import AudioProcessor
        except ImportError as exc:
            raise ConfigError(f"[audio] echo_cancel needs pywebrtc-audio ({exc}): "
                              ".venv/bin/pip install pywebrtc-audio") from None
        self.reference = reference
        self._apm = AudioProcessor(STT_RATE, 1, echo_cancellation=True,
                                   noise_suppression=noise_suppression,
                                   high_pass_filter=True, stream_delay_ms=0)
        self.last_raw = self.last_far = np.zeros(0, dtype=np.float32)
        """The last block as the microphone heard it, and what the speaker played then."""
        self.echo_only = False
        """The last block was the speaker's echo and little else: what is left of it is a
        residue of the assistant's own voice (a stop-word check should not listen to it)."""
        self._now = clock
        """PortAudio's clock (on Linux, the wall clock)."""
        self._stats: list[tuple[float, float]] = []
        self._lags: deque[float] = deque(maxlen=LAG_BLOCKS)
        self._late = 0
        """Blocks in a row whose counted capture time had to be pulled back."""
        self._clock: float | None = None
        """Capture time of the next block when the device gives none (counted in samples)."""

    def __call__(self, block: np.ndarray, adc_time: float | None = None) -> np.ndarray:
        """The block with the speaker's echo removed. `adc_time`: PortAudio time at which its
        first sample was captured; without it, time is counted from the first block."""
        block = np.asarray(block, dtype=np.float32)
        start = self._capture_time(len(block), adc_time)
        far = self.reference.span(start + LEAD_MS / 1000, len(block))
        self.last_raw, self.last_far = block, far
        out = np.asarray(self._apm.process(block, far), dtype=np.float32)
        self.echo_only = False
        if far.any():
            heard, left = float(np.mean(np.square(block))), float(np.mean(np.square(out)))
            self.echo_only = left < heard * ECHO_ONLY_RATIO
            self._stats.append((heard, left))
            if len(self._stats) >= STATS_BLOCKS:  # how well it works, for -v and tuning
                mic, left = 10 * np.log10(np.mean(self._stats, axis=0) + 1e-12)
                log.debug("echo canceller: mic %.0f dB while playing, %.0f dB after", mic, left)
                self._stats.clear()
        return out

    def _capture_time(self, n: int, adc_time: float | None) -> float:
        """The block's capture time: given, or counted in samples and kept just behind the
        clock. Reading a block happens some time after its capture, so the count is pulled
        back whenever it runs ahead of the clock (a late first burst), and forward only when
        even the quickest read of the last ~30 s lags it by more than SLACK_S (lost blocks,
        clock drift)."""
        if adc_time is not None:
            return adc_time
        latest = self._now() - n / STT_RATE
        if self._clock is None:
            self._clock = latest
        lag = latest - self._clock
        self._lags.append(lag)
        if lag < 0:  # ahead of the clock: impossible, so the count started late
            self._clock = latest
            self._late += 1
        else:
            if self._late >= BURST_BLOCKS:
                log.debug("microphone blocks arrive in time again: echo canceller reset")
                self._apm.reset()
            self._late = 0
            quickest = min(self._lags)
            if len(self._lags) == self._lags.maxlen and quickest > SLACK_S:
                self._clock += quickest
                self._lags.clear()
        start = self._clock
        self._clock += n / STT_RATE
        return start
