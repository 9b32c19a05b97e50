"""False wakes per hour, offline: speech that is not the wake word fed block by block through
the microphone processors the kiosk built (echo canceller, wake gate), exactly as its
microphone's blocks go through them, as fast as they run. An hour of speech takes minutes
this way instead of an hour played live; the gate cannot tell the difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.audio import STT_RATE, load_audio
from voiceagent.bench.clips import SUFFIXES
from voiceagent.speech.vad import BLOCK

Processor = Callable[[np.ndarray], "np.ndarray | None"]


def count_false_wakes(processors: Sequence[Processor], wakes: Callable[[], int],
                      folders: Sequence[Path],
                      progress: Callable[[str], None] = lambda _line: None) -> dict[str, Any]:
    """Every recording in `folders`, one after another, through `processors`; `wakes()` says
    how often the wake word has fired so far. Per folder: hours of audio, wakes, the files
    that woke it."""
    out: dict[str, Any] = {"folders": {}, "hours": 0.0, "wakes": 0}
    for folder in folders:
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
        seconds, woke, where = 0.0, 0, []
        for path in files:
            samples = load_audio(path).samples
            before = wakes()
            for i in range(0, len(samples) - BLOCK + 1, BLOCK):
                block: np.ndarray | None = samples[i:i + BLOCK]
                for process in processors:
                    if block is None:
                        break
                    block = process(block)
            seconds += len(samples) / STT_RATE
            if wakes() > before:
                woke += wakes() - before
                where.append(path.name)
        hours = seconds / 3600
        out["folders"][folder.name] = {"files": len(files), "hours": round(hours, 3),
                                       "wakes": woke, "woke_on": where}
        out["hours"] += hours
        out["wakes"] += woke
        progress(f"false wakes: {folder.name}: {woke} in {len(files)} recordings "
                 f"({seconds / 60:.1f} min)")
    out["hours"] = round(out["hours"], 3)
    out["per_hour"] = round(out["wakes"] / out["hours"], 2) if out["hours"] else None
    return out
