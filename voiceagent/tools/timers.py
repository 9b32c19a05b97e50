"""The timer and alarm tools: set, list, cancel, pause (the store and its bell: timer_store.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo

from voiceagent.agent.outcome import Outcome
from voiceagent.agent.tools import Tool, tool
from voiceagent.errors import ToolError
from voiceagent.language import lexicon, say
from voiceagent.language.lexicon import token_spans
from voiceagent.language.numbers import NUMBER, amounts
from voiceagent.language.plural import plural, singular
from voiceagent.language.repeats import WEEK, read_repeat, spoken_repeat
from voiceagent.language.spoken_time import (
    NIGHT_ENDS,
    UNIT_WORDS,
    day_with_time,
    next_time,
    read_duration,
    says_a_length,
    spoken_duration,
)
from voiceagent.tools.days import next_day, spoken_date, spoken_time
from voiceagent.tools.lists import spoken_join
from voiceagent.tools.timer_store import Entry, Timers, new_id, nth_started

__all__ = ["MAX_SECONDS", "NIGHT_ENDS", "alarm_due", "alarm_or_reminder_due", "clean_label",
           "make_tools", "said_day", "spoken_length", "timer_label"]

MAX_SECONDS = 7 * 86400
_LEX = lexicon()
_KINDS = _LEX.phrases("timer_kinds")


def clean_label(label: str) -> str:
    """'The Pasta Timer' -> 'pasta'; 'check the oven' keeps its 'the'; '7:00 am alarm' its
    colon (alarms are named by their time); 'Alarm for' is nothing."""
    words = re.sub(r"[^\w\s':-]|:(?!\d)", " ", label.lower()).split()
    while words and words[0] in _LEX.words("label_openers"):
        words.pop(0)
    while words and (singular(words[-1]) in _KINDS or words[-1] in _LEX.words("prepositions")):
        words.pop()  # "Alarm for" once "today" went to the time: no label
    return " ".join(words)


_NOT_A_NAME = re.compile(rf"\b{NUMBER}\s*(?:{UNIT_WORDS})\b|\b(?:{UNIT_WORDS})\b|"
                         rf"\b(?:{_LEX.regex('joiners')})\b")
"""A length of time, and the words that join its parts."""


def timer_label(label: str) -> str:
    """clean_label without a length repeated in it: small models send label='5' or
    '20 minutes' ("a 5 minute 5 timer"); '10 minute pasta' keeps 'pasta'."""
    cleaned = clean_label(label)
    digits = amounts(cleaned, UNIT_WORDS)  # "an hour and a half" -> "1.5 hour"
    rest = " ".join(_NOT_A_NAME.sub(" ", digits).split())
    if not re.sub(rf"\b{NUMBER}\b", "", rest).strip():
        return ""
    return cleaned if rest == " ".join(digits.split()) else rest


def spoken_length(seconds: float) -> str:
    """'1 hour and 30 minutes': whole minutes from 10, the nearest 5 seconds from 1 (9:59: 10)."""
    step = 60 if seconds >= 597.5 else 5 if seconds >= 60 else 1
    parts = (said := spoken_duration(round(seconds / step) * step)).rsplit(" ", 2)
    if len(parts) == 3 and re.match(r"\d", parts[1]):
        return f"{parts[0]} {_LEX.names('number_parts')['and']} {parts[1]} {parts[2]}"
    return said


def said_day(text: str, base: datetime) -> tuple[str, int | None, bool]:
    """(the time without its day, days from `base` to that day or None if no day was said,
    whether the day was a weekday's name: "Tuesday at 9" said on a Tuesday after 9 is next
    week's). language/spoken_time.day_with_time gives it typed."""
    found = day_with_time(text, base)
    day = found.day
    return found.time, None if day is None else day.offset, bool(day and day.weekday)


def _on_day(which: str, now: float, zone: tzinfo | None,
            ) -> tuple[str, Callable[[float], bool] | None]:
    """`which` without the day it names ("sunday alarms", "alarms for tomorrow"), and
    whether a moment (epoch seconds) falls on that day; None when no day is named."""
    base = datetime.fromtimestamp(now, zone)
    rest, offset, by_weekday = said_day(re.sub(r"'s\b", "", which), base)  # "sunday's"
    if offset is None:
        return which, None
    target = (base + timedelta(days=offset)).date()

    def on(due: float) -> bool:
        day = datetime.fromtimestamp(due, zone).date()
        return day.weekday() == target.weekday() if by_weekday else day == target

    return rest, on


def alarm_due(text: str, zone: tzinfo | None, now: float) -> float:
    """Epoch seconds of the next `text` o'clock ("7:30", "7:30 pm"), on the day said with it
    ("7 am tomorrow", "Friday at 9"); hours without am/pm mean whichever of the two comes
    first."""
    return next_time(text, datetime.fromtimestamp(now, zone)).timestamp()


_LATER = re.compile(rf"\s*(?:{_LEX.regex('later')})\s+(.+)", re.I)


def alarm_or_reminder_due(text: str, zone: tzinfo | None, now: float) -> float:
    """Like alarm_due, but "in 20 minutes" or "20 minutes" (small models send reminders to
    set_alarm) count from now."""
    relative = _LATER.match(text)
    if relative:
        return now + read_duration(relative.group(1)).seconds
    try:
        return alarm_due(text, zone, now)
    except ToolError:
        if not says_a_length(text):
            raise
        return now + read_duration(text).seconds


def _when(due: float, now: float, zone: tzinfo | None) -> str:
    """'7:30 AM tomorrow', '7:30 AM on Friday'; a week or more ahead, with its date: '5:00 PM
    on Tuesday, May 25, 2027'."""
    at, today = datetime.fromtimestamp(due, zone), datetime.fromtimestamp(now, zone)
    ahead = (at.date() - today.date()).days
    named = {0: "today", 1: "tomorrow"}.get(ahead, f"on {at:%A}" if ahead < 7
                                            else f"on {spoken_date(at)}")
    return f"{spoken_time(at)} {named}"


def on_date(text: str, today: datetime, *,
            holidays: bool = True) -> tuple[datetime | None, str]:
    """The date or holiday `text` names ("5 pm on may 25th", "the twenty fifth of may at 5",
    "Christmas at 9"), as its next coming day, and `text` without it; (None, text) if none.
    The longest run of words that reads as one (tools/days.next_day) is the date. Without
    `holidays` only a date with its day's number counts (a label's "christmas shopping" is
    what the alarm is for, not when)."""
    spans = token_spans(text)
    for length in range(min(len(spans), 7), 0, -1):
        for first in range(len(spans) - length + 1):
            start, end = spans[first][0], spans[first + length - 1][1]
            found = next_day(text[start:end], today)
            if found is not None and (holidays or any(c.isdigit() for c in found[0])):
                rest = re.sub(rf"\b(?:{_LEX.regex('date_openers')})\s*$", "",
                              text[:start].rstrip())
                return found[1], f"{rest} {text[end:]}".strip(" ,")
    return None, text


def _on(day: datetime, time: str, zone: tzinfo | None, now: float) -> float:
    """Epoch seconds of `time` o'clock on `day` (the first such moment that day: "5" is
    5 AM); a ToolError when that has passed or no time was said (none is made up)."""
    if not time.strip():
        raise ToolError("no time of day was said for that day: ask the user for what time.")
    start = day.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    due = alarm_due(time, zone, max(now, start - 1))
    if datetime.fromtimestamp(due, zone).date() != day.date():
        raise ToolError(f"{spoken_time(datetime.fromtimestamp(due, zone))} on that day has "
                        "already passed.")
    return due


def _first_on(days: str, time: str, zone: tzinfo | None, now: float) -> float | None:
    """The first moment of `time` o'clock still ahead on the next of `days` (weekday numbers),
    as `_on` reads it: "6:30 on weekdays" said on a Sunday afternoon is Monday 6:30 AM (the
    next 6:30, that evening, is not on a weekday). None when no day of the week has it."""
    today = datetime.fromtimestamp(now, zone)
    for ahead in range(8):
        day = today + timedelta(days=ahead)
        if str(day.weekday()) in days:
            try:
                return _on(day, time, zone, now)
            except ToolError:
                continue
    return None


def _repeating(entry: Entry) -> str:
    """', repeating every weekday' for an alarm that repeats; '' for one that does not."""
    return f", repeating {spoken_repeat(entry.repeat)}" if entry.repeat else ""


def make_tools(timers: Timers) -> list[Tool]:
    """set_timer, set_alarm, list_timers, cancel_timer and pause_timer over one Timers
    store."""

    def running(which: str) -> list[Entry]:
        """The running timers `which` names: its own id (a follow-up's), its label, or any
        one of its names; the only one when `which` names none ("the timer")."""
        found = [e for e in timers.pending() if e.kind == "timer"]
        wanted = clean_label(which)
        named = ([e for e in found if e.id == which] or [e for e in found if e.label == wanted]
                 or [e for e in found if wanted and wanted in e.name(timers.clock).lower()])
        return named or (found if not wanted and len(found) == 1 else [])

    def pointed_at(which: str) -> bool:
        """`which` needs no words of the user's: a follow-up's id, or "timer" when one runs
        (a label must have been said: the model copies earlier ones)."""
        chosen = running(which)
        return bool(chosen) and (not clean_label(which) or chosen[0].id == which)

    @tool(speaks_result=True, writes=True, grounded=("label", "add_to", "take_from"),
          counted=("duration",), asks={"duration": "For how long?"},
          known={"add_to": pointed_at, "take_from": pointed_at},
          asked_by={"add_to": "more_time", "take_from": "less_time"})
    def set_timer(duration: str, label: str = "", add_to: str = "",
                  take_from: str = "") -> Outcome:
        """A timer, or a reminder after a length of time.

        Args:
            duration: how long, as said: a number and a unit, e.g. 10 minutes.
            label: what it is for, if said; else empty.
            add_to: only to add the duration to a timer already running ("add 5 minutes
                to the pasta timer"): its label, or "timer"; else empty.
            take_from: only to take the duration off a running timer ("take 2 minutes
                off the timer"): its label, or "timer"; else empty.
        """
        seconds = read_duration(duration).seconds
        if add_to.strip():
            return more_time(add_to, seconds)
        if take_from.strip():
            return more_time(take_from, -seconds)
        if not 1 <= seconds <= MAX_SECONDS:
            raise ToolError("a timer must be between 1 second and 7 days long.")
        entry = Entry("timer", timer_label(label), timers.clock.time() + seconds, seconds,
                      new_id())
        timers.add(entry)
        what = f": {entry.label}." if entry.label else "."
        return Outcome(f"Timer set for {spoken_length(seconds)}{what}", (entry.ref("made"),))

    def left(entry: Entry) -> float:
        """The seconds `entry` has left (a paused timer's stand still)."""
        return entry.left or entry.due - timers.clock.time()

    def one_timer(which: str) -> Entry:
        """The one timer `which` names, or a ToolError that lists the timers there are."""
        chosen = running(which)
        if len(chosen) != 1:
            names = [e.name(timers.clock) for e in timers.pending() if e.kind == "timer"]
            raise ToolError(f"no one running timer is called {which!r}; running: "
                            f"{', '.join(names) or 'none'}. Ask the user which one.")
        return chosen[0]

    def more_time(which: str, seconds: float) -> Outcome:
        """`seconds` more on the running timer `which` names (less, if negative)."""
        chosen = one_timer(which)
        if seconds < 0 and left(chosen) + seconds < 1:
            raise ToolError(f"the {chosen.name(timers.clock)} has only "
                            f"{spoken_length(left(chosen))} left: ask the user whether to "
                            "cancel it instead.")
        entry = timers.extend(chosen.id, seconds)
        if entry is None or left(entry) > MAX_SECONDS:
            raise ToolError("that timer has rung or would be longer than 7 days.")
        change = (f"Added {spoken_length(seconds)} to" if seconds > 0
                  else f"Took {spoken_length(-seconds)} off")
        return Outcome(f"{change} the {chosen.name(timers.clock)}: "
                       f"{spoken_length(left(entry))} left.", (entry.ref("made"),))

    @tool(speaks_result=True, writes=True, grounded=("which",), known={"which": pointed_at},
          asked_by={"resume": "resume"})
    def pause_timer(which: str = "", resume: bool = False) -> Outcome:
        """Pause a running timer, or resume a paused one.

        Args:
            which: its label, or "timer"; empty if only one is set.
            resume: true only to start a paused timer again.
        """
        found = [e for e in timers.pending() if e.kind == "timer"]
        waiting = [e for e in found if bool(e.left) == resume]  # paused ones, to resume
        if not which.strip() and not waiting:  # "unpause" alone: of something else
            raise ToolError(f"no timer is {'paused' if resume else 'running'}: answer the "
                            "user without this tool.")
        if not found:
            return Outcome("You have no timer running.")
        named = running(which) if clean_label(which) else []
        if not named and len(waiting) == 1:
            named = waiting
        chosen = named[0] if len(named) == 1 else one_timer(which)
        if not resume and chosen.left:
            return Outcome(f"The {chosen.name(timers.clock)} is already paused, with "
                           f"{spoken_length(chosen.left)} left.", (chosen.ref("read"),))
        if resume and not chosen.left:
            return Outcome(f"The {chosen.name(timers.clock)} is running: "
                           f"{spoken_length(left(chosen))} left.", (chosen.ref("read"),))
        entry = (timers.resume if resume else timers.pause)(chosen.id)
        if entry is None:
            raise ToolError("that timer has rung or was cancelled meanwhile.")
        done = "Resumed" if resume else "Paused"
        return Outcome(f"{done} the {entry.name(timers.clock)}: {spoken_length(left(entry))} "
                       "left.", (entry.ref("made"),))

    @tool(speaks_result=True, writes=True, grounded=("label",), counted=("time",),
          asks={"time": "For what time?"},
          carries={"repeats": ("time", "label"), "days": ("time", "label"),
                   "months": ("time", "label")})
    def set_alarm(time: str, label: str = "") -> Outcome:
        """An alarm, a wake-up, or a reminder at a clock time.

        Args:
            time: the time of day as said, e.g. 7:30 am or 19:45.
            label: what it is for, if said; else empty.
        """
        now, zone = timers.clock.time(), timers.clock.zone
        repeats = read_repeat(time), read_repeat(label)
        unsupported = next((r.unsupported for r in repeats if r.unsupported), "")
        if unsupported:  # "every month": said plainly, and nothing half done
            return Outcome(say("repeat_unsupported", how=unsupported))
        (time, label), days = (r.rest for r in repeats), repeats[0].days or repeats[1].days
        base = datetime.fromtimestamp(now, zone)
        on, time = on_date(time, base)
        if on is None:
            on, label = on_date(label, base, holidays=False)  # "May 25th" went there
        in_label = day_with_time(label, base)
        if on is None and in_label.day is not None and day_with_time(time, base).day is None:
            # "remind me to call mom tomorrow at 5": the day went into the label
            time, label = f"{time} {in_label.said}", in_label.time
        due = (alarm_or_reminder_due(time, zone, now) if on is None
               else _on(on, time, zone, now))
        if days == WEEK:  # "every week": on the day it first rings
            days = str(datetime.fromtimestamp(due, zone).weekday())
        if days and str(datetime.fromtimestamp(due, zone).weekday()) not in days:
            due = _first_on(days, time, zone, now) or due  # "every weekday" said on a Saturday
        entry = Entry("alarm", clean_label(label), due, id=new_id(), repeat=days)
        timers.add(entry)
        what = f": {entry.label}." if entry.label else "."
        return Outcome(f"Alarm set for {_when(entry.due, now, zone)}{_repeating(entry)}{what}",
                       (entry.ref("made"),))

    @tool(speaks_result=True, keeps=timers.labelled_in)
    def list_timers() -> Outcome:
        """Which timers and alarms are set, and the time left."""
        entries = timers.pending()
        if not entries:
            return Outcome("You have no timers or alarms set.")
        now = timers.clock.time()
        parts = [
            f"Your {e.name(timers.clock)} is paused with {spoken_length(e.left)} left."
            if e.left else
            f"Your {e.name(timers.clock)} has {spoken_length(e.due - now)} left."
            if e.kind == "timer"
            else f"Your {e.label + ' ' if e.label else ''}alarm is set for "
                 f"{_when(e.due, now, timers.clock.zone)}{_repeating(e)}."
            for e in entries
        ]
        if len(parts) > 1:
            counts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind in ("timer", "alarm")
                      if (n := sum(e.kind == kind for e in entries))]
            parts.insert(0, f"You have {' and '.join(counts)}.")
        return Outcome(" ".join(parts), tuple(e.ref("read") for e in entries))

    @tool(speaks_result=True, writes=True, destroys=True, carries={"days": ("which",)})
    def cancel_timer(which: str = "") -> Outcome | str:
        """Cancel or stop a timer or alarm.

        Args:
            which: its label, or "alarm", "timer" or "all"; empty if only one is set.
        """
        entries = timers.pending()
        if not entries:
            return "There are no timers or alarms to cancel."
        words = which.lower().split()
        kinds = {k for k in _KINDS if any(w.startswith(k) for w in words)}
        candidates = [e for e in entries if not kinds or e.kind in kinds]
        repeat = read_repeat(which)
        if repeat.days:  # "cancel my weekday alarm": the one that repeats so
            which = repeat.rest
            candidates = [e for e in candidates if e.repeat == repeat.days] or candidates
        which, day = _on_day(which, timers.clock.time(), timers.clock.zone)
        if day is not None:  # "all alarms on sunday": those of that day, not every one
            candidates = [e for e in candidates if day(e.due)]
        wanted = clean_label(which)
        if any(e.id and e.id == which for e in entries):  # a follow-up's own reference
            chosen = [e for e in entries if e.id == which]
        elif (_LEX.is_one("every", wanted)
              or {plural(k) for k in _KINDS} & set(words)):
            chosen = candidates
        elif not wanted:
            chosen = candidates if len(candidates) == 1 else []
        elif len(candidates) > 1 and (nth := nth_started(candidates, wanted)):
            chosen = nth  # "kill the first timer"
        else:
            chosen = [e for e in candidates if e.label == wanted] or [
                e for e in candidates if wanted in e.name(timers.clock).lower()]
        if not chosen:
            names = [f"the {e.name(timers.clock)}" for e in entries]  # an answer, not an error
            have = spoken_join(names)
            offered = tuple(e.ref("offered") for e in entries)
            if not candidates:
                what = " or ".join(sorted(kinds)) or "timer or alarm"
                when = "on that day" if day is not None else "set"
                return Outcome(f"You have no {what} {when}, only {have}.", offered)
            return Outcome(f"Which one? You have {have}.", offered)
        chosen = timers.remove(chosen)
        gone = [f"the {e.name(timers.clock)}" for e in chosen]
        return Outcome(f"Cancelled {spoken_join(gone)}.", tuple(e.ref("cancelled") for e in chosen))

    return [set_timer, set_alarm, list_timers, cancel_timer, pause_timer]
