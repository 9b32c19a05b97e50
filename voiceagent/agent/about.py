"""What the assistant says about itself: its name and what it can do, from the enabled tools.

Small models answered "What's your name?" with "My name is [Your Name]." and "What can you
do?" with tasks it has no tool for; the answer is built from the registry instead, so a
disabled tool family is not promised.
"""

from __future__ import annotations

from collections.abc import Container

INTENTS = frozenset({"about_me", "capabilities"})
"""The local intents (language/en/replies.yaml) answered here."""

_FAMILIES = ((("set_timer", "timers"), ("set_alarm", "alarms"), ("set_alarm", "reminders")),
             (("add_to_list", "lists"), ("add_note", "notes")),
             (("get_time", "the time and date"),),
             (("calculate", "sums"), ("convert_units", "unit conversions")),
             (("get_system_status", "this computer's battery"),))
_VERBS = ("set", "keep", "tell", "do", "check")


def _join(parts: list[str]) -> str:
    return (", ".join(parts[:-1]) + f" and {parts[-1]}") if len(parts) > 1 else "".join(parts)


def about(intent: str, tools: Container[str]) -> str:
    """The answer to `intent` ("about_me" or "capabilities") with the tools in `tools`."""
    if intent == "about_me":
        return "I'm your voice assistant, running offline on this computer."
    can = [f"{verb} {_join(found)}" for verb, family in zip(_VERBS, _FAMILIES, strict=True)
           if (found := [what for name, what in family if name in tools])]
    skills = f"I can {_join(can)}, and answer questions. " if can else "I answer questions. "
    return skills + "I work offline, so I can't check the weather, the news or the web."
