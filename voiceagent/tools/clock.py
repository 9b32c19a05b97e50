"""Clock: the time, date and weekday here or in a named place (places.py finds its zone), a
time of day in one place as the time in another, and how far away a holiday or date is
(days.py reads it)."""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta

from voiceagent.agent.outcome import Outcome, Ref
from voiceagent.agent.tools import Tool, tool
from voiceagent.errors import ToolError
from voiceagent.language import lexicon, say, tell_model, tokens
from voiceagent.language.holidays import MONTHS
from voiceagent.language.numbers import numbers_in, ordinal, ordinals
from voiceagent.language.spoken_time import clock_digits, next_time
from voiceagent.ports import Clock
from voiceagent.tools.clock_sums import time_later
from voiceagent.tools.days import (
    WEEKDAYS,
    calendar_day,
    days_ahead,
    days_until_said,
    next_day,
    next_occurrence,
    spoken_date,
    spoken_time,
)
from voiceagent.tools.places import (
    ZONE_HINT,
    Places,
    build_places,
    find_zone,
    plain,
    saved_places,
    with_the,
)
from voiceagent.tools.timers import spoken_length
from voiceagent.tools.words import capitalised

__all__ = [  # the clock's public names before days.py and places.py were split from it
    "WEEKDAYS", "ZONE_HINT", "Places", "asks_for_the_time", "build_places", "calendar_day",
    "day_of_month", "time_later",
    "days_ahead", "days_until_said", "find_zone", "is_here", "make_tools", "next_occurrence",
    "saved_places", "spoken_date", "spoken_time", "time_until"]

_LEX = lexicon()
_DERIVED = re.compile(rf"\b(?:{_LEX.regex('time_spans')})\b|"
                      rf"^\W*(?:{_LEX.regex('yes_no_openers')})\b", re.I)
"""Questions that the time or date alone does not answer: a count, a span, a yes or no."""
_TIME_OF_DAY = re.compile(
    rf"\b\d{{1,2}}(?::\d\d)?\s*(?:{_LEX.regex('meridiem')}|o'?clock)(?!\w)|\b\d{{1,2}}:\d\d\b"
    rf"|\b\d{{1,2}}\s+(?:in\s+(?:the\s+)?|at\s+|this\s+)?(?:{_LEX.regex('day_parts')})\b"
    rf"|\b(?:{_LEX.regex('named_times')})\b", re.I)
"""A time of day said ("seven in the evening", "9 pm", "half past ten", "noon")."""


def converts_a_time(request: str) -> str:
    """Why the clock's reading does not answer `request`: it asks what a time of day it
    names is at another clock ("if it's seven in the evening here in dublin what time would
    that be in perth"): the converter's. "" when it may."""
    said = clock_digits(numbers_in(request.lower()))
    words = tokens(request)
    if _TIME_OF_DAY.search(said) and (_LEX.has("conditionals", words) or "when" in words):
        return tell_model("time_said")
    return ""


_AHEAD = re.compile(rf"(?:{_LEX.regex('later')})\b|.*\b(?:{_LEX.regex('from_now')})$", re.I)
"""A day said as counted from now ("in 3 days", "a week from now"): "it will be"."""


def is_here(place: str) -> bool:
    """`place` is what small models put there when the user asked about here ("", "local",
    "my location": the lexicon's `here`), with or without a determiner ("this time zone":
    the 1.5B and the templates passed "time zone", which matched a zone's name)."""
    key = plain(place)
    if not key or _LEX.is_one("here", key):
        return True
    words = key.split()
    while words and words[0] in _LEX.words("determiners"):
        words = words[1:]
    return bool(words) and _LEX.is_one("here", " ".join(words))


_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")
_ORDINAL_WORDS = sorted(ordinals(31).items(), key=lambda kv: -len(kv[0]))
_PLAIN = frozenset({"of", "on", "next", "last", "this", "current", "in", "for"})


@functools.cache
def _when_words() -> frozenset[str]:
    """Words that only say when: the clock topic's (topics.yaml `asked`), determiners."""
    from voiceagent.language.topics import topics_of

    asked = {w for term in topics_of().topic("clock").asked for w in term}
    return frozenset(asked | _LEX.words("determiners") | _PLAIN)


def _only_when(place: str) -> int | None:
    """When `place` holds only words that say when ("this month", "next year", "the
    twelfth", "now"), the day of the month it names (0 for none); None when it may be a
    place. The 1.5B put them where a place goes ("what day of the week is twelfth" -> place
    "twelfth"), and the turn ended "Sorry, I couldn't do that." when no zone was found."""
    text = " ".join(tokens(place))
    day_said = _LEX.pattern("years_back").sub("", text).strip()
    if day_said != text and calendar_day(day_said) is not None:  # "christmas that year"
        raise ToolError(f"say which year: '{day_said} this year' or '{day_said} next year'.")
    day = 0
    for name, n in _ORDINAL_WORDS:
        if re.search(rf"\b{name}\b", text):
            day, text = n, re.sub(rf"\b{name}\b", " ", text)
            break
    rest = []
    for word in text.split():
        digits = _ORDINAL.match(word)
        if digits and not day:
            day = int(digits.group(1))
        else:
            rest.append(word)
    if (not text.strip() and not day or not all(w in _when_words() for w in rest)
            or any(w in MONTHS for w in rest)):  # a month named: a date, not this month's
        return None
    return day


def day_of_month(text: str) -> int:
    """The day of this month `text` names and nothing more ("the twenty second", "the
    22nd": what day of the week it falls on is the clock's to answer), else 0."""
    try:
        return _only_when(text) or 0
    except ToolError:
        return 0


def _on_day(day: int, now: datetime) -> str:
    """The time and date now, and the weekday of `day` of this month when one was named."""
    today = f"It is {spoken_time(now)}, {spoken_date(now)}."
    if not day:
        return today
    try:
        moment = now.replace(day=day)
    except ValueError:
        raise ToolError(f"this month has no day {day}.") from None
    return f"{today} The {ordinal(day)} of this month is {moment:%A}."


def asks_for_the_time(request: str) -> bool:
    """The clock's result is the whole answer: "What time is it in Tokyo?", not "How many
    days until Christmas?" or "Is it morning in Sydney?"."""
    return _DERIVED.search(request) is None


def make_tools(clock: Clock) -> list[Tool]:
    """The clock tool, telling time by `clock` (in its zone)."""

    @tool(speaks_result=True, answers=asks_for_the_time, grounded=("place",),
          misfits=converts_a_time,
          carries={"months": ("place",), "calendar_years": ("place",)})
    def get_time(place: str = "") -> Outcome:
        """The time, date or weekday, here or in a city or country.

        Args:
            place: a city or country the user named; else empty.
        """
        # what was asked about, for "and in London?" (intents/again.py)
        return Outcome(_time_at(place), (Ref("clock", "read", label=place.strip()),))

    def _time_at(place: str) -> str:
        today = clock.now()
        holiday = next_day(place, today)
        if holiday is not None:  # "Christmas", "July 4th": when it is, and how far away
            return days_until_said(*holiday, today)
        offset = days_ahead(place, today)
        if offset is not None:  # the model put "tomorrow" where a place goes: answer that
            day = today + timedelta(days=offset)
            said = capitalised(place.strip(" .?!"))
            if offset < 0:
                return f"{said} was {spoken_date(day)}."
            if _AHEAD.match(said):
                return f"{said} it will be {spoken_date(day)}."
            return f"{said} is {spoken_date(day)}."
        month_day = _only_when(place)
        if month_day is not None:  # "this month", "next year", "twelfth": no place at all
            return _on_day(month_day, clock.now())
        later = time_later(place, today)
        if later:  # "in 3 hours", "8 hours after 6 am": a time worked out, not a place
            return later
        until = time_until(place, today)
        if until:  # "how many minutes until 5 pm": a time of day, not a place
            return until
        if not is_here(place):
            zone = find_zone(place)
            moment = clock.now().astimezone(zone)
            return f"In {with_the(place)} it is {spoken_time(moment)}, {spoken_date(moment)}."
        moment = clock.now()
        return f"It is {spoken_time(moment)}, {spoken_date(moment)}."

    @tool(speaks_result=True, grounded=("time", "from_place", "to_place"), retried=False,
          asks={"to_place": say("ask_place")})
    def convert_time(to_place: str, time: str = "", from_place: str = "") -> Outcome:
        """A time of day in one place as the time in another ("if it's 10 pm in California,
        what time is it in Alabama?"), or how many hours apart two places' clocks are.

        Args:
            to_place: the city, country or time zone asked about; empty for here.
            time: the time of day the user said, e.g. '10 pm'; empty for the difference.
            from_place: where that time is (a city, country or time zone); empty for here.
        """
        # what was asked, for "and for tom in san francisco?" (intents/again.py)
        asked = (Ref("clock", "converted", label=to_place.strip(),
                     items=(time.strip(), from_place.strip())),)
        now = clock.now()
        here = now.tzinfo
        source = now if is_here(from_place) else now.astimezone(find_zone(from_place))
        target = here if is_here(to_place) else find_zone(to_place)
        if not time.strip():  # how far apart, and the time there now
            there = source.astimezone(target)
            return Outcome(" ".join([
                _apart(source, there, there=_at(to_place), source=_at(from_place)),
                say("now_there", there=capitalised(_at(to_place)), time=spoken_time(there))]),
                asked)
        moment = next_time(time, source)
        there = moment.astimezone(target)
        shift = (there.date() - moment.date()).days
        return Outcome(say("time_elsewhere", time=spoken_time(moment),
                           there_time=spoken_time(there), source=_at(from_place),
                           there=_at(to_place), day=say("day_after") if shift > 0
                           else say("day_before") if shift < 0 else ""), asked)

    return [get_time, convert_time]


def _at(place: str) -> str:
    """"in the UK", or "here"."""
    return say("here") if is_here(place) else say("in_place", place=with_the(place))


def _apart(now_source: datetime, now_there: datetime, **names: str) -> str:
    """"It is 2 hours later in Alabama than in California.": how far apart two clocks are
    now."""
    gap = (now_there.utcoffset() or timedelta()) - (now_source.utcoffset() or timedelta())
    seconds = int(gap.total_seconds())
    if not seconds:
        return say("same_time", **names)
    return say("hours_ahead" if seconds > 0 else "hours_behind",
               length=spoken_length(abs(seconds)), **names)


def time_until(said: str, now: datetime) -> str:
    """How long from `now` until the time of day `said` ("5 pm", "midnight", "half past
    six"): "5:00 PM is in 1 hour and 47 minutes."; "" when `said` is no time of day."""
    if not re.search(r"\d|o'?clock", said) and not any(
            lexicon().has(words, said) for words in ("noon", "afternoon", "half", "quarter")):
        return ""  # "tokyo": no time of day; "five" alone neither ("five pm", "5" are)
    try:
        at = next_time(said, now)
    except ToolError:
        return ""
    left = round((at - now).total_seconds() / 60) * 60
    return f"{spoken_time(at)} is in {spoken_length(left)}." if left > 0 else ""
