"""Spoken time read into typed values in one module (language/spoken_time.py), on a clock the
test sets: lengths of time, clock times, days, dates, and templates with a structure."""

from __future__ import annotations

from datetime import datetime

import pytest

from voiceagent.errors import ToolError
from voiceagent.language import lexicon
from voiceagent.language.calendar_days import CalendarDay, calendar_day
from voiceagent.language.spoken_time import (
    ClockTime,
    Day,
    Duration,
    clock_digits,
    clock_time,
    day_with_time,
    duration,
    next_time,
    read_duration,
    relative_day,
    spoken_duration,
)
from voiceagent.language.templates import Templates
from voiceagent.testing import FakeClock

TUESDAY = FakeClock("2026-12-01 08:00").now()


@pytest.mark.parametrize("said, seconds", [
    ("an hour and a half", 5400), ("three quarters of an hour", 2700),
    ("a couple of minutes", 120), ("quarter hour", 900), ("about 10 minutes from now", 600),
    ("twenty-second", 20),
    # typed fractions ("set a timer for 1/2 an hour" once set one hour)
    ("1/2 an hour", 1800), ("3/4 of an hour", 2700), ("1 1/2 hours", 5400),
    ("2 1/2 minutes", 150),
    # the smaller unit left out after the larger ("chicken's going in for an hour and twenty")
    ("an hour and twenty", 4800), ("an hour 38", 5880), ("two minutes 30", 150),
])
def test_lengths_of_time(said: str, seconds: float) -> None:
    assert duration(said) == Duration(seconds)
    assert read_duration(said) == Duration(seconds)


def test_the_forgiving_reader_finds_a_length_among_other_words() -> None:
    assert duration("5 minutes for the pasta") is None  # strict: doubt goes to the model
    assert read_duration("5 minutes for the pasta") == Duration(300)
    assert read_duration("for 5") == Duration(300)  # a bare number is minutes
    assert read_duration("90s") == Duration(90)
    with pytest.raises(ToolError, match="length of time"):
        read_duration("soonish")
    assert spoken_duration(5400) == "1 hour 30 minutes"


@pytest.mark.parametrize("said, time", [
    ("seven thirty pm", ClockTime(7, 30, "pm")), ("19:45", ClockTime(19, 45)),
    ("6 in the morning", ClockTime(6, 0, "am")), ("noon", ClockTime(12, 0)),
    ("midnight", ClockTime(0, 0)),  # was unreadable: 'night' -> 'pm' made it 'midpm'
    ("9 tonight", ClockTime(9, 0, "pm")), ("7 a.m.", ClockTime(7, 0, "am")),
    ("half past seven", ClockTime(7, 30)), ("a quarter to eight pm", ClockTime(7, 45, "pm")),
    ("ten past 6", ClockTime(6, 10)), ("quarter of twelve", ClockTime(11, 45)),
    ("half seven", ClockTime(7, 30)),  # British: half past seven
])
def test_clock_times(said: str, time: ClockTime) -> None:
    assert clock_time(said) == time


def test_minutes_around_an_hour_become_a_clock_reading_in_place() -> None:
    """intents/slots/times.py's own copy of this (_clock_words) can read it from here."""
    assert clock_digits("remind me at half past seven tomorrow") == "remind me at 7:30 tomorrow"
    assert clock_digits("seven thirty") == "seven thirty"  # no "past": left as said


@pytest.mark.parametrize("said, day", [
    ("tomorrow", Day(1)), ("in 3 days", Day(3)), ("3 days ago", Day(-3)),
    ("next Friday", Day(3, weekday=True)), ("tuesday", Day(7, weekday=True)),
    ("a week from now", Day(7)), ("Tokyo", None),
    ("three weeks from today", Day(21)), ("in 2 weeks", Day(14)), ("2 weeks ago", Day(-14)),
    ("in a fortnight", Day(14)), ("two weeks from tomorrow", Day(15)),
    ("3 days after tomorrow", Day(4)),
])
def test_relative_days_are_counted_from_the_clock(said: str, day: Day | None) -> None:
    assert relative_day(said, TUESDAY) == day


def test_holidays_and_dates() -> None:
    assert calendar_day("this Christmas") == CalendarDay("christmas", 12, 25)
    assert calendar_day("the twenty-first of June") == CalendarDay("June 21", 6, 21)
    assert calendar_day("February 30") is None


def test_the_day_said_with_a_time() -> None:
    found = day_with_time("7 am the day after tomorrow", TUESDAY)
    assert (found.time, found.day, found.said) == ("7 am", Day(2), "the day after tomorrow")
    assert day_with_time("7 this evening", TUESDAY).time == "7 evening"  # evening says pm
    assert day_with_time("9 tonight", TUESDAY).day == Day(0)
    assert day_with_time("at 7", TUESDAY).day is None


def test_the_next_time_on_the_day_said() -> None:
    assert next_time("Friday at 9", TUESDAY) == datetime.fromisoformat(
        "2026-12-04 09:00").replace(tzinfo=TUESDAY.tzinfo)
    assert next_time("7:30", TUESDAY).hour == 19  # 7:30 am has passed: the evening's
    with pytest.raises(ToolError, match="already passed"):
        next_time("today at 7 am", TUESDAY)


def test_templates_match_whole_words_and_leave_out_optional_ones() -> None:
    lex = lexicon()
    days = Templates(["[in] {n} day[s] [from (now|today)]", "<weekdays>"], {"n": r"\d+"},
                     lex.regex)
    assert days.match("in 3 days from now") is not None
    assert days.match("3 day") is not None and days.match("Friday") is not None
    assert days.match("in3 days") is None  # words never run together
    found = days.search("it is in 2 days, I think")
    assert found is not None and found.slots == {"n": "2"}
    assert "it is in 2 days, I think"[found.start:found.end] == "in 2 days"
