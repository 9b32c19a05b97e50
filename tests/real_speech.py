"""Real recordings for the wake word: the shared set (../shared/speech) or the few clips copied
into tests/data/real, their words found from the audio, and a wake word glued to a request.

"Glued": the wake word recording up to the end of its word, then `gap` seconds of the rooms'
own sound (the wake word recording's, then the request's, from around their words), then the
request from the start of its words, with a 5 ms cross-fade at each joint so no click marks
the seam. Where the words start and end is found by Silero VAD over the whole file, then
widened to the sound around it (10 ms frames 10 dB above the recording's quiet): Silero
starts 0.02-0.25 s after a soft first sound ("c" of "can"), and Whisper mishears a request
that lost it ("Can I get" -> "And I get"). So a gap of 0 is no pause at all.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voiceagent.audio import STT_RATE, Audio


def _shared() -> Path:
    here = Path(__file__).resolve().parent
    if os.environ.get("VOICEAGENT_SPEECH"):
        return Path(os.environ["VOICEAGENT_SPEECH"])
    for folder in here.parents:  # ../shared/speech from the checkout, or from a worktree
        if (folder / "shared" / "speech").is_dir():
            return folder / "shared" / "speech"
    return here / "no-shared-speech"


SHARED = _shared()
"""The shared real recordings ($VOICEAGENT_SPEECH, else a shared/speech folder above this
checkout); absent in CI."""
COPIED = Path(__file__).parent / "data" / "real"
"""The few real clips CI needs (Apache-2.0, see its ATTRIBUTION.md)."""
FADE = int(0.005 * STT_RATE)


@dataclass(frozen=True)
class Clip:
    """One recording, with where its words start and end (samples)."""

    name: str
    samples: np.ndarray
    start: int
    end: int

    @property
    def audio(self) -> Audio:
        return Audio(self.samples, STT_RATE)


@functools.lru_cache(maxsize=2048)
def load(path: str) -> Clip:
    """A 16 kHz mono recording and its words' span (Silero VAD over the whole file)."""
    from faster_whisper import decode_audio
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    samples = decode_audio(path, sampling_rate=STT_RATE).astype(np.float32)
    spans = get_speech_timestamps(samples, VadOptions(min_silence_duration_ms=300,
                                                      speech_pad_ms=0))
    if not spans:
        return Clip(Path(path).name, samples, 0, 0)
    start, end = _widen(samples, spans[0]["start"], spans[-1]["end"])
    return Clip(Path(path).name, samples, start, end)


def _widen(samples: np.ndarray, start: int, end: int, frame: int = 160,
           reach_s: float = 0.3) -> tuple[int, int]:
    """`start` and `end` moved out over the sound next to them: frames 10 dB above the
    quietest fifth of the `reach_s` beyond them (the room there)."""
    n = len(samples) // frame
    db = 10 * np.log10(np.mean(np.square(samples[: n * frame].reshape(n, frame)), axis=1)
                       + 1e-12)
    reach = int(reach_s * STT_RATE / frame)
    i, j = start // frame, min(n, -(-end // frame))
    first, last = max(0, i - reach), min(n, j + reach)
    if i > first:
        floor = np.percentile(db[first:i], 20) + 10
        while i > first and db[i - 1] >= floor:
            i -= 1
    if last > j:
        floor = np.percentile(db[j:last], 20) + 10
        while j < last and db[j] >= floor:
            j += 1
    return i * frame, min(len(samples), j * frame)


def room(clip: Clip, before: bool) -> np.ndarray:
    """The recording's sound around its words (no digital silence): the room between words."""
    part = clip.samples[: clip.start] if before else clip.samples[clip.end:]
    nonzero = np.flatnonzero(np.abs(part) > 1e-6)
    if len(nonzero) == 0:
        return np.zeros(0, np.float32)
    return part[nonzero[0]: nonzero[-1] + 1]


def glue(wake: Clip, request: Clip, gap: float, *, lead_s: float = 0.5,
         tail_s: float = 1.5) -> tuple[Audio, int, int]:
    """`wake` then `request` with `gap` s between their words; also where the wake word ends
    and the request's words start (samples into the result)."""
    n = int(round(gap * STT_RATE))
    after, before = room(wake, before=False), room(request, before=True)
    filler = np.concatenate([after[:n], before[max(0, len(before) - (n - min(n, len(after)))):]])
    while len(filler) < n:  # neither recording has that much room sound: repeat it
        filler = np.concatenate([filler, (after if len(after) else before)[: n - len(filler)]])
        if not len(after) and not len(before):
            filler = np.zeros(n, np.float32)
    lead = wake.samples[max(0, wake.start - int(lead_s * STT_RATE)): wake.end]
    words = request.samples[request.start: request.end + int(tail_s * STT_RATE)]
    parts = [lead, filler[:n], words]
    out = parts[0]
    for part in parts[1:]:
        out = _join(out, part)
    return Audio(out.astype(np.float32), STT_RATE), len(lead), len(lead) + n


def _join(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(a) < FADE or len(b) < FADE:
        return np.concatenate([a, b])
    ramp = np.linspace(0.0, 1.0, FADE, dtype=np.float32)
    # an equal-power fade would swell uncorrelated noise less; a short linear one is enough
    return np.concatenate([a[:-FADE], a[-FADE:] * (1 - ramp) + b[:FADE] * ramp, b[FADE:]])


def shared(folder: str) -> list[str]:
    """The .flac files of a shared folder, sorted; [] where it is not (CI)."""
    where = SHARED / folder
    return sorted(str(p) for p in where.glob("*.flac")) if where.is_dir() else []


@functools.lru_cache(maxsize=4)
def labels(folder: Path = SHARED / "commands") -> dict[str, list[str]]:
    """File name -> its slot phrases ("large", "soy milk")."""
    data = json.loads((folder / "labels.json").read_text())
    return {name: list(entry.get("slots", {}).values()) for name, entry in data.items()}
