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
from voiceagent.language import tokens
from voiceagent.speech.sentences import SentenceSplitter


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


def answering(history: Sequence[Message]) -> str:
    """The user's previous request when the last answer was a question to them."""
    said = [m for m in history if m.role in ("user", "assistant") and m.text]
    if len(said) >= 2 and said[-1].role == "assistant" and said[-2].role == "user" \
            and said[-1].text.rstrip().endswith("?"):
        return said[-2].text
    return ""


def last_request(history: Sequence[Message]) -> str:
    """What the user said in the last exchange."""
    return next((m.text for m in reversed(history) if m.role == "user"), "")


def last_results(history: Sequence[Message]) -> str:
    """What the last exchange's tools answered."""
    found: list[str] = []
    for message in reversed(history):
        if message.role == "user":
            break
        if message.role == "tool" and not message.is_error:
            found.insert(0, message.text)
    return " ".join(found)


def said_before(history: Sequence[Message]) -> str:
    """The user's words in the last few turns, for reads that refer back to them."""
    return " ".join(m.text for m in history if m.role == "user")[-600:]


def no_answers(history: Sequence[Message], request: str) -> frozenset[str]:
    """Sentences (as lower-case words) that said now would answer nothing: those of the
    answers to earlier requests other than `request`, and the user's own requests, this one
    included. Live, in one session of real coffee orders, "I won an eight ounce triple shot
    coffee" got the 1.5B's previous answer "You have a coffee with brown sugar." word for
    word, and "Give me an iced mocha" got the request before it read back. The same request
    asked again may get the same answer."""
    asked, found = tokens(request), set(_sentences(request))
    asked_then: list[str] = []  # the words of the request the next answer is to
    for message in for_model(history):
        if message.role == "user":
            asked_then = tokens(message.text)
            found.update(_sentences(message.text))
        elif message.role == "assistant" and message.text and asked_then != asked:
            found.update(_sentences(message.text))
    return frozenset(found)


def _sentences(text: str) -> list[str]:
    splitter = SentenceSplitter()
    return [" ".join(tokens(s)) for s in splitter.feed(text + " ") + splitter.flush()]
