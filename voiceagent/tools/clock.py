"""Clock: the time, date and weekday here or in a named place (places.py finds its zone),
and how far away a holiday or date is (days.py reads it)."""

from __future__ import annotations

import re
from datetime import timedelta

from voiceagent.agent.tools import Tool, tool
from voiceagent.ports import Clock
from voiceagent.tools.days import (
    calendar_day,
    days_ahead,
    days_until_said,
    next_occurrence,
    spoken_date,
    spoken_time,
)
from voiceagent.tools.places import find_zone, plain, with_the
from voiceagent.tools.words import capitalised

HERE = {"", "here", "local", "home", "now", "right now", "today", "tonight", "current",
        "date", "the date", "day", "time", "the time", "my location", "local time",
        "current location", "my city", "my time zone", "local time zone"}
"""Words small models put in `place` when the user asked about here."""

_DERIVED = re.compile(
    r"\b(?:how (?:many|much|long|old)|until|till|since|ago|between|left|before|after|older|"
    r"younger|countdown|difference)\b|^\W*(?:is|are|was|were|will|do|does|did|am|should|"
    r"can|could)\b", re.I)
"""Questions that the time or date alone does not answer: a count, a span, a yes or no."""


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
        holiday = calendar_day(place)
        if holiday is not None:  # "Christmas", "July 4th": when it is, and how far away
            name, month, day_of_month = holiday
            return days_until_said(name, next_occurrence(month, day_of_month, today), today)
        offset = days_ahead(place, today)
        if offset is not None:  # the model put "tomorrow" where a place goes: answer that
            day = today + timedelta(days=offset)
            said = capitalised(place.strip(" .?!"))
            if offset < 0:
                return f"{said} was {spoken_date(day)}."
            if re.match(r"in\b|.*\bfrom (?:now|today)$", said, re.I):
                return f"{said} it will be {spoken_date(day)}."
            return f"{said} is {spoken_date(day)}."
        if plain(place) not in HERE:
            zone = find_zone(place)
            moment = clock.now().astimezone(zone)
            return f"In {with_the(place)} it is {spoken_time(moment)}, {spoken_date(moment)}."
        moment = clock.now()
        return f"It is {spoken_time(moment)}, {spoken_date(moment)}."

    return [get_time]
