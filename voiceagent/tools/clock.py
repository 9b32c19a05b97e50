"""Clock: the time, date and weekday here or in a named place (places.py finds its zone),
and how far away a holiday or date is (days.py reads it)."""

from __future__ import annotations

import re
from datetime import timedelta

from voiceagent.agent.tools import Tool, tool
from voiceagent.language import lexicon
from voiceagent.ports import Clock
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
from voiceagent.tools.words import capitalised

__all__ = [  # the clock's public names before days.py and places.py were split from it
    "WEEKDAYS", "ZONE_HINT", "Places", "asks_for_the_time", "build_places", "calendar_day",
    "days_ahead", "days_until_said", "find_zone", "is_here", "make_tools", "next_occurrence",
    "saved_places", "spoken_date", "spoken_time"]

_LEX = lexicon()
_DERIVED = re.compile(rf"\b(?:{_LEX.regex('time_spans')})\b|"
                      rf"^\W*(?:{_LEX.regex('yes_no_openers')})\b", re.I)
"""Questions that the time or date alone does not answer: a count, a span, a yes or no."""
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


def asks_for_the_time(request: str) -> bool:
    """The clock's result is the whole answer: "What time is it in Tokyo?", not "How many
    days until Christmas?" or "Is it morning in Sydney?"."""
    return _DERIVED.search(request) is None


def make_tools(clock: Clock) -> list[Tool]:
    """The clock tool, telling time by `clock` (in its zone)."""

    @tool(speaks_result=True, answers=asks_for_the_time, grounded=("place",))
    def get_time(place: str = "") -> str:
        """The time, date or weekday, here or in a city or country.

        Args:
            place: a city or country the user named; else empty.
        """
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
        if not is_here(place):
            zone = find_zone(place)
            moment = clock.now().astimezone(zone)
            return f"In {with_the(place)} it is {spoken_time(moment)}, {spoken_date(moment)}."
        moment = clock.now()
        return f"It is {spoken_time(moment)}, {spoken_date(moment)}."

    return [get_time]
