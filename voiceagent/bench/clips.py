"""The recordings `bench --live` plays: folders of requests with what each one asks, and the
same requests glued behind a recording of the wake word.

A folder holds WAV or FLAC files. What is said comes from `labels.json` beside them (keyed by
file name; Picovoice's format, `{"intent": ..., "slots": {...}}`, plus optional keys below) or
from NAME.txt (the bench's own questions):

    text    what is said (for the word error rate, and the request a judge reads)
    slots   the phrases that must be heard (a dict of slot: phrase, or a list)
    group   command (a built-in tool serves it), question (for the model), or unanswerable
            (nothing here can do it: an honest refusal is the right answer)
    tool, args, answer   what a right answer does, as in requests.toml (`voiceagent evaluate`)

`--clips GROUP=DIR` gives the group of every clip in DIR whose label names none; without
either, a clip is a question. Clips are trimmed to at most LEAD_S before and TAIL_S after
their words (found from the audio, words.py), which keeps the room's own tail after the last
word and saves minutes of silence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.audio import STT_RATE, Audio, load_audio
from voiceagent.bench.words import words_span
from voiceagent.errors import VoiceAgentError

GROUPS = ("command", "question", "unanswerable")
"""The rows of the summary: what kind of request a clip is (see the module docstring)."""
LEAD_S = 1.0
"""Most audio kept before the words."""
TAIL_S = 3.0
"""Most audio kept after the words: longer than any wait for the end of an utterance, so a
late cut is measured, not hidden by the silence after the clip."""
SUFFIXES = (".wav", ".flac")


@dataclass(frozen=True)
class Clip:
    """One recorded request, ready to play."""

    name: str
    """folder/stem, e.g. "commands/0075d273-..." or "questions/q01"."""
    audio: Audio
    """16 kHz mono, trimmed."""
    words: tuple[float, float]
    """Start and end (seconds into `audio`) of the words."""
    group: str
    text: str = ""
    """What is said ("" when the labels do not say)."""
    slots: tuple[str, ...] = ()
    """Phrases that must be in the transcript."""
    expect: dict[str, Any] = field(default_factory=dict)
    """tool / args / answer / intent from the labels, for the judge."""
    wake: str = ""
    """The wake word said before the request (glued clips), which must not be transcribed."""
    gap_s: float | None = None
    """Silence between the wake word and the request (glued clips)."""


def parse_spec(spec: str) -> tuple[str, Path]:
    """"GROUP=DIR" or "DIR" -> (group or "", folder)."""
    group, sep, rest = spec.partition("=")
    if sep and group in GROUPS:
        return group, Path(rest)
    if sep and "/" not in group and group:
        raise VoiceAgentError(f"--clips {spec!r}: the group must be one of "
                              f"{', '.join(GROUPS)} (GROUP=DIR), not {group!r}")
    return "", Path(spec)


def sample(items: list[Any], limit: int) -> list[Any]:
    """At most `limit` items spread evenly over the list (all for 0), the same every run."""
    if limit <= 0 or limit >= len(items):
        return list(items)
    return [items[(2 * i + 1) * len(items) // (2 * limit)] for i in range(limit)]


def load_clips(spec: str, *, limit: int = 0) -> list[Clip]:
    """The clips of one folder ("[GROUP=]DIR"), at most `limit` of them, in name order."""
    group, folder = parse_spec(spec)
    if not folder.is_dir():
        raise VoiceAgentError(f"--clips {folder}: no such folder")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    if not files:
        raise VoiceAgentError(f"--clips {folder}: no .wav or .flac recordings in it")
    labels = _labels(folder)
    clips = []
    for path in sample(files, limit):
        label = dict(labels.get(path.name) or labels.get(path.stem) or {})
        txt = path.with_suffix(".txt")
        if "text" not in label and txt.is_file():
            label["text"] = txt.read_text("utf-8").strip()
        clips.append(make_clip(f"{folder.name}/{path.stem}", load_audio(path), label,
                               default_group=group, source=path))
    return clips


def make_clip(name: str, audio: Audio, label: dict[str, Any], *, default_group: str = "",
              source: Path | None = None) -> Clip:
    """A clip from its audio and label, trimmed around its words."""
    where = source or name
    group = label.get("group") or default_group or "question"
    if group not in GROUPS:
        raise VoiceAgentError(f"{where}: group must be one of {', '.join(GROUPS)}, not "
                              f"{group!r}")
    audio = audio.resampled(STT_RATE) if audio.rate != STT_RATE else audio
    start, end = words_span(audio.samples, STT_RATE)
    if end <= start:
        raise VoiceAgentError(f"{where}: no words found in the recording")
    a = max(0, int((start - LEAD_S) * STT_RATE))
    b = min(len(audio.samples), int((end + TAIL_S) * STT_RATE))
    slots = label.get("slots") or ()
    phrases = tuple(slots.values()) if isinstance(slots, dict) else tuple(slots)
    expect: dict[str, Any] = {k: label[k] for k in ("tool", "args", "answer", "intent")
                              if k in label}
    return Clip(name, Audio(audio.samples[a:b].copy(), STT_RATE),
                (round(start - a / STT_RATE, 3), round(end - a / STT_RATE, 3)), group,
                text=str(label.get("text", "")),
                slots=tuple(p.strip() for p in phrases if str(p).strip()), expect=expect)


def _labels(folder: Path) -> dict[str, Any]:
    path = folder / "labels.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise VoiceAgentError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise VoiceAgentError(f"{path}: expected an object keyed by file name")
    return data


def glue(wake: Clip, request: Clip, gap_s: float) -> Clip:
    """`wake`'s words, `gap_s` of what its recording holds after them, then `request` from
    its first word, both at the request's speech level: the wake word and the request in one
    breath (0 s) or with a short pause, from two real recordings."""
    w0, w1 = wake.words
    r0, _r1 = request.words
    rate = STT_RATE
    a, b = max(0, int((w0 - 0.3) * rate)), int((w1 + gap_s) * rate)
    head = wake.audio.samples[a:b]
    head = np.concatenate([head, np.zeros(b - a - len(head), np.float32)])  # past its end
    tail = request.audio.samples[int(r0 * rate):]
    head = head * (_level(request) / max(_level(wake), 1e-6))
    fade = min(len(tail), int(0.005 * rate))  # no click where the two recordings meet
    tail = tail.copy()
    tail[:fade] *= np.linspace(0, 1, fade, dtype=np.float32)
    samples = np.concatenate([head, tail]).astype(np.float32)
    shift = len(head) / rate - r0
    return replace(request, name=f"{wake.name}+{gap_s:g}s/{request.name}",
                   audio=Audio(samples, rate), wake=wake.text or wake.name, gap_s=gap_s,
                   words=(round(len(head) / rate, 3), round(request.words[1] + shift, 3)))


def _level(clip: Clip) -> float:
    a, b = (int(t * STT_RATE) for t in clip.words)
    words = clip.audio.samples[a:b]
    return float(np.sqrt(np.mean(np.square(words)))) if len(words) else 0.0
