"""The capped tool loop: one user turn, as many model requests and tool calls as it takes.

This is the one place a turn is decided, whoever drives it (front ends, bench, evaluation):
- a sentence a local template recognises runs its tool at once, without the model;
- it cannot wedge: every cap (steps, seconds, tokens, money) ends the turn with a short
  spoken sentence and a "cap" event;
- the one retry policy: a failed request is retried once (after bringing a dead server back)
  unless words were already spoken; then one apology, never two. (The wire adapter's re-ask
  without tools when llama.cpp rejects a malformed tool call is recovery of the model's
  output within one request, not a retry: it speaks nothing of its own);
- every tool call gets a result paired to its id, even when the turn is cancelled half-way;
  a model that repeats a call it already has the answer to is told so, then stopped;
- a call runs only on what the user said (grounded arguments, destructive tools only when
  clearly asked, nothing that writes on a doubtful transcript);
- a tool whose result is the answer ends the turn with it (no second request);
- no error text, JSON or placeholder reaches the speaker (agent/spoken.py).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from voiceagent.agent.about import INTENTS as ABOUT
from voiceagent.agent.about import about
from voiceagent.agent.events import (
    Cancelled,
    Cap,
    Error,
    Events,
    Final,
    FirstToken,
    LocalCommand,
    ReplyDone,
    Request,
    ToolCallStart,
    ToolResult,
    UserText,
)
from voiceagent.agent.grounding import ground
from voiceagent.agent.messages import Message, Price, Reply, ToolCall, Usage
from voiceagent.agent.recall import INTENTS as RECALLED
from voiceagent.agent.recall import recall
from voiceagent.agent.spoken import SpokenFilter
from voiceagent.agent.tools import IGNORED_NOTE, ToolRegistry, spoken_result
from voiceagent.config import AgentConfig
from voiceagent.errors import ChatError, ServerDown
from voiceagent.ports import Approver, ChatModel

log = logging.getLogger(__name__)

Stop = Literal["done", "cap", "cancelled", "loop", "error", "misheard"]

CAP_SENTENCES = {
    "steps": "Sorry, I ran out of steps for that one.",
    "seconds": "Sorry, that took too long, so I stopped.",
    "tokens": "Sorry, that needed more text than I'm allowed for one question.",
    "cost": "Sorry, that would cost more than the limit for one question.",
}
LOOP_SENTENCE = "Sorry, I kept repeating the same step, so I stopped."
DOWN_SENTENCE = "Sorry, I can't reach the language model right now."
ERROR_SENTENCE = "Sorry, the language model failed to answer."
MISHEARD_SENTENCE = "Sorry, I didn't catch that. Could you say it again?"
FAILED_SENTENCE = "Sorry, I couldn't do that."
RETRY_NOTE = ("(An answer without a tool was not said: {}. Call the tool that answers this; "
              "if none can, say plainly that you cannot.)")
NO_SUCH_TOOL_NOTE = ("(There is no tool called {}. Answer the user yourself in plain words "
                     "if you can; if not, say plainly that you cannot.)")
_CALLED = re.compile(r'"name"\s*:\s*"([\w.-]+)"')
"""A tool call written as text: the tool it names."""
DECLINED_SENTENCE = "OK, I won't."
DECLINED = "the user declined"
CANCELLED = "cancelled by the user"
LOCAL_ID = "local_"
"""Call ids of local commands start with this."""
FOLLOW_ID = f"{LOCAL_ID}follow_"
"""Call ids of commands pointing at the last exchange ("cancel it"): the user's words of that
exchange count as said for them ("pasta" for "make it 12 minutes")."""
DOUBTFUL = ("Error: not run: the speech recogniser was unsure what the user said, so nothing "
            "that changes anything may run. Ask the user to repeat.")


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
        local: LocalMatcher | None = None,
        recover: Callable[[], bool] | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.config = config
        self.events = events
        self.approve = approve
        self.prefix = tuple(prefix)
        """The worked example sent before the history; never stored in the session."""
        self.price = price
        self.local = local
        """Local command templates, tried before the model; None sends everything to it."""
        self.recover = recover
        """Brings a dead model server back (True when it did); called before the retry."""

    def run_turn(
        self,
        history: Sequence[Message],
        user_text: str,
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        doubtful: bool = False,
    ) -> TurnResult:
        """Answer `user_text`; `on_text` gets the text to speak as it streams.

        `doubtful` (the recogniser was unsure) lets questions be answered but no tool that
        changes anything run.
        """
        turn = _Turn(self, history, user_text, on_text, cancel or threading.Event(), doubtful)
        return turn.run()

    def warm_up(self, history: Sequence[Message] = ()) -> None:
        """Send the fixed prefix (system prompt, tools, worked example) and the conversation
        so far, so the server has them cached before the user's next question (seconds saved
        on a small CPU): at start, and after turns the model never saw (local commands)."""
        enough = threading.Event()  # stop at the first token: the prompt is cached by then
        try:
            self.model.complete(self.config.system_prompt,
                                [*self.prefix, *history, Message("user", "hi")],
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
        doubtful: bool = False,
    ) -> None:
        self.a = agent
        self.doubtful = doubtful
        self.history = tuple(history)
        self.spoken = self._spoken_filter(user_text)
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
        self._spoken_tail = ""
        self.misheard = False
        """A call that changes something was refused because the transcript is doubtful."""
        self.question = ""
        """What to ask the user: a call needs something they did not say (Grounding.ask)."""
        self.retried = False
        self.retry_note = ""
        """Added to the user's words once, when the first answer was held back whole."""

    def run(self) -> TurnResult:
        self.a.events.emit(UserText(self.new[0].text))
        local = self._local()
        if local is not None:
            return local
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
            self.retry_note = ""
            # the history keeps what the user heard, not what the filter held back
            self.new.append(Message("assistant", self._close_step(), reply.calls))
            if not reply.calls:
                if self._second_chance():
                    continue
                return self._end("done", "")
            stop = self._run_calls(reply.calls)
            if self.question and all(e for _c, _t, e in self.results[-len(reply.calls):]):
                return self._end("done", self.question)  # "Set an alarm." -> "For what time?"
            if stop == "cancelled":
                return self._cancelled("tools")
            if stop == "loop":
                return self._end("loop", LOOP_SENTENCE)
            if stop == "misheard":
                return self._end("misheard", MISHEARD_SENTENCE)
            spoken = self._spoken_results(reply.calls)
            if spoken:
                return self._end("done", spoken)

    def _second_chance(self) -> bool:
        """A first answer held back whole (a made-up time, JSON, error text) is asked for
        once more, with why, instead of ending in FAILED_SENTENCE: after small talk the 1.5B
        answered "what time is it" with a time of its own. The note is not kept."""
        if self.retried or self.said or self.results or not self.spoken.dropped:
            return False
        self.retried = True
        self.new.pop()  # its empty assistant message
        reasons = ", ".join(sorted({reason for _s, reason in self.spoken.dropped}))
        unknown = [name for sentence, _r in self.spoken.dropped
                   for name in _CALLED.findall(sentence) if name not in self.a.tools]
        self.spoken.dropped.clear()
        self.retry_note = (NO_SUCH_TOOL_NOTE.format(unknown[0]) if unknown
                           else RETRY_NOTE.format(reasons))
        self.spoken.errors.append(self.retry_note)  # a small model may read it back
        return True

    def _local(self) -> TurnResult | None:
        """Answer a recognised command without the model; None lets the model answer.

        The exchange is recorded as ordinary calls, results and answer, so the model sees
        it in later turns. A call that fails is dropped and the model gets the request."""
        text = self.new[0].text
        if self.a.local is None:
            return None
        matches = list(self.a.local.follow_up(text, self.history))
        match = matches[0] if matches else self.a.local.match(text)
        if match is None:
            return None
        self.a.events.emit(LocalCommand(match.intent, match.tool))
        if match.tool is None:
            known = (recall(match.intent, self.history, self._is_recall)
                     if match.intent in RECALLED else
                     about(match.intent, self.a.tools) if match.intent in ABOUT else "")
            return self._end("done", known or match.reply)
        prefix = FOLLOW_ID if matches else LOCAL_ID
        calls = tuple(ToolCall(f"{prefix}{time.monotonic_ns() % 10**9}{i}", m.tool, dict(m.args))
                      for i, m in enumerate(matches or [match]) if m.tool is not None)
        self.new.append(Message("assistant", "", calls))
        stop = self._run_calls(calls)
        if stop == "misheard":
            return self._end("misheard", MISHEARD_SENTENCE)
        if stop == "cancelled":
            return self._cancelled("tools")
        done = self.results[-len(calls):]
        if any(result == DECLINED for _c, result, _e in done):
            return self._end("done", DECLINED_SENTENCE)
        if any(is_error for _c, _r, is_error in done):
            # the template guessed wrong: the model gets the request afresh
            self.new = self.new[:1]
            self.results = []
            self.answered = {}
            self.spoken = self._spoken_filter(text)
            return None
        return self._end("done", match.reply or " ".join(spoken_result(r) for _c, r, _e in done))

    def _is_recall(self, text: str) -> bool:
        """`text` asked about the conversation itself ("Say that again")."""
        found = self.a.local.match(text) if self.a.local is not None else None
        return found is not None and found.intent in RECALLED

    def _spoken_filter(self, user_text: str) -> SpokenFilter:
        """A fresh gate; the conversation so far counts as known facts."""
        spoken = SpokenFilter()
        spoken.known += [m.text for m in self.history] + [user_text]
        return spoken

    def _spoken_results(self, calls: Sequence[ToolCall]) -> str:
        """The results to say as the answer when every call's result is itself the answer
        (a confirmation, the time) and none failed; "" when the model must answer."""
        done = self.results[-len(calls):]
        if not done or any(is_error or text == DECLINED for _c, text, is_error in done):
            return ""
        for call in calls:
            t = self.a.tools.get(call.name)
            if t is None or not t.speaks_result:
                return ""
            if t.answers is not None and not t.answers(self.new[0].text):
                return ""  # asked for more than the result says: the model answers
        return " ".join(spoken_result(text) for _c, text, _e in done)

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
        asked = self.new[0]
        if self.retry_note:  # the request once more, with why the first answer was not said
            asked = Message("user", f"{asked.text}\n\n{self.retry_note}")
        messages = [*self.a.prefix, *self.history, asked, *self.new[1:]]
        for attempt in (1, 2):
            self.a.events.emit(Request(step, attempt, len(messages)))
            try:
                reply = self.a.model.complete(
                    self.a.config.system_prompt,
                    messages,
                    self.a.tools.specs(),
                    on_text=self._speaker(step),
                    cancel=self.halt,
                )
            except ChatError as exc:
                self.a.events.emit(Error("model", str(exc), kind=type(exc).__name__))
                if self.cancel.is_set():
                    return self._cancelled("model")
                if attempt == 1 and not self.step_said and not self.halt.is_set():
                    self.spoken.discard()  # a half sentence of the failed attempt
                    self._bring_back()
                    continue
                sentence = DOWN_SENTENCE if isinstance(exc, ServerDown) else ERROR_SENTENCE
                return self._end("error", sentence, error=exc)
            self.usage = Usage(self.usage.input_tokens + reply.usage.input_tokens,
                               self.usage.output_tokens + reply.usage.output_tokens)
            self.a.events.emit(ReplyDone(
                step, reply.text, [c.to_dict() for c in reply.calls],
                reply.usage.input_tokens, reply.usage.output_tokens,
            ))
            return reply
        raise AssertionError("unreachable")

    def _bring_back(self) -> None:
        """Before the one retry: restart a dead server (a busy one is left alone)."""
        if self.a.recover is None:
            return
        try:
            if self.a.recover():
                log.warning("the language model server had died; restarted it, retrying")
        except Exception as exc:  # the retry then fails and the user hears one apology
            log.error("could not restart the language model server: %s", exc)

    def _speaker(self, step: int) -> Callable[[str], None]:
        """on_text for one request: times the first token, separates steps with a space."""
        first = True

        def speak(delta: str) -> None:
            nonlocal first
            if first:
                first = False
                self.a.events.emit(FirstToken(step))
            if delta:
                self._say(self.spoken.feed(delta))

        return speak

    def _say(self, text: str) -> None:
        if not text:
            return
        if not self.step_said and self.said and not text[:1].isspace() \
                and not self._spoken_tail.isspace():
            text = " " + text
        self._spoken_tail = text[-1:]
        self.step_said.append(text)
        if self.on_text is not None:
            self.on_text(text)

    def _close_step(self, flush: bool = True) -> str:
        """End one model reply's speech; returns what it said."""
        if flush:
            self._say(self.spoken.flush())
        said = "".join(self.step_said).strip()
        if said:
            self.said.append(said)
        self.step_said = []
        return said

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
        if stop is None and self.misheard:
            stop = "misheard"
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
        self.a.events.emit(ToolCallStart(call.id, call.name, call.args, call.bad_json))
        start = time.monotonic()
        tool = self.a.tools.get(call.name)
        runs = self.a.tools.runnable(call)  # with an unknown parameter too: guarded all the same
        if tool is not None and runs is not None:
            if self.doubtful and tool.writes:
                self.misheard = True
                return self._result(call, DOUBTFUL, True, start)
            grounding = ground(tool, runs.args, self.new[0].text, earlier=self._said_before(),
                               answering=self._answering() or (
                                   self._last_request() if call.id.startswith(FOLLOW_ID) else ""),
                               template=call.id.startswith(LOCAL_ID))
            if grounding.error:
                self.question = self.question or grounding.ask
                return self._result(call, grounding.error, True, start)
            if tool.needs_approval and not self._approved(call):
                return self._result(call, DECLINED, False, start)
            if grounding.drop:
                return self._run_without(call, grounding.drop, start)
        text, is_error = self.a.tools.run(call)
        return self._result(call, text, is_error, start)

    def _answering(self) -> str:
        """The user's previous request when the last answer was a question to them."""
        said = [m for m in self.history if m.role in ("user", "assistant") and m.text]
        if len(said) >= 2 and said[-1].role == "assistant" and said[-2].role == "user" \
                and said[-1].text.rstrip().endswith("?"):
            return said[-2].text
        return ""

    def _last_request(self) -> str:
        """What the user said in the last exchange."""
        return next((m.text for m in reversed(self.history) if m.role == "user"), "")

    def _said_before(self) -> str:
        """The user's words in the last few turns, for reads that refer back to them."""
        return " ".join(m.text for m in self.history if m.role == "user")[-600:]

    def _run_without(self, call: ToolCall, drop: tuple[str, ...], start: float
                     ) -> tuple[str, bool]:
        """Run `call` without the optional arguments nobody said, telling the model so."""
        args = {k: v for k, v in call.args.items() if k not in drop}
        text, is_error = self.a.tools.run(ToolCall(call.id, call.name, args, call.bad_json))
        dropped = ", ".join(f"{k} {call.args[k]!r}" for k in drop)
        return self._result(call, f"{text} {IGNORED_NOTE}{dropped}: the user did not say it.)",
                            is_error, start)

    def _approved(self, call: ToolCall) -> bool:
        if self.a.approve is None:
            return False
        try:
            return bool(self.a.approve(call.name, call.args))
        except Exception as exc:  # a broken front end declines rather than running anyway
            self.a.events.emit(Error("approve", f"{type(exc).__name__}: {exc}"))
            return False

    def _result(
        self, call: ToolCall, text: str, is_error: bool, start: float | None = None
    ) -> tuple[str, bool]:
        self.new.append(Message("tool", text, call_id=call.id, name=call.name, is_error=is_error))
        self.results.append((call, text, is_error))
        (self.spoken.errors if is_error else self.spoken.known).append(text)
        seconds = round(time.monotonic() - start, 4) if start is not None else 0.0
        self.a.events.emit(ToolResult(call.id, call.name, text, is_error, seconds))
        return text, is_error

    def _capped(self, which: str, limit: float) -> TurnResult:
        self.a.events.emit(Cap(which, limit))
        return self._end("cap", CAP_SENTENCES[which])

    def _cancelled(self, where: str) -> TurnResult:
        self.a.events.emit(Cancelled(where))
        return self._end("cancelled", "")

    def _end(self, stop: Stop, sentence: str, error: ChatError | None = None) -> TurnResult:
        """Close the turn: say `sentence`, and end the messages with an assistant text.

        A turn that would end in silence because everything the model said was held back
        (error text, JSON) says one plain sentence instead. Complete replies were flushed
        already; an unfinished sentence (cancel, error, cap mid-reply) is dropped."""
        self.spoken.discard()
        if not sentence and stop == "done" and not self.said and not self.step_said \
                and self.spoken.dropped:
            sentence = FAILED_SENTENCE
        partial = "".join(self.step_said).strip()
        if sentence:
            self._say(" " + sentence if partial and not self._spoken_tail.isspace() else sentence)
        self._close_step(flush=False)
        last = self.new[-1]
        if last.role != "assistant" or last.calls:
            text = " ".join(p for p in (partial, sentence) if p)
            self.new.append(Message("assistant", text or f"({CANCELLED})"))
        elif sentence:  # e.g. the one plain sentence standing in for a held-back reply
            self.new[-1] = Message("assistant", " ".join(p for p in (last.text, sentence) if p))
        answer = " ".join(self.said)
        self.a.events.emit(Final(answer, stop))
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
