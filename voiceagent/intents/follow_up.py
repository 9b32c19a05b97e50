"""Commands that point back at what the last exchange did: "cancel it" right after a timer,
"make it 12 minutes", "sorry, I meant margarine, not butter", "what's on it now?", "the
pasta one" after "Which one?", "now add a hundred to that".

The sentences are templates (language/en/follow_ups.yaml); what "it" is comes from the
typed references the last exchange's tools returned (agent/outcome.py), never from their
sentences, so a confirmation can be reworded without breaking "cancel it". Anything the
templates do not cover goes to the model, which sees the exchange in words.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import yaml
from hassil import Intents, recognize_all

from voiceagent.agent.messages import Message
from voiceagent.agent.outcome import Ref
from voiceagent.intents import slots
from voiceagent.intents.match import LocalMatch
from voiceagent.intents.normalize import clean
from voiceagent.intents.numbers import number_value
from voiceagent.language import lexicon, tokens
from voiceagent.ports import Clock
from voiceagent.tools.timers import said_day
from voiceagent.tools.words import spoken_duration

log = logging.getLogger(__name__)

FILE = "follow_ups.yaml"


@dataclass(frozen=True)
class Pointer:
    """A sentence that points back: what it does and the user's words for its slots."""

    follow: str
    words: dict[str, str]


def last_refs(history: Sequence[Message]) -> list[Ref]:
    """What the last exchange's calls made, changed, read or offered (calls that ran)."""
    refs: list[Ref] = []
    for message in reversed(history):
        if message.role == "user":
            break
        if message.role == "tool" and not message.is_error:
            refs[:0] = message.refs
    return refs


class FollowUps:
    """Recognises follow-ups and turns them into calls on the last exchange's outcomes."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        data = yaml.safe_load(lexicon().file(FILE).read_text(encoding="utf-8"))
        self._follow = {name: spec["follow"] for name, spec in data["intents"].items()}
        data["intents"] = {name: {"data": spec["data"]} for name, spec in data["intents"].items()}
        self._intents = Intents.from_dict(data)
        self._do: dict[str, Callable[[Pointer, list[Ref]], list[LocalMatch]]] = {
            "cancel": self._cancel, "undo": self._undo, "change": self._change,
            "correct": self._correct, "read": self._read, "which": self._which,
            "arith": self._arith}

    def calls(self, text: str, history: Sequence[Message]) -> list[LocalMatch]:
        """The calls `text` asks for on what the last exchange did; [] when it does not
        point back, or points at nothing this can act on."""
        refs = last_refs(history)
        said = clean(text)
        if not refs or not said:
            return []
        try:
            readings = sorted(recognize_all(said, self._intents),
                              key=lambda r: -r.text_chunks_matched)
        except Exception:  # a matcher fault must never cost the turn: the model answers
            log.exception("matching a follow-up failed on %r", said)
            return []
        for reading in readings:
            pointer = Pointer(self._follow[reading.intent.name], {
                e.name: (said[e.text_span[0]:e.text_span[1]] if e.is_wildcard and e.text_span
                         else str(e.value)) for e in reading.entities_list})
            found = self._do[pointer.follow](pointer, refs)
            if found:
                return found
        return []

    # -- what each kind does -----------------------------------------------------------------

    def _cancel(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        """What was made or added, taken away ("cancel it", "take that off")."""
        return self._undo(pointer, [r for r in refs if r.action in ("made", "added", "read")])

    def _undo(self, _pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        """The opposite of what was done ("scrap that", "take it back")."""
        undone: list[LocalMatch] = []
        for r in refs:
            if r.kind in ("timer", "alarm") and r.action == "made":
                undone.append(LocalMatch("timer_cancel", "cancel_timer", {"which": r.key}))
            elif r.kind == "list" and r.action == "added" and r.items:
                undone.append(LocalMatch("list_remove", "remove_from_list",
                                         {"list_name": r.key, "items": ", ".join(r.items)}))
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
        made = [r for r in refs if r.kind in ("timer", "alarm") and r.action == "made"]
        if len(made) == 1:
            return self._reset(made[0], new)
        added = [r for r in refs if r.kind == "list" and r.action == "added"]
        if len(added) == 1 and len(added[0].items) == 1:
            return self._replace(added[0], added[0].items[0], new)
        return []

    def _correct(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        new, old = pointer.words.get("new", ""), pointer.words.get("old", "")
        for r in refs:
            if r.kind == "list" and r.action == "added":
                item = next((i for i in r.items if _same_item(i, old)), None)
                if item is not None:
                    return self._replace(r, item, new)
        made = [r for r in refs if r.kind in ("timer", "alarm") and r.action == "made"]
        return self._reset(made[0], new) if len(made) == 1 else []

    def _read(self, _pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        names = {r.key for r in refs if r.kind == "list"}
        if len(names) != 1:
            return []
        return [LocalMatch("list_read", "read_list", {"list_name": names.pop()})]

    def _which(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        offered = [r for r in refs if r.action == "offered"]
        words = [w for w in tokens(pointer.words.get("which", ""))
                 if w not in lexicon().words("pointing")]
        if not offered or not words:
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
        return [LocalMatch("timer_which", "cancel_timer", {"which": " ".join(words)})]

    def _arith(self, pointer: Pointer, refs: list[Ref]) -> list[LocalMatch]:
        numbers = [r for r in refs if r.kind == "number" and r.value is not None]
        number = number_value(slots.strip_edges(pointer.words.get("number", "")))
        op = pointer.words.get("op", "")
        if len(numbers) != 1 or number is None or not op:
            return []
        expression = f"{numbers[0].value:g} {op} {number:g}"
        found = slots.expression(expression)
        return [LocalMatch("calculate", "calculate", found)] if found else []

    # -- shared ------------------------------------------------------------------------------

    def _reset(self, thing: Ref, new: str) -> list[LocalMatch]:
        """The timer or alarm `thing` again, with the length or time `new` (its label kept;
        an alarm keeps its day unless a day was said)."""
        if thing.kind == "timer":
            length = slots.duration(new)
            if length is None:
                return []
            return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.key}),
                    LocalMatch("timer_start", "set_timer", {**length, "label": thing.label})]
        at = slots.time_of_day(new, self.clock)
        if at is None:
            return []
        today = self.clock.now()
        if thing.due is not None and said_day(at["time"], today)[1] is None:
            day = datetime.fromtimestamp(thing.due, self.clock.zone).date()
            if day != today.date():  # "make it 10" keeps "on Friday"
                at = {"time": f"{at['time']} on {day:%A}"}
        return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.key}),
                LocalMatch("alarm_set", "set_alarm", {**at, "label": thing.label})]

    @staticmethod
    def _replace(on: Ref, old: str, new: str) -> list[LocalMatch]:
        """On list `on`, `old` taken off and `new` put on instead."""
        items = slots.items(new)
        if items is None or _same_item(items["items"], old):
            return []
        return [LocalMatch("list_remove", "remove_from_list", {"list_name": on.key, "items": old}),
                LocalMatch("list_add", "add_to_list", {"list_name": on.key, **items})]


def _same_item(a: str, b: str) -> bool:
    """The same thing, forgiving case, articles and a plural s."""
    def norm(text: str) -> list[str]:
        return [w.rstrip("s") for w in tokens(text) if w not in lexicon().words("articles")]
    return bool(norm(a)) and norm(a) == norm(b)

