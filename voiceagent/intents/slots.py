"""From a template's slots to a tool's arguments, or None when a slot does not read cleanly.

A slot is named after the tool parameter it fills (duration, label, items, list_name, ...);
each reader takes the user's own words for that slot and either returns the arguments it
gives or None. None rejects that reading of the sentence, so a doubtful match falls
through to the LLM instead of running a tool with a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from voiceagent.errors import ToolError
from voiceagent.intents.numbers import duration_seconds, number_value, split_quantity
from voiceagent.language import lexicon, tokens
from voiceagent.ports import Clock
from voiceagent.tools import calculator, clock, timers
from voiceagent.tools.words import numbers_in, parse_clock_time, spoken_duration
from voiceagent.wallclock import SystemClock

Args = dict[str, Any]
Reader = Callable[[str], Args | None]

MAX_TIMER_SECONDS = 7 * 86400
_CALC_OP = re.compile(r"[-+*/%]|\b(?:sqrt|abs|round|log|ln|sin|cos|tan)\(")


def strip_edges(text: str) -> str:
    return text.strip(" \t\"'.,!?;:…-")


def _without_articles(text: str) -> str:
    """`text` without the determiners before it ("the pasta" -> "pasta"), case kept."""
    words = strip_edges(text).split()
    determiners = lexicon().words("determiners")
    while words and words[0].lower() in determiners:
        words.pop(0)
    return " ".join(words)


def _is(set_name: str, text: str) -> bool:
    """`text` is, as a whole, one term of the lexicon's set `set_name`."""
    return tuple(tokens(text)) in lexicon().terms(set_name)


def duration(text: str) -> Args | None:
    seconds = duration_seconds(text)
    if seconds is None or not 1 <= seconds <= MAX_TIMER_SECONDS:
        return None
    return {"duration": spoken_duration(seconds)}


def label(text: str) -> Args | None:
    """A timer's or alarm's name: a few words that are not themselves an amount of time."""
    words = _without_articles(text)
    if (not words or len(words.split()) > 8 or _is("anaphora", words) or _is("not_names", words)
            or re.search(r"[,;:]|\d", numbers_in(words.lower()))
            or lexicon().has("label_stop", words)):
        return None
    return {"label": words}


def duration_label(text: str) -> Args | None:
    """'10 minute pasta' -> 10 minutes, label 'pasta'; '5 minute' -> 5 minutes."""
    words = strip_edges(text).split()
    for cut in range(len(words), 0, -1):
        length = duration(" ".join(words[:cut]))
        if length is None:
            continue
        rest = " ".join(words[cut:])
        if not rest:
            return length
        named = label(rest)
        return None if named is None else length | named
    return None


def which_timer(text: str) -> Args | None:
    """The timer to cancel, as the timer tool names them ('pasta', '5 minute')."""
    words = _without_articles(text)
    if not words or _is("anaphora", words) or len(words.split()) > 5:
        return None
    words = numbers_in(words.lower())
    words = re.sub(r"\b(second|minute|hour)s\b", r"\1", words.replace("-", " "))
    return {"which": words}


def which_alarm(text: str) -> Args | None:
    """The alarm to cancel: its label, or its time as the timer tool says it ('7:00 am')."""
    named = which_timer(text)
    if named is None:
        return None
    said = _without_articles(text)
    if re.search(r"\b(?:past|quarter|to|of)\b", said, re.I):
        said = _clock_words(said)
    try:
        hour, minute, half = parse_clock_time(said)
    except ToolError:
        return {"which": f"{named['which']} alarm"}
    if not half and (hour > 12 or hour == 0):
        half = "pm" if hour > 12 else "am"
    shown = f"{hour % 12 or 12}:{minute:02d}" if half else f"{hour}:{minute:02d}"
    return {"which": f"{shown}{' ' + half if half else ''} alarm"}


def _clock_words(text: str) -> str:
    """'half past seven' -> '7:30', 'quarter to eight' -> '7:45' (the clock tools read digits)."""
    t = numbers_in(text.lower())
    t = re.sub(r"\bhalf past (\d{1,2})\b", r"\1:30", t)
    t = re.sub(r"\b(?:a )?quarter past (\d{1,2})\b", r"\1:15", t)
    t = re.sub(r"\b(?:a )?quarter (?:to|of) (\d{1,2})\b",
               lambda m: f"{(int(m[1]) - 1) % 12 or 12}:45", t)
    t = re.sub(r"\b(\d{1,2}) (?:minutes )?past (\d{1,2})\b",
               lambda m: f"{m[2]}:{int(m[1]):02d}", t)
    return t


def time_of_day(text: str, clock: Clock | None = None) -> Args | None:
    """A clock time ('7:30 am', 'seven thirty', 'half past 7') or a time from now ('10
    minutes')."""
    t = strip_edges(text)
    if re.search(r"\b(?:past|quarter|to|of)\b", t, re.I):
        t = _clock_words(t)
    relative = re.match(r"in\s+(.+)", t, re.I)
    seconds = duration_seconds(relative.group(1) if relative else t)
    if seconds is not None:
        return {"time": f"in {spoken_duration(seconds)}"} if seconds >= 1 else None
    try:
        parse_clock_time(timers.said_day(t, (clock or SystemClock()).now())[0])  # "7 am tomorrow"
    except ToolError:
        return None
    return {"time": t}


def place(text: str) -> Args | None:
    where = strip_edges(text)
    if not where or len(where.split()) > 4:
        return None
    where = _without_articles(where)
    kinds = lexicon().words("place_kinds")
    bare = where.rsplit(" ", 1)[0] if where.split()[-1:] and where.split()[-1].lower() in kinds \
        else where
    tries = [where, bare, where.split(",")[0].strip()]
    for name in tries:
        try:
            clock.find_zone(name)
        except ToolError:
            continue
        return {"place": name}
    return None


def relative_day(text: str, now: Clock | None = None) -> Args | None:
    """"tomorrow", "in three days", "next Friday", "Christmas", "July 4th": passed as the
    clock's place, which answers with that day's date (tools/clock.py)."""
    said = strip_edges(text)
    today = (now or SystemClock()).now()
    if clock.days_ahead(said, today) is None and clock.calendar_day(said) is None:
        return None
    return {"place": said}


def items(text: str) -> Args | None:
    """What to add to or remove from a list, in the user's words ('apples, milk and eggs')."""
    said = _without_articles(text)
    low = said.lower()
    if (not said or _is("anaphora", low) or len(said.split()) > 12
            or lexicon().has("item_stop", low)):
        return None
    return {"items": said}


def list_name(text: str) -> Args | None:
    name = _without_articles(text).lower()
    words = name.replace("-", " ").split()
    if name in ("to do", "to-do", "todo"):
        return {"list_name": name}
    if (not words or len(words) > 3 or lexicon().words("list_stop") & set(words)
            or ("to" in words and "do" not in words)):
        return None
    return {"list_name": name}


def note_text(text: str) -> Args | None:
    said = strip_edges(text)
    first = said.lower().split()[0] if said else ""
    lex = lexicon()
    if (not said or _is("anaphora", said) or _is("note_down", said)
            or first in lex.words("note_first_stop")  # "leave a note for the cleaner"
            or first in lex.words("reminiscing")):  # "remember that time we went to Paris?"
        return None
    return {"text": said}


def expression(text: str) -> Args | None:
    """Arithmetic only: every word of it must become numbers and operators."""
    said = strip_edges(text)
    if (not re.search(r"\d", numbers_in(said.lower())) or calculator.as_conversion(said)
            or re.fullmatch(r"(?:(?:what(?:'s| is)|how much is)\s+)?\d+(?:[-/.]\d+)+", said,
                            re.I)):  # a date, a phone number, a version
        return None
    expr = calculator.to_expression(said)
    if not _CALC_OP.search(re.sub(r"^\s*-", "", expr)):
        return None
    try:
        calculator.evaluate(expr)
    except ToolError:
        return None
    return {"expression": said}


def operand(name: str) -> Reader:
    """One number of 'add 5 and 7', 'multiply six by seven'."""

    def read(text: str) -> Args | None:
        said = strip_edges(text)
        return {name: said} if number_value(said) is not None else None

    return read


def operation(args: Args) -> Args | None:
    """'add 5 and 7' -> expression '5 plus 7' (the calculator reads spoken operators)."""
    if "left" not in args:
        return args
    found = expression(f"{args.pop('left')} {args.pop('op')} {args.pop('right')}")
    return None if found is None else args | found


def quantity(text: str) -> Args | None:
    found = split_quantity(strip_edges(text))
    if found is None:
        return None
    try:
        calculator.find_unit(found[1])
    except ToolError:
        return None
    return {"value": found[0], "from_unit": found[1]}


def to_unit(text: str) -> Args | None:
    unit = _without_articles(text)
    try:
        calculator.find_unit(unit)
    except ToolError:
        return None
    return {"to_unit": unit}


def contact(text: str) -> Args | None:
    who = _without_articles(text).lower()
    if not who or who.split()[0] in lexicon().words("not_contacts"):
        return None
    return {}


def device_name(text: str) -> Args | None:
    what = _without_articles(text).lower()
    if (not what or _is("anaphora", what) or len(what.split()) > 4
            or lexicon().has("not_devices", what)):
        return None
    return {}


def anything(_text: str) -> Args | None:
    return {}


def somewhere(text: str) -> Args | None:
    """A place named in a refusal ("weather in New York"): a few words, not a second question."""
    where = strip_edges(text)
    if (not where or len(where.split()) > 5 or re.search(r"[?!.;]", where)
            or lexicon().has("not_places", where)):
        return None
    return {}


def readers(now: Clock) -> dict[str, Reader]:
    """Readers of the built-in templates' slots, by slot name; spoken days and times are read
    by `now`."""
    return {
        "duration": duration, "label": label, "duration_label": duration_label,
        "which_timer": which_timer, "which_alarm": which_alarm,
        "time": lambda text: time_of_day(text, now), "place": place,
        "day": lambda text: relative_day(text, now), "items": items, "list_name": list_name,
        "text": note_text, "expression": expression, "quantity": quantity,
        "to_unit": to_unit, "left": operand("left"), "right": operand("right"),
        "contact": contact, "device_name": device_name, "somewhere": somewhere,
        "anything": anything,
    }


def unit_check(args: Args) -> bool:
    """A conversion between two units of the same kind (not miles to kilograms)."""
    try:
        calculator.convert(float(args["value"]), args["from_unit"], args["to_unit"])
    except (ToolError, KeyError, ValueError):
        return False
    return True


def mentions_own_tools(text: str) -> bool:
    """Timers, alarms, lists and notes are ours: never refuse a sentence naming them."""
    lex = lexicon()
    said = tokens(text)
    own = lex.find("own_tools", said)
    shadowed = {i for start, end in lex.find("not_own_tools", said) for i in range(start, end)}
    return any(start not in shadowed for start, _end in own)


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
