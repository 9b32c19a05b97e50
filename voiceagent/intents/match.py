"""A sentence understood without the model: the value the matcher and follow-ups return."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LocalMatch:
    """A sentence understood without the LLM."""

    intent: str
    """What was asked: "timer_start", "list_add", "time", "stop", "unsupported_weather", ..."""
    tool: str | None
    """The registry tool to run, or None (stop, thanks, requests nothing here serves)."""
    args: dict[str, Any]
    """Arguments for that tool, only from what was said."""
    reply: str = ""
    """For tool=None: the sentence to say ("OK.", "I can't check the weather: ...")."""
