"""What a real turn did, as the judge's `Observed` value: the one place that reads it.

The turn is run through the assistant the front ends use; its calls come from the turn's
outcome (or its events), the state from the tools' own stores (lists, notes, the timer file)
before and after. When tool results carry typed references, this is where they are read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Event
from voiceagent.agent.messages import ToolCall
from voiceagent.assistant import Assistant
from voiceagent.bench.cases import Setup
from voiceagent.bench.observed import Call, Observed, Pending, calls_from_events
from voiceagent.errors import VoiceAgentError


def run_setup(assistant: Assistant, steps: Sequence[Setup], what: str) -> None:
    """Run tool calls before the turn (a list that must already hold apples)."""
    for n, step in enumerate(steps, 1):
        ran = assistant.agent.tools.run(ToolCall(f"setup{n}", step.tool, step.args))
        text = ran.say
        if ran.error:
            raise VoiceAgentError(f"setup {step.tool}{step.args} of {what!r} failed: "
                                  f"{text}; fix the case in the corpus")


def observe_turn(assistant: Assistant, text: str, data: Path,
                 aliases: dict[str, str] | None = None) -> Observed:
    """Answer `text` through `assistant` (whose tools keep their data in `data`) and record
    what the turn did."""
    aliases = aliases or {}
    items_before, notes_before = _items(data, aliases), _notes(data)
    ids_before = _ids(data)
    turn: list[Event] = []
    listening = [True]
    assistant.events.subscribe(lambda e: turn.append(e) if listening else None)
    at = time.time()
    started = time.monotonic()
    try:
        outcome = assistant.answer_text(text)
    finally:
        listening.clear()
    seconds = time.monotonic() - started
    lists = _lists(data, aliases)
    pending = _pending(data)
    registry = assistant.agent.tools
    return Observed(
        answer=outcome.answer,
        calls=tuple(_with_writes(c, registry) for c in _calls(outcome.tool_calls, turn)),
        stop=outcome.stop,
        local=any(e.type == "local_command" for e in turn),
        llm_requests=sum(e.type == "request" for e in turn),
        seconds=round(seconds, 3),
        items_before=items_before,
        items_after=tuple(item for _, items in lists for item in items),
        notes_added=tuple(n for n in _notes(data) if n not in notes_before),
        timers_after=len(pending),
        pending=pending,
        lists_after=lists,
        at=at,
        ids_before=ids_before,
    )


def _with_writes(call: Call, registry: Any) -> Call:
    tool = registry.get(call.name)
    return Call(call.name, call.args, call.result, call.error,
                writes=bool(tool is not None and tool.writes))


def _calls(recorded: list[dict[str, Any]], events: list[Event]) -> tuple[Call, ...]:
    """The turn's tool calls from its outcome, or from its events if the outcome has none."""
    if recorded:
        return tuple(Call(c["name"], dict(c.get("args") or {}), str(c.get("result", "")),
                          bool(c.get("error"))) for c in recorded)
    return calls_from_events(events)


def _lists(data: Path, aliases: dict[str, str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    from voiceagent.tools.lists import Lists

    lists = Lists(data / "lists", aliases)
    return tuple((name, tuple(lists.read(name))) for name in lists.names())


def _items(data: Path, aliases: dict[str, str]) -> tuple[str, ...]:
    return tuple(item for _, items in _lists(data, aliases) for item in items)


def _notes(data: Path) -> tuple[str, ...]:
    path = data / "notes.txt"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return tuple(line.split(" | ", 1)[-1] for line in lines if line.strip())


def _pending(data: Path) -> tuple[Pending, ...]:
    from voiceagent.tools.timer_store import Timers

    return tuple(Pending(e.kind, e.label, e.due, e.seconds)
                 for e in Timers(data / "timers.json").pending())


def _ids(data: Path) -> tuple[str, ...]:
    from voiceagent.tools.timer_store import Timers

    return tuple(e.id for e in Timers(data / "timers.json").pending() if e.id)


def observed_from(data: dict[str, Any]) -> Observed:
    """An `Observed` back from its JSON (dataclasses.asdict) form."""
    fields = dict(data)
    fields["calls"] = tuple(Call(**c) for c in data.get("calls", ()))
    fields["pending"] = tuple(Pending(**p) for p in data.get("pending", ()))
    fields["lists_after"] = tuple((n, tuple(i)) for n, i in data.get("lists_after", ()))
    for key in ("items_before", "items_after", "notes_added", "ids_before"):
        fields[key] = tuple(data.get(key, ()))
    return Observed(**fields)
