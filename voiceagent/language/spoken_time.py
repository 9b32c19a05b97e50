"""Spoken time read into typed values, in one place: lengths of time, clock times and days.

    duration("an hour and a half")          Duration(5400.0)  (all of it a length, else None)
    read_duration("5 minutes for the pasta") Duration(300.0)   (forgiving; ToolError if none)
    clock_time("seven thirty pm")           ClockTime(7, 30, "pm")
    relative_day("next Friday", now)        Day(4, weekday=True)
    day_with_time("7 am tomorrow", now)     TimeOnDay("7 am", Day(1), "tomorrow")
    next_time("Friday at 9", now)           the next such moment, as a datetime

`now` is an aware datetime from the Clock port (ports.Clock.now()): nothing here reads the
wall clock. The words are the lexicon's (time.yaml, numbers.yaml); what is here is how they
combine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from voiceagent.errors import ToolError
from voiceagent.language.lexicon import lexicon, number
from voiceagent.language.numbers import NUMBER, SMALL, amounts, numbers_in
from voiceagent.language.plural import plural
from voiceagent.language.templates import Found
from voiceagent.language.twenty_four_hour import twenty_four_hour

_LEX = lexicon()
_FRACTIONS = _LEX.values("fractions")


@dataclass(frozen=True)
class Duration:
    """A length of time."""

    seconds: float


@dataclass(frozen=True)
class ClockTime:
    """A time of day as said: "7:30 pm" is (7, 30, "pm"); "19:45" is (19, 45, None)."""

    hour: int
    minute: int
    half: str | None = None
    """"am" or "pm" when said; None leaves it open ("at 7": whichever comes first)."""


@dataclass(frozen=True)
class Day:
    """A day said relative to today."""

    offset: int
    """Days from today: 1 is tomorrow, -1 yesterday."""
    weekday: bool = False
    """Said as a weekday's name ("Tuesday"): said on a Tuesday, that is today or next week."""


# --- lengths of time ----------------------------------------------------------------------------

def _unit_words() -> dict[str, float]:
    """Every word for a unit of time (names, short forms and their plurals) -> seconds."""
    units: dict[str, float] = {}
    for name, row in _LEX.table("durations").items():
        size, *short = row if isinstance(row, list) else [row]
        seconds = number(size, f"time.yaml: durations: {name}")
        for word in (name, *short):
            units[word] = units[plural(word)] = seconds
    return units


UNITS = _unit_words()
"""Words for a unit of time, and its seconds ("minutes" 60, "hrs" 3600)."""
LETTERS = {letter: UNITS[unit] for letter, unit in _LEX.names("duration_letters").items()}
"""Single letters for a unit of time, written after a number ("90s", "5 m")."""
UNIT_WORDS = "|".join(sorted(UNITS, key=len, reverse=True))
"""A regular expression for a word of UNITS."""
_ANY_UNIT = f"{UNIT_WORDS}|{'|'.join(LETTERS)}"
_PART = re.compile(rf"({NUMBER})\s*({UNIT_WORDS})\b")
_LOOSE_PART = re.compile(rf"({NUMBER})\s*({_ANY_UNIT})\b")
_HEDGE = re.compile(rf"^\s*(?:{_LEX.regex('hedges')})\s+")
_FROM_NOW = re.compile(rf"\s+(?:{_LEX.regex('from_now')})\s*$")
_MORE = re.compile(rf"(?<=\d)\s+(?:{_LEX.regex('more')})\s+(?=[a-z])")
_JOINERS = _LEX.pattern("joiners")


def _spoken_amounts(text: str) -> str:
    """Numbers as digits and fractions folded before a unit, commas and hyphens as spaces:
    "an hour and a half" -> "1.5 hour", "ten-minute" -> "10 minute"."""
    t = re.sub(r"[,;]|(?<=\d)-(?=[a-z])|(?<=[a-z])-(?=[a-z])", " ", text.lower())
    return " ".join(amounts(t, UNIT_WORDS).split())


def _seconds(word: str) -> float:
    return UNITS.get(word) or LETTERS[word]


_WRITTEN_FRACTION = re.compile(r"\b(?:(\d+)\s+)?(\d+)\s*/\s*(\d+)(?:\s+of)?(?:\s+an?)?\s+(?=[a-z])")


def _written_fractions(text: str) -> str:
    """A typed fraction of a unit as a decimal: "1/2 an hour" -> "0.5 hour", "1 1/2 hours"
    -> "1.5 hours", "3/4 of an hour" -> "0.75 hour" (a date like 9/11 is left alone)."""
    def decimal(found: re.Match[str]) -> str:
        whole, top, bottom = int(found[1] or 0), int(found[2]), int(found[3])
        if not bottom or top >= bottom:
            return found[0]
        return f"{whole + top / bottom:g} "
    return _WRITTEN_FRACTION.sub(decimal, text)


def _next_unit(unit: str) -> str | None:
    """The unit said after `unit` in a length ("hour" -> "minute"), by time.yaml's order."""
    order = _LEX.phrases("said_lengths")
    named = next((u for u in order if UNITS[u] == UNITS[unit]), None)
    at = order.index(named) if named else len(order)
    return order[at + 1] if at + 1 < len(order) else None


_UNIT_LEFT_OUT = re.compile(rf"({NUMBER})\s*({UNIT_WORDS})\s+(?:(?:{_LEX.regex('joiners')})\s+)?"
                            rf"(\d{{1,2}})\s*$")


def _implied_unit(text: str) -> str:
    """A number after a unit, with its own unit left out, in the next unit: "an hour and
    twenty" is 1 hour 20 minutes, "2 minutes 30" 2 minutes 30 seconds (below 60 only)."""
    found = _UNIT_LEFT_OUT.search(text)
    smaller = _next_unit(found[2]) if found else None
    if found is None or smaller is None or int(found[3]) >= 60:
        return text
    return f"{text} {plural(smaller)}"


def duration(text: str) -> Duration | None:
    """The length of time all of `text` says ("five minutes", "a minute and a half", "90
    seconds", "10 minutes from now"), else None: "5" alone, "a few minutes" and "5 minutes
    3 minutes" are None (local commands send doubt to the model)."""
    t = numbers_in(_written_fractions(text.lower()))
    t = _HEDGE.sub("", t)
    t = _FROM_NOW.sub("", t)
    t = _implied_unit(_spoken_amounts(_MORE.sub(" ", t)))
    parts = _PART.findall(t)
    if not parts or _JOINERS.sub(" ", _PART.sub(" ", t)).strip():
        return None
    units = [UNITS[u] for _, u in parts]
    if len(set(units)) != len(units):  # "5 minutes 3 minutes": not one duration
        return None
    return Duration(sum(float(n) * size for (n, _), size in zip(parts, units, strict=True)))


def read_duration(text: str) -> Duration:
    """The length of time in `text`, forgiving the words around it: "5 minutes", "1 hour 30
    minutes", "half an hour", "90 s"; a bare number means minutes ("set a timer for 5")."""
    t = _implied_unit(_spoken_amounts(_written_fractions(text)))
    parts = _LOOSE_PART.findall(t)
    if parts:
        return Duration(sum(float(n) * _seconds(u) for n, u in parts))
    bare = _LEX.templates("bare_length", {"n": NUMBER}).match(t)
    if bare:
        unit = _said_in(_LEX.phrases("bare_number_unit")[0])
        return Duration(float(bare.slots["n"]) * UNITS[unit])
    raise ToolError(f"I could not read {text!r} as a length of time. "
                    "Say it like '5 minutes', '90 seconds' or '1 hour 30 minutes'.")


def says_a_length(text: str) -> bool:
    """`text` names a number of some unit of time ("20 minutes", "twenty minutes", "5m")."""
    return bool(_LOOSE_PART.search(numbers_in(text.lower())))


def _said_in(name: str) -> str:
    """`name`, checked to be a unit of time (so a typo in the data is loud)."""
    if name not in UNITS:
        raise KeyError(f"{name!r} is no unit of time in time.yaml's durations")
    return name


def spoken_duration(seconds: float) -> str:
    """5400 -> '1 hour 30 minutes'; 90 -> '1 minute 30 seconds'."""
    seconds = round(seconds)
    parts = []
    names = _LEX.phrases("said_lengths")
    for name in names:
        n, seconds = divmod(seconds, round(UNITS[_said_in(name)]))
        if n:
            parts.append(f"{n} {name if n == 1 else plural(name)}")
    return " ".join(parts) or f"0 {plural(names[-1])}"


# --- clock times --------------------------------------------------------------------------------

def _written_half() -> re.Pattern[str]:
    """'am', 'a.m.', 'a.m' as written (a key's final period may be left out)."""
    spellings = sorted(_LEX.names("meridiem"), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(
        re.escape(s.rstrip(".")) + (r"\.?" if s.endswith(".") else "") for s in spellings)
        + r")(?!\w)")


_WRITTEN_HALF = _written_half()
_HALVES = "|".join(sorted(set(_LEX.names("meridiem").values())))
_HALF = re.compile(rf"\b({_HALVES})\b")
_CLOCK_FILLERS = _LEX.pattern("clock_fillers")
_DAY_PARTS = _LEX.pattern("day_parts")
_NOUGHT = _LEX.names("number_parts")["nought"]


_NUMBER_WORD = "|".join(sorted(SMALL, key=len, reverse=True))
_AROUND = {"hour": rf"\d{{1,2}}|{_NUMBER_WORD}",
           "minutes": rf"\d{{1,2}}|(?:{_NUMBER_WORD})(?:[\s-](?:{_NUMBER_WORD}))?",
           "fraction": _LEX.regex("fractions")}


def clock_digits(text: str) -> str:
    """`text` with minutes said around an hour as a clock reading: 'half past seven' ->
    '7:30', 'ten past 6' -> '6:10', 'a quarter to eight' -> '7:45'."""

    def minutes(found: Found) -> int:
        if "fraction" in found.slots:
            return round(_FRACTIONS[found.slots["fraction"].lower()] * 60)
        return int(numbers_in(found.slots["minutes"]))

    def past(found: Found) -> str:
        return f"{int(numbers_in(found.slots['hour']))}:{minutes(found):02d}"

    def to(found: Found) -> str:
        hour = int(numbers_in(found.slots["hour"]))
        return f"{(hour - 1) % 12 or 12}:{60 - minutes(found):02d}"

    text = _LEX.templates("past_the_hour", _AROUND).sub(text, past)
    return _LEX.templates("to_the_hour", _AROUND).sub(text, to)


def clock_time(text: str) -> ClockTime:
    """The time of day in "7:30", "7:30 pm", "at 7", "seven thirty", "half past seven", "6 in
    the morning", "noon"; an instructive ToolError otherwise."""
    t = clock_digits(text).lower().strip()
    meridiem = _LEX.names("meridiem")
    t = _WRITTEN_HALF.sub(lambda m: " " + meridiem.get(m[0], meridiem.get(m[0] + ".", "")),
                          t)
    t = _CLOCK_FILLERS.sub(" ", t)
    t = _DAY_PARTS.sub(lambda m: str(_LEX.lookup("day_parts", m[0])), t)
    named = _LEX.lookup("named_times", t) if t.strip() else None
    if named is not None:
        hours, _, minutes = str(named).partition(":")
        return ClockTime(int(hours), int(minutes or 0))
    half_word = _HALF.search(t)
    words = [w for w in re.split(r"[\s-]+", _HALF.sub(" ", t)) if w]
    if not half_word:
        on_the_clock = twenty_four_hour(words)
        if on_the_clock is not None:
            return ClockTime(*on_the_clock)
    if words and words[0] in SMALL and not re.search(r"\d", t):
        # "seven thirty", "seven oh five pm": an hour word, then the minute words
        minutes = numbers_in(" ".join(w for w in words[1:] if w != _NOUGHT)) or "0"
        if not minutes.isdigit():
            minutes = "99"  # not a time: rejected below with the instructive message
        t = f"{SMALL[words[0]]}:{int(minutes):02d}"
    else:
        t = numbers_in(" ".join(words))
    t += f" {half_word.group(1)}" if half_word else ""
    found = re.fullmatch(rf"\s*(\d{{1,2}})(?:[:.h ](\d{{2}}))?\s*({_HALVES})?\s*", t)
    if not found:
        raise ToolError(f"I could not read {text!r} as a time of day. "
                        "Say it like '7:30', '7:30 pm' or '19:45'.")
    hour, minute, half = int(found.group(1)), int(found.group(2) or 0), found.group(3)
    if hour > 23 or minute > 59 or (half and not 1 <= hour <= 12):
        raise ToolError(f"{text!r} is not a valid time of day. Say it like '7:30 pm' or '19:45'.")
    return ClockTime(hour, minute, half)


# --- days ---------------------------------------------------------------------------------------

WEEKDAYS = list(_LEX.phrases("weekdays"))
"""The days of the week, Monday first (datetime.weekday() order)."""
_WEEKDAY = "|".join(WEEKDAYS)


def _weekday_offset(name: str, today: datetime) -> int:
    """Days from `today` to the next weekday `name` (1-7: said on a Friday, "Friday" is next
    week's)."""
    return (WEEKDAYS.index(name.lower()) - today.weekday() - 1) % 7 + 1


_COUNTED_DAYS = (("days_ahead", 1), ("days_ago", -1), ("weeks_ahead", 7), ("weeks_ago", -7))
"""time.yaml's templates of a count of days or weeks from today, and the days each counts."""


def relative_day(text: str, today: datetime) -> Day | None:
    """The day `text` says relative to `today` ("tomorrow" 1, "in 3 days" 3, "3 days ago" -3,
    "next Friday"), or None when `text` is no such day."""
    said = " ".join(numbers_in(text.lower()).split()).strip(" .?!")
    named = _LEX.lookup("relative_days", said) if said else None
    if named is not None:
        return Day(int(number(named, "time.yaml: relative_days")))
    for counted, days in _COUNTED_DAYS:
        found = _LEX.templates(counted, {"n": r"\d+"}).match(said)
        if found:
            return Day(days * int(found.slots["n"]))
    found = _LEX.templates("weekday", {"weekday": _WEEKDAY}).match(said)
    if found:
        return Day(_weekday_offset(found.slots["weekday"], today), weekday=True)
    parts = re.fullmatch(rf"(.+?)\s+(?:{_LEX.regex('counted_from')})\s+(.+)", said)
    if parts:  # "2 weeks from tomorrow": a count of days from another day
        span, base = relative_day(parts[1], today), relative_day(parts[2], today)
        if span is not None and base is not None and span.offset > 0 and not span.weekday:
            return Day(base.offset + span.offset)
    return None


NIGHT_ENDS = 4
"""Before this hour people still say "tomorrow" for the coming morning."""


@dataclass(frozen=True)
class TimeOnDay:
    """A time said with its day ("7 am tomorrow"), taken apart."""

    time: str
    """The words without the day ("7 am"); a part of the day stays ("9 tonight")."""
    day: Day | None
    """The day said, or None when none was."""
    said: str = ""
    """The day's words as said ("tomorrow", "on Friday")."""


def day_with_time(text: str, now: datetime) -> TimeOnDay:
    """"7 am tomorrow" -> ("7 am", Day(1)), "9 tonight" -> ("9 tonight", Day(0)), "Friday at
    9" -> ("at 9", Day(n, weekday=True)); "Tuesday at 9" said on a Tuesday is Day(0, True):
    today, or next week once it has passed."""
    counted = _counted_day(text, now)  # "5 pm a week from today": not "today"
    if counted.day is not None:
        return counted
    found = _LEX.templates("day_with_a_time", {"weekday": _WEEKDAY,
                                               "part": _LEX.regex("day_parts")}).search(text)
    if not found:
        return TimeOnDay(text, None)
    before, after, slots = text[:found.start], text[found.end:], found.slots
    said = text[found.start:found.end]
    if "part" in slots:  # "7 this evening": "evening" stays with the time
        return TimeOnDay(f"{before.rstrip()} {slots['part']}{after}".strip(), Day(0), said)
    rest = f"{before} {after}".strip()
    if "same_day" in slots:  # "9 tonight": "tonight" says pm
        part = slots["same_day"] if _LEX.lookup("day_parts", slots["same_day"]) else ""
        return TimeOnDay(f"{rest} {part}".rstrip() if part else rest, Day(0), said)
    if "weekday" in slots:
        return TimeOnDay(rest, Day(_weekday_offset(slots["weekday"], now) % 7, weekday=True),
                         said)
    ahead = slots["days_with_a_time"]
    offset = int(number(_LEX.lookup("relative_days", ahead),
                        f"time.yaml: days_with_a_time: {ahead} (must be a relative day)"))
    if offset == 1 and now.hour < NIGHT_ENDS:
        offset = 0  # at 1 AM "tomorrow at 7" is this morning
    return TimeOnDay(rest, Day(offset), said)


def _counted_day(text: str, now: datetime) -> TimeOnDay:
    """A day counted from today said before or after the time ("5 pm a week from today", "in
    3 days at 9"): the longest such words at either end, of two words or more."""
    words = text.split()
    for size in range(len(words) - 1, 1, -1):
        for day, rest in ((words[-size:], words[:-size]), (words[:size], words[size:])):
            said = " ".join(day)
            found = relative_day(said, now)
            if found is not None and found.offset > 0 and not found.weekday and rest:
                return TimeOnDay(" ".join(rest), found, said)
    return TimeOnDay(text, None)


def next_time(text: str, now: datetime) -> datetime:
    """The next `text` o'clock after `now` ("7:30", "7:30 pm"), on the day said with it ("7
    am tomorrow", "Friday at 9"); hours without am/pm mean whichever of the two comes
    first."""
    rest, day = (found := day_with_time(text, now)).time, found.day
    said = clock_time(rest)
    if said.half:
        hours = [said.hour % 12 + (12 if said.half == "pm" else 0)]
    else:
        hours = [said.hour, said.hour + 12] if 1 <= said.hour <= 11 else [said.hour]
    times = []
    for hour in hours:
        moment = now.replace(hour=hour, minute=said.minute, second=0, microsecond=0)
        moment += timedelta(days=day.offset if day else 0)
        if moment <= now:
            if day is None or day.weekday:  # the next one: tomorrow's, or next week's
                moment += timedelta(days=7 if day else 1)
            else:
                continue  # "today at 7" when it is 8
        times.append(moment)
    if not times:
        raise ToolError(f"{rest.strip()!r} has already passed today; ask the user for "
                        "another time.")
    return min(times)
