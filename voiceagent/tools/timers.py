"""The timer and alarm tools: set, list, cancel (the store and its bell: timer_store.py)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo

from voiceagent.agent.outcome import Outcome
from voiceagent.agent.tools import Tool, tool
from voiceagent.errors import ToolError
from voiceagent.tools.days import WEEKDAYS, days_ahead, spoken_time
from voiceagent.tools.timer_store import Entry, Timers, new_id
from voiceagent.tools.words import (
    numbers_in,
    parse_clock_time,
    parse_duration,
    spoken_duration,
)

MAX_SECONDS = 7 * 86400


def clean_label(label: str) -> str:
    """'The Pasta Timer' -> 'pasta'; 'check the oven' keeps its 'the'; '7:00 am alarm' its
    colon (alarms are named by their time)."""
    words = re.sub(r"[^\w\s':-]|:(?!\d)", " ", label.lower()).split()
    while words and words[0] in ("the", "my", "a", "an", "for", "our", "this", "that"):
        words.pop(0)
    while words and words[-1] in ("timer", "timers", "alarm", "alarms"):
        words.pop()
    return " ".join(words)


def timer_label(label: str) -> str:
    """clean_label without a length repeated in it: small models send label='5' or
    '20 minutes' ("a 5 minute 5 timer"); '10 minute pasta' keeps 'pasta'."""
    cleaned = clean_label(label)
    digits = numbers_in(cleaned)
    unit = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)"
    rest = re.sub(rf"\b\d+(?:\.\d+)?\s*{unit}\b|\b{unit}\b|\b(?:and|half)\b", " ", digits)
    rest = " ".join(rest.split())
    if not re.sub(r"\b\d+(?:\.\d+)?\b", "", rest).strip():
        return ""
    return cleaned if rest == digits else rest


def spoken_length(seconds: float) -> str:
    """'1 hour and 30 minutes'; whole minutes only when 10 minutes or more remain."""
    seconds = round(seconds / 60) * 60 if seconds >= 600 else round(seconds)
    parts = spoken_duration(seconds).rsplit(" ", 2)
    if len(parts) == 3 and re.match(r"\d", parts[1]):
        return f"{parts[0]} and {parts[1]} {parts[2]}"
    return spoken_duration(seconds)


_DAY = re.compile(
    r"\b(?:on\s+)?(?:(the\s+day\s+after\s+tomorrow|day\s+after\s+tomorrow|tomorrow|"
    r"(?:next\s+|this\s+|coming\s+)?(?:" + "|".join(WEEKDAYS) + r"))|"
    r"(today|tonight|this\s+(?=morning|afternoon|evening)))\b", re.I)
"""A day said with the time: "7 am tomorrow", "tomorrow at 7", "Friday at 9", "9 tonight"."""


NIGHT_ENDS = 4
"""Before this hour people still say "tomorrow" for the coming morning."""


def said_day(text: str, base: datetime) -> tuple[str, int | None, bool]:
    """(the time without its day, days from `base` to that day or None if no day was said,
    whether the day was a weekday's name: "Tuesday at 9" said on a Tuesday after 9 is next
    week's)."""
    found = _DAY.search(text)
    if not found:
        return text, None, False
    rest = (text[:found.start()] + " " + text[found.end():]).strip()
    if found[2]:  # today, tonight, this morning
        return rest + (" tonight" if found[2].lower() == "tonight" else ""), 0, False
    phrase = found[1].lower()
    offset = days_ahead(phrase, base) or 0  # the pattern holds only phrases it knows
    weekly = phrase.split()[-1] in WEEKDAYS
    if weekly:
        offset %= 7  # "Tuesday at 9" on a Tuesday: today, or next week once it has passed
    elif offset == 1 and base.hour < NIGHT_ENDS:
        offset = 0  # at 1 AM "tomorrow at 7" is this morning
    return rest, offset, weekly


def alarm_due(text: str, zone: tzinfo | None, now: float) -> float:
    """Epoch seconds of the next `text` o'clock ("7:30", "7:30 pm"), on the day said with it
    ("7 am tomorrow", "Friday at 9"); hours without am/pm mean whichever of the two comes
    first."""
    base = datetime.fromtimestamp(now, zone)
    text, offset, weekly = said_day(text, base)
    hour, minute, half = parse_clock_time(text)
    if half:
        hours = [hour % 12 + (12 if half == "pm" else 0)]
    else:
        hours = [hour, hour + 12] if 1 <= hour <= 11 else [hour]
    times = []
    for h in hours:
        moment = base.replace(hour=h, minute=minute, second=0, microsecond=0)
        moment += timedelta(days=offset or 0)
        if moment.timestamp() <= now:
            if offset is None or weekly:  # the next one: tomorrow's, or next week's
                moment += timedelta(days=7 if weekly else 1)
            else:
                continue  # "today at 7" when it is 8
        times.append(moment.timestamp())
    if not times:
        raise ToolError(f"{text.strip()!r} has already passed today; ask the user for "
                        "another time.")
    return min(times)


def alarm_or_reminder_due(text: str, zone: tzinfo | None, now: float) -> float:
    """Like alarm_due, but "in 20 minutes" or "20 minutes" (small models send reminders to
    set_alarm) count from now."""
    relative = re.match(r"\s*in\s+(.+)", text, re.I)
    if relative:
        return now + parse_duration(relative.group(1))
    try:
        return alarm_due(text, zone, now)
    except ToolError:
        if not re.search(r"\d\s*(?:s|sec|min|h|hour|hr|day)", numbers_in(text.lower())):
            raise
        return now + parse_duration(text)


def _when(due: float, now: float, zone: tzinfo | None) -> str:
    """'7:30 AM tomorrow'."""
    at, today = datetime.fromtimestamp(due, zone), datetime.fromtimestamp(now, zone)
    named = {0: "today", 1: "tomorrow"}.get((at.date() - today.date()).days, f"on {at:%A}")
    return f"{spoken_time(at)} {named}"


def make_tools(timers: Timers) -> list[Tool]:
    """set_timer, set_alarm, list_timers and cancel_timer over one Timers store."""

    @tool(speaks_result=True, writes=True, grounded=("label",), counted=("duration",),
          asks={"duration": "For how long?"})
    def set_timer(duration: str, label: str = "") -> Outcome:
        """A timer, or a reminder after a length of time.

        Args:
            duration: how long, as said: a number and a unit, e.g. 10 minutes.
            label: what it is for, if said; else empty.
        """
        seconds = parse_duration(duration)
        if not 1 <= seconds <= MAX_SECONDS:
            raise ToolError("a timer must be between 1 second and 7 days long.")
        entry = Entry("timer", timer_label(label), timers.clock.time() + seconds, seconds,
                      new_id())
        timers.add(entry)
        what = f": {entry.label}." if entry.label else "."
        return Outcome(f"Timer set for {spoken_length(seconds)}{what}", (entry.ref("made"),))

    @tool(speaks_result=True, writes=True, grounded=("label",), counted=("time",),
          asks={"time": "For what time?"})
    def set_alarm(time: str, label: str = "") -> Outcome:
        """An alarm, a wake-up, or a reminder at a clock time.

        Args:
            time: the time of day as said, e.g. 7:30 am or 19:45.
            label: what it is for, if said; else empty.
        """
        now, zone = timers.clock.time(), timers.clock.zone
        day = _DAY.search(label)
        if day and said_day(time, datetime.fromtimestamp(now, zone))[1] is None:
            # "remind me to call mom tomorrow at 5": the day went into the label
            time, label = f"{time} {day[0]}", (label[:day.start()] + label[day.end():]).strip()
        due = alarm_or_reminder_due(time, zone, now)
        entry = Entry("alarm", clean_label(label), due, id=new_id())
        timers.add(entry)
        what = f": {entry.label}." if entry.label else "."
        return Outcome(f"Alarm set for {_when(due, now, zone)}{what}",
                       (entry.ref("made"),))

    @tool(speaks_result=True)
    def list_timers() -> Outcome:
        """Which timers and alarms are set, and the time left."""
        entries = timers.pending()
        if not entries:
            return Outcome("You have no timers or alarms set.")
        now = timers.clock.time()
        parts = [
            f"Your {e.name(timers.clock)} has {spoken_length(e.due - now)} left."
            if e.kind == "timer"
            else f"Your {e.label + ' ' if e.label else ''}alarm is set for "
                 f"{_when(e.due, now, timers.clock.zone)}."
            for e in entries
        ]
        if len(parts) > 1:
            counts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind in ("timer", "alarm")
                      if (n := sum(e.kind == kind for e in entries))]
            parts.insert(0, f"You have {' and '.join(counts)}.")
        return Outcome(" ".join(parts), tuple(e.ref("read") for e in entries))

    @tool(speaks_result=True, writes=True, destroys=True)
    def cancel_timer(which: str = "") -> Outcome | str:
        """Cancel or stop a timer or alarm.

        Args:
            which: its label, or "alarm", "timer" or "all"; empty if only one is set.
        """
        entries = timers.pending()
        if not entries:
            return "There are no timers or alarms to cancel."
        words = which.lower().split()
        kinds = {k for k in ("timer", "alarm") if any(w.startswith(k) for w in words)}
        candidates = [e for e in entries if not kinds or e.kind in kinds]
        wanted = clean_label(which)
        if any(e.id and e.id == which for e in entries):  # a follow-up's own reference
            chosen = [e for e in entries if e.id == which]
        elif wanted in ("all", "every", "everything", "both") or {"timers", "alarms"} & set(words):
            chosen = candidates
        elif not wanted:
            chosen = candidates if len(candidates) == 1 else []
        else:
            chosen = [e for e in candidates if e.label == wanted] or [
                e for e in candidates if wanted in e.name(timers.clock).lower()]
        if not chosen:
            names = [f"the {e.name(timers.clock)}" for e in entries]  # an answer, not an error
            have = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            offered = tuple(e.ref("offered") for e in entries)
            if not candidates:
                return Outcome(f"You have no {' or '.join(sorted(kinds))} set, only {have}.",
                               offered)
            return Outcome(f"Which one? You have {have}.", offered)
        chosen = timers.remove(chosen)
        gone = [f"the {e.name(timers.clock)}" for e in chosen]
        return Outcome("Cancelled " + (gone[0] if len(gone) == 1
                                       else ", ".join(gone[:-1]) + " and " + gone[-1]) + ".",
                       tuple(e.ref("cancelled") for e in chosen))

    return [set_timer, set_alarm, list_timers, cancel_timer]
