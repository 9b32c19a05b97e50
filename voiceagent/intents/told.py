"""What the user told in the last exchange, which no tool acted on: the follow-ups that act
on it ("The pasta needs eleven minutes." "Set a timer for that.") read it from here."""

from __future__ import annotations

from collections.abc import Sequence

from voiceagent.agent.messages import Message
from voiceagent.language import lexicon, tokens


def last_told(history: Sequence[Message]) -> str:
    """What the user told in the last exchange when it was a statement no tool acted on
    ("The pasta needs eleven minutes."); "" after a question, a call that ran, or nothing
    (a call refused or failed did nothing: the 1.5B tried set_alarm on "The remote needs
    new batteries.")."""
    for message in reversed(history):
        if message.role == "tool" and not message.is_error:
            return ""
        if message.role == "user":
            text = message.text.strip()
            return "" if not text or text.endswith("?") else text
    return ""


def needed(told: str) -> str:
    """What a remark says is needed: the words after the lexicon's `needing` ("The remote
    needs new batteries." -> "new batteries"); "" when it says no such thing."""
    said = tokens(told)
    found = lexicon().find("needing", said)
    return " ".join(said[found[0][1]:]) if found else ""
