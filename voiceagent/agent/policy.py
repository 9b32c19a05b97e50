"""The one call policy: whether a tool call runs, and how, decided before it runs.

Every call of a turn, from the model or from a template, gets one `Decision`:
- run            as written, or without optional arguments nobody said (`drop`);
- refuse         not run: the model reads why (`note`) and may fix the call; when the user
                 must answer instead ("For what time?"), `ask` holds the question;
- decline        not run, the user said no to it (an approval), or asked not to delete;
- misheard       not run: the transcript is doubtful and the call changes something;
- repeat         not run: the model asked again for a result it already has.
The checks themselves (agent/grounding.py, the approver) stay where they are; this is the one
place their answers become what happens.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from voiceagent.agent.carried import carry, named
from voiceagent.agent.grounding import ground
from voiceagent.agent.messages import ToolCall
from voiceagent.agent.tools import ToolRegistry
from voiceagent.language import lexicon, say, tell_model, tokens
from voiceagent.language.asking import asks_only
from voiceagent.language.topics import topics_of
from voiceagent.ports import Approver

Verdict = Literal["run", "refuse", "decline", "misheard", "repeat"]


@dataclass(frozen=True)
class Decision:
    """What happens to one call."""

    verdict: Verdict
    call: ToolCall
    """The call as it runs (numbers read, unknown parameters left out, `drop` removed)."""
    note: str = ""
    """For the model: why it was not run, or (run) what was left out."""
    ask: str = ""
    """refuse/decline/repeat: what to tell the user instead of another model pass."""
    stop: bool = False
    """repeat: the model asked a second time after being told; the turn stops."""
    off_topic: bool = False
    """refuse: the request is not about what the tool is for: answer in words."""


@dataclass(frozen=True)
class Said:
    """The words a call may act on."""

    now: str
    """This turn's utterance."""
    earlier: str = ""
    """The user's words of the last few turns (they count for tools that only read)."""
    answering: str = ""
    """The request this turn answers, when the last answer was a question to the user: it
    counts for writes too."""
    last_request: str = ""
    """The user's request of the last exchange: it counts for a follow-up's calls ("make it
    12 minutes" keeps the pasta timer's label)."""
    last_results: str = ""
    """What the last exchange's tools answered: it counts for a follow-up's calls too ("add
    a hundred to that" works on the 84 a sum gave)."""
    results: str = ""
    """What the conversation's tools and answers said, for tools that recall it (a sum on a
    total two turns back: "now stick twenty percent vat on top of that")."""


@dataclass
class CallPolicy:
    """Decides each call of one turn; remembers the calls already answered."""

    tools: ToolRegistry
    said: Said
    doubtful: bool = False
    """The recogniser was unsure: nothing that changes anything may run."""
    approve: Approver | None = None
    on_error: Callable[[str, Exception], None] = lambda _where, _exc: None
    things_of: frozenset[str] = frozenset()
    """The served topics a thing of the user's the request names belongs to ("take him off
    the guests": the lists): their tools are on the request's topic."""
    answered: dict[str, str] = field(default_factory=dict)
    """Result text of each call the model has seen, by the call's key."""
    warned: set[str] = field(default_factory=set)
    refused: set[str] = field(default_factory=set)
    """Calls refused for their arguments: asked again unchanged, the turn stops."""

    def decide(self, call: ToolCall, *, template: bool = False,
               follow: bool = False) -> Decision:
        """The decision for `call`; `template` for a call a sentence template made (explicit
        by construction: only its arguments are checked), `follow` for one pointing at the
        last exchange."""
        key = _key(call)
        if key in self.answered:
            return self._repeat(call, key)
        tool = self.tools.get(call.name)
        runs = self.tools.runnable(call)  # with an unknown parameter too: guarded all the same
        if tool is None or runs is None:
            return Decision("run", call)  # the registry answers with what is wrong
        if self.doubtful and tool.writes:
            return Decision("misheard", call, tell_model("doubtful"))
        if not template and self._off_topic(call.name, tool.writes):
            return Decision("refuse", call, tell_model("off_topic", name=call.name),
                            off_topic=True)
        misfit = tool.misfits(self.said.now) if tool.misfits and not template else ""
        if misfit:
            return Decision("refuse", call, misfit)
        if (tool.writes and not (template or follow or self.said.answering)
                and asks_only(tokens(self.said.now))):  # "what time is my alarm set for"
            return Decision("refuse", call, tell_model("question_no_write", name=call.name))
        back = (follow or tool.recalls  # a sum on the last total
                or lexicon().has("refers_back", self.said.now))  # "put it on the list"
        answering = self.said.answering or (
            f"{self.said.last_request} {self.said.last_results}" if back else "")
        if tool.recalls or follow:  # a sum on an earlier total; a follow-up on a timer made
            answering = f"{self.said.results} {answering}"  # turns ago keeps its label
        # what the user said in the request this turn answers counts too ("remind me to go
        # to the store every friday" "For what time?" "At five.": every Friday at five)
        args, added = carry(tool, runs.args, f"{self.said.answering} {self.said.now}".strip(),
                            answering)
        if args != runs.args:  # the day the user said, left out: the call carries it
            # ("7 am thursday"); how often, only as said
            call = ToolCall(call.id, call.name, {**call.args, **args}, call.bad_json)
        grounding = ground(tool, args, self.said.now, earlier=self.said.earlier,
                           answering=answering, template=template)
        if grounding.error:
            if key in self.refused:  # the same refused call again: the model is stuck
                return Decision("repeat", call, grounding.error, ask=grounding.stuck,
                                stop=True)
            self.refused.add(key)
            return Decision("refuse", call, grounding.error, ask=grounding.ask)
        if (tool.needs_approval or grounding.confirm) and not self._approved(call):
            unasked = say("unconfirmed" if self.approve is None else "kept")
            return Decision("decline", call, tell_model("declined"),
                            ask=unasked if grounding.confirm else "")
        note = tell_model("carried", words=", ".join(added)) if added else ""
        if grounding.drop or grounding.trim:
            kept = {k: v for k, v in call.args.items() if k not in grounding.drop}
            kept |= dict(grounding.trim)
            instead = {k: name for k in grounding.drop
                       if (name := named(tool, k, f"{self.said.answering} {self.said.now}"))}
            kept |= instead
            if instead:  # with what carry added, if anything
                note = tell_model("carried", words=", ".join([*added, *instead.values()]))
            dropped = ", ".join([f"{k} {call.args[k]!r}" for k in grounding.drop]
                                + [f"{k} {call.args[k]!r} beyond {v!r}"
                                   for k, v in grounding.trim])
            return Decision("run", ToolCall(call.id, call.name, kept, call.bad_json),
                            f"{note} {tell_model('dropped', what=dropped)}".strip())
        return Decision("run", call, note)

    def _off_topic(self, name: str, writes: bool) -> bool:
        """The model called `name` for a request that does not speak of what it is for
        ("reserve the closest uber" -> a new list, "who wrote Hamlet" -> calculate). Words
        of the request this one answers count; for a tool that only reads, the last
        request's too ("and in Paris?" after the time in Tokyo) and what its tools answered
        ("how much time is left on it" after "actually make it 15" reset a timer), and for
        any tool when the user corrects the last request ("sorry, I meant margarine, not
        butter")."""
        serving = topics_of().serving(name)
        if serving is not None and serving.name in self.things_of:
            return False
        said = f"{self.said.answering} {self.said.now}"
        if topics_of().on_topic(name, said):
            return False  # its own words ask it ("give it forty-five minutes" after a
            # question that named an oven: read with that one, the timer was off-topic)
        if not writes or lexicon().has("correction", self.said.now) or lexicon().has(
                "refers_back", self.said.now):
            said = f"{self.said.last_request} {self.said.last_results} {said}"
        return topics_of().on_topic(name, said) is False

    def seen(self, calls: list[tuple[ToolCall, str]]) -> None:
        """The model has now seen these calls' results: asking again is a repeat."""
        for call, text in calls:
            self.answered.setdefault(_key(call), text)

    def _repeat(self, call: ToolCall, key: str) -> Decision:
        if key in self.warned:
            return Decision("repeat", call, tell_model("repeated_again"), stop=True)
        self.warned.add(key)
        return Decision("repeat", call, tell_model("repeated", name=call.name,
                                                   result=self.answered[key]))

    def _approved(self, call: ToolCall) -> bool:
        if self.approve is None:
            return False
        try:
            return bool(self.approve(call.name, call.args))
        except Exception as exc:  # a broken front end declines rather than running anyway
            self.on_error("approve", exc)
            return False


def _key(call: ToolCall) -> str:
    args: Any = call.args
    return f"{call.name} {json.dumps(args, sort_keys=True)} {call.bad_json}"
