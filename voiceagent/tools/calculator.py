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
from voiceagent.language import lexicon, say
from voiceagent.language.conversions import spelt_either_way
from voiceagent.language.numbers import NUMBER, numbers_in, sum_amounts
from voiceagent.language.plural import plural, singular
from voiceagent.language.spoken_time import UNITS
from voiceagent.tools.quantities import mixed_amounts
from voiceagent.tools.time_sums import clock_span, length_ratio, time_sum
from voiceagent.tools.units import as_conversion, convert, find_unit, said

__all__ = ["as_conversion", "convert", "evaluate", "find_unit", "make_tools", "spoken_number",
           "spoken_sum", "to_expression"]

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

_LEX = lexicon()
_SUM_WORDS = _LEX.pattern("sum_words")
_SIGNS = _LEX.names("symbols")
_OPENER = re.compile(rf"^\s*(?:{_LEX.regex('sum_openers')})\s+", re.I)
_FILLERS = _LEX.pattern("sum_fillers")
_WRITTEN = re.compile(r"%(?!\s*[\d(])|[×÷−^]|(?<=\d)\s*x\s*(?=\d)")
"""Signs read as their words before the words are read as operators ("20% of 50" is "20
percent of 50"); a % before a number is Python's own (mod)."""


def _counted_units(*kinds: str) -> str:
    """Units a sum counts in ("3 hours * 60 minutes"): the names of units of time and money
    ("84 dollars"), or of `kinds` of size, as said one or several, in either spelling
    ("metre"). A noun that counts ("dozen") is a number."""
    sizes = _LEX.table("unit_sizes")
    names = ([n for kind in kinds for n in sizes.get(kind, {})] if kinds else
             [*_LEX.table("durations"), *sizes.get("time", {}), *_LEX.phrases("money")])
    return "|".join(sorted({form for n in names for spelt in spelt_either_way(n)
                            for form in (spelt, plural(spelt))}, key=len, reverse=True))


_UNIT_AFTER_NUMBER = re.compile(rf"(\d)\s*(?:{_counted_units()})\b")
_SIZE_AFTER_NUMBER = re.compile(rf"(\d)\s*({_counted_units('length', 'mass', 'volume')})\b")
"""A size a sum counts in, when all its amounts are in one unit ("2.4 metres divided by 5");
"2 litres plus 500 millilitres" is no sum of numbers."""
_NUM = r"\d+(?:\.\d+)?"
_PERCENT_ON = re.compile(rf"(?:^|(?<=[(+-]))\s*({_NUM})\s*([+-])\s*({_NUM})\s*/\s*100"
                         rf"(?!\s*[*\d(])")
"""A share added to or taken from what it is a share of, as a calculator reads it: '3500
plus 15 percent' is 3500 * 1.15, not 3500.15; whole, before what follows ('26 plus 15
percent divided by 4' is 29.90 / 4)."""
_TRAILER = re.compile(rf"\s+(?:{_LEX.regex('sum_trailers')})\s*[?.!]?\s*$")
"""'... at 2.49 each one': each thing counted, no number."""
_WORD_PER_WORD = re.compile(r"(?<=[a-z])\s*/\s*(?=[a-z])")
"""A slash between words is "per" ("24 cells/tray"), not a division."""
_GROUPS_OF = re.compile(rf"({_NUM})\s+([a-z]+)\s+of\s+({_NUM})(?=\s+[a-z])")
"""'4 trays of 24 cells': so many groups of so many."""
_ON_TOP = re.compile(rf"({_NUM})\s*(?:percent|per cent)\s+(?:{_LEX.regex('shares_on_top')})"
                     rf"(?:\s+on\s+top)?\s+(?:on|of|for|to)\s+({_NUM})")
"""'15 percent markup on 212': 212 with 15 percent of it on top."""
_OUT_OF = re.compile(rf"({_NUM})\s+(?:{_LEX.regex('out_of')})\s+({_NUM})"
                     rf"(\s+(?:{_LEX.regex('as_percent')})\b)?")
"""'34 out of 40' is 34 / 40; '... as a percentage', that times 100 (never 34 * 40)."""
_WHAT_SHARE = re.compile(rf"(?:(?:{_LEX.regex('what_share')})\s+(?:is\s+)?({_NUM})"
                         rf"|({_NUM})\s+is\s+(?:{_LEX.regex('what_share')}))"
                         rf"\s+(?:of|out of|from)\s+({_NUM})")
"""'what percent is 34 of 40', '34 is what percent of 40': 34 / 40 * 100."""


def _unit_names(seconds: float) -> str:
    """The words for the unit of time of `seconds` (spoken_time.UNITS), for a pattern."""
    return "|".join(sorted((w for w, size in UNITS.items() if size == seconds), key=len,
                           reverse=True))


_HOURS_AND_MINUTES = re.compile(rf"({_NUM})\s*(?:{_unit_names(3600)})\s+(?:and\s+)?({_NUM})"
                                rf"(?:\s*(?:{_unit_names(60)})\b)?(?!\s*[a-z\d])")
"""'1 hour 38 minutes' in a sum is 1 + 38/60 hours ("42 km / 1 hour 38 minutes")."""
_SHARED = re.compile(rf"^(.+?)\s+(?:{_LEX.regex('sum_shares')})\s+({_NUM})"
                     rf"(?:\s+(?:{_LEX.regex('share_nouns')}))?\s*$")
"""A sum's end sharing all of it out: "11.52 plus 64 split 4 ways" is 75.52 / 4."""
_PERCENT_OFF = re.compile(rf"({_NUM})\s*/\s*100\s+off\s+({_NUM})(?![\d.])")
"""'20 percent off 60': 60 less a fifth."""


def to_expression(text: str) -> str:
    """Spoken arithmetic to a Python-style expression: 'five times 3' -> '5 * 3'."""
    t = sum_amounts(_OPENER.sub("", numbers_in(_TRAILER.sub("", text.lower()))))
    t = re.sub(r"[$€£](?=\s*\d)", "", t.replace(",", "")).rstrip(" ?.!=")  # "$60": 60
    t = _WRITTEN.sub(lambda m: f" {_SIGNS[m[0].strip()]} ", t)
    t = _WORD_PER_WORD.sub(" per ", t)  # "24 cells/tray"
    t = _ON_TOP.sub(r" ( \2 + \2 * \1 / 100 ) ", t)
    t = _WHAT_SHARE.sub(lambda m: f" ( {m[1] or m[2]} / {m[3]} * 100 ) ", t)
    t = _OUT_OF.sub(lambda m: f" ( {m[1]} / {m[2]}{' * 100' if m[3] else ''} ) ", t)
    t = _HOURS_AND_MINUTES.sub(r" ( \1 + \2 / 60 ) ", t)
    t = _SHARED.sub(r"( \1 ) / \2", " ".join(t.split()))
    t = _SUM_WORDS.sub(lambda m: f" {_LEX.lookup('sum_words', m[0])} ", t)
    t = re.sub(rf"\b({'|'.join(_FUNCS)})\s+({NUMBER})", r"\1(\2)", t)
    t = _GROUPS_OF.sub(r"\1 \2 * \3", t)
    t = _FILLERS.sub(" ", t)
    t = _UNIT_AFTER_NUMBER.sub(r"\1", t)  # "3 hours * 60 minutes": the numbers are the sum
    if len({singular(m[2]) for m in _SIZE_AFTER_NUMBER.finditer(t)}) == 1:
        t = _SIZE_AFTER_NUMBER.sub(r"\1", t)
    t = _PERCENT_ON.sub(r" ( \1 \2 \1 * \3 / 100 ) ", t)
    t = _PERCENT_OFF.sub(r"\2 - \2 * \1 / 100", t)
    return " ".join(t.split())


_PER = re.compile(rf"\s+(?:{_LEX.regex('per_words')})\s+[a-z]+\b")
_NOUN = re.compile(r"(?<=[\d)])\s+[a-z]+(?:\s+[a-z]+)?\b(?=\s*(?:[-+*/%)]|$))")


def _counted(expression: str) -> str:
    """A sum of things counted, with the things' names left out when every number is still
    joined to the next by a sign: "18 people * 3 wings per person" is 18 * 3, "175 sugar / 4
    people * 8 people" 175 / 4 * 8. Anything else is left as it is, for the calculator to
    refuse to the model."""
    per_less = _PER.sub("", expression)
    units = set()
    for noun in _NOUN.findall(per_less):
        try:
            units.add(find_unit(noun.strip())[1])
        except ToolError:
            continue
    if len(units) > 1:
        return expression  # "2 litres plus 500 millilitres" is no sum of 2 and 500
    plain = _NOUN.sub("", per_less)
    names = set(_FUNCS) | set(_CONSTS)
    if re.search(r"[a-z]", plain) and not set(re.findall(r"[a-z]+", plain)) <= names:
        return expression
    return " ".join(plain.split())


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


FIGURES = 4
"""A conversion is said to this many figures, its whole part always whole: "226.8 grams",
"4.409 pounds", "259 hectares" (not "226.7962 grams": nobody weighs to a ten-thousandth)."""


def _said_to(value: float, figures: int) -> float:
    """`value` rounded to `figures` significant figures, but never into its whole part."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, max(0, figures - 1 - math.floor(math.log10(abs(value)))))


def spoken_number(value: float) -> str:
    """12.0 -> '12'; 1/3 -> '0.3333333333'; large values keep their digits."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.10g}"


_TAIL = re.compile(rf"(?:\s*(?:[?=.!]|\b(?:{_LEX.regex('sum_closers')})\b))+\s*$", re.I)
_OPERATORS: dict[str, str] = {}
for _phrase, _operator in _LEX.names("sum_words").items():
    _OPERATORS.setdefault(_operator, _phrase)  # an operator's first phrase is how it is said
_READ_BACK: list[tuple[str, Callable[[re.Match[str]], str]]] = [
    (r"\bsqrt\s*\(([^()]*)\)|\bsqrt\b\s*", lambda m: f" {_OPERATORS['sqrt']} {m[1] or ''} "),
    (r"(?:\^|\*\*)\s*([23])(?![\d.])", lambda m: f" {_OPERATORS[f'** {m[1]}']} "),
    (r"%(?=\s*[\d(])", lambda m: f" {_OPERATORS['%']} "),
    (r"(?<=\d)\s*x\s*(?=\d)|(?<![a-z])[-−](?![a-z])|\*\*|[*×/÷+^%]",
     lambda m: f" {_SIGNS[m[0].strip()]} "),
]
"""Signs read as words, in order: 'sqrt(2)' is 'the square root of 2', '^2' 'squared'."""
_GROUP_FIRST = re.compile(r"^\(([^()]+)\)\s*(.+)$")
"""'(2 + 3) * 4': a bracketed start reads aloud as '2 plus 3, times 4'."""


def spoken_sum(said: str, value: float) -> str:
    """The answer as a sentence to speak: the sum in the user's words, symbols read as words
    ('(2 + 3) * 4' -> '2 plus 3, times 4, is 20.'), or 'The answer is 20.' when its
    brackets cannot be read aloud unambiguously. Inexact results are rounded and say so."""
    rounded = round(value, 4)
    exact = math.isclose(rounded, value, rel_tol=1e-12, abs_tol=1e-12)  # sin(30) is 0.5
    answer = f"{'' if exact else 'about '}{spoken_number(rounded)}"
    words = _TAIL.sub("", _OPENER.sub("", _WORD_PER_WORD.sub(" per ", said.strip())))
    for pattern, replacement in _READ_BACK:
        words = re.sub(pattern, replacement, words)
    group = _GROUP_FIRST.match(words.strip())
    if group:
        words = f"{group[1]}, {group[2]},"
    words = " ".join(words.split()).replace(" ,", ",")
    if not words or re.search(r"[^\w\s,.'-]", words):  # brackets or signs left
        return f"The answer is {answer}."
    return f"{words[0].upper()}{words[1:]} is {answer}."


def make_tools() -> list[Tool]:
    """calculate and convert_units."""

    @tool(speaks_result=True, grounded=("expression",), recalls=True)
    def calculate(expression: str) -> Outcome:
        """Arithmetic: + - * /, powers, percentages, square roots, e.g. "15 percent of 80".

        Args:
            expression: the sum, in words or symbols like (2 + 3) * 4.
        """
        span = clock_span(expression)  # "from 6:05 to 7:40"
        summed = span or time_sum(expression)  # "2 minutes plus 30 seconds": not 32
        if summed:
            spoken = (say("span_said", terms=summed.terms, length=summed.said()) if span else
                      spoken_sum(summed.terms, 0).replace(" is 0.", f" is {summed.said()}."))
            return Outcome(spoken, (Ref("number", "made", label=expression,
                                        value=summed.seconds),))
        ratio = length_ratio(expression)  # "20 minutes / (40 seconds + 20 seconds)"
        if ratio is not None:
            return Outcome(spoken_sum(expression, ratio),
                           (Ref("number", "made", label=expression, value=ratio),))
        conversion = as_conversion(expression)
        if conversion:
            return convert_units(*conversion)
        mixed = mixed_amounts(expression, lambda sum_: evaluate(_counted(to_expression(sum_))))
        if mixed is not None:  # "27 kilos divided by 340 grams": 79.4 jars, not an error
            spoken = spoken_sum(expression, mixed.value)
            if mixed.unit:
                spoken = f"{spoken[:-1]} {said(mixed.unit, mixed.value)}."
            return Outcome(spoken, (Ref("number", "made", label=expression, value=mixed.value),))
        result = evaluate(_counted(to_expression(expression)))
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
        if singular(a) == singular(b):  # "2200 hours is 2200 hours": nothing was converted
            raise ToolError(f"{from_unit!r} and {to_unit!r} are the same unit: there is "
                            "nothing to convert. Answer what the user asked with the "
                            "calculator, or in words.")
        shown = spoken_number(_said_to(result, FIGURES))
        return Outcome(f"{spoken_number(value)} {said(a, value)} is "
                       f"{shown} {said(b, result)}.",
                       (Ref("number", "made", label=f"{value:g} {a} in {b}", value=result),))

    return [calculate, tool(convert_units, speaks_result=True, counted=("value",), recalls=True)]
