"""A name said after the command it names: "and another one saturday at nine thirty, call it
football", "set a timer for 20 minutes, name it laundry". The templates read the command;
the name said after it is the label of the one call that takes one and has none."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from voiceagent.agent.tools import ToolRegistry
from voiceagent.intents import slots
from voiceagent.intents.match import LocalMatch
from voiceagent.language import lexicon

_TAIL = re.compile(rf"(?:\s*,\s*|\s+)(?:{lexicon().regex('naming_tails')})\s+(.+?)[\s.!?]*$",
                   re.I)


def named_after(text: str) -> tuple[str, str] | None:
    """(the command, the name) when `text` ends by naming what it asks for; else None."""
    found = _TAIL.search(text)
    if found is None or not found.start():
        return None
    named = slots.label(found.group(1))
    return None if named is None else (text[:found.start()], named["label"])


def with_name(text: str, read: Callable[[str], list[LocalMatch]],
              registry: ToolRegistry) -> list[LocalMatch] | None:
    """The calls `read` finds in `text` without its naming tail, the one that takes a label
    named by it; None when `text` has no such tail or no call takes that name."""
    tail = named_after(text)
    if tail is None:
        return None
    command, name = tail
    found = read(command)
    unnamed = [i for i, m in enumerate(found) if "label" not in m.args and _takes_label(
        registry, m.tool)]
    if len(unnamed) != 1:
        return None
    at = unnamed[0]
    return found[:at] + [replace(found[at], args={**found[at].args, "label": name})] + found[
        at + 1:]


def _takes_label(registry: ToolRegistry, name: str | None) -> bool:
    tool = registry.get(name) if name else None
    return tool is not None and "label" in tool.parameters.get("properties", {})
