"""A time of day a length of time from another, or from now: "what time will it be in 3
hours" -> "In 3 hours it will be 6:09 AM."; "8 hours after 6 am" -> "8 hours after 6:00 AM
is 2:00 PM." A small model works these out itself, and wrongly ("had her paracetamol at six,
every eight hours, when is the next" -> "in four hours"). The words are the lexicon's
(`later_than`, `plus_length`, `from_now_or_later`)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from voiceagent.errors import ToolError
from voiceagent.language import lexicon
from voiceagent.language.spoken_time import spoken_duration
from voiceagent.tools.days import spoken_time
from voiceagent.tools.words import parse_clock_time, parse_duration

MINUTE, DAY = 60, 86400


def time_later(said: str, now: datetime) -> str:
    """The answer for `said` ("in 3 hours", "3 hours from now", "8 hours after 6 am"), or ""
    when it says no such time."""
    text = " ".join(said.lower().split()).strip(" ?.!")
    lex = lexicon()
    ahead = re.fullmatch(rf"(?:in\s+)?(.+?)\s+(?:{lex.regex('from_now_or_later')})|in\s+(.+)", text)
    if ahead:
        length = _length(ahead[1] or ahead[2])
        if length is None:
            return ""
        at = now + timedelta(seconds=length)
        return f"In {spoken_duration(length)} it will be {spoken_time(at)}{_day(at, now)}."
    after = re.fullmatch(rf"(.+?)\s+(?:{lex.regex('later_than')})\s+(.+)", text)
    before = re.fullmatch(rf"(.+?)\s+(?:{lex.regex('plus_length')})\s+(.+)", text)
    length_said, clock_said = (after[1], after[2]) if after else (
        (before[2], before[1]) if before else ("", ""))
    length = _length(length_said) if length_said else None
    if length is None:
        return ""
    try:
        hour, minute, half = parse_clock_time(clock_said)
    except ToolError:
        return ""
    hour = hour % 12 + (12 if half == "pm" else 0) if half else hour
    start = now.replace(hour=hour % 24, minute=minute, second=0, microsecond=0)
    at = start + timedelta(seconds=length)
    return (f"{spoken_duration(length)} after {spoken_time(start)} is {spoken_time(at)}"
            f"{_day(at, start, later=True)}.")


def _length(said: str) -> float | None:
    """Seconds of a length of time said with its unit ("3 hours"; "3" alone is no length)."""
    units = lexicon().table("durations")
    if not any(w.rstrip("s") in units for w in said.split()):
        return None
    try:
        seconds = parse_duration(said)
    except (ToolError, ValueError):
        return None
    return seconds if MINUTE <= seconds < DAY else None  # days ahead are the calendar's


def _day(at: datetime, start: datetime, *, later: bool = False) -> str:
    """" tomorrow" (or " the next day") when `at` is past `start`'s day."""
    days = (at.date() - start.date()).days
    if days <= 0:
        return ""
    if days == 1:
        return " the next day" if later else " tomorrow"
    return f", {days} days later"
