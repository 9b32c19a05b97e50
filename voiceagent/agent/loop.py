"""The capped tool loop: one user turn, as many model requests and tool calls as it takes.

It cannot wedge: every cap (steps, seconds, tokens, money) ends the turn with a short spoken
sentence and a "cap" event; model errors are retried once, then apologised for; every tool
call gets a result paired to its id, even when the turn is cancelled half-way; a model that
repeats a call it already has the answer to is told so, then stopped.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from voiceagent.agent.events import Events
from voiceagent.agent.messages import Message, Reply, ToolCall, Usage
from voiceagent.agent.providers import Price
from voiceagent.agent.tools import ToolRegistry
from voiceagent.config import AgentConfig
from voiceagent.errors import ChatError, ServerDown
from voiceagent.ports import Approver, ChatModel

log = logging.getLogger(__name__)

Stop = Literal["done", "cap", "cancelled", "loop", "error"]

CAP_SENTENCES = {
    "steps": "Sorry, I ran out of steps for that one.",
    "seconds": "Sorry, that took too long, so I stopped.",
    "tokens": "Sorry, that needed more text than I'm allowed for one question.",
    "cost": "Sorry, that would cost more than the limit for one question.",
}
LOOP_SENTENCE = "Sorry, I kept repeating the same step, so I stopped."
DOWN_SENTENCE = "Sorry, I can't reach the language model right now."
ERROR_SENTENCE = "Sorry, the language model failed to answer."
DECLINED = "the user declined"
CANCELLED = "cancelled by the user"


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
    tool_calls: list[tuple[ToolCall, str, bool]] = field(default_factory=list)
    """Each call with its result text and whether it was an error."""
    usage: Usage = field(default_factory=Usage)
    """Tokens used over all requests of the turn."""
    error: ChatError | None = None
    """The model error that ended the turn (ServerDown: nothing answers; restart and retry)."""


class Agent:
    """Runs turns against one model with one set of tools."""

    def __init__(
        self,
        model: ChatModel,
        tools: ToolRegistry,
        config: AgentConfig,
        events: Events,
        *,
        approve: Approver | None = None,
        prefix: Sequence[Message] = (),
        price: Price | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.config = config
        self.events = events
        self.approve = approve
        self.prefix = tuple(prefix)
        """The worked example sent before the history; never stored in the session."""
        self.price = price

    def run_turn(
        self,
        history: Sequence[Message],
        user_text: str,
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> TurnResult:
        """Answer `user_text`; `on_text` gets the text to speak as it streams."""
        return _Turn(self, history, user_text, on_text, cancel or threading.Event()).run()

    def warm_up(self) -> None:
        """Send the fixed prefix (system prompt, tools, worked example) once, so the server
        has it cached before the user's first question (seconds saved on a small CPU)."""
        enough = threading.Event()  # stop at the first token: the prompt is cached by then
        try:
            self.model.complete(self.config.system_prompt, [*self.prefix, Message("user", "hi")],
                                self.tools.specs(), on_text=lambda _: enough.set(), cancel=enough)
        except ChatError as exc:  # the first real turn will report it properly
            log.info("warm-up request failed: %s", exc)


class _Turn:
    """The state of one turn."""

    def __init__(
        self,
        agent: Agent,
        history: Sequence[Message],
        user_text: str,
        on_text: Callable[[str], None] | None,
        cancel: threading.Event,
    ) -> None:
        self.a = agent
        self.history = tuple(history)
        self.on_text = on_text
        self.cancel = cancel
        self.new: list[Message] = [Message("user", user_text)]
        self.said: list[str] = []
        self.step_said: list[str] = []
        self.results: list[tuple[ToolCall, str, bool]] = []
        self.usage = Usage()
        self.t0 = time.monotonic()
        self.halt = _Halt(cancel, self.t0 + agent.config.max_seconds)
        self.answered: dict[str, str] = {}
        self.warned: set[str] = set()

    def run(self) -> TurnResult:
        self.a.events.emit("user_text", text=self.new[0].text)
        step = 0
        while True:
            step += 1
            cap = self._cap(step)
            if cap is not None:
                return self._capped(*cap)
            if self.cancel.is_set():
                return self._cancelled("model")
            reply = self._ask(step)
            if isinstance(reply, TurnResult):
                return reply
            if self.cancel.is_set():  # what was said stays; unfinished calls are dropped
                return self._cancelled("model")
            if self.halt.is_set():  # the time cap struck in the middle of the reply
                return self._capped("seconds", self.a.config.max_seconds)
            self.new.append(Message("assistant", reply.text, reply.calls))
            self._close_step()
            if not reply.calls:
                return self._end("done", "")
            stop = self._run_calls(reply.calls)
            if stop == "cancelled":
                return self._cancelled("tools")
            if stop == "loop":
                return self._end("loop", LOOP_SENTENCE)

    def _cap(self, step: int) -> tuple[str, float] | None:
        c = self.a.config
        if step > c.max_steps:
            return "steps", c.max_steps
        if time.monotonic() - self.t0 >= c.max_seconds:
            return "seconds", c.max_seconds
        if self.usage.input_tokens + self.usage.output_tokens >= c.max_tokens:
            return "tokens", c.max_tokens
        if self.a.price and c.max_cost_usd > 0 and self.a.price.cost(self.usage) >= c.max_cost_usd:
            return "cost", c.max_cost_usd
        return None

    def _ask(self, step: int) -> Reply | TurnResult:
        """One request; a ChatError is retried once unless text was already spoken."""
        messages = [*self.a.prefix, *self.history, *self.new]
        for attempt in (1, 2):
            self.a.events.emit("request", step=step, attempt=attempt, messages=len(messages))
            try:
                reply = self.a.model.complete(
                    self.a.config.system_prompt,
                    messages,
                    self.a.tools.specs(),
                    on_text=self._speaker(step),
                    cancel=self.halt,
                )
            except ChatError as exc:
                self.a.events.emit("error", where="model", kind=type(exc).__name__,
                                   message=str(exc))
                if self.cancel.is_set():
                    return self._cancelled("model")
                if attempt == 1 and not self.step_said and not self.halt.is_set():
                    continue
                sentence = DOWN_SENTENCE if isinstance(exc, ServerDown) else ERROR_SENTENCE
                return self._end("error", sentence, error=exc)
            self.usage = Usage(self.usage.input_tokens + reply.usage.input_tokens,
                               self.usage.output_tokens + reply.usage.output_tokens)
            self.a.events.emit(
                "reply", step=step, text=reply.text, calls=[c.to_dict() for c in reply.calls],
                input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens,
            )
            return reply
        raise AssertionError("unreachable")

    def _speaker(self, step: int) -> Callable[[str], None]:
        """on_text for one request: times the first token, separates steps with a space."""
        first = True

        def speak(delta: str) -> None:
            nonlocal first
            if first:
                first = False
                self.a.events.emit("first_token", step=step)
            if delta:
                self._say(delta)

        return speak

    def _say(self, text: str) -> None:
        if not self.step_said and self.said and not text[:1].isspace():
            text = " " + text
        self.step_said.append(text)
        if self.on_text is not None:
            self.on_text(text)

    def _close_step(self) -> None:
        said = "".join(self.step_said).strip()
        if said:
            self.said.append(said)
        self.step_said = []

    def _run_calls(self, calls: Sequence[ToolCall]) -> Stop | None:
        """Run every call in order; each gets exactly one result message."""
        stop: Stop | None = None
        answered: dict[str, str] = {}  # a repeat counts only once the model saw the result
        for call in calls:
            if self.cancel.is_set():
                stop = "cancelled"
                self._result(call, CANCELLED, True)
                continue
            key = f"{call.name} {json.dumps(call.args, sort_keys=True)} {call.bad_json}"
            if key in self.answered:
                stop = stop or self._repeat(call, key)
                continue
            answered[key], _ = self._run_one(call)
        self.answered.update(answered)
        if stop is None and self.cancel.is_set():
            stop = "cancelled"
        return stop

    def _repeat(self, call: ToolCall, key: str) -> Stop | None:
        if key in self.warned:
            self._result(call, "Not run again: this exact call was already answered.", True)
            return "loop"
        self.warned.add(key)
        self._result(call, f"You already called {call.name} with these arguments and got: "
                           f"{self.answered[key]} Do not call it again; answer the user now.",
                     True)
        return None

    def _run_one(self, call: ToolCall) -> tuple[str, bool]:
        self.a.events.emit("tool_call", **call.to_dict())
        start = time.monotonic()
        tool = self.a.tools.get(call.name)
        if tool is not None and tool.needs_approval and not self.a.tools.validation_error(call):
            if not self._approved(call):
                return self._result(call, DECLINED, False, start)
        text, is_error = self.a.tools.run(call)
        return self._result(call, text, is_error, start)

    def _approved(self, call: ToolCall) -> bool:
        if self.a.approve is None:
            return False
        try:
            return bool(self.a.approve(call.name, call.args))
        except Exception as exc:  # a broken front end declines rather than running anyway
            self.a.events.emit("error", where="approve", message=f"{type(exc).__name__}: {exc}")
            return False

    def _result(
        self, call: ToolCall, text: str, is_error: bool, start: float | None = None
    ) -> tuple[str, bool]:
        self.new.append(Message("tool", text, call_id=call.id, name=call.name, is_error=is_error))
        self.results.append((call, text, is_error))
        seconds = round(time.monotonic() - start, 4) if start is not None else 0.0
        self.a.events.emit("tool_result", id=call.id, name=call.name, result=text,
                           error=is_error, seconds=seconds)
        return text, is_error

    def _capped(self, which: str, limit: float) -> TurnResult:
        self.a.events.emit("cap", which=which, limit=limit)
        return self._end("cap", CAP_SENTENCES[which])

    def _cancelled(self, where: str) -> TurnResult:
        self.a.events.emit("cancelled", where=where)
        return self._end("cancelled", "")

    def _end(self, stop: Stop, sentence: str, error: ChatError | None = None) -> TurnResult:
        """Close the turn: say `sentence`, and end the messages with an assistant text."""
        partial = "".join(self.step_said).strip()
        if sentence:
            self._say(f" {sentence}" if partial else sentence)
        self._close_step()
        last = self.new[-1]
        if last.role != "assistant" or last.calls:
            text = " ".join(p for p in (partial, sentence) if p)
            self.new.append(Message("assistant", text or f"({CANCELLED})"))
        answer = " ".join(self.said)
        self.a.events.emit("final", text=answer, stop=stop)
        return TurnResult(answer, self.new, stop, self.results, self.usage, error)


class _Halt(threading.Event):
    """The `cancel` the model sees: set when the user cancels or the turn's time is up, so a
    slow reply is cut at the time cap too. (Models only call is_set().)"""

    def __init__(self, cancel: threading.Event, deadline: float) -> None:
        super().__init__()
        self._cancel = cancel
        self._deadline = deadline

    def is_set(self) -> bool:
        return self._cancel.is_set() or time.monotonic() >= self._deadline
