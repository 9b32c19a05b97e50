"""Readers of the calculator's slots: sums said in words, their operands, unit conversions."""

from __future__ import annotations

import re

from voiceagent.errors import ToolError
from voiceagent.intents.numbers import number_value, split_quantity
from voiceagent.intents.slots.text import (
    Args,
    Reader,
    read_two,
    strip_edges,
    without_articles,
)
from voiceagent.language import lexicon
from voiceagent.language.spoken_time import duration
from voiceagent.tools import calculator
from voiceagent.tools.time_sums import clock_span, time_sum
from voiceagent.tools.words import numbers_in

_CALC_OP = re.compile(r"[-+*/%]|\b(?:sqrt|abs|round|log|ln|sin|cos|tan)\(")


def expression(text: str) -> Args | None:
    """Arithmetic only: every word of it must become numbers and operators."""
    said = strip_edges(text)
    if time_sum(said) or clock_span(said):  # "2 minutes plus 30 seconds", "... in hours":
        return {"expression": said}  # lengths added up; "from 6:05 to 7:40": a span
    if duration(said) is not None:  # "1 hour 15" is a length, no sum (not 1.25)
        return None
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
        return {name: said} if _amount(said) else None

    return read


def _amount(said: str) -> bool:
    """A number, or an amount of money ("84 dollars", "$60")."""
    return number_value(said) is not None or number_value(calculator.to_expression(said)) \
        is not None


def shared(text: str) -> Args | None:
    """"84 dollars four": an amount and how many share it, said without a word between
    ("split 84 dollars four ways"), as a division."""

    def divided(amount: str, share: str) -> Args | None:
        if _amount(amount) and number_value(share) is not None:
            return expression(f"{amount} divided by {share}")
        return None

    return read_two(text, divided)


def operation(args: Args) -> Args | None:
    """'add 5 and 7' -> expression '5 plus 7' (the calculator reads spoken operators); the
    unit a template asks the answer in goes with it ("how many minutes is it from ...")."""
    if "in_unit" in args:
        unit = args.pop("in_unit")
        args = {**args, "expression": f"{args['expression']} in {unit}"}
    if "left" not in args:
        return args
    found = expression(f"{args.pop('left')} {args.pop('op')} {args.pop('right')}")
    return None if found is None else args | found


def quantity(text: str) -> Args | None:
    """"four ounces", and "four ounces of butter": the amount of a thing is its quantity."""
    found = split_quantity(strip_edges(text))
    if found is None:
        return None
    value, unit = found
    of = re.match(rf"(.+?)\s+(?:{lexicon().regex('partitive')})\s+\S", unit)
    for said in (unit, of[1] if of else ""):
        try:
            calculator.find_unit(said)
        except ToolError:
            continue
        return {"value": value, "from_unit": said}
    return None


def to_unit(text: str) -> Args | None:
    unit = without_articles(text)
    try:
        calculator.find_unit(unit)
    except ToolError:
        return None
    return {"to_unit": unit}


def unit_check(args: Args) -> bool:
    """A conversion between two units of the same kind (not miles to kilograms)."""
    try:
        calculator.convert(float(args["value"]), args["from_unit"], args["to_unit"])
    except (ToolError, KeyError, ValueError):
        return False
    return True
