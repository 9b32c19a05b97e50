"""Calculator and unit conversion: spoken arithmetic through a safe AST evaluator (no eval).

"15 percent of 80", "what is five times three", "square root of 2", "(2+3)^2" all work; only
numbers, + - * / % ** and a few math functions are allowed, and huge powers are refused. The
answer is a sentence read aloud as it is: "Five times three is 15.", "2 plus 3, squared, is 25."
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable

from voiceagent.agent.outcome import Outcome, Ref
from voiceagent.agent.tools import Tool, tool
from voiceagent.errors import ToolError
from voiceagent.tools.words import numbers_in

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCS: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt, "abs": abs, "round": round, "log": math.log10, "ln": math.log,
    "sin": lambda x: math.sin(math.radians(x)), "cos": lambda x: math.cos(math.radians(x)),
    "tan": lambda x: math.tan(math.radians(x)),
}
_CONSTS = {"pi": math.pi, "e": math.e}

# Spoken operators, applied in order (longer phrases first).
_WORDS = [
    (r"\b(?:percent|per cent|%)\s+of\b", " / 100 * "),
    (r"\bsquare\s+root\s+of\b|\broot\s+of\b", " sqrt "),
    (r"\bto\s+the\s+power\s+of\b|\braised\s+to(?:\s+the\s+power\s+of)?\b|\^", " ** "),
    (r"\bsquared\b", " ** 2 "), (r"\bcubed\b", " ** 3 "),
    (r"\bmultiplied\s+by\b|\btimes\b|×|(?<=\d)\s*x\s*(?=\d)", " * "),
    (r"\bdivided\s+by\b|\bover\b|÷", " / "),
    (r"\bplus\b|\badd\b", " + "), (r"\bminus\b|\bless\b|−", " - "),
    (r"\bmod(?:ulo)?\b", " % "),
    (r"\bpercent\b|%(?!\s*[\d(])", " / 100 "),
]


def to_expression(text: str) -> str:
    """Spoken arithmetic to a Python-style expression: 'five times 3' -> '5 * 3'."""
    t = numbers_in(text.lower())
    t = re.sub(r"^\s*(?:what(?:'s| is)|how much is|calculate|compute)\s+", "", t)
    t = t.replace(",", "").rstrip(" ?.!=")
    for pattern, replacement in _WORDS:
        t = re.sub(pattern, replacement, t)
    t = re.sub(r"\b(sqrt|abs|round|log|ln|sin|cos|tan)\s+(\d+(?:\.\d+)?)", r"\1(\2)", t)
    t = re.sub(r"\b(?:the|of|is|equals?)\b", " ", t)
    t = _UNIT_AFTER_NUMBER.sub(r"\1", t)  # "3 hours * 60 minutes": the numbers are the sum
    return " ".join(t.split())


_UNIT_AFTER_NUMBER = re.compile(r"(\d)\s*(?:seconds?|minutes?|hours?|days?|weeks?|months?|"
                                r"years?|dozens?)\b")


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression; ToolError (for the model) otherwise."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ToolError(f"I could not read {expression!r} as arithmetic. Use numbers and "
                        "+ - * / ^ %, e.g. '(2 + 3) * 4' or '15 percent of 80'.") from None
    try:
        return _eval(tree.body)
    except ZeroDivisionError:
        raise ToolError("that divides by zero, which has no answer.") from None
    except (ValueError, OverflowError) as exc:
        raise ToolError(f"that has no real answer ({exc}).") from None


def _eval(node: ast.AST) -> float:
    if (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTS:
        return _CONSTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(left) > 1 and (
            abs(right) > 1000 or abs(right) * math.log10(abs(left)) > 300
        ):
            raise ToolError("that number is too large to say.")
        return _BINARY[type(node.op)](left, right)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCS and len(node.args) == 1 and not node.keywords):
        return _FUNCS[node.func.id](_eval(node.args[0]))
    what = ast.unparse(node) if isinstance(node, ast.expr) else type(node).__name__
    raise ToolError(f"{what!r} is not arithmetic I can do. Allowed: numbers, + - * / ^ %, "
                    f"parentheses, {', '.join(_FUNCS)}, pi.")


def spoken_number(value: float) -> str:
    """12.0 -> '12'; 1/3 -> '0.3333333333'; large values keep their digits."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.10g}"


_LEAD = re.compile(r"^\s*(?:what(?:'s| is)|how much is|calculate|compute)\s+", re.I)
_TAIL = re.compile(r"(?:\s*(?:[?=.!]|\bequals?\b|\bis\b))+\s*$", re.I)
# Symbols read as words, applied in order.
_SYMBOLS: list[tuple[str, str | Callable[[re.Match[str]], str]]] = [
    (r"\bsqrt\s*\(([^()]*)\)|\bsqrt\b\s*", lambda m: f" the square root of {m[1] or ''} "),
    (r"(?:\^|\*\*)\s*2(?![\d.])", " squared "), (r"(?:\^|\*\*)\s*3(?![\d.])", " cubed "),
    (r"\^|\*\*", " to the power of "),
    (r"%(?=\s*of\b)", " percent "), (r"%(?=\s*[\d(])", " mod "), (r"%", " percent "),
    (r"\*|×|(?<=\d)\s*x\s*(?=\d)", " times "), (r"/|÷", " divided by "),
    (r"\+", " plus "), (r"(?<![a-z])[-−](?![a-z])", " minus "),
]
_GROUP_FIRST = re.compile(r"^\(([^()]+)\)\s*(.+)$")
"""'(2 + 3) * 4': a bracketed start reads aloud as '2 plus 3, times 4'."""


def spoken_sum(said: str, value: float) -> str:
    """The answer as a sentence to speak: the sum in the user's words, symbols read as words
    ('(2 + 3) * 4' -> '2 plus 3, times 4, is 20.'), or 'The answer is 20.' when its
    brackets cannot be read aloud unambiguously. Inexact results are rounded and say so."""
    rounded = round(value, 4)
    exact = math.isclose(rounded, value, rel_tol=1e-12, abs_tol=1e-12)  # sin(30) is 0.5
    answer = f"{'' if exact else 'about '}{spoken_number(rounded)}"
    words = _TAIL.sub("", _LEAD.sub("", said.strip()))
    for pattern, replacement in _SYMBOLS:
        words = re.sub(pattern, replacement, words)
    group = _GROUP_FIRST.match(words.strip())
    if group:
        words = f"{group[1]}, {group[2]},"
    words = " ".join(words.split()).replace(" ,", ",")
    if not words or re.search(r"[^\w\s,.'-]", words):  # brackets or signs left
        return f"The answer is {answer}."
    return f"{words[0].upper()}{words[1:]} is {answer}."


# Unit conversion: each dimension maps unit names to their size in its base unit.
_UNITS: dict[str, dict[str, float]] = {
    "length": {"meter": 1, "m": 1, "kilometer": 1000, "km": 1000, "centimeter": 0.01,
               "cm": 0.01, "millimeter": 0.001, "mm": 0.001, "inch": 0.0254, "in": 0.0254,
               "foot": 0.3048, "ft": 0.3048, "yard": 0.9144, "yd": 0.9144,
               "mile": 1609.344, "mi": 1609.344, "nautical mile": 1852, "nmi": 1852},
    "mass": {"gram": 1, "g": 1, "kilogram": 1000, "kg": 1000, "kilo": 1000,
             "milligram": 0.001, "mg": 0.001, "tonne": 1e6, "metric ton": 1e6, "ton": 907184.74,
             "ounce": 28.349523125, "oz": 28.349523125, "pound": 453.59237, "lb": 453.59237,
             "stone": 6350.29318, "st": 6350.29318},
    "volume": {"liter": 1, "l": 1, "milliliter": 0.001, "ml": 0.001, "centiliter": 0.01,
               "cl": 0.01, "deciliter": 0.1, "dl": 0.1, "cubic meter": 1000, "m3": 1000,
               "gallon": 3.785411784, "gal": 3.785411784, "imperial gallon": 4.54609,
               "quart": 0.946352946, "qt": 0.946352946, "pint": 0.473176473, "pt": 0.473176473,
               "imperial pint": 0.56826125, "cup": 0.2365882365,
               "fluid ounce": 0.0295735295625, "fl oz": 0.0295735295625,
               "tablespoon": 0.01478676478125, "tbsp": 0.01478676478125,
               "teaspoon": 0.00492892159375, "tsp": 0.00492892159375},
    "speed": {"meter per second": 1, "m/s": 1, "mps": 1, "kilometer per hour": 1 / 3.6,
              "km/h": 1 / 3.6, "kph": 1 / 3.6, "kmh": 1 / 3.6,
              "mile per hour": 0.44704, "mph": 0.44704, "knot": 0.514444, "kn": 0.514444,
              "foot per second": 0.3048, "ft/s": 0.3048},
    "time": {"second": 1, "s": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "h": 3600,
             "hr": 3600, "day": 86400, "week": 604800, "year": 31557600, "month": 2629800,
             "millisecond": 0.001, "ms": 0.001},
    "temperature": {"celsius": 1, "c": 1, "centigrade": 1, "fahrenheit": 1, "f": 1,
                    "kelvin": 1, "k": 1},
}
_TEMPERATURE = {  # (to kelvin, from kelvin)
    "celsius": (lambda v: v + 273.15, lambda k: k - 273.15),
    "fahrenheit": (lambda v: (v - 32) * 5 / 9 + 273.15, lambda k: (k - 273.15) * 9 / 5 + 32),
    "kelvin": (lambda v: v, lambda k: k),
}
_TEMP_NAMES = {"c": "celsius", "centigrade": "celsius", "f": "fahrenheit", "k": "kelvin"}


def find_unit(name: str) -> tuple[str, str]:
    """(dimension, canonical unit name) for a forgiving unit name: 'Kilometres', 'km/h',
    'degrees F', 'miles per hour'."""
    t = name.lower().replace("°", " ").replace("metre", "meter").replace("litre", "liter")
    t = re.sub(r"\b(?:degrees?|deg)\b", " ", t)
    t = re.sub(r"\bsquare\b|\bsq\b", "square", t)
    t = " ".join(re.sub(r"[^a-z0-9/ ]", " ", t).split())
    t = re.sub(r"\s*/\s*", "/", t)
    tries = [t, re.sub(r"(?<=[a-z])s\b", "", t), t.replace("feet", "foot"),
             re.sub(r"(?<=[a-z])es\b", "", t), t.replace("inches", "inch")]
    for guess in tries:
        for dimension, units in _UNITS.items():
            if guess in units:
                return dimension, _TEMP_NAMES.get(guess, guess)
    known = "; ".join(f"{d}: {', '.join(u for u in units if len(u) > 3)}"
                      for d, units in _UNITS.items())
    raise ToolError(f"I don't know the unit {name!r}. Known units - {known}.")


def convert(value: float, from_unit: str, to_unit: str) -> tuple[float, str, str]:
    """(converted value, from name, to name)."""
    dim_a, a = find_unit(from_unit)
    dim_b, b = find_unit(to_unit)
    if dim_a != dim_b:
        raise ToolError(f"cannot convert {dim_a} ({from_unit}) to {dim_b} ({to_unit}).")
    if dim_a == "temperature":
        return _TEMPERATURE[b][1](_TEMPERATURE[a][0](value)), a, b
    units = _UNITS[dim_a]
    return value * units[a] / units[b], a, b


_NUMBER = r"(-?\d+(?:\.\d+)?)"
_CONVERSIONS = [  # (pattern, group of value, from, to)
    (rf"^(?:convert\s+)?{_NUMBER}\s*(.+?)\s+(?:in|to|into|as)\s+(.+?)$", (1, 2, 3)),
    (rf"^how\s+many\s+(.+?)\s+(?:is|are|in|are\s+in|is\s+in)\s+{_NUMBER}\s*(.+?)$", (2, 3, 1)),
]


def as_conversion(text: str) -> tuple[float, str, str] | None:
    """(value, from, to) when a 'calculation' is really a unit conversion: small models send
    "10 miles in kilometers" to the calculator."""
    t = numbers_in(text.lower()).strip(" ?.!")
    for pattern, (v, a, b) in _CONVERSIONS:
        match = re.match(pattern, t)
        if match:
            try:
                find_unit(match.group(a))
                find_unit(match.group(b))
            except ToolError:
                return None
            return float(match.group(v)), match.group(a), match.group(b)
    return None


def _plural(unit: str, value: float) -> str:
    if value == 1 or unit in ("celsius", "fahrenheit", "kelvin") or "/" in unit \
            or (len(unit) <= 3 and unit not in ("day", "ton", "cup", "bar")):
        return unit
    if unit == "foot":
        return "feet"
    if unit == "inch":
        return "inches"
    words = unit.split(" ")
    words[0] += "s"
    return " ".join(words)


def make_tools() -> list[Tool]:
    """calculate and convert_units."""

    @tool(speaks_result=True, grounded=("expression",))
    def calculate(expression: str) -> Outcome:
        """Arithmetic: + - * /, powers, percentages, square roots, e.g. "15 percent of 80".

        Args:
            expression: the sum, in words or symbols like (2 + 3) * 4.
        """
        conversion = as_conversion(expression)
        if conversion:
            return convert_units(*conversion)
        result = evaluate(to_expression(expression))
        return Outcome(spoken_sum(expression, result),
                       (Ref("number", "made", label=expression, value=float(result)),))

    def convert_units(value: float, from_unit: str, to_unit: str) -> Outcome:
        """Convert units of length, weight, volume, temperature, speed or time, e.g. "5
        miles in kilometers".

        Args:
            value: the amount to convert.
            from_unit: the unit the amount is in.
            to_unit: the unit the user wants.
        """
        result, a, b = convert(value, from_unit, to_unit)
        shown = spoken_number(round(result, 4) if abs(result) >= 0.01 else result)
        return Outcome(f"{spoken_number(value)} {_plural(a, value)} is "
                       f"{shown} {_plural(b, result)}.",
                       (Ref("number", "made", label=f"{value:g} {a} in {b}", value=result),))

    return [calculate, tool(convert_units, speaks_result=True, counted=("value",))]
