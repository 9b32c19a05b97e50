"""Spoken numbers and lengths of time for the tools: "twenty five" -> "25", "an hour and a
half" -> 5400 s, "seven thirty pm" -> (7, 30, "pm").

Speech recognition writes numbers either way, and small models pass the user's words through,
so the tools accept both. The reading itself is language/numbers.py and
language/spoken_time.py (typed values); these are the forms the tools have always used.
"""

from __future__ import annotations

from voiceagent.language.numbers import SCALES, SMALL, numbers_in
from voiceagent.language.spoken_time import clock_time, read_duration, spoken_duration

__all__ = ["SCALES", "SMALL", "capitalised", "numbers_in", "parse_clock_time",
           "parse_duration", "spoken_duration"]


def parse_duration(text: str) -> float:
    """Seconds in "5 minutes", "five minutes", "1 hour 30 minutes", "half an hour", "90 s";
    a bare number means minutes ("set a timer for 5"). ToolError when there is none."""
    return read_duration(text).seconds


def parse_clock_time(text: str) -> tuple[int, int, str | None]:
    """(hour, minute, 'am'|'pm'|None) from "7:30", "7:30 pm", "at 7", "seven thirty", "noon"."""
    said = clock_time(text)
    return said.hour, said.minute, said.half


def capitalised(text: str) -> str:
    """Spoken results start with a capital: 'Cheese was not on it.', 'Tomorrow is ...'."""
    return text[:1].upper() + text[1:]
