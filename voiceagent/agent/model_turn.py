"""The model stage of a turn: requests, calls and results until an answer, a cap or a stop.

agent/loop.py builds the turn and routes it here when no local handler answered it. This is
where the caps are enforced, the one retry policy lives (a failed request is retried once,
after bringing a dead server back, unless words were already spoken), and where an answer
the speech policy held back whole is asked for once more (with why, and the tools it must
use) or replaced by one plain sentence.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Protocol

from voiceagent.agent.events import Error, Events, FirstToken, ReplyDone, Request
from voiceagent.agent.history import for_model
from voiceagent.agent.messages import Message, Price, Reply, ToolChoice, Usage
from voiceagent.agent.spoken import (
    DECLINES_GENERAL,
    DECLINES_SERVED,
    HANDS_BACK,
    REFUSES_OTHER,
    REPEATS_EARLIER,
    SUMS,
    with_note,
    words_note,
)
from voiceagent.agent.tools import ToolRegistry
from voiceagent.agent.turn import CallDone, Turn, TurnResult
from voiceagent.config import AgentConfig
from voiceagent.errors import ChatError, ServerDown
from voiceagent.language import lexicon, say, tell_model, tokens
from voiceagent.language.asking import asks_only, content_words, is_remark
from voiceagent.language.topics import topics_of
from voiceagent.ports import ChatModel
from voiceagent.speech.sentences import ends_sentence

log = logging.getLogger(__name__)

_CALLED = re.compile(r'"name"\s*:\s*"([\w.-]+)"')
"""A tool call written as text: the tool it names."""


class Agent(Protocol):
    """What the model stage needs of the agent (agent/loop.py's Agent)."""

    model: ChatModel
    tools: ToolRegistry
    config: AgentConfig
    events: Events
    prefix: tuple[Message, ...]
    price: Price | None
    recover: Callable[[], bool] | None


class ModelTurn:
    """The model stage: requests, calls and results until an answer, a cap or a stop."""

    def __init__(self, agent: Agent, turn: Turn, history: tuple[Message, ...]) -> None:
        self.a = agent
        self.turn = turn
        self.history = history
        self.deadline = turn.started + agent.config.max_seconds
        self.halt = _Halt(turn.cancel, self.deadline)
        words = turn.voice.facts.in_words  # "Who wrote Hamlet?" after tool turns
        self.retry_note = words_note(turn.user_text) if words else ""
        """Added to the user's words once: when the first answer was held back whole, and
        on the first request for one no tool serves (with no tool offered: the 1.5B
        answered "Who wrote the play Hamlet?" with calculate even in a fresh session)."""
        self.note_first = bool(words)
        """The first request's note goes before the words, where the server has read it
        already (Agent.warm_up); a note on an answer held back follows them."""
        self.tool_choice: ToolChoice = "none" if words else "auto"
        if words:
            # never read back (its quoted refusal may be said)
            turn.voice.facts.errors.append(words_note(turn.user_text, quote=False))
        """For the next request: one of the request's tools after an answer that claimed
        what no tool gave, "none" after calls to tools the request is not about."""
        self.retried = False
        self.chat = False
        """The next request goes with the chat prompt and no tools (`[agent] chat_prompt`):
        a request no tool serves, asked again after the model declined it. Shown the tools
        and their rules, the 1.5B declined "be funny for me" and "do you think time travel
        is possible" twice; asked plainly, it answers."""

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
            self.retry_note, self.tool_choice, self.note_first = "", "auto", False
            self.chat = False
            # the history keeps what the user heard, not what the filter held back
            turn.messages.append(Message("assistant", turn.voice.end_reply(
                calls=bool(reply.calls)), reply.calls))
            if not reply.calls:
                again = self._second_chance()
                if again is True:
                    continue
                return turn.end("done", again or self._unserved_reply())
            batch = turn.run_calls(reply.calls)
            if batch.ask and (batch.all_failed or batch.declined):
                return turn.end("done", batch.ask)  # "Set an alarm." -> "For what time?"
            if batch.stop == "cancelled":
                return turn.cancelled("tools")
            if batch.stop == "loop":  # stuck on a value the user did not say: ask for it
                return turn.end("loop", batch.ask or say("loop"))
            if batch.stop == "misheard":
                return turn.end("misheard", say("misheard"))
            spoken = self._spoken_results([d for d, _o in batch.done],
                                          [o.say for _d, o in batch.done],
                                          aside=frozenset() if batch.ask else batch.refused)
            if spoken:
                return turn.end("done", spoken)
            failed = batch.failed_again(turn.messages)  # "how far's a half marathon in
            if batch.in_words or failed:  # miles": calculate, three times; or tools for what
                self.tool_choice = "none"  # no tool is for: answer in words
            self.retry_note = tell_model("tool_failed_again", name=failed) if failed else ""

    def _second_chance(self) -> bool | str:
        """When the first answer was held back whole: True to ask the model once more (with
        why, and the tools it must use), else the one plain sentence to end with ("" for the
        default). After small talk the 1.5B answered "what time is it" with a time of its
        own; asked "fine, add naan bread to the list then" it said it would, with no call."""
        voice = self.turn.voice
        reasons = [reason for _s, reason in voice.dropped]
        partial = bool(voice.dropped) and not voice.silent and not ends_sentence(voice.said[-1])
        if partial and (self.retried or not any(_claim_topic(r) for r in reasons)):
            return self._plain()  # "To list the subjects of your emails," and the rest held
        if not partial and (not voice.silent or not voice.dropped):
            return ""
        # a lead-in said, the number after it held ("If you pay the 12 for printing first,"):
        # asked again with the tool that works it out, whose result follows the lead-in
        refused_other = all(r.startswith(REFUSES_OTHER) for r in reasons)
        if refused_other:  # the example's weather, asked of theatre
            unserved = [t for t in voice.facts.asked if not t.served]
            if unserved:
                return unserved[0].reply
            if self.retried or not self._tools_for_request() or all(
                    t.when for t in voice.facts.asked if t.served):  # "on at the theater
                return say("cannot")  # tonight": the clock's words say when, not what
            # asked of what a tool here serves ("what time is my wakeup alarm set for"):
            # as if declined
        claimed = [_claim_topic(r) for r in reasons if _claim_topic(r)]
        known = topics_of()
        unserved = [known.topic(n) for n in claimed if n in _UNSERVED]
        if unserved:
            return unserved[0].reply  # nothing here knows it: say so plainly
        declined = DECLINES_GENERAL in reasons and not claimed
        declined_served = (DECLINES_SERVED in reasons or refused_other) and not claimed
        text = self.turn.user_text
        remark = is_remark(tokens(text))
        echoed = any(  # the user's own words read back, on nothing a tool here serves
            reason == REPEATS_EARLIER and set(tokens(sentence)) <= set(tokens(text))
            for sentence, reason in voice.dropped) and (
            remark or not any(t.served for t in voice.facts.asked))
        if self.retried or (self.turn.done and not (declined or declined_served or echoed)):
            if echoed and remark:  # twice: a remark asks for nothing, so nothing failed
                return say("noted")
            return self._plain() if claimed else ""
        self.retried = True
        self.turn.messages.pop()  # its empty assistant message
        unknown = [name for sentence, _r in voice.dropped
                   for name in _CALLED.findall(sentence) if name not in self.a.tools]
        # asked as in a plain chat: not a question about the user's own or the world now
        # ("did the yankees win last night" -> "The Yankees won last night."; a remark is
        # no question: "tube was super busy today"), not after "I don't know"
        advice = any(lexicon().is_one("advice_openers", content_words(tokens(text))[:n])
                     for n in (1, 2, 3, 4))  # "what should i cook tonight" asks no live fact
        chat = not ((known.particular(text) and not (remark or advice)) or any(
            lexicon().has("not_knowing", sentence) for sentence, _r in voice.dropped))
        voice.dropped.clear()
        tools = self._tools_for_request()
        # served only by the clock's everyday words ("time travel"): maybe no clock's
        when = all(t.when for t in voice.facts.asked if t.served)
        if (declined or (declined_served and when and advice)) and chat:
            # "what should i cook tonight": served only by the clock's "tonight", declined
            self.chat, self.tool_choice = True, "none"
            voice.facts.general = voice.facts.served = False  # asked twice: its answer
        elif declined:  # "where is my girlfriend", "I don't know ...": the tools' rules stay
            self.retry_note = tell_model("answer_general")
            self.tool_choice = "none"
            voice.facts.general = False  # asked twice: what it says now is its answer
        elif voice.facts.served and tools and not claimed and (
                not when or "placeholder" in reasons):  # a value it had not: a tool's
            # a request a tool here serves ("read my list to me"), answered with no call
            # that does it: declined, a tool that does not exist, a placeholder. Asked once
            # more with the tools only named, the 1.5B declined again; now it must call one
            # of them, and the call policy judges what it writes.
            self.retry_note = tell_model("tool_can", tools=", ".join(tools))
            self.tool_choice = tuple(tools)
            voice.facts.served = False
        elif declined_served:
            self.retry_note = tell_model("tool_may" if when else "tool_can",
                                         tools=", ".join(tools))
            voice.facts.served = False
        elif claimed:
            served = {t.name: t.tools for t in known.topics if t.served}
            if not tools and SUMS in claimed:  # a number worked out of the user's amounts
                tools = [t for t in served[SUMS] if t in self.a.tools]  # in words ("if i ran
            if not tools:  # 10 k in 52 minutes what's my pace": asked in no sum's words)
                return self._plain()
            # the tools of what was claimed, when the request speaks of more ("at what time
            # have you set alarm for me": the timers' state claimed, not the clock's)
            of_claims = [t for n in claimed for t in served.get(n, ()) if t in self.a.tools]
            tools = [t for t in self._tools_for_request(when_too=True)
                     if t in of_claims] or of_claims or tools  # a sum's number after a list
            # add ("it" points back at the list): the calculator, not the list
            self.retry_note = tell_model("use_tool", tools=", ".join(tools))
            self.tool_choice = tuple(tools)
        elif echoed:
            # "The pasta needs eleven minutes." read back, then, told it copied, "I can't
            # help with that", or shown the tools, set_timer: a remark asks for nothing, so
            # it is answered as in a plain chat; so is a wish ("i hope we could have lunch
            # together") on nothing a tool here serves
            self.retry_note = tell_model("copied_remark")
            self.chat, self.tool_choice = True, "none"
        elif REPEATS_EARLIER in reasons:
            self.retry_note = tell_model("copied_answer")
        else:
            self.retry_note = (tell_model("no_such_tool", name=unknown[0]) if unknown
                               else tell_model("retry", reasons=", ".join(sorted(set(reasons)))))
        if self.retry_note:
            voice.facts.errors.append(self.retry_note)  # a small model may read it back
        return True

    def _tools_for_request(self, *, when_too: bool = False) -> list[str]:
        """The enabled tools of the served topics the request speaks of (or, pointing back,
        the last exchange: Agent._about); of a question, those that change nothing (the call
        policy refuses the others: "what time is my wakeup alarm set for"). The clock's
        words beside another topic's say when that is ("what time is my alarm set for"):
        its tool only `when_too`."""
        served = [t for t in self.turn.voice.facts.asked if t.served]
        served = served if when_too else [t for t in served if not t.when] or served
        tools = [tool for topic in served for tool in topic.tools
                 if (found := self.a.tools.get(tool)) is not None and found.retried]
        if self.turn.voice.facts.answering or not asks_only(tokens(self.turn.user_text)):
            return tools
        reading = [t for t in tools if (tool := self.a.tools.get(t)) and not tool.writes]
        return reading or tools

    def _unserved_reply(self) -> str:
        """What nothing here can do, said plainly, when the whole answer was held back and
        the request speaks of such a thing ("put my running playlist on": the 1.5B read back
        the list tool's error, and the user heard "Sorry, I couldn't do that."); "" else."""
        voice = self.turn.voice
        unserved = [t.reply for t in voice.facts.asked if not t.served]
        return unserved[0] if unserved and voice.silent and voice.dropped else ""

    def _plain(self) -> str:
        """The one plain sentence for an answer held back for its claims: what nothing here
        can do, when the request speaks of such a thing ("set the bed light to 50 percent":
        the lights, not a sum), else that it could not be done when a tool here serves the
        request (the model did not use it), else that it cannot be done here."""
        about = self.turn.voice.facts.asked
        unserved = [t for t in about if not t.served]
        if unserved:
            return unserved[0].reply
        if any(t.served and set(t.tools) & set(self.a.tools.names) for t in about):
            return say("failed")
        return say("cannot")

    def _spoken_results(self, done: list[CallDone], said: list[str], *,
                        aside: frozenset[str] = frozenset()) -> str:
        """The results to say as the answer when every call's result is itself the answer
        (a confirmation, the time) and none failed; "" when the model must answer. Calls
        `aside` (ids of calls the policy refused, when there is nothing to ask the user) are
        left out: the 1.5B called read_list("alarm") beside list_timers for "at what time
        have you set alarm for me", was asked again, and did both again until the turn gave
        up."""
        declined = tell_model("declined")
        pairs = [(d, s) for d, s in zip(done, said, strict=True) if d.call.id not in aside]
        kept = [d for d, _s in pairs]
        if not kept or any(d.error or d.text == declined for d in kept):
            return ""
        said = [s for _d, s in pairs]
        for d in kept:
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
            asked = Message("user", with_note(asked.text, self.retry_note, first=self.note_first))
        config = self.a.config
        system, prefix, tools = ((config.chat_prompt, (), []) if self.chat
                                 else (config.system_prompt, self.a.prefix, self.a.tools.specs()))
        messages = [*prefix, *for_model(self.history, config.history), asked, *turn.messages[1:]]
        for attempt in (1, 2):
            self.a.events.emit(Request(step, attempt, len(messages)))
            try:
                reply = self.a.model.complete(
                    system,
                    messages,
                    tools,
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
_CLOCK_REASONS = ("made-up time", "made-up date", "a weekday no tool gave")


def _claim_topic(reason: str) -> str:
    """The topic a held-back sentence claimed something about ("" if it claimed nothing)."""
    if reason.startswith("unbacked "):
        return reason.removeprefix("unbacked ")
    if reason in _CLOCK_REASONS:
        return "clock"
    return "done" if reason in ("claims what no tool did", HANDS_BACK) else ""


class _Halt(threading.Event):
    """The `cancel` the model sees: set when the user cancels or the turn's time is up, so a
    slow reply is cut at the time cap too. (Models only call is_set().)"""

    def __init__(self, cancel: threading.Event, deadline: float) -> None:
        super().__init__()
        self._cancel = cancel
        self._deadline = deadline

    def is_set(self) -> bool:
        return self._cancel.is_set() or time.monotonic() >= self._deadline
