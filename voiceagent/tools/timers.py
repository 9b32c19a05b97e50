"""Timers and alarms: set, list, cancel; a thread announces each when it goes off.

They are kept in <data_dir>/timers.json (rewritten atomically on every change), so a restart
keeps them; one that came due while the assistant was not running is announced at start.
Only a front end that can speak (ToolContext.announce) runs the firing thread.
"""

from __future__ import annotations

import fcntl
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Literal

from voiceagent.agent.tools import Tool, tool
from voiceagent.atomic import write_atomic
from voiceagent.errors import ToolError
from voiceagent.tools.clock import WEEKDAYS, days_ahead, local_zone, spoken_time
from voiceagent.tools.words import (
    numbers_in,
    parse_clock_time,
    parse_duration,
    spoken_duration,
)

log = logging.getLogger(__name__)

MAX_SECONDS = 7 * 86400
LATE_SECONDS = 60
"""An entry this overdue at start went off while the assistant was not running."""
POLL_SECONDS = 2.0
"""How often the firing thread looks for timers set by another process."""


@dataclass(frozen=True)
class Entry:
    """One timer or alarm."""

    kind: Literal["timer", "alarm"]
    label: str
    """The user's name for it ("pasta"); may be empty."""
    due: float
    """Epoch seconds when it goes off."""
    seconds: float = 0
    """A timer's length, for "your 5 minute timer is done"."""
    room: str = ""
    """The room that set it (`voiceagent hub`): it rings there only; empty = no room."""

    def name(self, zone: tzinfo | None) -> str:
        """'5 minute pasta timer', 'wake up alarm', '7:30 AM alarm'."""
        if self.kind == "timer":
            length = spoken_duration(self.seconds).replace("minutes", "minute")
            length = re.sub(r"\b(hour|second)s\b", r"\1", length)
            return " ".join(p for p in (length, self.label, "timer") if p)
        return f"{self.label or spoken_time(datetime.fromtimestamp(self.due, zone))} alarm"


class Timers:
    """The persisted entries and, when `announce` is given, the thread that fires them.

    The file is the only copy: every change re-reads it under a file lock, so a one-shot
    `voiceagent ask` and a running assistant can share it; the firing thread re-reads it
    every POLL_SECONDS to see timers another process set.
    """

    def __init__(self, path: Path, announce: Callable[[str], None] | None, timezone: str = "",
                 clock: Callable[[], float] = time.time, room: str = ""):
        self.path = path
        self.room = room
        """Entries added here belong to this room; the firing thread rings only its own."""
        self.zone = local_zone(timezone)
        """Where alarm times are said and read; None = the system's."""
        self.clock = clock
        self._cond = threading.Condition()
        self._stopped = False
        self._changed = False
        self._thread: threading.Thread | None = None
        if announce is not None:
            self._thread = threading.Thread(target=self._run, args=(announce,),
                                            name="voiceagent-timers", daemon=True)
            self._thread.start()

    def _load(self) -> list[Entry]:
        try:
            return [Entry(**d) for d in json.loads(self.path.read_text(encoding="utf-8"))]
        except FileNotFoundError:
            return []
        except (ValueError, TypeError) as exc:
            aside = self.path.with_suffix(".corrupt")
            self.path.replace(aside)
            log.warning("timers file %s unreadable (%s); moved to %s", self.path, exc, aside)
            return []

    def _save(self, entries: list[Entry]) -> None:
        write_atomic(self.path, json.dumps([asdict(e) for e in entries], indent=1))

    @contextmanager
    def _locked(self) -> Iterator[list[Entry]]:
        """The entries, read under the thread and file locks; changes to the list are saved."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._cond, open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = self._load()
            before = list(entries)
            yield entries
            if entries != before:
                self._save(entries)
                self._changed = True
                self._cond.notify()

    def add(self, entry: Entry) -> None:
        if self.room and not entry.room:
            entry = replace(entry, room=self.room)
        with self._locked() as entries:
            entries.append(entry)

    def pending(self) -> list[Entry]:
        with self._locked() as entries:
            return sorted(entries, key=lambda e: e.due)

    def remove(self, chosen: list[Entry]) -> list[Entry]:
        """Remove `chosen`; returns those that were still there."""
        with self._locked() as entries:
            gone = [e for e in entries if e in chosen]
            entries[:] = [e for e in entries if e not in chosen]
        return gone

    def close(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self, announce: Callable[[str], None]) -> None:
        started = self.clock()
        fired: list[Entry] = []  # announced but maybe still in the file (it could not be saved)
        failing = False
        while True:
            now = self.clock()
            due: list[Entry] = []
            wait = POLL_SECONDS
            try:
                with self._locked() as entries:
                    self._changed = False
                    fired = [e for e in fired if e in entries]
                    mine = [e for e in entries if e.room == self.room]
                    due = [e for e in mine if e.due <= now and e not in fired]
                    entries[:] = [e for e in entries if e not in due and e not in fired]
                    wait = min([e.due - now for e in mine if e in entries] + [POLL_SECONDS])
                if failing:
                    log.warning("the timers file %s is saved again", self.path)
                failing = False
            except OSError as exc:  # disk full: announce once anyway, never kill this thread
                (log.debug if failing else log.error)(
                    "could not update the timers file %s (%s); the previous file is kept",
                    self.path, exc.strerror or exc)
                failing = True
                fired += due
            for entry in sorted(due, key=lambda e: e.due):
                self._fire(announce, entry, late=entry.due < started - LATE_SECONDS)
            with self._cond:
                if not due:
                    self._cond.wait_for(lambda: self._stopped or self._changed, timeout=wait)
                self._changed = False
                if self._stopped:
                    return

    def _fire(self, announce: Callable[[str], None], entry: Entry, late: bool) -> None:
        name = entry.name(self.zone)
        if late:
            text = f"Your {name} went off while I was not running."
        elif entry.kind == "timer":
            text = f"Your {name} is done."
        else:
            moment = datetime.fromtimestamp(entry.due, self.zone)
            text = f"It's {spoken_time(moment)}. Your {name} is going off."
        try:
            announce(text)
        except Exception:  # a broken speaker must not kill the timer thread
            log.exception("announcing %r failed", text)


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
    def set_timer(duration: str, label: str = "") -> str:
        """A timer, or a reminder after a length of time.

        Args:
            duration: how long, as said: a number and a unit, e.g. 10 minutes.
            label: what it is for, if said; else empty.
        """
        seconds = parse_duration(duration)
        if not 1 <= seconds <= MAX_SECONDS:
            raise ToolError("a timer must be between 1 second and 7 days long.")
        entry = Entry("timer", timer_label(label), timers.clock() + seconds, seconds)
        timers.add(entry)
        what = f": {entry.label}." if entry.label else "."
        return f"Timer set for {spoken_length(seconds)}{what}"

    @tool(speaks_result=True, writes=True, grounded=("label",), counted=("time",),
          asks={"time": "For what time?"})
    def set_alarm(time: str, label: str = "") -> str:
        """An alarm, a wake-up, or a reminder at a clock time.

        Args:
            time: the time of day as said, e.g. 7:30 am or 19:45.
            label: what it is for, if said; else empty.
        """
        now = timers.clock()
        day = _DAY.search(label)
        if day and said_day(time, datetime.fromtimestamp(now, timers.zone))[1] is None:
            # "remind me to call mom tomorrow at 5": the day went into the label
            time, label = f"{time} {day[0]}", (label[:day.start()] + label[day.end():]).strip()
        due = alarm_or_reminder_due(time, timers.zone, now)
        entry = Entry("alarm", clean_label(label), due)
        timers.add(entry)
        what = f": {entry.label}." if entry.label else "."
        return f"Alarm set for {_when(due, now, timers.zone)}{what}"

    @tool(speaks_result=True)
    def list_timers() -> str:
        """Which timers and alarms are set, and the time left."""
        entries = timers.pending()
        if not entries:
            return "You have no timers or alarms set."
        now = timers.clock()
        parts = [
            f"Your {e.name(timers.zone)} has {spoken_length(e.due - now)} left."
            if e.kind == "timer"
            else f"Your {e.label + ' ' if e.label else ''}alarm is set for "
                 f"{_when(e.due, now, timers.zone)}."
            for e in entries
        ]
        if len(parts) > 1:
            counts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind in ("timer", "alarm")
                      if (n := sum(e.kind == kind for e in entries))]
            parts.insert(0, f"You have {' and '.join(counts)}.")
        return " ".join(parts)

    @tool(speaks_result=True, writes=True, destroys=True)
    def cancel_timer(which: str = "") -> str:
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
        if wanted in ("all", "every", "everything", "both") or {"timers", "alarms"} & set(words):
            chosen = candidates
        elif not wanted:
            chosen = candidates if len(candidates) == 1 else []
        else:
            chosen = [e for e in candidates if e.label == wanted] or [
                e for e in candidates if wanted in e.name(timers.zone).lower()]
        if not chosen:
            names = [f"the {e.name(timers.zone)}" for e in entries]  # an answer, not an error
            have = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            if not candidates:
                return f"You have no {' or '.join(sorted(kinds))} set, only {have}."
            return f"Which one? You have {have}."
        chosen = timers.remove(chosen)
        gone = [f"the {e.name(timers.zone)}" for e in chosen]
        return "Cancelled " + (gone[0] if len(gone) == 1
                               else ", ".join(gone[:-1]) + " and " + gone[-1]) + "."

    return [set_timer, set_alarm, list_timers, cancel_timer]
