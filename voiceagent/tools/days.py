"""Days for the clock: relative days ("tomorrow", "next Friday"), holidays and dates
("Christmas", "the fourth of July") in the tools' forms, and times and dates as a
synthesiser reads them. The reading itself is language/spoken_time.py."""

from __future__ import annotations

import string
from datetime import datetime

from voiceagent.errors import ToolError
from voiceagent.language import lexicon
from voiceagent.language.calendar_days import CalendarDay
from voiceagent.language.calendar_days import calendar_day as _calendar_day
from voiceagent.language.holidays import moving_date, moving_holiday
from voiceagent.language.spoken_time import WEEKDAYS, relative_day

__all__ = ["WEEKDAYS", "calendar_day", "days_ahead", "days_until_said", "next_day",
           "next_occurrence", "spoken_date", "spoken_time"]


def days_ahead(text: str, today: datetime) -> int | None:
    """How many days from `today` a relative day is ("tomorrow" 1, "in 3 days" 3, "next
    Friday"), or None when `text` is no such day."""
    day = relative_day(text, today)
    return None if day is None else day.offset


def calendar_day(text: str) -> tuple[str, int, int] | None:
    """(name, month, day) of a holiday or a date said as one ("Christmas", "December 25th",
    "the fourth of July", "March third"), or None; a moving holiday's month and day are 0
    (next_day says when it comes)."""
    day = _calendar_day(text)
    return None if day is None else (day.name, day.month, day.day)


def next_day(text: str, today: datetime) -> tuple[str, datetime] | None:
    """The holiday or date `text` says, and when it next comes (today included); None when
    `text` says none. Thanksgiving, Easter and the like are counted in their year."""
    day = _calendar_day(text)
    if day is None:
        return None
    if day.year is not None:  # "this year", "next year", "2027": that year's, even when it
        year = day.year if day.year > 1000 else today.year + day.year  # has passed
        return day.name, _in_year(day, today, year)
    if not day.rule:
        return day.name, next_occurrence(day.month, day.day, today)
    for year in (today.year, today.year + 1):
        moment = _in_year(day, today, year)
        if moment.date() >= today.date():
            return day.name, moment
    raise ToolError(f"no next date for {day.name!r}")


def _in_year(day: CalendarDay, today: datetime, year: int) -> datetime:
    """`day` in `year`; a ToolError for February 29 in a year without one."""
    if day.rule:
        found = moving_date(day.rule, year)
        return today.replace(year=found.year, month=found.month, day=found.day)
    try:
        return today.replace(year=year, month=day.month, day=day.day)
    except ValueError:
        raise ToolError(f"{year} has no {day.name}.") from None


def next_occurrence(month: int, day: int, today: datetime) -> datetime:
    """That date this year, or next year once it has passed (February 29: the next leap
    year's)."""
    for year in range(today.year, today.year + 9):
        try:
            moment = today.replace(year=year, month=month, day=day)
        except ValueError:
            continue
        if moment.date() >= today.date():
            return moment
    raise ToolError(f"no such date: month {month}, day {day}")


def days_until_said(name: str, moment: datetime, today: datetime) -> str:
    """"Christmas is on Friday, December 25, 2026, in 24 days."."""
    days = (moment.date() - today.date()).days
    holiday = lexicon().lookup("holidays", name) or moving_holiday(name)
    said = string.capwords(name) if holiday else name
    if days == 0:
        return f"{said} is today, {spoken_date(moment)}."
    if days == 1:
        return f"{said} is tomorrow, {spoken_date(moment)}."
    if days == -1:
        return f"{said} was yesterday, {spoken_date(moment)}."
    if days < 0:
        return f"{said} was on {spoken_date(moment)}, {-days} days ago."
    return f"{said} is on {spoken_date(moment)}, in {days} days."


def spoken_time(moment: datetime) -> str:
    """'9:05 PM' — the form a speech synthesiser reads naturally."""
    return moment.strftime("%I:%M %p").lstrip("0")


def spoken_date(moment: datetime) -> str:
    """'Sunday, November 29, 2026'."""
    return f"{moment:%A, %B} {moment.day}, {moment.year}"
