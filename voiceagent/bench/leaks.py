"""What the spoken answer must never contain: error text, raw JSON, template placeholders,
markup, or a tool's error read out as it came."""

from __future__ import annotations

import re

from voiceagent.bench.matching import normal
from voiceagent.bench.observed import Call

_LEAKS = (
    (re.compile(r"\berror\b\s*:|^\s*error\b", re.I), "error text"),
    (re.compile(r"\bparameter\s+'|\bis not one of\b|\bTraceback\b|\bToolError\b|"
                r"\bunknown parameter"), "error text"),
    (re.compile(r"\[\s*(insert|your|current|date|time)\b", re.I), "template placeholder"),
    (re.compile(r"[{\[]\s*\"|\"(name|arguments|items|list_name)\"\s*:"), "raw JSON"),
    (re.compile(r"\{\{|\}\}|```|<tool_call>|</?tool"), "markup"),
)


def error_aloud(answer: str, calls: tuple[Call, ...] = ()) -> str:
    """What the spoken answer should never contain: error text, raw JSON, placeholders."""
    for pattern, what in _LEAKS:
        if pattern.search(answer):
            return what
    spoken = normal(answer)
    for call in calls:
        if call.error:
            text = normal(re.sub(r"^\s*error\s*:?", "", call.result, flags=re.I))
            if len(text) >= 20 and text[:40] in spoken:
                return "the tool's error"
    return ""
