"""Where the words are in a recording of one request, found from the audio itself; and where
a clip starts inside a longer recording of it.

A real recording carries room noise, a click, breath and reverberation around the words, so a
level relative to the loudest frame (onset.speech_span) is fooled both ways: a loud click
makes a soft last word look like silence, a noisy tail looks like speech. Here a 10 ms frame
is speech when

- some frequency band is OVER_DB above that band's noise, the noise being what the
  recording sounds like after the words (its last TAIL_S: a steady fan or hum is noise even
  when it is loud), or the quiet quarter of the recording plus 10 dB, whichever is lower;
- it is within BELOW_PEAK_DB of the recording's speech level (a whisper of noise on a
  digitally silent recording is not a word);
- Silero VAD does not call it clearly not speech (below VETO): short bumps of noise that
  stand out from the floor are vetoed, a fricative ending ("...list") that Silero is unsure
  of is kept.

Runs of speech frames closer than GAP_S are one; runs shorter than MIN_RUN_S are dropped; the
words are the run holding the loudest frame and every run of at least CHAINED_S within
PAUSE_S of it, step by step (a pause after an address, "Picovoice, ... make me a coffee", is
inside the request). Pure functions over numpy arrays, unit-tested on real recordings.
"""

from __future__ import annotations

import numpy as np

from voiceagent.speech.vad import BLOCK, SileroVAD

HOP_S = 0.01
"""Frame step."""
WINDOW = 400
"""Samples per analysis window at 16 kHz (25 ms, Hann)."""
BANDS_HZ = ((100, 500), (500, 1500), (1500, 3500), (3500, 7600))
"""Bands compared with their own noise: voicing, vowels, consonants, fricatives."""
TAIL_S = 0.4
OVER_DB = 10.0
BELOW_PEAK_DB = 40.0
VETO = 0.3
GAP_S = 0.1
MIN_RUN_S = 0.05
CHAINED_S = 0.1
PAUSE_S = 2.0
DIGITAL_DB = -90.0
"""Band level of digital silence (exact zeros): floors below it are clamped to it."""


def _band_levels(samples: np.ndarray, rate: int) -> np.ndarray:
    """(frames, bands) levels in dB, one frame per HOP_S."""
    hop = int(rate * HOP_S)
    padded = np.pad(samples.astype(np.float64), (0, max(0, WINDOW - len(samples))))
    n = 1 + (len(padded) - WINDOW) // hop
    index = np.arange(WINDOW)[None, :] + hop * np.arange(n)[:, None]
    spectrum = np.abs(np.fft.rfft(padded[index] * np.hanning(WINDOW), axis=1)) ** 2
    freqs = np.fft.rfftfreq(WINDOW, 1 / rate)
    bands = np.stack([spectrum[:, (freqs >= lo) & (freqs < hi)].sum(axis=1)
                      for lo, hi in BANDS_HZ], axis=1)
    return np.maximum(10 * np.log10(bands + 1e-12), DIGITAL_DB)


def _voice(samples: np.ndarray, frames: int, rate: int) -> np.ndarray:
    """Silero's speech probability for each frame (that of the 32 ms block holding its
    centre), from a fresh model state."""
    vad = SileroVAD()
    probs = [vad(samples[i:i + BLOCK]) for i in range(0, len(samples) - BLOCK + 1, BLOCK)]
    if not probs:
        return np.zeros(frames)
    centres = (np.arange(frames) * HOP_S + WINDOW / 2 / rate) * rate
    return np.asarray(probs)[np.minimum((centres // BLOCK).astype(int), len(probs) - 1)]


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(),
                    strict=True))


def speech_frames(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """Which HOP_S frames sound like speech (see the module docstring), and each frame's
    level in dB."""
    if rate != 16000:
        raise ValueError(f"words are found in 16 kHz audio, got {rate} Hz")
    bands = _band_levels(samples, rate)
    total = 10 * np.log10(np.sum(10 ** (bands / 10), axis=1))
    if total.max() <= DIGITAL_DB + 7:  # all four bands digitally silent
        return np.zeros(len(total), dtype=bool), total
    tail = max(1, int(TAIL_S / HOP_S))
    noise = np.minimum(np.median(bands[-tail:], axis=0), np.percentile(bands, 25, axis=0) + 10)
    loud = ((bands - noise) > OVER_DB).any(axis=1)
    loud &= total > np.percentile(total, 95) - BELOW_PEAK_DB
    return loud & (_voice(samples, len(total), rate) >= VETO), total


def words_span(samples: np.ndarray, rate: int = 16000) -> tuple[float, float]:
    """(start, end) seconds of the words in a recording of one request; (0, 0) for none."""
    speech, levels = speech_frames(samples, rate)
    runs: list[tuple[int, int]] = []
    for a, b in _runs(speech):
        if runs and a - runs[-1][1] <= GAP_S / HOP_S:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((a, b))
    runs = [(a, b) for a, b in runs if b - a >= MIN_RUN_S / HOP_S]
    if not runs:
        return 0.0, 0.0
    loudest = max(range(len(runs)), key=lambda i: levels[runs[i][0]:runs[i][1]].max())
    first = last = loudest

    def joins(near: tuple[int, int], far: tuple[int, int]) -> bool:
        gap = max(far[0] - near[1], near[0] - far[1])
        return gap <= PAUSE_S / HOP_S and far[1] - far[0] >= CHAINED_S / HOP_S

    while last + 1 < len(runs) and joins(runs[last], runs[last + 1]):
        last += 1
    while first > 0 and joins(runs[first], runs[first - 1]):
        first -= 1
    centre = WINDOW / 2 / rate - HOP_S / 2  # frame i covers [i, i + 1) hops around its centre
    return (round(max(0.0, runs[first][0] * HOP_S + centre), 3),
            round(min(len(samples) / rate, runs[last][1] * HOP_S + centre), 3))


def align(recording: np.ndarray, clip: np.ndarray, rate: int = 16000) -> float | None:
    """Seconds from the start of `recording` to where `clip` begins in it (cross-correlation);
    None when the clip is not clearly there (nothing loud enough in common)."""
    if not len(recording) or not len(clip) or not np.any(clip):
        return None
    n = 1 << int(np.ceil(np.log2(len(recording) + len(clip))))
    corr = np.fft.irfft(np.fft.rfft(recording, n) * np.conj(np.fft.rfft(clip, n)), n)
    lags = corr[: len(recording)]
    best = int(np.argmax(lags))
    energy = float(np.sqrt(np.sum(clip ** 2) * np.sum(recording[best:best + len(clip)] ** 2)))
    if energy <= 0 or lags[best] / energy < 0.5:
        return None
    return best / rate
