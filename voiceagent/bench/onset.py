"""Where sound starts and ends in a recording: 10 ms frames compared with a loudness level.

Pure functions over numpy arrays, so `bench --live`'s measurements are unit-tested without
a sound server.
"""

from __future__ import annotations

import numpy as np

FRAME_S = 0.01
"""Frame length for the loudness envelope."""
LOUD = 0.01
"""RMS that counts as sound on the speaker (-40 dBFS); a null sink is exactly silent, a real
room's noise floor is well below speech and the chime."""


def envelope(samples: np.ndarray, rate: int) -> np.ndarray:
    """RMS of each FRAME_S frame (a partial last frame is dropped)."""
    n = int(rate * FRAME_S)
    frames = len(samples) // n
    if frames == 0:
        return np.zeros(0)
    return np.sqrt(np.mean(np.square(samples[: frames * n].reshape(frames, n)), axis=1))


def first_sound(samples: np.ndarray, rate: int, level: float = LOUD) -> float | None:
    """Seconds from the start of `samples` to the first frame louder than `level`."""
    loud = np.flatnonzero(envelope(samples, rate) > level)
    return float(loud[0] * FRAME_S) if len(loud) else None


def speech_span(samples: np.ndarray, rate: int, relative: float = 0.1) -> tuple[float, float]:
    """(start, end) seconds of the part louder than `relative` x the loudest frame: where the
    words of a question recording begin and end, its lead and tail silence left out."""
    env = envelope(samples, rate)
    if not len(env) or env.max() <= 0:
        return 0.0, 0.0
    loud = np.flatnonzero(env > relative * env.max())
    return float(loud[0] * FRAME_S), float((loud[-1] + 1) * FRAME_S)



REPLY_S = 0.25
"""A reply is the first sound holding this much sound at the speaker (the chime is 0.16 s)."""
REPLY_GAP_S = 0.1
"""Quieter gaps up to this long do not break that sound: a plosive's closure, the pause
between words ("I | can't | order": piper's gaps are 0.06-0.09 s). At 0.05 s the rule read the
reply "I can't order or buy things:" as starting at "order", 0.4 s after the "I"."""


def reply_onset(samples: np.ndarray, rate: int, level: float = LOUD) -> float | None:
    """Seconds from the start of `samples` to the first sound holding REPLY_S of loud frames
    (gaps up to REPLY_GAP_S allowed, not counted): a spoken reply, not a chime or a click.
    The same rule for every assistant measured (the peer's README fixes it so)."""
    loud = envelope(samples, rate) > level
    need, gap = round(REPLY_S / FRAME_S), round(REPLY_GAP_S / FRAME_S)
    start = last = None
    held = 0
    for i in np.flatnonzero(loud).tolist():
        if start is None or last is None or i - last > gap + 1:
            start, held = i, 0
        last = i
        held += 1
        if held >= need:
            return float(start * FRAME_S)
    return None
