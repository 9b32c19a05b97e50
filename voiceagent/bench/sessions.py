"""Multi-turn sessions: a case is a list of turns in one conversation, judged on each answer
and on the state at the end (lists, notes, timers and alarms).

Each turn is a requests.toml case judged by `judge` (the words of every earlier turn count as
said, so "put it on the list" may add the coffee named before), plus the claim check with the
session's earlier tool results as backing. Pure functions over `Observed` values.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from voiceagent.bench.cases import ANY, NONE, Case, Setup
from voiceagent.bench.claims import unbacked
from voiceagent.bench.judge import Verdict, judge
from voiceagent.bench.matching import normal
from voiceagent.bench.observed import Observed
from voiceagent.errors import ToolError, VoiceAgentError
from voiceagent.language.lexicon import tokens
from voiceagent.tools.clock import WEEKDAYS
from voiceagent.tools.words import parse_clock_time

_TURN_KEYS = {"say", "tool", "args", "answer", "answer_not", "has", "lacks", "timers_after",
              "forbid"}
_SESSION_KEYS = {"name", "style", "setup", "has", "lacks", "timers_after", "timers", "alarms",
                 "notes", "turn", "today"}


@dataclass(frozen=True)
class End:
    """What must hold when the session is over."""

    has: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()
    timers_after: int | None = None
    timers: tuple[float, ...] | None = None
    """Lengths in seconds of the timers left."""
    alarms: tuple[str, ...] | None = None
    """Clock times of the alarms left, each perhaps after a weekday ("thursday 7:00")."""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Session:
    """Turns in one conversation and the state it must end in (see sessions.toml)."""

    name: str
    style: str
    turns: tuple[Case, ...]
    setup: tuple[Setup, ...] = ()
    end: End = End()
    today: str = ""
    """The day its answers assume ("2026-12-06": "what day was yesterday"): its clock stands
    at noon that day. Empty: the real clock."""


@dataclass(frozen=True)
class TurnVerdict:
    """One turn of a session, judged."""

    verdict: Verdict
    unbacked: tuple[str, ...]
    """Claims of the answer that no tool of the turn or the conversation backs."""

    @property
    def problems(self) -> tuple[str, ...]:
        return self.verdict.problems + tuple(f"unbacked claim {c}" for c in self.unbacked)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class SessionVerdict:
    """A whole session, judged."""

    session: Session
    turns: tuple[TurnVerdict, ...]
    end_problems: tuple[str, ...]
    """What is wrong with the state at the end."""

    @property
    def ok(self) -> bool:
        return not self.end_problems and all(t.ok for t in self.turns)


def load_sessions(path: Path) -> list[Session]:
    """The [[session]] tables of `path`; a malformed one names itself and the keys it knows."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    sessions = []
    for n, raw in enumerate(data.get("session", []), 1):
        where = f"{path}: session {n} ({raw.get('name')!r})"
        extra = set(raw) - _SESSION_KEYS
        if extra or not raw.get("turn") or not raw.get("name"):
            raise VoiceAgentError(f"{where}: needs name and [[session.turn]]s; unknown keys "
                                  f"{sorted(extra)} (known: {sorted(_SESSION_KEYS)})")
        turns = []
        for t in raw["turn"]:
            bad = set(t) - _TURN_KEYS
            if bad or "say" not in t:
                raise VoiceAgentError(f"{where}: a turn needs say; unknown keys {sorted(bad)}")
            turns.append(Case(
                say=t["say"], intent=raw.get("style", "session"), tool=t.get("tool", ANY),
                args=dict(t.get("args", {})), answer=tuple(t.get("answer", ())),
                answer_not=tuple(t.get("answer_not", ())), has=tuple(t.get("has", ())),
                lacks=tuple(t.get("lacks", ())), timers_after=t.get("timers_after"),
                forbid=tuple(t.get("forbid", ()))))
        timers = raw.get("timers")
        alarms = raw.get("alarms")
        sessions.append(Session(
            name=raw["name"], style=raw.get("style", "session"), turns=tuple(turns),
            setup=tuple(Setup(s["tool"], dict(s.get("args", {}))) for s in raw.get("setup", ())),
            end=End(has=tuple(raw.get("has", ())), lacks=tuple(raw.get("lacks", ())),
                    timers_after=raw.get("timers_after"),
                    timers=tuple(float(x) for x in timers) if timers is not None else None,
                    alarms=tuple(alarms) if alarms is not None else None,
                    notes=tuple(raw.get("notes", ()))), today=str(raw.get("today", ""))))
    return sessions


def setup_words(session: Session) -> str:
    return " ".join(str(v) for step in session.setup for v in step.args.values())


def judge_turns(session: Session, seen: Sequence[Observed]) -> tuple[TurnVerdict, ...]:
    """Each turn that ran, judged with the words and tool results of the turns before it
    (a value an earlier result gave is no invention: "save that number as a note")."""
    out = []
    for n, (case, observed) in enumerate(zip(session.turns, seen, strict=False)):
        earlier_words = " ".join(c.say for c in session.turns[:n])
        said = f"{earlier_words} {setup_words(session)}"
        earlier = [c for o in seen[:n] for c in o.calls]
        # what earlier results said may be written too ("save that number as a note")
        results = " ".join(c.result for c in earlier if c.result and not c.error)
        verdict = judge(case, observed, setup_words=f"{said} {results}")
        claims = unbacked(observed.answer, said=f"{case.say} {said}", calls=observed.calls,
                          earlier=earlier, asked_action=case.tool != NONE)
        out.append(TurnVerdict(verdict, claims))
    return tuple(out)


def _alarm_problem(want: str, seen: Observed) -> str:
    words = tokens(want)
    day = next((w for w in words if w in WEEKDAYS), None)
    try:
        h, m, _ = parse_clock_time(" ".join(w for w in words if w not in WEEKDAYS))
    except ToolError:
        return f"alarm {want!r} in the session file cannot be read"
    for entry in seen.pending:
        at = datetime.fromtimestamp(entry.due)
        if entry.kind == "alarm" and (at.hour % 12, at.minute) == (h % 12, m) and (
                day is None or WEEKDAYS[at.weekday()] == day):
            return ""
    have = [f"{WEEKDAYS[datetime.fromtimestamp(e.due).weekday()]} "
            f"{datetime.fromtimestamp(e.due):%H:%M}" for e in seen.pending if e.kind == "alarm"]
    return f"no alarm at {want} (alarms: {have or 'none'})"


def end_problems(end: End, last: Observed, notes: Sequence[str]) -> tuple[str, ...]:
    """What is wrong with the state after the last turn; `notes` are all notes taken."""
    items = " | ".join(normal(i) for i in last.items_after)
    problems = [f"{w!r} not on a list at the end" for w in end.has if normal(w) not in items]
    problems += [f"{w!r} still on a list at the end" for w in end.lacks if normal(w) in items]
    if end.timers_after is not None and last.timers_after != end.timers_after:
        problems.append(f"{last.timers_after} timers/alarms at the end, wanted "
                        f"{end.timers_after}")
    if end.timers is not None:
        have = sorted(round(e.seconds) for e in last.pending if e.kind == "timer")
        if have != sorted(round(s) for s in end.timers):
            problems.append(f"timers of {have} s at the end, wanted {sorted(end.timers)}")
    for want in end.alarms or ():
        problems += [p for p in [_alarm_problem(want, last)] if p]
    taken = " | ".join(normal(n) for n in notes)
    problems += [f"no note with {w!r}" for w in end.notes if normal(w) not in taken]
    return tuple(problems)


def judge_session(session: Session, seen: Sequence[Observed]) -> SessionVerdict:
    """Every turn and the end state; a session cut short is wrong at the end."""
    turns = judge_turns(session, seen)
    if len(seen) < len(session.turns):
        ends: tuple[str, ...] = (f"only {len(seen)} of {len(session.turns)} turns ran",)
    else:
        ends = end_problems(session.end, seen[-1], [n for o in seen for n in o.notes_added])
    return SessionVerdict(session, turns, ends)


def summary(verdicts: Sequence[SessionVerdict]) -> dict[str, Any]:
    """Counts for one row: sessions and turns right, end states, claims, refusal writes."""
    turns = [t for v in verdicts for t in v.turns]
    refusals = [t for t in turns if t.verdict.case.tool == "refuse"]
    general = [t for t in turns if t.verdict.case.tool == NONE]
    return {
        "sessions": len(verdicts),
        "right": sum(v.ok for v in verdicts),
        "turns": len(turns),
        "turns_right": sum(t.ok for t in turns),
        "end_right": sum(not v.end_problems for v in verdicts),
        "unbacked_claims": sum(bool(t.unbacked) for t in turns),
        "refusal_turns": len(refusals),
        "refusal_writes": sum(any(c.writes and not c.error for c in t.verdict.observed.calls)
                              for t in refusals),
        "general_turns": len(general),
        "general_right": sum(t.ok for t in general),
        "local": sum(t.verdict.observed.local and not t.verdict.observed.llm_requests
                     for t in turns),
    }
