"""Timers and alarms on disk, and the bell that rings them when they are due.

They are kept in <data_dir>/timers.json (rewritten atomically on every change), so a restart
keeps them; one that came due while the assistant was not running is announced at start.
The file is the only copy: every change re-reads it under a file lock, so a one-shot
`voiceagent ask` and a running assistant can share it. `Timers.ring` is one look for due
entries (tests call it at the times they set on a FakeClock); `Bell` is the thread that
looks every POLL_SECONDS, only in a front end that can speak.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import logging
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Literal

from voiceagent.agent.outcome import Action, Ref
from voiceagent.atomic import write_atomic
from voiceagent.language import lexicon, say, tokens
from voiceagent.ports import Clock
from voiceagent.tools.days import spoken_time
from voiceagent.tools.words import spoken_duration
from voiceagent.wallclock import SystemClock

log = logging.getLogger(__name__)

LATE_SECONDS = 60
"""An entry this overdue at start went off while the assistant was not running."""
POLL_SECONDS = 2.0
"""How often the bell looks for timers set by another process."""


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
    id: str = ""
    """Its own name for follow-ups ("cancel it"): never said, never shown to the model."""
    room: str = ""
    """The room that set it (`voiceagent hub`): it rings there only; empty = no room."""
    repeat: str = ""
    """An alarm's weekdays to ring again on, "0" for Monday ("01234": weekdays); empty:
    once (language/repeats.py)."""
    left: float = 0
    """A paused timer's time left, in seconds; 0 while it runs. A paused timer never rings:
    resumed, it is due that long after."""

    def ref(self, action: Action) -> Ref:
        """This entry as an outcome's reference."""
        return Ref(self.kind, action, key=self.id, label=self.label,
                   value=self.seconds if self.kind == "timer" else None, due=self.due,
                   repeat=self.repeat)

    def again(self, after: float, zone: tzinfo | None) -> Entry | None:
        """This repeating alarm at its time of day on the next of its weekdays after
        `after` (epoch seconds; its own day's time if that is later); None if it does not
        repeat."""
        if not self.repeat:
            return None
        at = datetime.fromtimestamp(self.due, zone)
        day = at.date()
        for _ in range(8 * 7):
            day += timedelta(days=1)
            moment = datetime.combine(day, at.time(), tzinfo=at.tzinfo).timestamp()
            if str(day.weekday()) in self.repeat and moment > after:
                return dataclasses.replace(self, due=moment)
        return None

    def name(self, clock: Clock) -> str:
        """'5 minute pasta timer', 'wake up alarm', '7:30 AM alarm'."""
        if self.kind == "timer":
            length = spoken_duration(self.seconds).replace("minutes", "minute")
            length = re.sub(r"\b(hour|second)s\b", r"\1", length)
            return " ".join(p for p in (length, self.label, "timer") if p)
        return f"{self.label or spoken_time(datetime.fromtimestamp(self.due, clock.zone))} alarm"


def new_id() -> str:
    return uuid.uuid4().hex[:8]


@dataclass
class _Ringing:
    """What the bell remembers between looks."""

    started: float
    fired: list[Entry] = field(default_factory=list)
    """Announced but maybe still in the file (it could not be saved: disk full)."""
    failing: bool = False


class Timers:
    """The persisted entries, read and written under a file lock."""

    def __init__(self, path: Path, clock: Clock | None = None, room: str = "") -> None:
        self.path = path
        self.room = room
        """Entries added here belong to this room; ring() rings only this room's."""
        self.clock: Clock = clock or SystemClock()
        """Now, and the zone alarm times are said and read in."""
        self.changed = threading.Condition()
        """Notified after every change (the bell wakes up to look)."""
        self.dirty = False
        """Changed since the bell last looked (under `changed`)."""
        self._ringing: _Ringing | None = None

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
        with self.changed, open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = self._load()
            before = list(entries)
            yield entries
            if entries != before:
                self._save(entries)
                self.dirty = True
                self.changed.notify_all()

    def add(self, entry: Entry) -> None:
        if self.room and not entry.room:
            entry = dataclasses.replace(entry, room=self.room)
        with self._locked() as entries:
            entries.append(entry)

    def pending(self) -> list[Entry]:
        with self._locked() as entries:
            return sorted(entries, key=lambda e: e.due)

    def labelled_in(self, utterance: str) -> bool:
        """`utterance` names a running timer by every word of its label ("dumpling still
        how many minute" of the dumpling timer)."""
        said = set(tokens(utterance))
        return any(e.label and set(tokens(e.label)) <= said
                   for e in self.pending() if e.kind == "timer")

    def extend(self, entry_id: str, seconds: float) -> Entry | None:
        """The timer `entry_id`, `seconds` longer (due later, its length too; negative:
        shorter); None when it has rung or was cancelled meanwhile."""
        return self._change(entry_id, lambda e: dataclasses.replace(
            e, seconds=e.seconds + seconds, left=e.left + seconds if e.left else 0,
            due=e.due if e.left else e.due + seconds))

    def pause(self, entry_id: str) -> Entry | None:
        """The timer `entry_id` paused with the time it has left (as it was, if paused
        already); None when it has rung or was cancelled meanwhile."""
        now = self.clock.time()
        return self._change(entry_id, lambda e: e if e.left else dataclasses.replace(
            e, left=max(1.0, e.due - now)))

    def resume(self, entry_id: str) -> Entry | None:
        """The paused timer `entry_id` running again, due in the time it had left."""
        now = self.clock.time()
        return self._change(entry_id, lambda e: dataclasses.replace(
            e, due=now + e.left, left=0) if e.left else e)

    def _change(self, entry_id: str, how: Callable[[Entry], Entry]) -> Entry | None:
        with self._locked() as entries:
            for at, entry in enumerate(entries):
                if entry.id == entry_id:
                    entries[at] = how(entry)
                    return entries[at]
        return None

    def remove(self, chosen: list[Entry]) -> list[Entry]:
        """Remove `chosen`; returns those that were still there."""
        with self._locked() as entries:
            gone = [e for e in entries if e in chosen]
            entries[:] = [e for e in entries if e not in chosen]
        return gone

    def ring(self, announce: Callable[[str], None]) -> float:
        """Announce every entry that is due now, once, and take it out of the file (a
        repeating alarm moves to its next day); the
        seconds until the next one is due (at most POLL_SECONDS). Never raises: a full disk
        still announces, once."""
        now = self.clock.time()
        state = self._ringing = self._ringing or _Ringing(started=now)
        due: list[Entry] = []
        wait = POLL_SECONDS
        try:
            with self._locked() as entries:
                self.dirty = False
                state.fired = [e for e in state.fired if e in entries]
                mine = [e for e in entries if e.room == self.room and not e.left]
                due = [e for e in mine if e.due <= now and e not in state.fired]
                gone = [e for e in entries if e in due or e in state.fired]
                again = [n for e in gone if (n := e.again(now, self.clock.zone))]
                entries[:] = [e for e in entries if e not in gone] + again
                wait = min([e.due - now for e in mine if e in entries] + [POLL_SECONDS])
            if state.failing:
                log.warning("the timers file %s is saved again", self.path)
            state.failing = False
        except OSError as exc:  # disk full: announce once anyway
            (log.debug if state.failing else log.error)(
                "could not update the timers file %s (%s); the previous file is kept",
                self.path, exc.strerror or exc)
            state.failing = True
            state.fired += due
        for entry in sorted(due, key=lambda e: e.due):
            self._announce(announce, entry, late=entry.due < state.started - LATE_SECONDS)
        return wait

    def _announce(self, announce: Callable[[str], None], entry: Entry, late: bool) -> None:
        name = entry.name(self.clock)
        if late:
            text = say("timer_late", name=name)
        elif entry.kind == "timer":
            text = say("timer_done", name=name)
        else:
            moment = datetime.fromtimestamp(entry.due, self.clock.zone)
            text = say("alarm_due", time=spoken_time(moment), name=name)
        try:
            announce(text)
        except Exception:  # a broken speaker must not stop the bell
            log.exception("announcing %r failed", text)


class Bell:
    """The thread that rings `timers` as they come due, and at every change."""

    def __init__(self, timers: Timers, announce: Callable[[str], None]) -> None:
        self._timers = timers
        self._announce = announce
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="voiceagent-timers",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        with self._timers.changed:
            self._stopped = True
            self._timers.changed.notify_all()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        timers = self._timers
        while not self._stopped:
            wait = timers.ring(self._announce)
            with timers.changed:
                timers.changed.wait_for(lambda: self._stopped or timers.dirty,
                                        timeout=max(0.0, wait))


def nth_started(entries: list[Entry], word: str) -> list[Entry]:
    """The one of `entries` that `word` names by when it was started ("the first timer",
    "the last one": lexicon `in_order`), alone in a list; [] when it names none."""
    at = {w: int(n) for w, n in lexicon().values("in_order").items()}.get(word)
    if at is None or abs(at) > len(entries):
        return []
    started = sorted(entries, key=lambda e: e.due - e.seconds)
    return [started[at - 1 if at > 0 else at]]
