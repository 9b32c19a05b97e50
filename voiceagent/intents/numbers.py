"""Strict readings of spoken amounts for local commands: a slot is a duration or a number
only when every word of it says so ("five minutes", "a minute and a half", "90 seconds").

The tools accept looser forms; here doubt means None, so the LLM gets the utterance.
"""

from __future__ import annotations

import re

from voiceagent.language import lexicon
from voiceagent.language.numbers import NUMBER, amounts, numbers_in
from voiceagent.language.spoken_time import duration

_COUNTS = lexicon().values("count_words")
_NAMED = r"[a-z][^\d]*"
"""What a quantity's unit may be: words after its number ("miles", "fluid ounces")."""


def duration_seconds(text: str) -> float | None:
    """Seconds when all of `text` is a length of time, else None ("5" alone is None)."""
    said = duration(text)
    return None if said is None else said.seconds


def number_value(text: str) -> float | None:
    """The number when all of `text` is one ("five", "2.5", "a hundred"), else None."""
    said = numbers_in(text.lower().replace(",", "")).strip()
    if said in _COUNTS:
        return _COUNTS[said]
    first, _, rest = said.partition(" ")
    if _COUNTS.get(first) == 1 and re.fullmatch(NUMBER, rest):  # "a 100": "a hundred"
        said = rest
    return float(said) if re.fullmatch(rf"-?{NUMBER}", said) else None


def split_quantity(text: str) -> tuple[float, str] | None:
    """(value, unit words) from "5 miles", "a mile", "three and a half kilos"."""
    said = amounts(text.lower().replace(",", "").strip(), _NAMED)
    found = re.fullmatch(rf"(-?{NUMBER})\s*([^\d].*)", said)
    if not found:
        return None
    return float(found[1]), found[2].strip()
