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
import threading
from collections.abc import Callable, Sequence

from voiceagent.agent.events import (
    Error,
    Events,
    HeldBack,
    LocalCommand,
    UserText,
)
from voiceagent.agent.history import (
    answering,
    for_model,
    last_request,
    last_results,
    no_answers,
    said_before,
)
from voiceagent.agent.local import LocalMatch, LocalMatcher, answer_locally
from voiceagent.agent.messages import Message, Price
from voiceagent.agent.model_turn import ModelTurn
from voiceagent.agent.policy import CallPolicy, Said
from voiceagent.agent.spoken import Facts, with_note, words_note
from voiceagent.agent.tools import ToolRegistry
from voiceagent.agent.turn import CallDone, Stop, Turn, TurnResult
from voiceagent.agent.voice import Voice
from voiceagent.config import AgentConfig
from voiceagent.errors import ChatError
from voiceagent.language import lexicon, tokens
from voiceagent.language.conversions import converts
from voiceagent.language.numbers import amounts_in
from voiceagent.language.people import people_known
from voiceagent.language.restarts import meant
from voiceagent.language.topics import SUM_AMOUNTS, Topic, topics_of
from voiceagent.ports import Approver, ChatModel

__all__ = ["Agent", "CallDone", "LocalMatch", "LocalMatcher", "Stop", "TurnResult"]

log = logging.getLogger(__name__)


def warm_turn() -> str:
    """The user turn of a keep-warm request: what a request no tool serves starts with (a
    general question, a remark: the note before its words), so that one has only its own
    words left for the server to read."""
    return with_note("?", words_note("?"), first=True)


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
        user_text = meant(user_text)  # "set a t- a timer", "... no, not tomorrow, friday"
        if self.local is not None:
            beside = self.local.question_beside(user_text)
            if beside is not None:  # the commands here, then the question to the model
                commands, question = beside
                done = answer_locally(self._turn(history, commands, on_text, cancel, doubtful),
                                      self.local, history, self.tools)
                if done is not None and done.stop != "done":
                    return done  # cancelled, or misheard: the question waits for the user
                if done is not None:
                    after = (*history, *done.messages)
                    asked = self._turn(after, question, on_text, cancel, doubtful)
                    return _both(done, ModelTurn(self, asked, after).run())
            turn = self._turn(history, user_text, on_text, cancel, doubtful)
            answered = answer_locally(turn, self.local, history, self.tools)
            if answered is not None:
                return answered
        turn = self._turn(history, user_text, on_text, cancel, doubtful)
        unserved = turn.voice.facts.private
        if unserved is not None:  # "did I get any new emails": nothing here can know
            turn.events.emit(LocalCommand(f"unsupported_{unserved.name}", None))
            return turn.end("done", unserved.reply)
        return ModelTurn(self, turn, history).run()

    def warm_up(self, history: Sequence[Message] = (), words: str = "",
                stop: threading.Event | None = None) -> None:
        """Send the fixed prefix (system prompt, tools, worked example) and the conversation
        so far, so the server has them cached before the user's next question (seconds saved
        on a small CPU): at start, after turns the model never saw (local commands), and with
        the words of a request ready at a pause (`words`, agent/warmer.py) as the turn's first
        request will send them. `stop` ends it sooner (a turn began: agent/foreground.py)."""
        enough = stop or threading.Event()  # stop at the first token: the prompt is cached
        try:
            said = Said(words, answering=answering(history),
                        last_request=last_request(history), last_results=last_results(history))
            if not words:
                user_text = warm_turn()
            elif self._words_only(said, self._about(said)):  # the first request has the note
                user_text = with_note(words, words_note(words), first=True)
            else:
                user_text = words
            self.model.complete(self.config.system_prompt,
                                [*self.prefix, *for_model(history, self.config.history),
                                 Message("user", user_text)],
                                self.tools.specs(), on_text=lambda _: enough.set(), cancel=enough)
        except ChatError as exc:  # the first real turn will report it properly
            log.info("warm-up request failed: %s", exc)
        except Exception as exc:  # in the background, e.g. its client closed at exit
            log.debug("warm-up request stopped: %s", exc)

    def _about(self, said: Said, things: Sequence[Topic] = ()) -> list[Topic]:
        """The topics of the request; for one on none that points back at the last exchange
        ("clear it" after the list was read out, "cancel all of them" after the alarms),
        the topics of that exchange: what the user said then and what its tools answered;
        and the topics of the things of the user's it names (`things`: "take him off the
        guests")."""
        known = topics_of()
        about = known.about(said.now)
        if not about and lexicon().has("refers_back", said.now):
            return known.about(f"{said.last_request}. {said.last_results}")
        return about + [t for t in things if t not in about]

    def _things_named(self, text: str) -> list[Topic]:
        """The served topics whose tools keep a thing of the user's `text` names ("read me
        the favours", "take him off the guests": lists of those names; "dumpling still how
        many minute": the dumpling timer)."""
        found: dict[str, Topic] = {}
        for name in self.tools.names:
            tool, topic = self.tools.get(name), topics_of().serving(name)
            if (tool is not None and topic is not None and topic.name not in found
                    and tool.keeps is not None and tool.keeps(text)):
                found[topic.name] = topic
        return list(found.values())

    @staticmethod
    def _worked(text: str, about: Sequence[Topic]) -> bool:
        """The request asks for a number worked out of its amounts ("if i ran 10 k in 52
        minutes what's my pace"), or of one amount in a unit ("how many miles is a 10k"):
        a number the answer states must be one a tool worked out."""
        said = tokens(text)
        amounts = amounts_in(text, said, topics_of().number_words)
        asks_sum = any(t.numbers for t in about) or lexicon().has("wh_words", said)
        return asks_sum and (amounts >= SUM_AMOUNTS or (
            amounts >= 1 and any(t.numbers for t in about) and converts(said)))

    def _words_only(self, said: Said, about: Sequence[Topic]) -> bool:
        """A request on no topic a tool serves needs no tool when every enabled tool serves
        one (a plugin may serve anything), it answers no question of ours ("Yes, please."),
        and it does not go on from a request that was on one ("And in Paris?" after the time
        in Tokyo)."""
        known = topics_of()
        if (said.answering or any(t.served for t in about)
                or any(known.serving(n) is None for n in self.tools.names)):
            return False
        words = tokens(said.now)
        goes_on = any(lexicon().is_one("going_on", words[:n]) for n in (1, 2, 3))
        return not (goes_on and known.about(said.last_request))

    def _turn(self, history: tuple[Message, ...], user_text: str,
              on_text: Callable[[str], None] | None, cancel: threading.Event,
              doubtful: bool) -> Turn:
        known = topics_of()
        said = Said(user_text, earlier=said_before(history), answering=answering(history),
                    last_request=last_request(history), last_results=last_results(history),
                    results=" ".join(m.text for m in history[-RECALLED_MESSAGES:]
                                     if m.role in ("tool", "assistant") and not m.is_error))
        things = self._things_named(user_text)  # reads the lists and timers once a turn
        about = self._about(said, things)
        facts = Facts(known=[m.text for m in history] + [user_text],
                      ran_before={m.name for m in history
                                  if m.role == "tool" and m.name and not m.is_error},
                      results_before=[m.text for m in history
                                      if m.role == "tool" and not m.is_error],
                      # with local commands, any request for what nothing here does
                      private=(known.cannot(user_text) if self.local is not None
                               else known.unknowable(user_text)),
                      general=not about, named=bool(known.named(user_text)) or lexicon().has(
                          "asking_to_do", tokens(user_text)),
                      asked=tuple(about), in_words=self._words_only(said, about),
                      answering=bool(said.answering),
                      no_answers=no_answers(history, user_text),
                      request=user_text,
                      worked=self._worked(user_text, about),
                      people=people_known(user_text, said.earlier),
                      tool_names=frozenset(n for n in self.tools.names if "_" in n),
                      unserved=known.only_unserved(user_text),
                      served=bool(about) and all(
                          t.served and set(t.tools) & set(self.tools.names) for t in about))
        def on_error(where: str, exc: Exception) -> None:
            self.events.emit(Error(where, f"{type(exc).__name__}: {exc}"))

        def on_held(text: str, why: str) -> None:
            self.events.emit(HeldBack(text, why))

        policy = CallPolicy(self.tools, said, doubtful, self.approve, on_error=on_error,
                            things_of=frozenset(t.name for t in things))
        return Turn(tools=self.tools, events=self.events, policy=policy,
                    voice=Voice(on_text, facts, on_held), user_text=user_text, cancel=cancel)


def _both(first: TurnResult, then: TurnResult) -> TurnResult:
    """Two turns of one request as one: the commands done here, then the model's answer."""
    return TurnResult(f"{first.answer} {then.answer}".strip(),  # the commands last: what
                      [*then.messages, *first.messages],  # "another four minutes" points at
                      then.stop, [*first.tool_calls, *then.tool_calls], then.usage, then.error)


RECALLED_MESSAGES = 24
"""How far back the conversation's results count for a sum (a few turns of calls)."""

