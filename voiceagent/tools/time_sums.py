"""Sums of lengths of time: "2 minutes plus 30 seconds", "1 hour 20 plus 50 minutes",
"90 minutes plus 45 minutes in hours". Each amount is read as a length and they are added
or taken away in seconds; the answer is a length, or in the unit asked for. Read as bare
numbers (the calculator leaves a sum's units out) they made "32" and "0.75 hours"."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from voiceagent.language import lexicon
from voiceagent.language.numbers import numbers_in
from voiceagent.language.plural import plural, singular
from voiceagent.language.spoken_time import UNITS, duration, spoken_duration


@functools.cache
def _signs() -> dict[str, str]:
    """The signs and the words of numbers.yaml's `sum_words` that add or take away ("plus",
    "minus")."""
    return {"+": "+", "-": "-"} | {word: sign for word, sign in lexicon().names(
        "sum_words").items() if sign in ("+", "-")}


@functools.cache
def _joins() -> str:
    """An alternation of `_signs()`, the longest first."""
    return "|".join(map(re.escape, sorted(_signs(), key=len, reverse=True)))


@functools.cache
def _pattern() -> re.Pattern[str]:
    """A sum said as terms between the words that add or take away, maybe ending in the unit
    it is wanted in ("... in hours")."""
    lex = lexicon()
    units = "|".join(map(re.escape, sorted(UNITS, key=len, reverse=True)))
    return re.compile(rf"^(?:(?:{lex.regex('sum_openers')})\s+)?(?P<terms>.+?\s+(?:{_joins()})\s+"
                      rf".+?)(?:\s+(?:in|into|as)\s+(?P<unit>{units}))?$")


@dataclass(frozen=True)
class TimeSum:
    """A sum of lengths of time, as said and worked out."""

    terms: str
    """The sum as said, without the unit it is wanted in: "90 minutes plus 45 minutes"."""
    seconds: float
    unit: str = ""
    """The unit the total is wanted in ("hours"); "" for a length."""

    def said(self) -> str:
        """The total as a length ("2 minutes 30 seconds"), or in its unit ("2.25 hours")."""
        if not self.unit:
            return spoken_duration(self.seconds)
        value = round(self.seconds / UNITS[self.unit], 4)
        shown = f"{value:g}" if value != int(value) else str(int(value))
        return f"{shown} {singular(self.unit) if value == 1 else plural(singular(self.unit))}"


def time_sum(expression: str) -> TimeSum | None:
    """The sum when `expression` adds or takes away lengths of time, every term of it a
    length ("5 minutes plus 2" is no such sum) and the total more than nothing; else None."""
    said = " ".join(numbers_in(expression.lower()).strip(" ?.!=").split())
    found = _pattern().match(said)
    if found is None:
        return None
    parts = re.split(rf"\s+({_joins()})\s+", found["terms"])
    total, sign = 0.0, "+"
    for at, part in enumerate(parts):
        if at % 2:
            sign = _signs()[part]
            continue
        length = duration(part)
        if length is None:
            return None
        total += length.seconds if sign == "+" else -length.seconds
    return TimeSum(found["terms"], total, found["unit"] or "") if total > 0 else None


def length_ratio(expression: str) -> float | None:
    """How many times one length goes into another, when `expression` divides a length by a
    length ("20 minutes / (40 seconds + 20 seconds)": 20 rounds, not 0.33); else None."""
    said = " ".join(numbers_in(expression.lower()).strip(" ?.!=").split())
    openers = lexicon().regex("sum_openers")
    found = re.fullmatch(rf"(?:(?:{openers})\s+)?(.+?)\s*(?:/|divided by)\s*(.+)", said)
    if found is None:
        return None
    sides = [_length(part.strip().removeprefix("(").removesuffix(")").strip())
             for part in (found[1], found[2])]
    if sides[0] is None or not sides[1]:
        return None
    return sides[0] / sides[1]


def _length(said: str) -> float | None:
    """Seconds when `said` is a length or a sum of lengths."""
    length = duration(said)
    if length is not None:
        return length.seconds
    summed = time_sum(said)
    return summed.seconds if summed is not None and not summed.unit else None
