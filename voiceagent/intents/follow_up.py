"""Commands that point back at what the last exchange did: "cancel it" right after a timer,
"make it 12 minutes", "sorry, I meant margarine, not butter", "what's on it now?", "the
pasta one" after "Which one?", "now add a hundred to that", "and grapes" after milk was
put on a list.

The sentences are templates (language/en/follow_ups.yaml); what "it" is comes from the
typed references the last exchange's tools returned (agent/outcome.py), never from their
sentences, so a confirmation can be reworded without breaking "cancel it". Anything the
templates do not cover goes to the model, which sees the exchange in words.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from hassil import Intents, recognize_all
from hassil.intents import SlotList, TextSlotList
from hassil.recognize import RecognizeResult

from voiceagent.agent.messages import Message
from voiceagent.agent.outcome import Ref
from voiceagent.errors import ToolError
from voiceagent.intents import slots
from voiceagent.intents.again import AGAIN, asked_again, in_unit
from voiceagent.intents.list_follow_ups import (
    alike,
    more_items,
    put_on,
    replace_item,
    same_item,
    take_off,
)
from voiceagent.intents.match import LocalMatch
from voiceagent.intents.normalize import opened
from voiceagent.intents.numbers import number_value
from voiceagent.intents.referents import (
    last_refs,
    made_before,
    of_kind_named,
    of_the_kind_named,
)
from voiceagent.intents.timer_follow_ups import (
    TIMER_FOLLOW_UPS,
    in_unit_of,
    said_of,
    without_closing_words,
)
from voiceagent.intents.told import last_told, needed
from voiceagent.language import lexicon, tokens
from voiceagent.language.data_file import load_data
from voiceagent.language.lengths import lengths_said
from voiceagent.language.repeats import read_repeat, spoken_repeat
from voiceagent.language.spoken_time import clock_time
from voiceagent.ports import Clock
from voiceagent.tools.calculator import spoken_number
from voiceagent.tools.timers import said_day
from voiceagent.tools.words import spoken_duration

log = logging.getLogger(__name__)

FILE = "follow_ups.yaml"
WHICH_WORDS = 4
"""The most words an answer to "Which one?" that names none of the ones offered has."""

_NOT_TIMERS = lexicon().words("not_timer_things")  # no answer to "Which one?" of timers

GIVE_WAY = frozenset({"timer_which", "list_more", "note_more", "timer_more", "alarm_more",
                      *AGAIN})
"""Follow-ups that give way to a command the sentence is by itself: "Cancel all of them."
answers "Which one?" on its own, "and set an alarm for 7" after a timer is that alarm."""


@dataclass(frozen=True)
class Pointer:
    """A sentence that points back: what it does and the user's words for its slots."""

    follow: str
    words: dict[str, str]


class FollowUps:
    """Recognises follow-ups and turns them into calls on the last exchange's outcomes."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        data = load_data(lexicon().file(FILE))
        self._follow = {name: spec["follow"] for name, spec in data["intents"].items()}
        self._cue = {name: spec["cue"] for name, spec in data["intents"].items() if "cue" in spec}
        data.setdefault("expansion_rules", {}).update(
            {name: _rule(name) for name in data.pop("sets", ())})
        data["intents"] = {name: {"data": spec["data"]} for name, spec in data["intents"].items()}
        self._intents = Intents.from_dict(data)
        self._do: dict[str, Callable[[Pointer, list[Ref]], list[LocalMatch]]] = {
            "cancel": self._cancel, "undo": self._undo, "change": self._change,
            "correct": self._correct, "read": self._read, "which": self._which,
            "arith": self._arith, "more": self._more,
            "take_off": lambda pointer, refs: take_off(pointer.words.get("gone", ""), refs),
            "put_on": lambda pointer, refs: put_on(pointer.words.get("more", ""), refs),
            "again": lambda pointer, refs: asked_again(pointer.words.get("new", ""), refs),
            "unit": lambda pointer, refs: in_unit(pointer.words.get("new", ""), refs),
            **{name: _on_words(do) for name, do in TIMER_FOLLOW_UPS.items()},
            "length_said": _nothing, "note_said": _nothing, "items_said": _nothing}
        # (length_said, note_said and items_said point at what was told: see on_told)

    def calls(self, text: str, history: Sequence[Message]) -> list[LocalMatch]:
        """The calls `text` asks for on what the last exchange did; [] when it does not
        point back, or points at nothing this can act on."""
        refs = of_kind_named(last_refs(history), text)
        aside, said = opened(text)
        if not said:
            return []
        told = "" if refs else last_told(history)
        found = (self._pointed(said, aside, refs) if refs
                 else self.on_told(said, told) if told else [])
        earlier = [] if found or not said else of_kind_named(made_before(history), text)
        named = of_the_kind_named(earlier, text)  # "make that alarm a quarter to seven"
        return found or next((f for only, refs in (  # after a timer turn: the alarm changed
            ("correct", earlier), ("take_off", earlier), ("read", earlier), ("change", named))
            if refs and (f := self._pointed(said, aside, refs, only=only))), [])  # fix, take
        # it off, or read the list it went on ("what have we got on there then" after a sum)

    def _pointed(self, said: str, aside: str, refs: list[Ref],
                 only: str = "") -> list[LocalMatch]:
        """The calls of the first reading of `said` that acts on `refs` (of follow kind
        `only`, when given)."""
        try:
            readings = sorted(recognize_all(said, self._intents, slot_lists=_referents(refs)),
                              key=lambda r: -r.text_chunks_matched)
        except Exception:  # a matcher fault must never cost the turn: the model answers
            log.exception("matching a follow-up failed on %r", said)
            return []
        for reading in readings:
            if only and self._follow[reading.intent.name] != only:
                continue
            cue = self._cue.get(reading.intent.name)
            if cue is not None and not _cued(cue, aside, said, reading):
                continue
            pointer = Pointer(self._follow[reading.intent.name], {
                _AS.get(e.name, e.name): (said[e.text_span[0]:e.text_span[1]]
                                          if e.is_wildcard and e.text_span else str(e.value))
                for e in reading.entities_list})
            found = self._do[pointer.follow](pointer, refs)
            if found:
                return found
        return []

    def on_told(self, said: str, told: str) -> list[LocalMatch]:
        """"Set a timer for that", "make a note of that" about what the user `told` in the
        last exchange, which no tool acted on, or earlier in the same breath."""
        try:
            readings = list(recognize_all(said, self._intents))
        except Exception:
            log.exception("matching a follow-up failed on %r", said)
            return []
        for reading in readings:
            follow = self._follow[reading.intent.name]
            if follow == "length_said":
                lengths = lengths_said(told)
                if len(lengths) == 1 or (lengths and max(lengths) == sum(
                        length for length in lengths if length != max(lengths))):
                    return [LocalMatch("timer_start", "set_timer",
                                       {"duration": spoken_duration(max(lengths))})]
            elif follow == "note_said":
                found = slots.note_text(told)
                if found:
                    return [LocalMatch("note_add", "add_note", found)]
            elif follow == "items_said":
                found = slots.supplies(needed(told))
                named = {e.name: e.text for e in reading.entities_list}
                listed = slots.list_name(named.get("list", ""))
                if found and listed:
                    return [LocalMatch("list_add", "add_to_list", {**listed, **found})]
        return []

    # -- what each kind does -----------------------------------------------------------------

    def _cancel(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        """What was made or added, taken away ("cancel it", "take that off"); of the items
        just added, only the one named ("take the bread off")."""
        done = [r for r in refs if r.action in ("made", "added", "read")]
        named = pointer.words.get("old", "")
        if named:
            done = [replace(r, items=tuple(i for i in r.items if same_item(i, named)))
                    for r in done if r.kind == "list" and r.action == "added"]
        return self._undo(pointer, [r for r in done if r.items or not named])

    def _undo(self, _pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        """The opposite of what was done ("scrap that", "take it back")."""
        undone: list[LocalMatch] = []
        for r in refs:
            if r.kind in ("timer", "alarm") and r.action == "made":
                undone.append(LocalMatch("timer_cancel", "cancel_timer", {"which": r.key}))
            elif r.kind == "list" and r.action == "added" and r.items:
                undone.append(LocalMatch("list_remove", "remove_from_list",
                                         {"list_name": r.key, "items": ", ".join(r.items)}))
            elif r.kind == "timer" and r.action == "cancelled" and r.value:  # "put it back"
                undone.append(LocalMatch("timer_start", "set_timer", {
                    "duration": spoken_duration(r.value), **({"label": r.label} if r.label
                                                              else {})}))
            elif r.kind == "list" and r.action in ("removed", "cleared") and r.items:
                undone.append(LocalMatch("list_add", "add_to_list",
                                         {"list_name": r.key, "items": ", ".join(r.items)}))
        if undone:
            return undone
        shown = [r for r in refs if r.kind in ("timer", "alarm") and r.action == "read"]
        if len(shown) == 1:  # "How long is left?" "Cancel it."
            return [LocalMatch("timer_cancel", "cancel_timer", {"which": shown[0].key})]
        if shown:  # several: cancel_timer asks which
            return [LocalMatch("timer_cancel", "cancel_timer", {"which": ""})]
        return []

    def _change(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        new = pointer.words.get("new", "")
        if lexicon().has("correction", new):  # "apples but i meant pears" is no new thing
            return []
        made = [r for r in refs if r.kind in ("timer", "alarm") and r.action == "made"]
        if len(made) == 1:
            return self._reset(made[0], new)
        added = [r for r in refs if r.kind == "list" and r.action == "added"]
        if len(added) != 1:
            return []
        # of several just added, the one of the same kind ("make that almond milk" after
        # "oat milk and bananas")
        items = added[0].items
        kin = items if len(items) == 1 else [i for i in items if alike(i, new)]
        return replace_item(added[0], kin[0], new) if len(kin) == 1 else []

    def _correct(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        new, old = pointer.words.get("new", ""), pointer.words.get("old", "")
        if lexicon().has("correction", new):
            return []
        for r in refs:
            if r.kind == "list" and r.action == "added":
                item = next((i for i in r.items if same_item(i, old)), None)
                if item is not None:
                    return replace_item(r, item, new)
        made = [r for r in refs if r.kind in ("timer", "alarm") and r.action == "made"
                and said_of(r, old, self.clock.zone)]
        return self._reset(made[0], new) if len(made) == 1 else []

    def _read(self, _pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        names = {r.key for r in refs if r.kind == "list"}
        if len(names) == 1:
            return [LocalMatch("list_read", "read_list", {"list_name": names.pop()})]
        return [LocalMatch("timer_status", "list_timers", {})] if any(  # "did you set it"
            r.kind in ("timer", "alarm") for r in refs) else []

    def _which(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        offered = [r for r in refs if r.action == "offered"]
        words = [w for w in tokens(pointer.words.get("which", ""))
                 if w not in lexicon().words("pointing")]
        if not offered or not words or set(words) & _NOT_TIMERS:  # "prep list, shallots"
            return []
        if set(words) & lexicon().words("every"):
            return [LocalMatch("timer_which", "cancel_timer", {"which": "all"})]
        named = [r for r in offered if r.label and set(tokens(r.label)) & set(words)]
        if len(named) != 1:
            length = slots.duration(" ".join(words))
            named = [r for r in offered if length is not None and r.kind == "timer"
                     and r.value is not None
                     and spoken_duration(r.value) == length["duration"]] or named
        if len(named) == 1:
            return [LocalMatch("timer_which", "cancel_timer", {"which": named[0].key})]
        return [LocalMatch("timer_which", "cancel_timer", {"which": " ".join(words)})] if len(
            words) <= WHICH_WORDS else []  # "wake me up tomorrow at seven...": no answer

    def _arith(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        numbers = [r for r in refs if r.kind == "number" and r.value is not None]
        if len(numbers) != 1 or numbers[0].value is None:
            return []
        last = numbers[0].value
        of = pointer.words.get("of") or pointer.words.get("scale")
        number = number_value(slots.strip_edges(pointer.words.get("number", "")))
        op = pointer.words.get("op", "")
        share = next((pointer.words[k] for k in _SHARES if k in pointer.words), "")
        if of:  # "double it", "the square root of that"
            expression = f"{of} {spoken_number(last)}"
        elif number is not None and share:  # "10 percent of that", "with a 20 percent tip"
            expression = share.format(n=spoken_number(number), last=spoken_number(last))
        elif number is not None and op:
            expression = f"{spoken_number(last)} {op} {spoken_number(number)}"
        else:
            return []
        found = slots.expression(expression)
        return [LocalMatch("calculate", "calculate", found)] if found else []

    def _more(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        """The last thing done again on the same target: "and grapes" after an add puts
        grapes on that list, after a removal takes them off; "and another one for ten
        minutes" after a timer sets one more (without the first one's label; with its own,
        "for the rice", when one is said; "and ten for the bread": in the first's unit)."""
        if "more" in pointer.words:
            return more_items(pointer.words["more"], refs)
        made = [r for r in refs if r.kind in ("timer", "alarm") and r.action == "made"]
        new = pointer.words.get("new", "")
        named = slots.label(pointer.words["label"]) if "label" in pointer.words else {}
        if "label_new" in pointer.words:  # "another one for the potatoes, 30 minutes"
            both = slots.label_duration(pointer.words["label_new"]) or {}
            new, named = both.get("duration", ""), {"label": both["label"]} if both else None
        if len(made) != 1 or named is None:  # "for the rice": its own name
            return []
        if made[0].kind == "timer":
            bare = tokens(new) != ["one"] and all(  # a number, not "another one"
                w.isdigit() or w in lexicon().words("number_words") for w in tokens(new))
            length = slots.duration(new) or bare and slots.duration(in_unit_of(made[0], new))
            return [LocalMatch("timer_more", "set_timer", length | named)] if length else []
        at = slots.time_of_day(new, self.clock)
        return [LocalMatch("alarm_more", "set_alarm", self._in_half_of(made[0], at) | named)
                ] if at else []

    # -- shared ------------------------------------------------------------------------------

    def _reset(self, thing: Ref, new: str) -> list[LocalMatch]:
        """The timer or alarm `thing` again, with the length or time `new` (its label kept;
        an alarm keeps its day unless a day was said)."""
        new = without_closing_words(new)
        if thing.kind == "timer":
            length = slots.duration(new) or slots.duration(in_unit_of(thing, new))
            if length is None:
                return []
            return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.key}),
                    LocalMatch("timer_start", "set_timer", {**length, "label": thing.label})]
        at = slots.time_of_day(new, self.clock)
        if at is None:
            return []
        at = self._in_half_of(thing, at)
        today = self.clock.now()
        if thing.repeat and not read_repeat(at["time"]).days:  # "make it 8" keeps "every
            at = {"time": f"{at['time']} {spoken_repeat(thing.repeat)}"}  # weekday"
        elif thing.due is not None and said_day(at["time"], today)[1] is None:
            day = datetime.fromtimestamp(thing.due, self.clock.zone).date()
            if day != today.date():  # "make it 10" keeps "on Friday"
                at = {"time": f"{at['time']} on {day:%A}"}
        return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.key}),
                LocalMatch("alarm_set", "set_alarm", {**at, "label": thing.label})]

    def _in_half_of(self, alarm: Ref, at: dict[str, str]) -> dict[str, str]:
        """A bare hour said after an alarm ("make it 8", "and another one for 8" after 7 am)
        in that alarm's half of the day: said at six in the evening, "8" alone was 8 pm."""
        try:
            said = clock_time(at["time"])
        except ToolError:  # a day said with it ("8 tomorrow"): the alarm tool reads it
            return at
        if said.half is not None or not 1 <= said.hour <= 11 or alarm.due is None:
            return at
        hour = datetime.fromtimestamp(alarm.due, self.clock.zone).hour
        return {**at, "time": f"{at['time']} {'am' if hour < 12 else 'pm'}"}


def _on_words(do: Callable[[dict[str, str], list[Ref]], list[LocalMatch]],
              ) -> Callable[[Pointer, list[Ref]], list[LocalMatch]]:
    """A follow-up that needs only its {slot} words and the references."""
    return lambda pointer, refs: do(pointer.words, refs)


def _nothing(_pointer: Pointer, _refs: list[Ref]) -> list[LocalMatch]:
    return []


_SHARES = ("share", "rise", "tip", "fall", "ways")
"""follow_ups.yaml lists whose values say the sum to work out on the last result."""

_AS = {"just_added": "old"}
"""Slots filled from the last exchange, and the slot of the user's words they stand for."""


def _referents(refs: Sequence[Ref]) -> dict[str, SlotList]:
    """The items the last exchange put on a list, as the slot list `just_added`: a
    correction with nothing between the two things ("not bread buns") splits where an item
    just added ends, which no wildcard can find."""
    added = [i for r in refs if r.kind == "list" and r.action == "added" for i in r.items]
    return {"just_added": TextSlotList.from_strings(added, allow_template=False)} if added else {}


def _cued(cue: str, aside: str, said: str, reading: RecognizeResult) -> bool:
    """A term of the word set `cue` is among the asides clean() dropped (`aside`: "oh and
    grapes") or in the words of the sentence itself, outside its slots ("grapes too", "set
    another one for 5 minutes")."""
    spans = sorted(e.text_span for e in reading.entities_list if e.is_wildcard and e.text_span)
    parts, at = [aside], 0
    for start, end in spans:
        parts.append(said[at:start])
        at = max(at, end)
    parts.append(said[at:])
    return any(lexicon().has(cue, part) for part in parts)


def _rule(name: str) -> str:
    """The lexicon's word set `name` as a hassil rule: "(and|also|as well|...)"."""
    return "(" + "|".join(lexicon().phrases(name)) + ")"
