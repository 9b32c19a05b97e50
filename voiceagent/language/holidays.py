"""Holidays whose date moves from year to year (Thanksgiving, Memorial Day, Easter), read from
time.yaml's `moving_holidays` rules; dateutil does the calendar arithmetic.

    moving_date("4 thursday november", 2026)   date(2026, 11, 26)
    moving_date("-1 monday may", 2027)         date(2027, 5, 31)
    moving_date("easter -2", 2027)             date(2027, 3, 26)   (Good Friday)

A rule is "<n> <weekday> <month>" (the n-th such weekday of the month; -1 the last) or
"easter [+-days]". Asked "what day is memorial day this year", the 1.5B said "May 26th" with
no tool; the clock now knows.
"""

from __future__ import annotations

from datetime import date, timedelta

from dateutil.easter import easter
from dateutil.relativedelta import relativedelta, weekday

from voiceagent.language.lexicon import lexicon
from voiceagent.language.spoken_time import WEEKDAYS as _WEEKDAYS

_LEX = lexicon()
MONTHS = {name: int(n) for name, n in _LEX.values("months").items()}
"""Month names and short forms ("september", "sep") -> 1-12."""
EASTER = "easter"


def moving_date(rule: str, year: int) -> date:
    """The day `rule` names in `year`; ValueError for a rule that names none."""
    parts = rule.lower().split()
    if parts and parts[0] == EASTER and len(parts) <= 2:
        return easter(year) + timedelta(days=int(parts[1]) if len(parts) == 2 else 0)
    if len(parts) == 3 and parts[1] in _WEEKDAYS and parts[2] in MONTHS:
        nth = int(parts[0])
        if nth in (1, 2, 3, 4, 5, -1):
            start = 31 if nth < 0 else 1
            found = date(year, MONTHS[parts[2]], 1) + relativedelta(
                day=start, weekday=weekday(_WEEKDAYS.index(parts[1]), nth))
            if found.month == MONTHS[parts[2]]:
                return found
    raise ValueError(f"time.yaml: moving_holidays: {rule!r} is no day (\"4 thursday "
                     f"november\", \"-1 monday may\", \"easter -2\")")


def moving_holiday(said: str) -> str | None:
    """The rule of the moving holiday `said` is, or None."""
    rule = _LEX.lookup("moving_holidays", said) if said else None
    return None if rule is None else str(rule)
