"""Short generated tones telling the user that listening started or stopped (no sound files)."""

from __future__ import annotations

import numpy as np

from voiceagent.audio import Audio

_NOTES = {"start": (660.0, 880.0), "stop": (880.0, 660.0)}
"""Rising for "I'm listening", falling for "got it"."""


def chime(kind: str, rate: int = 22050, volume: float = 0.25) -> Audio:
    """A two-note chime, 0.16 s, faded in and out so it does not click."""
    if kind not in _NOTES:
        raise ValueError(f"chime kind must be one of {', '.join(_NOTES)}, not {kind!r}")
    note_s = 0.08
    t = np.arange(int(note_s * rate)) / rate
    envelope = np.minimum(1.0, np.minimum(t, note_s - t) / 0.01)
    notes = [np.sin(2 * np.pi * f * t) * envelope for f in _NOTES[kind]]
    return Audio((np.concatenate(notes) * volume).astype(np.float32), rate)
