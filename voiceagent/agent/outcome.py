"""What a tool did, as values: what the user hears, what the model reads, and typed references
to what it made or touched.

Follow-ups ("cancel it", "take that off", "add a hundred to that"), the evaluation and the
trace read the references; nothing parses a tool's sentence, so a confirmation can be
reworded freely. A tool returns an `Outcome` (or a plain sentence, which is one without
references); the registry returns one for every call, failed ones included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["timer", "alarm", "list", "note", "number", "clock"]
Action = Literal["made", "added", "removed", "cleared", "read", "cancelled", "offered",
                 "converted"]
"""made: a timer, alarm, note or number was created; added/removed: list items; cleared: a
whole list emptied; read: shown to the user (the clock's: the place asked about, as
`label`); cancelled: a timer or alarm stopped; offered:
named in a question back to the user ("Which one? You have ..."); converted: a time of day
told in another place (`label` the place, `items` the time and where it was)."""


@dataclass(frozen=True)
class Ref:
    """One thing a tool made, changed or read."""

    kind: Kind
    action: Action
    key: str = ""
    """How the tool finds it again: a timer's or alarm's id, a list's stored name."""
    label: str = ""
    """The user's name for it (a timer's label), or a sum's expression."""
    items: tuple[str, ...] = ()
    """List items added, removed, cleared or read."""
    value: float | None = None
    """A timer's length in seconds, a sum's result."""
    due: float | None = None
    """When a timer or alarm goes off, epoch seconds."""
    repeat: str = ""
    """The weekdays an alarm rings again on ("01234"; tools/timer_store.Entry.repeat)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "action": self.action}
        for name in ("key", "label", "repeat"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        if self.items:
            data["items"] = list(self.items)
        for name in ("value", "due"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ref:
        return cls(data["kind"], data["action"], str(data.get("key", "")),
                   str(data.get("label", "")), tuple(str(i) for i in data.get("items", ())),
                   _number(data.get("value")), _number(data.get("due")),
                   str(data.get("repeat", "")))


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class Outcome:
    """The result of one tool call."""

    say: str
    """The result as the user hears it ("Timer set for 5 minutes: pasta."); for a failed
    call, the error written for the model."""
    refs: tuple[Ref, ...] = ()
    """What it made, changed or read."""
    note: str = ""
    """For the model only, after `say` (arguments that were dropped, parameters ignored)."""
    error: bool = False
    """The call failed (set by the run, never guessed from the text)."""

    @property
    def text(self) -> str:
        """What the model reads."""
        return f"{self.say} {self.note}" if self.note else self.say

    @property
    def asks(self) -> bool:
        """`say` asks the user to choose among things it offers ("Which one?")."""
        return any(r.action == "offered" for r in self.refs)

    @property
    def pair(self) -> tuple[str, bool]:
        """(what the model reads, failed): the shape a result takes on the wire."""
        return self.text, self.error

    def noted(self, note: str) -> Outcome:
        """The same outcome with a note for the model added."""
        return Outcome(self.say, self.refs, f"{self.note} {note}".strip(), self.error)

