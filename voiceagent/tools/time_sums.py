"""Sums of lengths of time: "2 minutes plus 30 seconds", "1 hour 20 plus 50 minutes",
"90 minutes plus 45 minutes in hours". Each amount is read as a length and they are added
or taken away in seconds; the answer is a length, or in the unit asked for. Read as bare
numbers (the calculator leaves a sum's units out) they made "32" and "0.75 hours"."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from voiceagent.errors import ToolError
from voiceagent.language import lexicon
from voiceagent.language.numbers import numbers_in
from voiceagent.language.plural import plural, singular
from voiceagent.language.spoken_time import UNITS, duration, spoken_duration
from voiceagent.tools.words import parse_clock_time


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


_DAY = 24 * 3600
_HALF_DAY = 12 * 3600


@functools.cache
def _span_pattern() -> re.Pattern[str]:
    """A span between two times of day, said from the first ("from 6:05 to 7:40", "between 9
    am and 5:30 pm") or as the later less the earlier ("7:40 - 6:05"); maybe in a unit."""
    lex = lexicon()
    units = "|".join(map(re.escape, sorted(UNITS, key=len, reverse=True)))
    clock = r"\d{1,2}(?::\d{2})?(?:\s*(?:am|pm|a\.m\.|p\.m\.))?"
    return re.compile(
        rf"^(?:(?:{lex.regex('sum_openers')})\s+)?(?:(?P<lead>{units})\s+)?"
        rf"(?:(?:(?:{lex.regex('span_starts')})\s+(?P<a>{clock})\s+(?:{lex.regex('span_ends')})"
        rf"\s+(?P<b>{clock}))|(?P<later>{clock})\s*(?:-|minus)\s*(?P<earlier>{clock}))"
        rf"(?:\s+(?:in|into|as)\s+(?P<unit>{units}))?$")


def clock_span(expression: str) -> TimeSum | None:
    """How long it is from one time of day to the next ("from 6:05 to 7:40": 1 hour 35
    minutes; "how many minutes ... from 6:05 to 7:40": 95 minutes), or None. The second is
    the next time after the first it can be: a time said without am or pm is in the first's
    half of the day, or the next; a span over midnight runs into the next day."""
    said = " ".join(numbers_in(expression.lower()).strip(" ?.!=").split())
    found = _span_pattern().match(said)
    if found is None:
        return None
    first, then = (found["a"], found["b"]) if found["a"] else (found["earlier"], found["later"])
    if ":" not in first + then and not re.search(r"[ap]\.?m", first + then):
        return None  # "7 - 6" is a sum
    starts, ends = _seconds(first), _seconds(then)
    if starts is None or ends is None:
        return None
    (start, start_half), (end, end_half) = starts, ends
    if start_half is None and end_half is not None and start > end:
        start -= _HALF_DAY if start >= _HALF_DAY else 0  # "9 to 5 pm" starts at 9 am
    while end <= start:
        end += _HALF_DAY if end_half is None else _DAY
    unit = found["unit"] or found["lead"] or ""
    return TimeSum(f"{first} to {then}", end - start, unit)


def _seconds(said: str) -> tuple[int, str | None] | None:
    """Seconds after midnight of a time of day, and its "am" or "pm" if said."""
    try:
        hour, minute, half = parse_clock_time(said)
    except ToolError:
        return None
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    return hour * 3600 + minute * 60, half
