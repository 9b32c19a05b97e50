"""Local commands: known sentences run their tool at once, everything else goes to the LLM.

Sentence templates (hassil, Home Assistant's intent matcher) cover the built-in tools and
each Tool.sentences; the user's words for each slot are read strictly (slots/), and the
call must pass the tool's own schema. Any doubt means None: the LLM gets the utterance.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hassil import Intents, parse_sentence, recognize_all
from hassil.recognize import RecognizeResult

from voiceagent.agent.messages import Message, ToolCall
from voiceagent.agent.tools import ToolRegistry
from voiceagent.intents import slots
from voiceagent.intents.again import CLOCK_TOOLS, of_place_named
from voiceagent.intents.clauses import beside_an_aside, punctuated, unpunctuated_cuts
from voiceagent.intents.embedded import asked_directly
from voiceagent.intents.follow_up import GIVE_WAY, FollowUps
from voiceagent.intents.list_follow_ups import only_named
from voiceagent.intents.match import LocalMatch
from voiceagent.intents.naming import named_after, with_name
from voiceagent.intents.normalize import clean
from voiceagent.intents.referents import (
    last_refs,
    made_before,
    of_kind_named,
    on_the_list_meant,
)
from voiceagent.intents.several import (
    JOIN,
    MOVE,
    beside_a_question,
    cut_into_commands,
    for_the_model,
    moved,
)
from voiceagent.intents.sounds_alike import respelled
from voiceagent.intents.told import told_after_pointing, told_in_the_same_breath
from voiceagent.language import lexicon, tokens
from voiceagent.language.data_file import load_data
from voiceagent.language.plural import singular
from voiceagent.ports import Clock
from voiceagent.tools.words import SMALL
from voiceagent.wallclock import SystemClock

log = logging.getLogger(__name__)

SENTENCE_FILES = ("builtin.yaml", "replies.yaml")
_POINTING = re.compile(rf"\b(?:{lexicon().regex('pronouns')})\b", re.I)


PLEASANTRIES = frozenset({"thanks", "greeting", "how_are_you"})
"""Remarks around a request that do not change it ("Good morning, what time is it?")."""


@dataclass(frozen=True)
class _Candidate:
    match: LocalMatch
    score: tuple[int, int]


def _load_sentences() -> dict[str, Any]:
    merged: dict[str, Any] = {"language": "en", "intents": {}, "lists": {},
                              "expansion_rules": {}}
    for name in SENTENCE_FILES:
        data = load_data(lexicon().file(name))
        for key in ("intents", "lists", "expansion_rules"):
            merged[key].update(data.get(key, {}))
    return merged


def _items_named(told: str, made: Sequence[str]) -> str:
    """The items of `made` (put on a list earlier in the conversation) that `told` names
    ("oh we've actually got loads of apples | take them off": the apples, not the eggs timer
    the last exchange set), joined as items; "" for none."""
    named = {singular(w) for w in tokens(told)} - lexicon().words("function_words")
    return ", ".join(dict.fromkeys(i for i in made if {singular(w) for w in tokens(i)} & named))


class LocalCommands:
    """Matches an utterance against the templates of the tools in `registry`."""

    def __init__(self, registry: ToolRegistry, clock: Clock | None = None) -> None:
        self.registry = registry
        self.clock: Clock = clock or SystemClock()
        """Now: spoken days and times ("tomorrow at 7") are read by it."""
        data = _load_sentences()
        self._meta: dict[str, tuple[str | None, str]] = {}
        self._readers: dict[str, slots.Reader] = slots.readers(self.clock)
        self._follow_ups = FollowUps(self.clock)
        self._several: tuple[object, list[LocalMatch]] = (None, [])
        intents: dict[str, Any] = {}
        for name, spec in data["intents"].items():
            tool = spec.get("tool")
            if tool is not None and tool not in registry:
                continue  # that family is not enabled: its sentences go to the LLM
            self._meta[name] = (tool, spec.get("reply", ""))
            intents[name] = {"data": spec["data"]}
        for tool_name in registry.names:
            t = registry.get(tool_name)
            if t is None or not t.sentences:
                continue
            name = tool_name if tool_name not in intents else f"plugin_{tool_name}"
            sentences = [self._plugin_sentence(tool_name, s, t.parameters, data["lists"])
                         for s in t.sentences if _usable(tool_name, s, data["expansion_rules"])]
            if sentences:
                intents[name] = {"data": [{"sentences": sentences}]}
                self._meta[name] = (tool_name, "")
        data["intents"] = intents
        self._intents = Intents.from_dict(data)
        for _ in recognize_all("what time is it", self._intents):
            pass  # templates are parsed on first use: at start, not in the first turn

    def _plugin_sentence(self, tool: str, sentence: str, schema: dict[str, Any],
                         lists: dict[str, Any]) -> str:
        """`{param}` in a plugin's sentence -> a slot list of its own, read by its schema."""
        props = schema.get("properties", {})

        def slot(found: re.Match[str]) -> str:
            param = found.group(1)
            list_name = f"{tool}__{param}"
            prop = props.get(param, {})
            if "enum" in prop:
                lists[list_name] = {"values": [{"in": _said_as(v), "out": v}
                                               for v in prop["enum"]]}
            else:
                lists[list_name] = {"wildcard": True}
                self._readers[list_name] = slots.schema_reader(param, prop)
            return f"{{{list_name}:{param}}}"

        return re.sub(r"\{(\w+)\}", slot, sentence)

    def follow_up(self, text: str, history: Sequence[Message]) -> list[LocalMatch]:
        """The commands `text` gives by pointing at the last exchange ("cancel it" after a
        timer was set); [] otherwise (intents/follow_up.py)."""
        pointed_at = [*last_refs(history), *made_before(history)]
        if pointed_at and not of_kind_named(pointed_at, text):
            return []  # "set me an alarm for 5, naw, make it 4:30" after a list add
        # "and another one saturday at nine thirty, call it football": named after it
        found = (with_name(text, lambda said: self.follow_up(said, history), self.registry)
                 or self._follow_ups.calls(text, history)
                 or self._follow_up_clause(text, history) or self._two_follow_ups(text, history)
                 or self._of_place_named(text, history))
        if found and found[0].intent in GIVE_WAY and self.match(text) is not None:
            return []  # "Never mind." answers "Which one?"; "and what's the time?" asks it
        found = only_named(found, text)
        return found if all(m.tool is None or m.tool in self.registry for m in found) else []

    def _of_place_named(self, text: str, history: Sequence[Message]) -> list[LocalMatch]:
        """A question of the clock about the place just asked about, pointed at ("how many
        hours ahead of london are they" after the time in Singapore)."""
        said = of_place_named(text, last_refs(history))
        found = self.match(said) if said else None
        return [found] if found is not None and found.tool in CLOCK_TOOLS else []

    def _two_follow_ups(self, text: str, history: Sequence[Message]) -> list[LocalMatch]:
        """Two follow-ups on the last exchange said in one breath ("take the baking powder
        off then put bicarb on instead"), each whole."""
        for join in JOIN.finditer(text):
            first = self._follow_ups.calls(text[:join.start()], history)
            rest = self._follow_ups.calls(text[join.end():], history) if first else []
            if first and rest:
                return first + rest
        return []

    def _follow_up_clause(self, text: str, history: Sequence[Message]) -> list[LocalMatch]:
        """The one clause of several that points back, among remarks: "Actually I don't
        need that reminder any more, get rid of it." None when two clauses do."""
        clauses = punctuated(text)
        cuts: list[tuple[str, str]] = list(unpunctuated_cuts(text))
        if len(clauses) > 1:
            cuts = [(text[:text.rfind(clauses[-1])], clauses[-1])]
        made = [i for r in made_before(history) if r.kind == "list" for i in r.items]
        for first, rest in cuts if made else ():
            items = _items_named(first, made) if _POINTING.search(rest) else ""
            pointed = self._follow_ups.calls(_POINTING.sub(items, rest, count=1), history) \
                if items else []
            if pointed:  # "them" are what the words before named, not the last exchange's
                return pointed
        if len(clauses) < 2:
            return self._follow_up_beside_an_aside(text, history)
        told = (told_in_the_same_breath(text, clauses[-1], self.match, self._follow_ups.on_told)
                or told_after_pointing(text, clauses[0], self.match, self._follow_ups.on_told))
        if told:
            return told
        pairs = [f"{a}, {b}" for a, b in zip(clauses, clauses[1:], strict=False)]
        found = [m for m in (self._follow_ups.calls(c, history) for c in clauses) if m] or [
            m for m in (self._follow_ups.calls(p, history) for p in pairs) if m]  # "hang on,
        # don't add butter, add margarine": one follow-up over two clauses
        return found[0] if len(found) == 1 else []

    def _follow_up_beside_an_aside(self, text: str, history: Sequence[Message]
                                   ) -> list[LocalMatch]:
        """A follow-up pointing at what the words before it told with no comma between
        ("the hotel is 250 kilometres from the airport how far is that in miles"), or said
        beside a remark ("nah take the monster off my mom's gonna kill me")."""
        for _first, rest in unpunctuated_cuts(text):
            told = told_in_the_same_breath(text, rest, self.match, self._follow_ups.on_told)
            if told:
                return told
        return beside_an_aside(text, lambda part: self._follow_ups.calls(part, history),
                               self._command)

    def _command(self, said: str) -> LocalMatch | None:
        found = self._match_clean(clean(said))
        return found if found is not None and found.tool is not None else None

    def match(self, text: str) -> LocalMatch | None:
        """The command in `text`, or None: send it to the LLM unchanged (or, for a move,
        two commands: several())."""
        found = self._match(text)
        return None if found is not None and found.intent == MOVE else found

    def _match(self, text: str) -> LocalMatch | None:
        said = clean(text)
        if not said:
            return None
        whole = self._match_clean(said)
        parts = {m.tool for m in self.several(said)} if whole and JOIN.search(said) else set()
        if whole is not None and not (len(parts) > 1 or whole.tool is None and parts - {None}):
            return whole  # not: items that hold another command; a refusal, commands in it
        named = with_name(said, lambda command: [m] if (m := self.match(command)) else [],
                          self.registry)
        if named:  # "set a timer for 20 minutes, name it laundry"
            return named[0]
        several = self.several(said)  # several: each one (agent/local.py), not the first alone
        if several:
            return several[0] if len(several) == 1 else None
        return (self._match_clauses(said) or respelled(said, self._command)
                or asked_directly(said, self._command))

    def _match_clauses(self, said: str) -> LocalMatch | None:
        """One command among remarks: "Please cancel the tea timer, it's done.", "Oh, forget
        it, it doesn't matter."; the last, whole, when the user started over after a correction
        ("a timer for- Sam, put that down - sorry, a timer for twelve minutes"). Never when the
        user corrects a part ("5 minutes, no wait, 10") or two different commands are in it."""
        clauses = [c for c in map(clean, punctuated(said)) if c]
        if len(clauses) < 2:  # "okay pasta's in the water set a pasta timer for 11 minutes"
            return next(iter(beside_an_aside(said, lambda part: [m] if (
                m := self._command(part)) else [], self._command)), None)
        results = [self._match_clean(c) for c in clauses]
        if any(r is None and for_the_model(c) for r, c in zip(results, clauses, strict=True)):
            return None  # "how long should i let it rest, and kill the first timer": both
        last = results[-1]
        if (last is not None and last.tool is not None
                and lexicon().has("correction", " ".join(clauses[:-1]))):
            return last  # said again whole after "sorry", "no wait": the user started over
        found = [m for m in results if m is not None]
        commands = {repr(m): m for m in found if m.tool is not None}
        if not commands:  # remarks only ("No, that's all, thanks."): every part understood
            if not found or len(found) != len(results):
                return None
            return next((m for m in found if m.intent not in PLEASANTRIES), found[0])
        if (len(commands) > 1 or (lexicon().has("correction", said) and self._writes(commands))
                or any(m.tool is None and m.intent not in PLEASANTRIES for m in found)):
            return None  # a correction may change a write ("5 minutes, no wait, 10"), not a read
        return next(iter(commands.values()))

    @staticmethod
    def on_the_list_meant(args: dict[str, Any], text: str,
                          history: Sequence[Message]) -> dict[str, Any]:
        """A call's `args` on the list the conversation is about where `text` names none
        (intents/referents.py)."""
        return on_the_list_meant(args, text, history)

    def several(self, text: str) -> list[LocalMatch]:
        """Whole commands said in one breath ("set a timer for ten minutes and add milk to my
        shopping list"): `text` cut where a join word or a comma is into the fewest parts
        that are each a command with a tool, or a request nothing here serves ("... and turn
        on the lights": refused in its place), each one once ("what time is it and what's
        the date": one call of the clock says both); [] when it cannot be (one command, a
        part the templates do not read, a correction: "5 minutes, no wait, 10"). One turn
        asks it up to three times (match, the local stage, the warmer): the last answer is
        kept for the same words in the same minute."""
        said = clean(text)
        key = (said, self.clock.now().replace(second=0, microsecond=0))
        if self._several[0] != key:
            one = self._match_clean(said) or self._match_clauses(said)
            self._several = (key, moved(one) if one is not None and one.intent == MOVE
                             else cut_into_commands(said, self._match_part))
        return list(self._several[1])

    def question_beside(self, text: str) -> tuple[str, str] | None:
        """(the commands, the question) of a request that joins commands and a question on
        no topic here, for the model ("what kind of wine goes with ribeye and stick a bottle
        of malbec on the shopping list"); None when the templates take it whole, or it is
        not two such parts."""
        said = clean(text)
        if not JOIN.search(said) or self.match(said) is not None or self.several(said):
            return None
        return beside_a_question(said, lambda part: bool(
            self._command(part) or self.several(part)), for_the_model)

    def _match_part(self, part: str) -> LocalMatch | None:
        """One part of several: a command, whole or beside an aside ("oh i'm out of dish
        soap put that on the list": the list's command, said again)."""
        return self._match_clean(part) or next(iter(beside_an_aside(part, lambda rest: [m] if (
            m := self._command(rest)) else [], self._command)), None)

    def _writes(self, commands: dict[str, LocalMatch]) -> bool:
        """Any of `commands` changes something ("Don't cancel it, just tell me how long is
        left": only the reading is a command)."""
        return any((t := self.registry.get(m.tool or "")) is None or t.writes
                   for m in commands.values())

    def _match_clean(self, said: str) -> LocalMatch | None:
        best: _Candidate | None = None
        try:
            for result in recognize_all(said, self._intents):
                candidate = self._candidate(result, said)
                if candidate is not None and (best is None or candidate.score > best.score or (
                        candidate.score == best.score and best.match.tool is None
                        and candidate.match.tool is not None)):
                    best = candidate  # on the same words, what can be done beats a refusal
        except Exception:  # a matcher fault must never cost the turn: the LLM answers
            log.exception("local command matching failed on %r", said)
            return None
        return best.match if best else None

    def _candidate(self, result: RecognizeResult, said: str) -> _Candidate | None:
        intent = result.intent.name
        tool, reply = self._meta[intent]
        args: dict[str, Any] = {}
        wild = 0
        for entity in result.entities_list:
            if entity.is_wildcard:
                start, end = entity.text_span or (0, 0)
                words = said[start:end] if entity.text_span else entity.text
                reader = self._readers.get(self._list_of(result, entity.name), None)
                got = reader(words) if reader else None
                if got is None:
                    return None
                args |= got
                wild += len(words)
            else:
                args[entity.name] = entity.value
        if tool is None:
            if intent.startswith("unsupported_") and (
                    slots.mentions_own_tools(said) or slots.yields_to_the_model(reply, said)
                    or named_after(said) is not None  # "..., call that one group two"
                    or slots.supposed(said)  # "if i phone her at 7 what time is it there"
                    or slots.times_a_length(said)):  # "the oven one set 45 minutes"
                return None
            return _Candidate(LocalMatch(intent, None, {}, reply), (result.text_chunks_matched,
                                                                    -wild))
        if tool == "calculate":
            found = slots.operation(args)
            if found is None:
                return None
            args = found
        known = self.registry.get(tool)
        props = known.parameters.get("properties", {}) if known else {}
        args = {k: v for k, v in args.items() if k in props}
        if tool == "convert_units" and not slots.unit_check(args):
            return None
        if self.registry.validation_error(ToolCall("local", tool, args)) is not None:
            return None
        return _Candidate(LocalMatch(intent, tool, args), (result.text_chunks_matched, -wild))

    @staticmethod
    def _list_of(result: RecognizeResult, slot_name: str) -> str:
        """The slot list behind a slot name ({list_name:slot_name} in the template)."""
        sentence = result.intent_sentence
        if sentence is not None:
            for list_name in sentence.list_names():
                if list_name == slot_name or list_name.endswith(f"__{slot_name}"):
                    return list_name
        return slot_name


def _said_as(value: Any) -> str:
    """An enum value as a template: 2 -> '(2|two)', so a number may be said in words."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 100:
        names = {n: w for w, n in SMALL.items()}
        word = names.get(value) or f"{names[value - value % 10]} {names[value % 10]}"
        return f"({value}|{word})"
    return str(value)


def _usable(tool: str, sentence: str, rules: dict[str, Any]) -> bool:
    """A plugin's sentence that parses and names only known <rules>; others are skipped with a
    warning, so one typo cannot stop the assistant."""
    try:
        parse_sentence(sentence)
    except Exception as exc:
        log.warning("tool %s: sentence %r skipped: %s", tool, sentence, exc)
        return False
    unknown = [r for r in re.findall(r"<(\w+)>", sentence) if r not in rules]
    if unknown:
        log.warning("tool %s: sentence %r skipped: unknown rule <%s> (known: %s)", tool,
                    sentence, unknown[0], ", ".join(sorted(rules)))
        return False
    return True
