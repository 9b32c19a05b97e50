"""What the assistant says about itself: its name and what it can do, from the enabled tools.

Small models answered "What's your name?" with "My name is [Your Name]." and "What can you
do?" with tasks it has no tool for; the answer is built from the registry instead, so a
disabled tool family is not promised. The words are say.yaml's ("about_me", "skills").
"""

from __future__ import annotations

from collections.abc import Container

from voiceagent.language import say
from voiceagent.language.sayings import skills

INTENTS = frozenset({"about_me", "capabilities"})
"""The local intents (language/en/replies.yaml) answered here."""


def _join(parts: list[str]) -> str:
    return (", ".join(parts[:-1]) + f" and {parts[-1]}") if len(parts) > 1 else "".join(parts)


def about(intent: str, tools: Container[str]) -> str:
    """The answer to `intent` ("about_me" or "capabilities") with the tools in `tools`."""
    if intent == "about_me":
        return say("about_me")
    can = [f"{verb} {_join(found)}" for verb, family in skills()
           if (found := [what for name, whats in family for what in whats if name in tools])]
    known = say("skills", skills=_join(can)) if can else say("no_skills")
    return f"{known} {say('offline')}"
