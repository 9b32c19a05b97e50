"""Sums and ratios of amounts said in different units of one kind: "27 kilos divided by 340
grams" (how many 340 g jars 27 kg fills: 79.4, where the bare numbers are no sum at all),
"2 litres plus 500 millilitres" (2.5 litres, not 502). Every amount is put in the first
amount's unit before the sum is worked out. Whether the answer is an amount or a plain
number is found by working the sum again with every amount doubled: a ratio stays as it
is, a total doubles; anything else (an area, a unit squared) is left to the calculator."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from voiceagent.errors import ToolError
from voiceagent.language.numbers import numbers_in, sum_amounts
from voiceagent.tools.units import Unit, find_unit, spellings

_AMOUNT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?|\([\d\s.+/]+\))\s*([a-z]+(?:\s+[a-z]+){0,2})")
"""A number ("1.5", or "(1 + 1/2)" for "one and a half") and up to three words after it,
which may start with a unit's name."""
_LONGEST_NAME = 3


@dataclass(frozen=True)
class Quantity:
    """A sum of amounts worked out in the first amount's unit."""

    value: float
    unit: str
    """The first amount's unit ("kilo", "ml"); "" when the answer is a plain number (a
    ratio)."""


def _unit_at(words: str) -> tuple[Unit, str, int] | None:
    """The unit the longest run of `words`' first words names, its name as the converter
    says it, and how many words it took; None when they start with none."""
    split = words.split()
    for n in range(min(_LONGEST_NAME, len(split)), 0, -1):
        said = " ".join(split[:n])
        try:
            _kind, name = find_unit(said)
        except ToolError:
            continue
        return spellings()[name].unit, name, n
    return None


def mixed_amounts(expression: str, work: Callable[[str], float]) -> Quantity | None:
    """The sum `expression` when it holds amounts in at least two different units of one
    kind (no scale such as Fahrenheit), every amount put in the first's unit; `work` is the
    calculator that works out the rest. None otherwise, or when the answer is neither an
    amount nor a plain number."""
    said = sum_amounts(numbers_in(expression.lower().replace(",", "")))
    found: list[tuple[re.Match[str], Unit, str, int]] = []
    for amount in _AMOUNT.finditer(said):
        named = _unit_at(amount[2])
        if named is not None:
            found.append((amount, *named))
    units = {unit for _m, unit, _s, _n in found}
    if len(units) < 2 or len({u.kind for u in units}) != 1 or any(u.offset for u in units):
        return None
    first = found[0][1]

    def scaled(by: float) -> float:
        out, at = [], 0
        for amount, unit, _name, n in found:
            words = amount[2].split()
            out.append(said[at:amount.start()])
            out.append(f"({amount[1]} * {by * unit.size / first.size:.12g})")
            rest = " ".join(words[n:])
            out.append(f" {rest}" if rest else "")
            at = amount.end()
        out.append(said[at:])
        return work("".join(out))

    try:
        once, twice = scaled(1.0), scaled(2.0)
    except (ToolError, ArithmeticError, ValueError):
        return None
    if not (math.isfinite(once) and once):
        return None
    if math.isclose(twice, once, rel_tol=1e-9):
        return Quantity(once, "")
    if math.isclose(twice, 2 * once, rel_tol=1e-9):
        return Quantity(once, found[0][2])
    return None
