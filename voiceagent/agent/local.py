"""The local stage of a turn: a sentence the templates recognise is answered without the model.

Its calls run through the same call policy and are recorded as ordinary calls and results,
so the model sees the exchange in later turns. A call that fails means the template guessed
wrong: the stage gives up and the model gets the request afresh.
"""

from __future__ import annotations

import time
from collections.abc import Container, Sequence
from typing import Protocol

from voiceagent.agent.about import INTENTS as ABOUT
from voiceagent.agent.about import about
from voiceagent.agent.events import Error, LocalCommand
from voiceagent.agent.messages import Message, ToolCall
from voiceagent.agent.recall import INTENTS as RECALLED
from voiceagent.agent.recall import recall
from voiceagent.agent.turn import FOLLOW_ID, LOCAL_ID, Turn, TurnResult
from voiceagent.errors import ToolError
from voiceagent.language import say


class LocalMatch(Protocol):
    """A sentence the local templates recognised (voiceagent.intents.LocalMatch)."""

    @property
    def intent(self) -> str: ...
    @property
    def tool(self) -> str | None: ...
    @property
    def args(self) -> dict[str, object]: ...
    @property
    def reply(self) -> str: ...


class LocalMatcher(Protocol):
    """Recognises known commands without the model (voiceagent.intents.LocalCommands)."""

    def match(self, text: str) -> LocalMatch | None: ...

    def follow_up(self, text: str, history: Sequence[Message]) -> Sequence[LocalMatch]:
        """The commands `text` gives by pointing at the last exchange ("cancel it")."""
        ...

    def several(self, text: str) -> Sequence[LocalMatch]:
        """Whole commands said in one breath ("... and add milk to my list"), or []."""
        ...

    def on_the_list_meant(self, args: dict[str, object], text: str,
                          history: Sequence[Message]) -> dict[str, object]:
        """A call's `args` on the list the conversation is about when `text` names none."""
        ...

    def question_beside(self, text: str) -> tuple[str, str] | None:
        """(the commands, the question for the model) of a request that joins both."""
        ...


def answer_locally(turn: Turn, local: LocalMatcher, history: Sequence[Message],
                   enabled: Container[str]) -> TurnResult | None:
    """The turn answered from the templates, or None: the model answers it (`enabled`: the
    tools there are, for "what can you do?")."""
    text = turn.user_text
    try:
        matches = list(local.follow_up(text, history))
        pointed = bool(matches)
        match = matches[0] if matches else local.match(text)
        if match is None:
            matches = list(local.several(text))
            if not matches:
                return None
            match = matches[0]
    except ToolError as exc:  # a template's slot the tools cannot read: the model reads it
        turn.events.emit(Error("local commands", f"{text!r}: {exc}"))
        return None
    several = len(matches) > 1 and not pointed
    turn.events.emit(LocalCommand(match.intent, match.tool))
    if match.tool is None and not several:
        known = (recall(match.intent, history, lambda t: _is_recall(local, t))
                 if match.intent in RECALLED else
                 about(match.intent, enabled) if match.intent in ABOUT else "")
        return turn.end("done", known or match.reply)
    prefix = FOLLOW_ID if pointed else LOCAL_ID
    calls = tuple(ToolCall(f"{prefix}{time.monotonic_ns() % 10**9}{i}", m.tool, dict(
        m.args if pointed else local.on_the_list_meant(dict(m.args), text, history)))
                  for i, m in enumerate(matches or [match]) if m.tool is not None)
    # (not pointed: "take book room 3 off the list" after the to-dos is about that list)
    turn.messages.append(Message("assistant", "", calls))
    batch = turn.run_calls(calls, template=True)
    if batch.stop == "misheard":
        return turn.end("misheard", say("misheard"))
    if batch.stop == "cancelled":
        return turn.cancelled("tools")
    if batch.declined:
        return turn.end("done", say("declined"))
    failed = [done.error for done, _o in batch.done]
    if several and any(failed) and not all(failed):  # some done: never done twice by the model
        said = [o.say for d, o in batch.done if not d.error] + [say("failed_rest")]
        return turn.end("done", " ".join(said))
    if any(failed):
        return None  # the template guessed wrong: the model gets the request afresh
    if several:  # each command answered in its place, a refusal too
        outcomes = iter(outcome.say for _d, outcome in batch.done)
        said = [next(outcomes, "") if m.tool is not None else m.reply for m in matches]
        return turn.end("done", " ".join(dict.fromkeys(s for s in said if s)))
    spoken = match.reply or " ".join(outcome.say for _d, outcome in batch.done)
    return turn.end("done", spoken)


def recognised(local: LocalMatcher, text: str, history: Sequence[Message]) -> bool:
    """The templates take `text` after `history` for a command (this stage answers it, unless
    its call then fails): the model will not be asked."""
    return (bool(local.follow_up(text, history)) or local.match(text) is not None
            or bool(local.several(text)))


def _is_recall(local: LocalMatcher, text: str) -> bool:
    """`text` asked about the conversation itself ("Say that again")."""
    found = local.match(text)
    return found is not None and found.intent in RECALLED
