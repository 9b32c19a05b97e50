"""Numbers as words and back, from one table (the lexicon's numbers.yaml): the assistant says
1,250 as "one thousand two hundred fifty", 3.05 as "three point zero five", 1999 (a year) as
"nineteen ninety-nine"; the tools read "twenty five" as 25 and "two point five" as 2.5.

Speech recognition writes numbers either way, and small models pass the user's words through,
so whatever is said as words here reads back as the same number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from voiceagent.language.lexicon import lexicon
from voiceagent.language.templates import Found

_LEX = lexicon()
SMALL: dict[str, int] = {w: int(v) for w, v in _LEX.values("cardinals").items()}
"""Number words and their values: "zero" 0 ... "nineteen" 19, "twenty" 20 ... "ninety" 90."""
SCALES: dict[str, int] = {w: int(v) for w, v in
                          sorted(_LEX.values("scales").items(), key=lambda kv: -kv[1])}
"""Scale words and their values, largest first ("trillion" ... "hundred")."""
_WORD_OF = {v: w for w, v in SMALL.items()}
_BIG = {w: v for w, v in SCALES.items() if v >= 1000}
_HUNDRED = next(w for w, v in SCALES.items() if v == 100)
_IRREGULAR = {word: ordinal for ordinal, word in _LEX.names("ordinal_words").items()}
_PARTS = _LEX.names("number_parts")
_MINUS = _LEX.names("symbols")["-"]


def cardinal(n: int) -> str:
    """0 -> "zero", 42 -> "forty-two", 1_000_001 -> "one million one"; digits past 10^15."""
    if n < 0:
        return f"{_MINUS} {cardinal(-n)}"
    if n >= 10**15:
        return digits(str(n))
    if n < 20:
        return _WORD_OF[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _WORD_OF[tens * 10] + (f"-{_WORD_OF[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_WORD_OF[hundreds]} {_HUNDRED}" + (f" {cardinal(rest)}" if rest else "")
    for name, value in _BIG.items():
        if n >= value:
            high, rest = divmod(n, value)
            return f"{cardinal(high)} {name}" + (f" {cardinal(rest)}" if rest else "")
    raise AssertionError("unreachable")


def decimal(text: str) -> str:
    """ "3.5" -> "three point five", "1250" -> "one thousand two hundred fifty"."""
    whole, _, frac = text.partition(".")
    words = cardinal(int(whole or "0"))
    return words + (f" {_PARTS['point']} {digits(frac)}" if frac else "")


def digits(text: str) -> str:
    """Each digit on its own, for phone numbers and codes: "007" -> "zero zero seven"."""
    return " ".join(_WORD_OF[int(d)] for d in text if d.isdigit())


def ordinal(n: int) -> str:
    """1 -> "first", 22 -> "twenty-second", 100 -> "one hundredth"."""
    words = cardinal(n)
    head, sep, last = words.rpartition("-" if "-" in words.split()[-1] else " ")
    if last in _IRREGULAR:
        last = _IRREGULAR[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last


def year(n: int) -> str:
    """1999 -> "nineteen ninety-nine", 2005 -> "two thousand five", 2024 -> "twenty twenty-four"."""
    high, low = divmod(n, 100)
    if 2000 <= n < 2010 or low == 0 and n % 1000 == 0:
        return cardinal(n)
    if low == 0:
        return f"{cardinal(high)} {_HUNDRED}"
    return f"{cardinal(high)} " + (f"{_PARTS['nought']} {_WORD_OF[low]}" if low < 10
                                   else cardinal(low))


# --- reading them back --------------------------------------------------------------------------

_WORD = "|".join(sorted([*SMALL, *SCALES], key=len, reverse=True))
_AND = re.escape(_PARTS["and"])
_RUN = re.compile(rf"\b(?:{_WORD})(?:(?:[\s-]+|\s+{_AND}\s+)(?:{_WORD}))*\b", re.I)
_POINT = re.compile(rf"(\d+) {re.escape(_PARTS['point'])} (\d+)")


def _value(words: list[str]) -> int:
    total = current = 0
    for i, w in enumerate(words):
        if w in SMALL:
            last, value = current % 100, SMALL[w]
            if value < 10 and i and SMALL.get(words[i - 1], 10) < 10:
                current = current * 10 + value  # digit by digit: "one five" 15, "one zero" 10
            elif last == 0 or (last % 10 == 0 and last >= 20 and value < 10):
                current += value  # "one hundred five", "twenty five"
            else:
                current = current * 100 + value  # "twelve fifty", "nineteen ninety nine"
        elif SCALES[w] == 100:
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * SCALES[w]
            current = 0
    return total + current


def numbers_in(text: str) -> str:
    """Replace runs of number words with digits; "point" joins decimals ("two point five")."""

    def run(match: re.Match[str]) -> str:
        numbers: list[list[str]] = [[]]
        for w in re.split(r"[\s-]+", match.group(0).lower()):
            if w != _PARTS["and"]:
                numbers[-1].append(w)
            elif numbers[-1][-1] not in SCALES:  # "five and five eighths": two numbers
                numbers.append([])
        return f" {_PARTS['and']} ".join(str(_value(words)) for words in numbers)

    return _POINT.sub(r"\1.\2", _RUN.sub(run, text))


def ordinals(upto: int = 31) -> dict[str, int]:
    """Ordinal words and their numbers, "first" 1 ... "thirty first" 31 (hyphens as spaces),
    for reading dates ("the twenty first of June")."""
    return {ordinal(n).replace("-", " "): n for n in range(1, upto + 1)}


# --- amounts ------------------------------------------------------------------------------------

NUMBER = r"\d+(?:\.\d+)?"
"""A number written in digits."""
_FRACTIONS = _LEX.values("fractions")
_COUNTS = _LEX.values("count_words")


def numbers_meant(text: str) -> list[str]:
    """The numbers that words of `text` stand for without a digit or a number word: "half"
    0.5 and 1/2, "a third" 0.3333333333 and 1/3, "double" 2; a call that writes them as
    numbers ("0.5 times 144" for "half of that") uses only what the user said."""
    from voiceagent.language.plural import singular

    stands = {**_FRACTIONS, **_LEX.values("multipliers")}
    meant = [stands[singular(w)] for w in re.findall(r"[a-z]+", text.lower())
             if singular(w) in stands]
    return [form for n in meant
            for form in (f"{n:.10g}", str(Fraction(n).limit_denominator(100)))]


def amounts(text: str, unit: str) -> str:
    """`text` in lower case, its numbers as digits, and spoken fractions and counts folded
    into the number before a unit (`unit`, a regular expression): "an hour and a half" ->
    "1.5 hour", "three quarters of an hour" -> "0.75 hour", "a couple of minutes" ->
    "2 minutes"."""
    from voiceagent.language.plural import plural, singular

    slots = {"n": f"{NUMBER}|{_LEX.regex('count_words')}", "m": NUMBER, "unit": unit,
             "written": r"\d+/[1-9]\d*",
             "fraction": _LEX.regex("fractions"),
             "fractions": "|".join(map(plural, _FRACTIONS)), "count": _LEX.regex("count_words")}

    def amount(said: str) -> float:
        return float(said) if said[:1].isdigit() else _COUNTS[said.lower()]

    def part(said: str) -> float:
        return _FRACTIONS[singular(said.lower())]

    def whole_and_fraction(found: Found) -> str:
        said = found.slots
        return f"{amount(said['n']) + part(said['fraction']):.10g} {said['unit']}"

    def parts_of(found: Found) -> str:
        said = found.slots
        return f"{amount(said['n']) * part(said['fractions']):.10g} {said['unit']}"

    def part_of(found: Found) -> str:
        return f"{part(found.slots['fraction']):.10g} {found.slots['unit']}"

    def counted(found: Found) -> str:
        return f"{amount(found.slots['count']):.10g} {found.slots['unit']}"

    def share_of(found: Found) -> str:
        said = found.slots
        share = amount(said["n"]) * part(said["fractions"]) if said.get("fractions") else (
            part(said["fraction"]))
        return f"{share * amount(said['m']):.10g} {said['unit']}"

    def written(found: Found) -> str:
        over, under = found.slots["written"].split("/")
        return f"{amount(over) / amount(under):.10g} {found.slots['unit']}"

    text = numbers_in(text.lower())
    for name, fold in (("share_of", share_of), ("whole_and_fraction", whole_and_fraction),
                       ("parts_of", parts_of), ("part_of", part_of),
                       ("written_part", written), ("counted", counted)):
        text = _LEX.templates(name, slots).sub(text, fold)
    return text


def sum_amounts(text: str) -> str:
    """Fractions said in a sum (`text` with its numbers as digits), as arithmetic that keeps
    them exact: "5 and a half" -> "(5 + 1/2)", "5 and 5 eighths" -> "(5 + 5/8)", "5 and 3/4"
    -> "(5 + 3/4)", "3 quarters of 250" -> "3/4 * 250", "half of 10" -> "1/2 * 10", and
    "a 100" (a hundred) -> "100"."""
    from voiceagent.language.plural import plural, singular

    parts = _LEX.names("fractions")
    slots = {"n": NUMBER, "m": NUMBER, "written": r"\d+/\d+",
             "fraction": _LEX.regex("fractions"), "fractions": "|".join(map(plural, parts))}

    def part(said: str) -> str:
        return str(parts[singular(said.lower())])

    def of_parts(said: dict[str, str]) -> str:
        over = part(said["fractions"]).partition("/")[2]
        return f"{said['m']}/{over}"

    folds = {
        "whole_and_part": lambda f: f"({f.slots['n']} + {part(f.slots['fraction'])})",
        "whole_and_parts": lambda f: f"({f.slots['n']} + {of_parts(f.slots)})",
        "whole_and_written": lambda f: f"({f.slots['n']} + {f.slots['written']})",
        "parts_times": lambda f: f"{of_parts(f.slots)} *",
        "part_times": lambda f: f"{part(f.slots['fraction'])} *",
        "one_number": lambda f: f.slots["n"],
    }
    for name, fold in folds.items():
        text = _LEX.templates(name, slots).sub(text, fold)
    return text


WRITTEN_AMOUNT = re.compile(r"\d+(?:[.,:/]\d+)*")


def amounts_in(text: str, said: Sequence[str], number_words: frozenset[str]) -> int:
    """How many amounts `text` names: numbers written in digits ("345 + 789" two, "7:30"
    one) and runs of number words ("twenty five" one, "seventeen and twenty five" two)."""
    runs, before = 0, False
    for word in said:
        now = word in number_words
        runs += now and not before
        before = now
    return len(WRITTEN_AMOUNT.findall(text)) + runs


def heard_as_number(words: Sequence[str], at: int) -> str:
    """The number word the transcript's `words[at]` sounds like, when a unit of time follows
    it ("set timer to minutes": "two"); "" otherwise (lexicon `numbers_as_words`)."""
    after = words[at + 1].lower().rstrip("s") if at + 1 < len(words) else ""
    if after not in _LEX.table("durations"):
        return ""
    return str(_LEX.names("numbers_as_words").get(words[at].lower(), ""))
