"""Holidays and dates said as one ("Christmas", "the fourth of July", "June 27 this
year"), read into CalendarDay values from the lexicon (time.yaml: holidays,
moving_holidays, dates, calendar_openers, calendar_years).

    calendar_day("the fourth of July")      CalendarDay("the fourth of july", 7, 4)
    calendar_day("Thanksgiving")            CalendarDay("thanksgiving", 0, 0, "4 thursday november")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from voiceagent.language.holidays import MONTHS, moving_holiday
from voiceagent.language.lexicon import lexicon, tokens
from voiceagent.language.numbers import numbers_in, ordinals

_LEX = lexicon()


@dataclass(frozen=True)
class CalendarDay:
    """A holiday or a date said as one ("Christmas", "December 25th")."""

    name: str
    """The holiday as said ("christmas"), or the date as a synthesiser reads it ("July 4")."""
    month: int
    day: int
    rule: str = ""
    """A holiday whose date moves (language/holidays.py: "4 thursday november"); then
    `month` and `day` are 0."""
    year: int | None = None
    """The year said, counted from this one ("this year" 0, "next year" 1), or by its
    number (2027); None: the next to come."""


_MONTHS = MONTHS
_SUFFIXES = "|".join(_LEX.phrases("ordinal_suffixes"))
_DATE_SLOTS = {"month": rf"(?:{'|'.join(_MONTHS)})\.?", "day": rf"\d{{1,2}}(?:{_SUFFIXES})?"}
_OPENER = re.compile(rf"^(?:{_LEX.regex('calendar_openers')}) (?=\D)")
_YEARS = {" ".join(tokens(k)): int(v) for k, v in _LEX.values("calendar_years").items()}
_CLOSER = re.compile(rf",? ({'|'.join(map(re.escape, _YEARS))})$")
_YEAR_FIRST = re.compile(rf"^({'|'.join(map(re.escape, _YEARS))}),? ")
_NUMBERED_YEAR = re.compile(r",? (?:in )?((?:19|20|21)\d\d)$")
_ORDINALS = sorted(ordinals(31).items(), key=lambda kv: -len(kv[0]))


def calendar_day(text: str) -> CalendarDay | None:
    """The holiday or date `text` says ("Christmas", "Thanksgiving", "December 25th", "the
    fourth of July", "March third"), or None."""
    said = " ".join(text.lower().replace("-", " ").split()).strip(" .?!")
    closer = _CLOSER.search(said) or _YEAR_FIRST.search(said)  # "this year june 27" too
    year = None if closer is None else _YEARS[closer.group(1)]
    numbered = _NUMBERED_YEAR.search(said)  # "the fourth of july 2027", "christmas 2027"
    if numbered is not None and year is None:
        year, said = int(numbered.group(1)), said[:numbered.start()]
    said = _OPENER.sub("", _YEAR_FIRST.sub("", _CLOSER.sub("", said)))
    day = _calendar_day(said)
    return None if day is None else CalendarDay(day.name, day.month, day.day, day.rule, year)


def date_spans(words: list[str]) -> list[tuple[int, int]]:
    """Where `words` (tokens) say a date with its day of the month, as (start, end): "remind
    me on [fifth april]", "[the 5th of april]", "[april twenty second]"; the longest at each
    month's name, none overlapping."""
    spans: list[tuple[int, int]] = []
    for at, word in enumerate(words):
        if word not in _MONTHS or (spans and at < spans[-1][1]):
            continue
        found = [(start, end) for start in range(max(0, at - 4), at + 1)
                 for end in range(at + 1, min(len(words), at + 5) + 1)
                 if (not spans or start >= spans[-1][1])
                 and (day := calendar_day(" ".join(words[start:end]))) is not None and day.day]
        if found:
            spans.append(max(found, key=lambda span: span[1] - span[0]))
    return spans


def without_dates(text: str) -> str:
    """`text` without the dates it says with their day ("remind me on fifth april at 7" ->
    "remind me on at 7"): a date's number is no clock time or length."""
    words = tokens(text)
    spans = date_spans(words)
    if not spans:
        return text
    kept = [w for at, w in enumerate(words) if not any(s <= at < e for s, e in spans)]
    return " ".join(kept)


def _calendar_day(said: str) -> CalendarDay | None:
    holiday = _LEX.lookup("holidays", said) if said else None
    if holiday is not None:
        date = calendar_day(str(holiday))
        if date is None:
            raise ValueError(f"time.yaml: holidays: {said}: {holiday!r} is no date")
        return CalendarDay(said, date.month, date.day)
    rule = moving_holiday(said)
    if rule is not None:
        return CalendarDay(said, 0, 0, rule)
    for words, n in _ORDINALS:
        said = re.sub(rf"\b{words}\b", str(n), said)
    found = _LEX.templates("dates", _DATE_SLOTS).match(numbers_in(said))
    if not found:
        return None
    month_name = found.slots["month"].rstrip(".")
    month, day = _MONTHS[month_name], int(re.sub(r"\D", "", found.slots["day"]))
    try:
        datetime(2024, month, day)  # a leap year: February 29 exists
    except ValueError:
        return None
    return CalendarDay(f"{month_name.capitalize()} {day}", month, day)


