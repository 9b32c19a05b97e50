"""An amount said anywhere in a sentence, asked in another unit ("my sister's recipe card says
180 celsius what is that in fahrenheit", "the tank holds 400 litres how many gallons is
that", "it'll go down to minus thirty up there, what's that in fahrenheit").

Templates know "convert 5 miles to km" and its usual orders; this reads the parts wherever
they are: the one amount said, the unit asked for (after "in", "into", "to", or "how many"),
and what asks (the lexicon's `conversion_asked`). A temperature said without its scale is on
the other scale than the one asked for (`unstated_scale`): nobody asks for celsius in
celsius.
"""

from __future__ import annotations

import re

from voiceagent.errors import ToolError
from voiceagent.intents.slots.arithmetic import unit_check
from voiceagent.intents.slots.text import Args
from voiceagent.language import lexicon
from voiceagent.language.numbers import NUMBER, numbers_in
from voiceagent.tools import calculator

MOST_WORDS = 30
_LONGEST_UNIT = 3
_WORD = re.compile(rf"-?{NUMBER}|[a-z°/]+(?:'[a-z]+)?")


def amount_asked(text: str) -> Args | None:
    """convert_units' arguments for one amount asked in another unit; None unless the
    amount, the unit asked for and the asking are all said plainly."""
    lex = lexicon()
    said = _WORD.findall(_signed(numbers_in(text.lower())))
    if not said or len(said) > MOST_WORDS or not lex.has("conversion_asked", said):
        return None
    target = _unit_asked(said)
    if target is None:
        return None
    to_unit, at = target
    amounts = [i for i, w in enumerate(said[:at]) if re.fullmatch(rf"-?{NUMBER}", w)]
    if len(amounts) != 1:
        return None
    value = float(said[amounts[0]])
    unit = _unit_at(said, amounts[0] + 1, at)
    found = {"value": value, "from_unit": unit[0] if unit else "", "to_unit": to_unit}
    if unit is not None and unit_check(found):
        if calculator.find_unit(unit[0]) == calculator.find_unit(to_unit):
            return None  # "a cup is 120 grams, how many grams is that": a sum, not this
        return found
    other = lex.names("unstated_scale").get(calculator.find_unit(to_unit)[1])
    if other and (unit is None or lex.is_one("unit_fillers", [unit[0]])):
        return {"value": value, "from_unit": other, "to_unit": to_unit}
    return None


def _signed(text: str) -> str:
    """'minus 30' -> '-30' (the lexicon's `negative_signs`)."""
    return re.sub(rf"\b(?:{lexicon().regex('negative_signs')})\s+(?=\d)", "-", text)


def _unit_asked(said: list[str]) -> tuple[str, int] | None:
    """The unit asked for and where its asking starts: the last unit after "in", "to",
    "into", "as" or "how many"."""
    lex = lexicon()
    for at in range(len(said) - 1, -1, -1):
        if said[at] in lex.words("unit_targets") or lex.is_one("unit_questions", said[at:at + 2]):
            start = at + (1 if said[at] in lex.words("unit_targets") else 2)
            unit = _unit_at(said, start, len(said))
            if unit is not None:
                return unit[0], at
    return None


def _unit_at(said: list[str], start: int, end: int) -> tuple[str, int] | None:
    """The unit named at `start` (the longest name of up to three words) and its end."""
    for size in range(_LONGEST_UNIT, 0, -1):
        if start + size > end:
            continue
        name = " ".join(said[start:start + size])
        if lexicon().is_one("unit_fillers", said[start:start + size]) and size == 1:
            following = _unit_at(said, start + 1, end)
            return following or (name, start + 1)
        try:
            calculator.find_unit(name)
        except ToolError:
            continue
        return name, start + size
    return None
