"""Strict readings of spoken amounts for local commands: a slot is a duration or a number
only when every word of it says so ("five minutes", "a minute and a half", "90 seconds").

The tools accept looser forms; here doubt means None, so the LLM gets the utterance.
"""

from __future__ import annotations

import re

from voiceagent.tools.words import numbers_in

_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_UNIT_WORD = (r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)")
_NUM = r"\d+(?:\.\d+)?"
_FRACTION = {"half": 0.5, "quarter": 0.25, "third": 1 / 3}
_PART = re.compile(rf"({_NUM})\s*({_UNIT_WORD})")


def _unit(word: str) -> str:
    for unit in _UNIT_SECONDS:
        if word.startswith(unit[:3]) or (unit == "hour" and word.startswith("hr")):
            return unit
    raise ValueError(word)


def _prepare(text: str) -> str:
    t = numbers_in(text.lower())
    t = re.sub(r"^\s*(?:like|about|around|roughly|approximately|exactly|just)\s+", "", t)
    t = re.sub(r"\s+(?:from now|starting now|from right now)\s*$", "", t)
    t = re.sub(r"(?<=\d)\s+more\s+(?=[a-z])", " ", t)
    t = re.sub(r"[,;]|(?<=\d)-(?=[a-z])|(?<=[a-z])-(?=[a-z])", " ", t)
    t = re.sub(r"\b(?:a\s+)?couple(?:\s+of)?\b", "2", t)
    # "one and a half hours", "an hour and a half", "half an hour", "a quarter of an hour"
    t = re.sub(rf"\b({_NUM})\s+and\s+an?\s+(half|quarter)\s+({_UNIT_WORD})",
               lambda m: f"{float(m[1]) + _FRACTION[m[2]]:g} {m[3]}", t)
    t = re.sub(rf"\b(?:an?|1)\s+({_UNIT_WORD})\s+and\s+an?\s+(half|quarter)\b",
               lambda m: f"{1 + _FRACTION[m[2]]:g} {m[1]}", t)
    t = re.sub(rf"\b({_NUM})\s+({_UNIT_WORD})\s+and\s+an?\s+(half|quarter)\b",
               lambda m: f"{float(m[1]) + _FRACTION[m[3]]:g} {m[2]}", t)
    t = re.sub(r"\b3\s+quarters\s+of\s+an?\s+hour\b", "45 minutes", t)
    t = re.sub(r"\b(?:an?|1)\s+quarter\s+(?:of\s+an?\s+)?hour\b|\bquarter\s+hour\b",
               "15 minutes", t)
    t = re.sub(rf"\b(?:an?\s+|1\s+)?half\s+(?:of\s+)?an?\s+({_UNIT_WORD})", r"0.5 \1", t)
    t = re.sub(rf"\b(?:an?|1)\s+({_UNIT_WORD})\b", r"1 \1", t)
    return " ".join(t.split())


def duration_seconds(text: str) -> float | None:
    """Seconds when all of `text` is a length of time, else None ("5" alone is None)."""
    t = _prepare(text)
    rest = _PART.sub(" ", t)
    if not _PART.search(t) or re.sub(r"\b(?:and|plus)\b", " ", rest).strip():
        return None
    units = [_unit(u) for _, u in _PART.findall(t)]
    if len(set(units)) != len(units):  # "5 minutes 3 minutes": not one duration
        return None
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in zip([n for n, _ in _PART.findall(t)],
                                                            units, strict=True))


def number_value(text: str) -> float | None:
    """The number when all of `text` is one ("five", "2.5", "a hundred"), else None."""
    t = numbers_in(text.lower().replace(",", "")).strip()
    t = re.sub(r"^(?:an?|one)$", "1", t)
    t = re.sub(r"^an?\s+(?=\d)", "", t)
    if re.fullmatch(r"-?\d+(?:\.\d+)?", t):
        return float(t)
    return None


def split_quantity(text: str) -> tuple[float, str] | None:
    """(value, unit words) from "5 miles", "a mile", "three and a half kilos"."""
    t = numbers_in(text.lower().replace(",", "")).strip()
    t = re.sub(r"^(?:an?|one)\s+(?!\d)", "1 ", t)
    t = re.sub(r"^(\d+)\s+and\s+a\s+half\s+", lambda m: f"{int(m[1]) + 0.5:g} ", t)
    t = re.sub(r"^half\s+an?\s+", "0.5 ", t)
    match = re.fullmatch(r"(-?\d+(?:\.\d+)?)\s*([^\d].*)", t)
    if not match:
        return None
    return float(match[1]), match[2].strip()
