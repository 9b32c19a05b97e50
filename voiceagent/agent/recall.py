"""Answers about the conversation itself, from the session rather than the model.

"Say that again" and "What did I ask you?" are answered from what was really said: the
small models answered them from the worked example ("You asked who painted the Mona
Lisa") because it sits in front of the conversation like an earlier exchange.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from voiceagent.agent.messages import Message
from voiceagent.language import say

INTENTS = frozenset({"repeat_answer", "last_request"})
"""The local intents (language/en/replies.yaml) answered here."""


def recall(intent: str, history: Sequence[Message],
           is_recall: Callable[[str], bool] = lambda _text: False) -> str:
    """The answer to `intent` from `history`; "" when there is nothing to recall (the
    template's own reply says so). Requests for which `is_recall` is true ("Say that
    again") are not what the user means by their last question."""
    role = "assistant" if intent == "repeat_answer" else "user"
    said = [m.text.strip() for m in history if m.role == role and m.text.strip()
            and not (role == "user" and is_recall(m.text))]
    if not said:
        return ""
    if role == "assistant":
        return said[-1]
    asked = said[-1]
    return say("you_asked", asked=asked + ("" if asked[-1] in ".?!" else "."))
