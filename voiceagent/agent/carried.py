"""Nothing the user said is dropped: the inverse of grounding.

A day said with an alarm ("set wake up thursday seven am", "at eight am next saturday")
must reach the call (the 1.5B set both for tomorrow), and a length said for a timer must be
the length called. Which words must be carried is data: `Tool.carries` names a lexicon set
("days") and the parameters that must hold its words when the user said one.
"""

from __future__ import annotations

from typing import Any

from voiceagent.agent.tools import Tool
from voiceagent.intents.numbers import duration_seconds
from voiceagent.language import lexicon, tokens
from voiceagent.tools.words import parse_duration

LONGEST = 7
"""Words in the longest length people say ("one hour and a half minutes" has six)."""


def lengths_said(utterance: str) -> set[float]:
    """Every length of time in `utterance`, in seconds ("5 minutes and 30 seconds": 300, 30,
    330)."""
    said = tokens(utterance)
    found: set[float] = set()
    for start in range(len(said)):
        for end in range(start + 1, min(len(said), start + LONGEST) + 1):
            seconds = duration_seconds(" ".join(said[start:end]))
            if seconds:
                found.add(seconds)
    return found


def dropped(tool: Tool, args: dict[str, Any], utterance: str) -> list[str]:
    """What the user said that the call leaves out or changes, written for the model."""
    problems: list[str] = []
    lex = lexicon()
    said = tokens(utterance)
    for word_set, params in tool.carries:
        carried = " ".join(str(args.get(p, "")) for p in params).lower()
        for start, end in lex.find(word_set, said):
            term = " ".join(said[start:end])
            if term not in " ".join(tokens(carried)):
                problems.append(f"the user said {term!r}, which must be in {params[0]} "
                                f"(e.g. {params[0]}='7:00 am {term}')")
                break
    for param in tool.counted:
        value = args.get(param)
        if not isinstance(value, str):
            continue
        try:
            called = parse_duration(value)
        except Exception:  # not a length (a clock time): nothing to compare
            continue
        spoken = lengths_said(utterance)
        if spoken and not any(abs(called - s) < 0.5 for s in spoken):
            problems.append(f"{param} {value!r} is not the length the user said")
    return problems
