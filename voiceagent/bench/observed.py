"""What one real turn did, as plain values: its tool calls, its answer, the data before and
after. Built by observe.py from a live turn (or read back from saved JSON), read by the judge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voiceagent.agent.events import Event


@dataclass(frozen=True)
class Call:
    """One tool call of the turn, with its result."""

    name: str
    args: dict[str, Any]
    result: str = ""
    error: bool = False
    writes: bool = False
    """The tool changes something (its registry flag): a write on a request nothing serves."""


def calls_from_events(events: Sequence[Event]) -> tuple[Call, ...]:
    """The turn's tool calls from its events, each with the arguments it ran with: the call
    policy may leave out what nobody said (a timer label "break"), and what was done is
    what is judged, not what the model first wrote."""
    results = {e.fields.get("id"): e.fields for e in events if e.type == "tool_result"}
    calls = []
    for e in events:
        if e.type == "tool_call":
            done = results.get(e.fields.get("id"), {})
            args = done.get("ran") or e.fields.get("args") or {}
            calls.append(Call(str(e.fields.get("name")), dict(args),
                              str(done.get("result", "")), bool(done.get("error"))))
    return tuple(calls)


@dataclass(frozen=True)
class Pending:
    """A timer or alarm left after the turn, read from the timer store (not its sentences)."""

    kind: str
    """timer or alarm."""
    label: str
    due: float
    """Epoch seconds when it goes off."""
    seconds: float = 0.0
    """A timer's length."""


@dataclass(frozen=True)
class Observed:
    """What the real turn did: its calls, its answer, the data before and after.

    The one seam between the turn and the judge: every check reads what the turn did from
    here (built by bench/observe.py), never from the product's sentences elsewhere, so when
    tool results carry typed references only `observe` changes.
    """

    answer: str
    calls: tuple[Call, ...] = ()
    stop: str = "done"
    local: bool = False
    """Answered by a local command, without the language model."""
    llm_requests: int = 0
    seconds: float = 0.0
    """Wall-clock time of the turn."""
    items_before: tuple[str, ...] = ()
    """Every list item (all lists) before the turn."""
    items_after: tuple[str, ...] = ()
    notes_added: tuple[str, ...] = ()
    timers_after: int = 0
    pending: tuple[Pending, ...] = ()
    """The timers and alarms after the turn."""
    lists_after: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(list name, its items) for every list after the turn."""
    at: float = 0.0
    """Epoch seconds when the turn started (an alarm's day is counted from it)."""
    ids_before: tuple[str, ...] = ()
    """The ids of the timers and alarms before the turn: a follow-up ("scrap that") names
    the one it acts on by id, which no user says and nobody invented."""
