"""From a template's slots to a tool's arguments, or None when a slot does not read cleanly.

A slot is named after the tool parameter it fills (duration, label, items, list_name, ...);
each reader takes the user's own words for that slot and either returns the arguments it
gives or None. None rejects that reading of the sentence, so a doubtful match falls
through to the LLM instead of running a tool with a guess.

The readers, by the tools they serve: times.py (timers, alarms, the clock), lists.py (lists
and notes), arithmetic.py (the calculator), refusals.py (the sentences we decline); text.py
is what they share. Here: which reader reads which slot.
"""

from __future__ import annotations

from typing import Any

from voiceagent.intents.numbers import number_value
from voiceagent.intents.slots.amount_asked import amount_asked
from voiceagent.intents.slots.arithmetic import (
    expression,
    operand,
    operation,
    quantity,
    shared,
    to_unit,
    unit_check,
)
from voiceagent.intents.slots.lists import items, list_name, note_text, supplies
from voiceagent.intents.slots.places_apart import time_between_places
from voiceagent.intents.slots.refusals import (
    anything,
    contact,
    device_name,
    mentions_own_tools,
    somewhere,
    supposed,
    times_a_length,
    yields_to_the_model,
)
from voiceagent.intents.slots.text import Args, Reader, strip_edges
from voiceagent.intents.slots.times import (
    duration,
    duration_label,
    label,
    label_duration,
    later_time,
    place,
    relative_day,
    time_in_place,
    time_of_day,
    until_time,
    which_alarm,
    which_timer,
)
from voiceagent.language import tokens
from voiceagent.language.asking import is_remark
from voiceagent.language.kept_elsewhere import kept_elsewhere
from voiceagent.ports import Clock

__all__ = [
    "Args", "Reader", "duration", "expression", "items", "mentions_own_tools", "operation",
    "readers", "schema_reader", "strip_edges", "time_of_day", "unit_check",
    "supposed",
    "times_a_length",
    "yields_to_the_model",
]
"""What the matcher and the follow-ups read slots with."""


def readers(now: Clock) -> dict[str, Reader]:
    """Readers of the built-in templates' slots, by slot name; spoken days and times are read
    by `now`."""
    return {
        "duration": duration, "label": label, "duration_label": duration_label,
        "label_duration": label_duration,
        "which_timer": which_timer, "which_alarm": which_alarm,
        "add_to": lambda text: {"add_to": which["which"]} if (which := which_timer(text)) else None,
        "take_from": lambda text: ({"take_from": which["which"]} if (which := which_timer(text))
                                   else None),
        "time": lambda text: time_of_day(text, now), "place": place,
        "from_place": lambda text: _as("from_place", place(text)),
        "to_place": lambda text: _as("to_place", place(text)),
        "time_in_place": time_in_place, "time_between_places": time_between_places,
        "amount_asked": amount_asked,
        "day": lambda text: relative_day(text, now), "items": items, "supplies": supplies,
        # a thing asked about on a list: not a timer, alarm or reminder of ours, nor what
        # another service keeps ("do i have any reminders on my list", "a contact named allen")
        "item": lambda text: None if mentions_own_tools(text) or kept_elsewhere(text, anywhere=True)
        else _as("item", items(text)),
        "until_time": lambda text: until_time(text, now),
        "later_time": lambda text: later_time(text, now),
        "list_name": list_name,
        # an item no longer wanted: not a timer, list or note of ours ("I don't need the timer
        # anymore, cancel it" is no item)
        "unwanted": lambda text: None if mentions_own_tools(text) else items(text),
        "message": lambda text: {"message": text.strip()} if text.strip() else None,
        "text": note_text, "expression": expression, "quantity": quantity,
        # what to remember said as a statement, without "that" ("remember the tomatoes were
        # planted on the 3rd"); not "remember my name", "remember to call"
        "told_text": lambda text: note_text(text) if is_remark(tokens(text)) else None,
        "to_unit": to_unit, "left": operand("left"), "right": operand("right"),
        "shared": shared,
        "contact": contact, "device_name": device_name, "somewhere": somewhere,
        "anything": anything,
        # money asked in pounds, not a weight ("how many pounds is twenty kilos" converts)
        "money": lambda text: None if quantity(text) else {},
    }


def _as(name: str, args: Args | None) -> Args | None:
    """A reader's one argument under another parameter's name (a place said as where
    a time is: `from_place`)."""
    return None if args is None else {name: next(iter(args.values()))}


def schema_reader(name: str, prop: dict[str, Any]) -> Reader:
    """A reader for a plugin tool's parameter, from its JSON Schema."""
    kind = prop.get("type")

    def read(text: str) -> Args | None:
        said = strip_edges(text)
        if not said:
            return None
        if kind in ("integer", "number"):
            value = number_value(said)
            if value is None or (kind == "integer" and not value.is_integer()):
                return None
            return {name: int(value) if kind == "integer" else value}
        return {name: said}

    return read
