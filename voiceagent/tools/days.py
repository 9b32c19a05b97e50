"""Days said in words: relative days ("tomorrow", "next Friday"), holidays and dates
("Christmas", "the fourth of July"), and times and dates as a synthesiser reads them."""

from __future__ import annotations

import re
import string
from datetime import datetime

from voiceagent.errors import ToolError
from voiceagent.tools.words import numbers_in

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_DAYS_AHEAD = {"tomorrow": 1, "yesterday": -1, "the day after tomorrow": 2,
               "day after tomorrow": 2, "the day before yesterday": -2,
               "day before yesterday": -2, "next week": 7, "in a week": 7,
               "a week from today": 7, "a week from now": 7}


def days_ahead(text: str, today: datetime) -> int | None:
    """How many days from `today` a relative day is ("tomorrow" 1, "in 3 days" 3, "next
    Friday"), or None when `text` is no such day."""
    said = re.sub(r"\s+", " ", numbers_in(text.lower())).strip(" .?!")
    if said in _DAYS_AHEAD:
        return _DAYS_AHEAD[said]
    found = re.fullmatch(r"(?:in )?(\d+) days?(?: from (?:now|today))?|(\d+) days? ago", said)
    if found:
        return int(found[1]) if found[1] else -int(found[2])
    found = re.fullmatch(r"(?:next |this |on |coming )?(\w+day)", said)
    if found and found[1] in WEEKDAYS:
        return (WEEKDAYS.index(found[1]) - today.weekday() - 1) % 7 + 1
    return None


_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_HOLIDAYS = {"christmas": (12, 25), "christmas day": (12, 25), "christmas eve": (12, 24),
             "boxing day": (12, 26), "new year's eve": (12, 31), "new years eve": (12, 31),
             "new year": (1, 1), "new year's": (1, 1), "new years": (1, 1),
             "new year's day": (1, 1), "new years day": (1, 1), "the new year": (1, 1),
             "halloween": (10, 31), "valentine's day": (2, 14), "valentines day": (2, 14),
             "valentine's": (2, 14), "saint patrick's day": (3, 17), "st patrick's day": (3, 17),
             "st. patrick's day": (3, 17), "independence day": (7, 4),
             "the fourth of july": (7, 4), "fourth of july": (7, 4), "july fourth": (7, 4)}
"""Holidays on the same date every year (moving ones such as Easter are left to the model)."""
_ORDINALS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth".split())}
_ORDINALS |= {"twentieth": 20, "thirtieth": 30}
_ORDINALS |= {f"{tens} {w}": base + i for tens, base in (("twenty", 20), ("thirty", 30))
              for w, i in list(_ORDINALS.items())[:9]}
_DAY_NUMBER = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH = "(" + "|".join(_MONTHS) + r")\.?"


def calendar_day(text: str) -> tuple[str, int, int] | None:
    """(name, month, day) of a holiday or a date said as one ("Christmas", "December 25th",
    "the fourth of July", "March third"), or None."""
    said = re.sub(r"\s+", " ", text.lower().replace("-", " ")).strip(" .?!")
    said = re.sub(r"^(?:this |next |the next )(?=\D)", "", said)
    said = re.sub(r" (?:this|next) year$", "", said)
    if said in _HOLIDAYS:
        month, day = _HOLIDAYS[said]
        return said, month, day
    for words, number in sorted(_ORDINALS.items(), key=lambda kv: -len(kv[0])):
        said = re.sub(rf"\b{words}\b", str(number), said)
    said = numbers_in(said)
    found = (re.fullmatch(rf"{_MONTH} (?:the )?{_DAY_NUMBER}", said)
             or re.fullmatch(rf"(?:the )?{_DAY_NUMBER} (?:of )?{_MONTH}", said))
    if not found:
        return None
    month_name, day_text = ((found[1], found[2]) if found[1] in _MONTHS
                            else (found[2], found[1]))
    month, day = _MONTHS.index(month_name) + 1, int(day_text)
    try:
        datetime(2024, month, day)  # a leap year: February 29 exists
    except ValueError:
        return None
    return f"{month_name.capitalize()} {day}", month, day


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
    said = string.capwords(name) if name in _HOLIDAYS else name
    if days == 0:
        return f"{said} is today, {spoken_date(moment)}."
    if days == 1:
        return f"{said} is tomorrow, {spoken_date(moment)}."
    return f"{said} is on {spoken_date(moment)}, in {days} days."


def spoken_time(moment: datetime) -> str:
    """'9:05 PM' — the form a speech synthesiser reads naturally."""
    return moment.strftime("%I:%M %p").lstrip("0")


def spoken_date(moment: datetime) -> str:
    """'Sunday, November 29, 2026'."""
    return f"{moment:%A, %B} {moment.day}, {moment.year}"
