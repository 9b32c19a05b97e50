"""One turn's record and the two things every stage of it does: run calls, and end the turn.

The stages (agent/local.py for recognised commands, agent/loop.py for the model) share this:
each call goes through the one call policy (agent/policy.py) and gets exactly one result
message paired to its id; the turn ends with one closing sentence at most (say.yaml) and an
assistant message, so the history never holds a call without its result.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from voiceagent.agent.events import Cancelled, Cap, Events, Final, ToolCallStart, ToolResult
from voiceagent.agent.messages import Message, ToolCall, Usage
from voiceagent.agent.outcome import Outcome, Ref
from voiceagent.agent.policy import CallPolicy
from voiceagent.agent.tools import ToolRegistry
from voiceagent.agent.voice import Voice
from voiceagent.errors import ChatError
from voiceagent.language import say, tell_model

Stop = Literal["done", "cap", "cancelled", "loop", "error", "misheard"]

LOCAL_ID = "local_"
"""Call ids of local commands start with this."""
FOLLOW_ID = f"{LOCAL_ID}follow_"
"""Call ids of commands pointing at the last exchange ("cancel it")."""


class CallDone(NamedTuple):
    """One call of the turn and what came of it."""

    call: ToolCall
    text: str
    """What the model read."""
    error: bool
    refs: tuple[Ref, ...] = ()
    ran: dict[str, Any] | None = None
    """The arguments it ran with, when the call policy changed the model's (an optional
    argument nobody said left out or trimmed: the timer label "morning wake-up" ran as
    "wake-up"); None when it ran as written or did not run."""

    @property
    def args(self) -> dict[str, Any]:
        """What was done: the arguments it ran with, else the model's."""
        return self.call.args if self.ran is None else self.ran


@dataclass
class TurnResult:
    """What one turn did."""

    answer: str
    """Everything that was said, model text and any closing sentence."""
    messages: list[Message]
    """To append to the history: the user message, assistant messages with their calls, each
    call's result, and a closing assistant message. Never a call without its result."""
    stop: Stop
    """Why the turn ended."""
    tool_calls: list[CallDone] = field(default_factory=list)
    """Each call with its result, in order."""
    usage: Usage = field(default_factory=Usage)
    """Tokens used over all requests of the turn."""
    error: ChatError | None = None
    """The model error that ended the turn (ServerDown: nothing answers; restart and retry)."""


@dataclass(frozen=True)
class Batch:
    """What running one reply's calls came to."""

    done: list[tuple[CallDone, Outcome]]
    stop: Stop | None = None
    """cancelled, loop (a repeat after the warning) or misheard; None to go on."""
    ask: str = ""
    """A question for the user from a refused call ("For what time?")."""
    in_words: bool = False
    """Every call was for a tool the request is not about: the model answers in words."""
    refused: frozenset[str] = frozenset()
    """Ids of the calls the policy did not run (a word nobody said, a tool the request is
    not about); a call that ran and failed is not among them."""

    @property
    def declined(self) -> bool:
        return any(d.text == tell_model("declined") for d, _o in self.done)

    @property
    def all_failed(self) -> bool:
        return bool(self.done) and all(d.error for d, _o in self.done)

    def failed_again(self, messages: Sequence[Message]) -> str:
        """The one tool of this batch whose calls all failed, when one of the same tool had
        failed before among `messages` (the turn's); "" otherwise. A small model sends the
        same question to it in other words until the step cap (the 1.5B: calculate("half
        marathon in miles") three times, then "Sorry, I couldn't do that.")."""
        names = {d.call.name for d, _o in self.done}
        if not self.all_failed or len(names) != 1:
            return ""
        [name] = names
        failed = [m.name for m in messages if m.role == "tool" and m.is_error]
        return name if failed.count(name) > 1 else ""


class Turn:
    """The state of one turn."""

    def __init__(self, *, tools: ToolRegistry, events: Events, policy: CallPolicy,
                 voice: Voice, user_text: str, cancel: threading.Event) -> None:
        self.tools = tools
        self.events = events
        self.policy = policy
        self.voice = voice
        self.cancel = cancel
        self.messages: list[Message] = [Message("user", user_text)]
        self.done: list[CallDone] = []
        self.usage = Usage()
        self.started = time.monotonic()

    @property
    def user_text(self) -> str:
        return self.messages[0].text

    def run_calls(self, calls: Sequence[ToolCall], *, template: bool = False) -> Batch:
        """Run every call in order through the policy; each gets exactly one result."""
        batch: list[tuple[CallDone, Outcome]] = []
        stop: Stop | None = None
        ask = ""
        off_topic = 0
        refused: set[str] = set()
        for call in calls:
            if self.cancel.is_set():
                stop = "cancelled"
                batch.append(self._record(call, Outcome(tell_model("cancelled"), error=True)))
                continue
            decision = self.policy.decide(call, template=template,
                                          follow=call.id.startswith(FOLLOW_ID))
            start = time.monotonic()
            if decision.verdict == "repeat":
                stop = stop or ("loop" if decision.stop else None)
                ask = ask or decision.ask
                batch.append(self._record(call, Outcome(decision.note, error=True)))
                continue
            self.events.emit(ToolCallStart(call.id, call.name, call.args, call.bad_json))
            if decision.verdict == "run":
                outcome = self.tools.run(decision.call)
                if decision.note:
                    outcome = outcome.noted(decision.note)
            elif decision.verdict == "decline":
                ask = ask or decision.ask
                outcome = Outcome(decision.note)
            else:  # refuse, misheard: not run, the model reads why
                ask = ask or decision.ask
                off_topic += decision.off_topic
                stop = stop or ("misheard" if decision.verdict == "misheard" else None)
                outcome = Outcome(decision.note, error=True)
            ran = decision.call.args if (decision.verdict == "run"
                                         and decision.call.args != call.args) else None
            batch.append(self._record(call, outcome, start, ran))
            if decision.verdict == "refuse":
                refused.add(call.id)
        self.policy.seen([(d.call, d.text) for d, _o in batch if not d.error])
        if stop is None and self.cancel.is_set():
            stop = "cancelled"
        return Batch(batch, stop, ask, in_words=bool(calls) and off_topic == len(calls),
                     refused=frozenset(refused))

    def _record(self, call: ToolCall, outcome: Outcome, start: float | None = None,
                ran: dict[str, Any] | None = None) -> tuple[CallDone, Outcome]:
        text = outcome.text
        self.messages.append(Message("tool", text, call_id=call.id, name=call.name,
                                     is_error=outcome.error, refs=outcome.refs))
        done = CallDone(call, text, outcome.error, outcome.refs, ran)
        self.done.append(done)
        facts = self.voice.facts
        (facts.errors if outcome.error else facts.known).append(text)
        tool = self.tools.get(call.name)
        if not outcome.error and tool is not None and text != tell_model("declined"):
            facts.ran.add(call.name)
            facts.wrote = facts.wrote or tool.writes
        seconds = round(time.monotonic() - start, 4) if start is not None else 0.0
        self.events.emit(ToolResult(call.id, call.name, text, outcome.error, seconds,
                                    [r.to_dict() for r in outcome.refs], ran))
        return done, outcome

    # -- ending -----------------------------------------------------------------------------------

    def capped(self, which: str, limit: float) -> TurnResult:
        self.events.emit(Cap(which, limit))
        return self.end("cap", say(f"cap_{which}"))

    def cancelled(self, where: str) -> TurnResult:
        self.events.emit(Cancelled(where))
        return self.end("cancelled")

    def end(self, stop: Stop, sentence: str = "", error: ChatError | None = None) -> TurnResult:
        """Close the turn: say `sentence`, and end the messages with an assistant text.

        A turn that would end in silence because everything the model said was held back
        (error text, JSON) says one plain sentence instead. An unfinished sentence (cancel,
        error, cap mid-reply) is dropped."""
        partial = self.voice.cut()
        if not sentence and stop == "done" and self.voice.silent and self.voice.dropped:
            sentence = say("failed")
        self.voice.say(sentence)
        last = self.messages[-1]
        if last.role != "assistant" or last.calls:
            text = " ".join(p for p in (partial, sentence) if p)
            self.messages.append(Message("assistant", text or f"({tell_model('cancelled')})"))
        elif sentence:  # e.g. the one plain sentence standing in for a held-back reply
            self.messages[-1] = Message("assistant",
                                        " ".join(p for p in (last.text, sentence) if p))
        answer = self.voice.answer
        self.events.emit(Final(answer, stop))
        return TurnResult(answer, self.messages, stop, self.done, self.usage, error)
