"""The Audio value (float32 mono samples + rate), WAV read/write and resampling.

Resampling uses libsoxr (band-limited, so nothing above the new Nyquist folds back as
aliasing). `Resampler` keeps the filter state across blocks, for a microphone whose device
rate is not 16 kHz: resampling each block on its own would click at every block edge.
"""

from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voiceagent.errors import VoiceAgentError

STT_RATE = 16000
"""Whisper and the VAD want 16 kHz mono."""


@dataclass(frozen=True)
class Audio:
    """A mono clip; every stage passes audio around as this."""

    samples: np.ndarray
    """float32 mono samples in [-1, 1]."""
    rate: int
    """Samples per second."""

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.rate

    @classmethod
    def silence(cls, seconds: float, rate: int = STT_RATE) -> Audio:
        return cls(np.zeros(int(seconds * rate), dtype=np.float32), rate)

    def resampled(self, rate: int) -> Audio:
        """The clip at another rate (soxr, anti-aliased); the same clip if the rate matches."""
        if rate == self.rate or len(self.samples) == 0:
            return Audio(self.samples, rate)
        import soxr

        samples = soxr.resample(np.asarray(self.samples, dtype=np.float32), self.rate, rate)
        return Audio(np.asarray(samples, dtype=np.float32), rate)

    def int16_bytes(self) -> bytes:
        return (np.clip(self.samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()

    def rms(self) -> float:
        """Loudness as root mean square, for level meters and silence checks."""
        if len(self.samples) == 0:
            return 0.0
        return float(np.sqrt(np.mean(np.square(self.samples, dtype=np.float64))))


class Resampler:
    """Streaming resampler for consecutive blocks of one stream (soxr keeps state across them).

    Output comes in varying lengths (the filter's delay holds back the first few ms); callers
    that need fixed-size blocks re-block the output, never pad or stretch it.
    """

    def __init__(self, in_rate: int, out_rate: int = STT_RATE) -> None:
        import soxr

        self.in_rate, self.out_rate = in_rate, out_rate
        self._stream = soxr.ResampleStream(in_rate, out_rate, 1, dtype="float32")

    def __call__(self, block: np.ndarray, *, last: bool = False) -> np.ndarray:
        """The resampled continuation of the stream for this block (may be empty)."""
        out = self._stream.resample_chunk(np.asarray(block, dtype=np.float32), last=last)
        return np.asarray(out, dtype=np.float32)


class Reblocker:
    """Cuts a stream of arbitrary-length arrays into blocks of exactly `size` samples."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._pending = np.zeros(0, dtype=np.float32)

    def __call__(self, samples: np.ndarray) -> list[np.ndarray]:
        data = np.concatenate([self._pending, np.asarray(samples, dtype=np.float32)])
        n = len(data) // self.size
        self._pending = data[n * self.size:]
        return [data[i * self.size:(i + 1) * self.size] for i in range(n)]


def concat(clips: list[Audio], rate: int | None = None) -> Audio:
    """Join clips (resampled to `rate`, or the first clip's rate)."""
    if not clips:
        return Audio(np.zeros(0, dtype=np.float32), rate or STT_RATE)
    rate = rate or clips[0].rate
    parts = [c.resampled(rate).samples for c in clips]
    return Audio(np.concatenate(parts).astype(np.float32), rate)


def read_wav(path: str | Path) -> Audio:
    """Read a PCM WAV (8/16/32-bit, any channels) as mono float32; a bad file is a clear error."""
    try:
        with wave.open(str(path), "rb") as wav:
            width, channels, rate = wav.getsampwidth(), wav.getnchannels(), wav.getframerate()
            frames = wav.readframes(wav.getnframes())
    except FileNotFoundError:
        raise VoiceAgentError(f"{path}: no such file") from None
    except (wave.Error, EOFError, RuntimeError) as exc:  # RuntimeError: bad chunk sizes
        raise VoiceAgentError(f"{path}: not a readable WAV file ({exc})") from None
    dtype = {1: np.uint8, 2: np.int16, 4: np.int32}.get(width)
    if dtype is None:
        raise VoiceAgentError(f"{path}: unsupported WAV sample width {width * 8} bits")
    data = np.frombuffer(frames, dtype=dtype).astype(np.float32)
    if width == 1:
        data = (data - 128.0) / 128.0
    else:
        data /= float(2 ** (8 * width - 1))
    if channels > 1:
        data = data[: len(data) - len(data) % channels].reshape(-1, channels).mean(axis=1)
    return Audio(data.astype(np.float32), rate)


def write_wav(path: str | Path, audio: Audio) -> None:
    """Write 16-bit mono PCM."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(audio.rate)
        wav.writeframes(audio.int16_bytes())


def load_audio(path: str | Path) -> Audio:
    """Any audio file as 16 kHz mono: WAV directly, other formats through faster-whisper's
    decoder (PyAV). A missing, empty or corrupt file is a clear error."""
    path = Path(path)
    if not path.is_file():
        raise VoiceAgentError(f"{path}: no such file")
    if path.suffix.lower() == ".wav":
        return read_wav(path).resampled(STT_RATE)
    try:
        from faster_whisper import decode_audio

        samples = decode_audio(str(path), sampling_rate=STT_RATE)
    except Exception as exc:  # PyAV raises many types for a bad file
        raise VoiceAgentError(f"{path}: cannot decode audio ({exc})") from None
    return Audio(np.asarray(samples, dtype=np.float32), STT_RATE)
