"""How the conversation so far is shown to the model.

Shown whole, every earlier turn's tool calls and results teach a small model that every
request gets a tool: after four local commands the 1.5B answered "Who wrote the play
Hamlet?" with calculate(...) and get_system_status(all). With `answers` (the default) each
earlier turn is the user's words and the answer they heard, which holds what the tools
did in words ("Timer set for 5 minutes: pasta.") without the calls; the worked example
(agent/example.py) still shows how a call is made. Follow-ups read the calls' outcomes from
the session itself (intents/follow_up.py), not from this view. The view is a pure function
of the history, so the server's cache of it (keep-warm) matches the next request.
"""

from __future__ import annotations

from collections.abc import Sequence

from voiceagent.agent.messages import Message


def for_model(history: Sequence[Message], shown: str = "answers") -> list[Message]:
    """`history` as the model sees it: whole (`calls`), or as `answers`: each turn's user
    message and its answer, with the tool calls and results left out."""
    if shown == "calls":
        return list(history)
    view: list[Message] = []
    for message in history:
        if message.role == "tool":
            continue
        if message.role == "assistant":
            if message.calls and not message.text:
                continue
            if view and view[-1].role == "assistant":  # two steps of one answer: one text
                view[-1] = Message("assistant", f"{view[-1].text} {message.text}".strip())
                continue
            view.append(Message("assistant", message.text))
            continue
        view.append(message)
    return view
