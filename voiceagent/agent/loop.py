"""The capped tool loop: one user turn, as many model requests and tool calls as it takes.

This is the one place a turn is decided, whoever drives it (front ends, bench, evaluation).
A turn is heard -> routed -> answered: a sentence a local template recognises runs its tool
at once (agent/local.py); anything else goes to the model, here. Whichever answers:
- it cannot wedge: every cap (steps, seconds, tokens, money) ends the turn with a short
  spoken sentence and a "cap" event;
- the one retry policy: a failed request is retried once (after bringing a dead server back)
  unless words were already spoken; then one apology, never two. (The wire adapter's re-ask
  without tools when llama.cpp rejects a malformed tool call is recovery of the model's
  output within one request, not a retry: it speaks nothing of its own);
- every tool call gets a result paired to its id, even when the turn is cancelled half-way;
  a model that repeats a call it already has the answer to is told so, then stopped;
- a call runs only as the one call policy decides (agent/policy.py: grounded arguments,
  destructive tools only when clearly asked, nothing that writes on a doubtful transcript,
  approval for irreversible tools);
- a tool whose result is the answer ends the turn with it (no second request);
- everything said passes the one speech policy (agent/voice.py): no error text, JSON or
  placeholder reaches the speaker, and the turn's own sentences come from say.yaml.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Sequence

from voiceagent.agent.events import Error, Events, FirstToken, ReplyDone, Request, UserText
from voiceagent.agent.history import for_model
from voiceagent.agent.local import LocalMatch, LocalMatcher, answer_locally
from voiceagent.agent.messages import Message, Price, Reply, ToolChoice, Usage
from voiceagent.agent.policy import CallPolicy, Said
from voiceagent.agent.spoken import DECLINES_GENERAL, Facts
from voiceagent.agent.tools import ToolRegistry
from voiceagent.agent.turn import CallDone, Stop, Turn, TurnResult
from voiceagent.agent.voice import Voice
from voiceagent.config import AgentConfig
from voiceagent.errors import ChatError, ServerDown
from voiceagent.language import say, tell_model
from voiceagent.language.topics import topics_of
from voiceagent.ports import Approver, ChatModel

__all__ = ["Agent", "CallDone", "LocalMatch", "LocalMatcher", "Stop", "TurnResult"]

log = logging.getLogger(__name__)

_CALLED = re.compile(r'"name"\s*:\s*"([\w.-]+)"')
"""A tool call written as text: the tool it names."""


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
        """Answer `user_text`; `on_text` gets each sentence to speak as it is ready.

        `doubtful` (the recogniser was unsure) lets questions be answered but no tool that
        changes anything run.
        """
        cancel = cancel or threading.Event()
        history = tuple(history)
        self.events.emit(UserText(user_text))
        if self.local is not None:
            turn = self._turn(history, user_text, on_text, cancel, doubtful)
            answered = answer_locally(turn, self.local, history, self.tools)
            if answered is not None:
                return answered
        turn = self._turn(history, user_text, on_text, cancel, doubtful)
        return _ModelTurn(self, turn, history).run()

    def warm_up(self, history: Sequence[Message] = (), user_text: str = "hi") -> None:
        """Send the fixed prefix (system prompt, tools, worked example) and the conversation
        so far, so the server has them cached before the user's next question (seconds saved
        on a small CPU): at start, after turns the model never saw (local commands), and with
        the words of a draft heard as finished as `user_text` (agent/warmer.py)."""
        enough = threading.Event()  # stop at the first token: the prompt is cached by then
        try:
            self.model.complete(self.config.system_prompt,
                                [*self.prefix, *for_model(history, self.config.history),
                                 Message("user", user_text)],
                                self.tools.specs(), on_text=lambda _: enough.set(), cancel=enough)
        except ChatError as exc:  # the first real turn will report it properly
            log.info("warm-up request failed: %s", exc)

    def _turn(self, history: tuple[Message, ...], user_text: str,
              on_text: Callable[[str], None] | None, cancel: threading.Event,
              doubtful: bool) -> Turn:
        facts = Facts(known=[m.text for m in history] + [user_text],
                      ran_before={m.name for m in history
                                  if m.role == "tool" and m.name and not m.is_error},
                      private=topics_of().personal_unserved(user_text),
                      general=not topics_of().about(user_text))
        said = Said(user_text, earlier=_said_before(history), answering=_answering(history),
                    last_request=_last_request(history), last_results=_last_results(history))
        def on_error(where: str, exc: Exception) -> None:
            self.events.emit(Error(where, f"{type(exc).__name__}: {exc}"))

        policy = CallPolicy(self.tools, said, doubtful, self.approve, on_error=on_error)
        return Turn(tools=self.tools, events=self.events, policy=policy,
                    voice=Voice(on_text, facts), user_text=user_text, cancel=cancel)


class _ModelTurn:
    """The model stage: requests, calls and results until an answer, a cap or a stop."""

    def __init__(self, agent: Agent, turn: Turn, history: tuple[Message, ...]) -> None:
        self.a = agent
        self.turn = turn
        self.history = history
        self.deadline = turn.started + agent.config.max_seconds
        self.halt = _Halt(turn.cancel, self.deadline)
        self.retry_note = ""
        """Added to the user's words once, when the first answer was held back whole."""
        self.tool_choice: ToolChoice = "auto"
        """For the next request: "required" after an answer that claimed what no tool gave,
        "none" after calls to tools the request is not about."""
        self.retried = False

    def run(self) -> TurnResult:
        turn, step = self.turn, 0
        while True:
            step += 1
            cap = self._cap(step)
            if cap is not None:
                return turn.capped(*cap)
            if turn.cancel.is_set():
                return turn.cancelled("model")
            reply = self._ask(step)
            if isinstance(reply, TurnResult):
                return reply
            if turn.cancel.is_set():  # what was said stays; unfinished calls are dropped
                return turn.cancelled("model")
            if self.halt.is_set():  # the time cap struck in the middle of the reply
                return turn.capped("seconds", self.a.config.max_seconds)
            self.retry_note, self.tool_choice = "", "auto"
            # the history keeps what the user heard, not what the filter held back
            turn.messages.append(Message("assistant", turn.voice.end_reply(), reply.calls))
            if not reply.calls:
                again = self._second_chance()
                if again is True:
                    continue
                return turn.end("done", again or "")
            batch = turn.run_calls(reply.calls)
            if batch.ask and batch.all_failed:
                return turn.end("done", batch.ask)  # "Set an alarm." -> "For what time?"
            if batch.stop == "cancelled":
                return turn.cancelled("tools")
            if batch.stop == "loop":
                return turn.end("loop", say("loop"))
            if batch.stop == "misheard":
                return turn.end("misheard", say("misheard"))
            spoken = self._spoken_results([d for d, _o in batch.done],
                                          [o.say for _d, o in batch.done])
            if spoken:
                return turn.end("done", spoken)
            if batch.in_words:  # it called tools for what no tool is for: answer in words
                self.tool_choice = "none"

    def _second_chance(self) -> bool | str:
        """When the first answer was held back whole: True to ask the model once more (with
        why, and the tools it must use), else the one plain sentence to end with ("" for the
        default). After small talk the 1.5B answered "what time is it" with a time of its
        own; asked "fine, add naan bread to the list then" it said it would, with no call."""
        voice = self.turn.voice
        if not voice.silent or not voice.dropped:
            return ""
        reasons = [reason for _s, reason in voice.dropped]
        claimed = [_claim_topic(r) for r in reasons if _claim_topic(r)]
        known = topics_of()
        unserved = [known.topic(n) for n in claimed if n in _UNSERVED]
        if unserved:
            return unserved[0].reply  # nothing here knows it: say so plainly
        declined = DECLINES_GENERAL in reasons and not claimed
        if self.retried or (self.turn.done and not declined):
            return self._plain() if claimed else ""
        self.retried = True
        self.turn.messages.pop()  # its empty assistant message
        unknown = [name for sentence, _r in voice.dropped
                   for name in _CALLED.findall(sentence) if name not in self.a.tools]
        voice.dropped.clear()
        if declined:
            self.retry_note = tell_model("answer_general")
            self.tool_choice = "none"
            voice.facts.general = False  # asked twice: what it says now is its answer
        elif claimed:
            tools = self._tools_for_request()
            if not tools:
                return self._plain()
            self.retry_note = tell_model("use_tool", tools=", ".join(tools))
            self.tool_choice = "required"
        else:
            self.retry_note = (tell_model("no_such_tool", name=unknown[0]) if unknown
                               else tell_model("retry", reasons=", ".join(sorted(set(reasons)))))
        voice.facts.errors.append(self.retry_note)  # a small model may read it back
        return True

    def _tools_for_request(self) -> list[str]:
        """The enabled tools of the served topics the request speaks of."""
        return [tool for topic in topics_of().about(self.turn.user_text) if topic.served
                for tool in topic.tools if tool in self.a.tools]

    def _plain(self) -> str:
        """The one plain sentence for an answer held back for its claims: that it could not
        be done when a tool here serves the request (the model did not use it), else what
        nothing here can do (the request's unserved topic), else that it cannot be done."""
        about = topics_of().about(self.turn.user_text)
        if any(t.served and set(t.tools) & set(self.a.tools.names) for t in about):
            return say("failed")
        unserved = [t for t in about if not t.served]
        return unserved[0].reply if unserved else say("cannot")

    def _spoken_results(self, done: list[CallDone], said: list[str]) -> str:
        """The results to say as the answer when every call's result is itself the answer
        (a confirmation, the time) and none failed; "" when the model must answer."""
        declined = tell_model("declined")
        if not done or any(d.error or d.text == declined for d in done):
            return ""
        for d in done:
            t = self.a.tools.get(d.call.name)
            if t is None or not t.speaks_result:
                return ""
            if t.answers is not None and not t.answers(self.turn.user_text):
                return ""  # asked for more than the result says: the model answers
        return " ".join(said)

    def _cap(self, step: int) -> tuple[str, float] | None:
        c, usage = self.a.config, self.turn.usage
        if step > c.max_steps:
            return "steps", c.max_steps
        if time.monotonic() >= self.deadline:
            return "seconds", c.max_seconds
        if usage.input_tokens + usage.output_tokens >= c.max_tokens:
            return "tokens", c.max_tokens
        if self.a.price and c.max_cost_usd > 0 and self.a.price.cost(usage) >= c.max_cost_usd:
            return "cost", c.max_cost_usd
        return None

    def _ask(self, step: int) -> Reply | TurnResult:
        """One request; a ChatError is retried once unless text was already spoken."""
        turn = self.turn
        asked = turn.messages[0]
        if self.retry_note:  # the request once more, with why the first answer was not said
            asked = Message("user", f"{asked.text}\n\n{self.retry_note}")
        messages = [*self.a.prefix, *for_model(self.history, self.a.config.history), asked,
                    *turn.messages[1:]]
        for attempt in (1, 2):
            self.a.events.emit(Request(step, attempt, len(messages)))
            try:
                reply = self.a.model.complete(
                    self.a.config.system_prompt,
                    messages,
                    self.a.tools.specs(),
                    on_text=self._speaker(step),
                    cancel=self.halt,
                    tool_choice=self.tool_choice,
                )
            except ChatError as exc:
                self.a.events.emit(Error("model", str(exc), kind=type(exc).__name__))
                if turn.cancel.is_set():
                    return turn.cancelled("model")
                if attempt == 1 and not turn.voice.reply_said and not self.halt.is_set():
                    turn.voice.discard()  # a half sentence of the failed attempt
                    self._bring_back()
                    continue
                sentence = say("llm_down") if isinstance(exc, ServerDown) else say("llm_error")
                return turn.end("error", sentence, error=exc)
            turn.usage = Usage(turn.usage.input_tokens + reply.usage.input_tokens,
                               turn.usage.output_tokens + reply.usage.output_tokens)
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
        """on_text for one request: times the first token, feeds the speech policy."""
        first = True

        def speak(delta: str) -> None:
            nonlocal first
            if first:
                first = False
                self.a.events.emit(FirstToken(step))
            if delta:
                self.turn.voice.feed(delta)

        return speak


_UNSERVED = frozenset(t.name for t in topics_of().topics if not t.served)
_CLOCK_REASONS = ("made-up time", "a weekday no tool gave")


def _claim_topic(reason: str) -> str:
    """The topic a held-back sentence claimed something about ("" if it claimed nothing)."""
    if reason.startswith("unbacked "):
        return reason.removeprefix("unbacked ")
    if reason in _CLOCK_REASONS:
        return "clock"
    return "done" if reason == "claims what no tool did" else ""


def _answering(history: Sequence[Message]) -> str:
    """The user's previous request when the last answer was a question to them."""
    said = [m for m in history if m.role in ("user", "assistant") and m.text]
    if len(said) >= 2 and said[-1].role == "assistant" and said[-2].role == "user" \
            and said[-1].text.rstrip().endswith("?"):
        return said[-2].text
    return ""


def _last_request(history: Sequence[Message]) -> str:
    """What the user said in the last exchange."""
    return next((m.text for m in reversed(history) if m.role == "user"), "")


def _last_results(history: Sequence[Message]) -> str:
    """What the last exchange's tools answered."""
    found: list[str] = []
    for message in reversed(history):
        if message.role == "user":
            break
        if message.role == "tool" and not message.is_error:
            found.insert(0, message.text)
    return " ".join(found)


def _said_before(history: Sequence[Message]) -> str:
    """The user's words in the last few turns, for reads that refer back to them."""
    return " ".join(m.text for m in history if m.role == "user")[-600:]


class _Halt(threading.Event):
    """The `cancel` the model sees: set when the user cancels or the turn's time is up, so a
    slow reply is cut at the time cap too. (Models only call is_set().)"""

    def __init__(self, cancel: threading.Event, deadline: float) -> None:
        super().__init__()
        self._cancel = cancel
        self._deadline = deadline

    def is_set(self) -> bool:
        return self._cancel.is_set() or time.monotonic() >= self._deadline
