"""The last question asked again of something else: "and London?" after the time in Tokyo,
"what about 10?" after 5 miles in kilometres. What was asked comes from the last exchange's
typed references (agent/outcome.py): the place the clock was asked about, the one number of
a conversion or sum; never from the tools' sentences."""

from __future__ import annotations

import re

from voiceagent.agent.outcome import Ref
from voiceagent.intents.match import LocalMatch
from voiceagent.intents.numbers import number_value
from voiceagent.intents.slots import strip_edges, unit_check
from voiceagent.language import lexicon, tokens
from voiceagent.language.numbers import numbers_in
from voiceagent.language.plural import singular
from voiceagent.tools.calculator import spoken_number

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CONVERSION = re.compile(r"^(\d+(?:\.\d+)?) (.+) in (.+)$")
"""A conversion's label (tools/calculator.py): "1 pound in ounces"."""

AGAIN = frozenset({"time_again", "sum_again"})
"""The intents this makes: they give way to a command the sentence is by itself ("and what
time is it in Paris?")."""


PLACE_WORDS = 5
"""A place or a day said again is this many words at most ("and for tom in san francisco")."""


def asked_again(new: str, refs: list[Ref]) -> list[LocalMatch]:
    """The last exchange's one question with `new` in place of what it asked about: the
    clock in another place or on another day; a conversion or sum with one number, on
    another number; with no `new`, the clock on the same day or place again. [] when the
    exchange asked nothing like that, or `new` does not fit."""
    said = strip_edges(new)
    clocks = [r for r in refs if r.kind == "clock"]
    sums = [r for r in refs if r.kind == "number" and r.action == "made"]
    if len(refs) != 1 or not (clocks or sums):  # one question, of the clock or a sum
        return []
    if clocks and len(said.split()) > PLACE_WORDS:  # "ok and do the needful call my
        return []  # brother in lahore and tell him chai is ready": no place, another request
    if not said:  # "how many days until then": the day the clock was just asked about
        return [LocalMatch("time_again", "get_time", {"place": clocks[0].label})] if (
            clocks and clocks[0].label) else []
    if clocks and clocks[0].action == "converted":  # the same time, in another place
        time, source = clocks[0].items
        return [] if number_value(said) is not None else [LocalMatch(
            "time_again", "convert_time",
            {"to_place": said} | ({"time": time} if time else {})
            | ({"from_place": source} if source else {}))]
    if clocks:  # the clock tool reads the place (or a day) and fails on what is neither
        return [] if number_value(said) is not None else [
            LocalMatch("time_again", "get_time", {"place": _in_year_of(said, clocks[0])})]
    value = _amount(said, sums[0].label)
    if value is None:
        return in_unit(said, refs)  # "and in grams?"
    label = numbers_in(sums[0].label.lower())
    numbers = list(_NUMBER.finditer(label))
    if len(numbers) != 1:  # "15 percent of 80": the one said with the new one's unit
        numbers = [n for n in numbers if _unit_after(label, n.end()) == _unit_after(
            numbers_in(said.lower()), 0, skip_number=True) != ""]
    if len(numbers) != 1:
        return []  # "15 percent of 80" "what about 20?": which of the two is unclear
    at = numbers[0]
    converted = _CONVERSION.match(sums[0].label)
    if converted:  # "what about 400" after 350 fahrenheit in celsius: converted again
        return [LocalMatch("unit_again", "convert_units", {
            "value": value, "from_unit": converted[2], "to_unit": converted[3]})]
    expression = f"{label[:at.start()]}{spoken_number(value)}{label[at.end():]}"
    return [LocalMatch("sum_again", "calculate", {"expression": expression})]


def _unit_after(text: str, at: int, *, skip_number: bool = False) -> str:
    """The word after the number that ends at `at` in `text` (after the first number, with
    `skip_number`), singular: "percent" in "20 percent of 85"; "" for none."""
    if skip_number:
        found = _NUMBER.search(text)
        if found is None:
            return ""
        at = found.end()
    word = re.match(r"\s*([a-z]+)", text[at:])
    return singular(word[1]) if word else ""


CLOCK_TOOLS = frozenset({"get_time", "convert_time"})
"""The tools a request that names the last place by a pronoun may call."""


def of_place_named(text: str, refs: list[Ref]) -> str:
    """`text` with the place the last exchange asked the clock about in place of the word
    that points at it (lexicon `place_pronouns`): "how many hours ahead of london are they"
    after the time in Singapore asks it of Singapore. "" when nothing points at a place, or
    the last exchange asked the clock of none."""
    clocks = [r for r in refs if r.kind == "clock" and r.label]
    if len(refs) != 1 or not clocks:
        return ""
    pronouns = lexicon().names("place_pronouns")
    found = re.search(rf"\b(?:{lexicon().regex('place_pronouns')})\b", text, re.I)
    if found is None:
        return ""
    said = pronouns[found[0].lower()].format(place=clocks[0].label)
    return f"{text[:found.start()]}{said}{text[found.end():]}"


def _in_year_of(said: str, clock: Ref) -> str:
    """`said` with "that year" (lexicon years_back) put as the year the clock was just asked
    about: "and christmas day that year" after "the 4th of july next year" is next year's
    Christmas (the clock read it as no place and told the time now)."""
    back = lexicon().pattern("years_back")
    year = (lexicon().pattern("calendar_years").search(clock.label)
            or re.search(r"\b\d{4}\b", clock.label))
    if not back.search(said) or year is None:  # no year asked about: the clock asks which
        return said
    return " ".join(back.sub(year[0], said).split())


def _amount(said: str, label: str) -> float | None:
    """The number `said` is, alone or with a unit the sum already has ("two pounds" after
    "1 pound in ounces")."""
    value = number_value(said)
    if value is not None:
        return value
    digits = numbers_in(said.lower()).split()
    if len(digits) < 2 or not _NUMBER.fullmatch(digits[0]):
        return None
    units = {singular(w) for w in tokens(label)}
    return float(digits[0]) if {singular(w) for w in digits[1:]} <= units else None


def in_unit(new: str, refs: list[Ref]) -> list[LocalMatch]:
    """The amount the last exchange converted, in the unit `new`: "and how many grams is
    that?" after "1 pound is 16 ounces" (1 pound in grams). [] when the last exchange was no
    conversion, or `new` is no unit of the same kind."""
    said = strip_edges(new)
    sums = [r for r in refs if r.kind == "number" and r.action == "made"]
    found = _CONVERSION.match(sums[0].label) if len(refs) == 1 and sums and said else None
    if found is None:
        return []
    args = {"value": float(found.group(1)), "from_unit": found.group(2), "to_unit": said}
    return [LocalMatch("unit_again", "convert_units", args)] if unit_check(args) else []
