"""The evaluation's corpus: each request, what must (and must not) happen, and the setup
calls run before it (requests.toml, sessions.toml and general.toml all hold these cases)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NONE = "none"
"""Expected tool: answer without any tool."""
REFUSE = "refuse"
"""Expected tool: no tool, and an honest "I can't do that here"."""
ANY = "any"
"""Expected tool: not checked (a session's follow-up judged on its answer and the state)."""


@dataclass(frozen=True)
class Setup:
    """A tool call run before the turn (a list that must already hold apples)."""

    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Case:
    """One request and what must (and must not) happen; see requests.toml for each field."""

    say: str
    intent: str
    tool: str
    """A tool name (alternatives joined by |), NONE or REFUSE."""
    args: dict[str, Any] = field(default_factory=dict)
    answer: tuple[str, ...] = ()
    answer_not: tuple[str, ...] = ()
    has: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()
    timers_after: int | None = None
    forbid: tuple[str, ...] = ()
    setup: tuple[Setup, ...] = ()

    @property
    def tools(self) -> tuple[str, ...]:
        """The acceptable tools ((): none may run, or with ANY: not checked)."""
        return () if self.tool in (NONE, REFUSE, ANY) else tuple(self.tool.split("|"))

    @property
    def group(self) -> str:
        """commands, unsupported, chat or near misses: the rows of the summary."""
        if self.tool == REFUSE:
            return "unsupported"
        if self.tool == NONE:
            return "chat" if self.intent.startswith("chat") else "near misses"
        return "commands"


def load_cases(path: Path) -> list[Case]:
    """The [[case]] tables of a corpus file; a malformed case names itself."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    known = set(Case.__dataclass_fields__)
    cases = []
    for n, raw in enumerate(data.get("case", []), 1):
        extra = set(raw) - known
        if extra or not {"say", "intent", "tool"} <= set(raw):
            raise ValueError(f"{path}: case {n} ({raw.get('say')!r}): needs say, intent, tool; "
                             f"unknown keys: {sorted(extra)}")
        cases.append(Case(
            say=raw["say"], intent=raw["intent"], tool=raw["tool"], args=dict(raw.get("args", {})),
            answer=tuple(raw.get("answer", ())), answer_not=tuple(raw.get("answer_not", ())),
            has=tuple(raw.get("has", ())), lacks=tuple(raw.get("lacks", ())),
            timers_after=raw.get("timers_after"), forbid=tuple(raw.get("forbid", ())),
            setup=tuple(Setup(s["tool"], dict(s.get("args", {}))) for s in raw.get("setup", ())),
        ))
    return cases
