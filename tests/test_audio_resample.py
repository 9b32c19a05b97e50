"""Resampling for real devices: 44.1 and 48 kHz microphones must give clean 16 kHz audio.

The microphone path resamples a stream of device-sized blocks with one soxr stream and
re-blocks the output into 512-sample VAD blocks; nothing is padded or repeated at block edges.
"""

from __future__ import annotations

import numpy as np
import pytest

from voiceagent.audio import STT_RATE, Audio, Reblocker, Resampler
from voiceagent.speech.vad import BLOCK


def tone(freq: float, rate: int, seconds: float = 2.0, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def mic_path(samples: np.ndarray, rate: int) -> np.ndarray:
    """What the recorder does: device blocks -> one streaming resampler -> 512-sample blocks."""
    resample, reblock = Resampler(rate, STT_RATE), Reblocker(BLOCK)
    device_block = round(BLOCK * rate / STT_RATE)
    out: list[np.ndarray] = []
    for start in range(0, len(samples), device_block):
        blocks = reblock(resample(samples[start:start + device_block]))
        assert all(len(b) == BLOCK for b in blocks)
        out.extend(blocks)
    return np.concatenate(out)


def sine_error_db(samples: np.ndarray, freq: float, rate: int) -> float:
    """Residual after the best-fitting sine of `freq`, relative to the signal (dB)."""
    t = np.arange(len(samples)) / rate
    basis = np.stack([np.sin(2 * np.pi * freq * t), np.cos(2 * np.pi * freq * t)], axis=1)
    coef, *_ = np.linalg.lstsq(basis, samples, rcond=None)
    residual = samples - basis @ coef
    return 20 * np.log10(np.sqrt(np.mean(residual ** 2)) / np.sqrt(np.mean(samples ** 2)))


def rms_db(samples: np.ndarray) -> float:
    return 20 * np.log10(np.sqrt(np.mean(np.square(samples, dtype=np.float64))) + 1e-12)


@pytest.mark.parametrize("rate", [44100, 48000])
def test_a_sine_stays_clean_across_block_edges(rate):
    out = mic_path(tone(1000, rate), rate)
    steady = out[STT_RATE // 10: -STT_RATE // 10]  # skip the filter's start-up
    # Repeated or dropped samples at each block edge would show as a residual of -30 dB or so.
    assert sine_error_db(steady, 1000, STT_RATE) < -60
    assert abs(len(out) - 2 * STT_RATE) <= BLOCK + 64  # only the filter delay is held back


@pytest.mark.parametrize("rate", [44100, 48000])
def test_tones_above_8khz_do_not_fold_back(rate):
    loud = tone(12000, rate)
    out = mic_path(loud, rate)[STT_RATE // 10:]
    assert rms_db(out) < rms_db(loud) - 40


@pytest.mark.parametrize("rate", [44100, 48000, 22050])
def test_whole_clips_resample_band_limited(rate):
    clean = Audio(tone(1000, rate), rate).resampled(STT_RATE)
    assert clean.rate == STT_RATE and abs(len(clean.samples) - 2 * STT_RATE) <= 1
    assert sine_error_db(clean.samples[800:-800], 1000, STT_RATE) < -60
    high = Audio(tone(12000, rate) if rate > 24000 else tone(9000, rate), rate)
    assert rms_db(high.resampled(STT_RATE).samples[800:-800]) < rms_db(high.samples) - 40


def test_upsampling_keeps_the_tone():
    """The player resamples speech up to the device rate; that must not distort it either."""
    up = Audio(tone(1000, STT_RATE), STT_RATE).resampled(48000)
    assert abs(len(up.samples) - 96000) <= 1
    assert sine_error_db(up.samples[4800:-4800], 1000, 48000) < -60


def test_reblocker_keeps_every_sample_in_order():
    reblock = Reblocker(4)
    out = [*reblock(np.arange(3)), *reblock(np.arange(3, 10)), *reblock(np.arange(10, 12))]
    assert np.concatenate(out).tolist() == list(range(12))
    assert all(len(b) == 4 for b in out)
