"""The numbers a user said, as a model may write them: a duration or a clock time in a call
must use only these ("start a stopwatch" became a 10-second timer, "add a reminder to buy
milk" a 7:30 alarm). The spoken parts ("half", "quarter", "a", "pm", "to the hour", "noon")
are the lexicon's."""

from __future__ import annotations

import re

from voiceagent.language import lexicon, tokens
from voiceagent.language.calendar_days import without_dates
from voiceagent.language.numbers import amounts, heard_as_number, ordinals
from voiceagent.tools.words import numbers_in

_FRACTION = re.compile(r"\b(\d+)\s*/\s*(\d+)\b")
_ORDINALS = sorted(((w, n) for w, n in ordinals(31).items() if w != "second"),
                   key=lambda wn: -len(wn[0]))
"""Days of the month said as ordinals ("the twenty fifth"), longest first; not "second",
which is mostly a length of time."""


def numbers_said(utterance: str) -> set[int]:
    """The numbers in `utterance`; a clock reading ("seven thirty" is 730) as its hour and
    minutes too; a fraction ("1/2 an hour") as the minutes of an hour it is too (30)."""
    text = utterance.lower().replace("-", " ")
    for words, n in _ORDINALS:  # "the twenty fifth of may": 25
        text = re.sub(rf"\b{words}\b", str(n), text)
    text = numbers_in(text)
    said = {int(n) for n in re.findall(r"\d+", text)}
    said |= {round(60 * int(p) / int(q)) for p, q in _FRACTION.findall(text) if int(q)}
    spoken = text.split()
    heard = [numbers_in(heard_as_number(spoken, at)) for at in range(len(spoken))]
    said |= {int(meant) for meant in heard if meant.isdigit()}  # "set timer to minutes": 2
    return said | {part for n in said if 100 <= n < 2400 and n % 100 < 60
                   for part in divmod(n, 100)}


def _one_of_a_unit(said: list[str]) -> bool:
    """"an hour", "one minute", "a minute and a half", "one o'clock"."""
    lex = lexicon()
    ones, units = lex.words("one") - {"per"}, lex.words("time_units")
    return any(w in ones and (said[i + 1:i + 2] and (said[i + 1] in units
                                                     or said[i + 1] == "o'clock"
                                                     or said[i + 1:i + 4] == ["and", "a", "half"]))
               for i, w in enumerate(said))


def _before_the_hour(said: list[str]) -> bool:
    """"quarter to seven", "ten to six", "... to 7 pm": minutes before an hour."""
    befores = lexicon().words("before_hour")
    return any(w in befores and 0 < i < len(said) - 1 for i, w in enumerate(said)) or (
        len(said) >= 2 and said[-2] in befores)


def says_no_number(utterance: str) -> bool:
    """Nothing in it could be a length of time or a clock time ("Set an alarm."; "remind me
    on fifth april": a date's day is neither)."""
    lex = lexicon()
    utterance = without_dates(utterance)
    said = tokens(utterance)
    return not (numbers_said(utterance) or lex.has("half", said) or lex.has("quarter", said)
                or _one_of_a_unit(said) or lex.has("noon", said))


def says_one(utterance: str) -> bool:
    """An amount of one, as said before a unit ("a pound", "per hour")."""
    return lexicon().has("one", utterance)


def says_amount(value: float, utterance: str) -> bool:
    """`utterance` states `value` as an amount of something with its fractions ("three
    eighths of an inch" 0.375, "an ounce and a half" 1.5, "3/8 inch" 0.375)."""
    folded = amounts(numbers_in(utterance.lower()), r"[a-z]+")
    stated = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", folded)]
    stated += [int(p) / int(q) for p, q in _FRACTION.findall(folded) if int(q)]
    return any(abs(n - value) < 1e-9 for n in stated)


def unsaid_numbers(value: str, utterance: str) -> list[str]:
    """The numbers in `value` (a duration, a clock time) the user did not say, allowing the
    ways a model writes what was said: "half an hour" 30 minutes, "quarter past" 15, "an
    hour" 1, "3 pm" 15:00, "noon" 12:00, "1 hour 30 minutes" 90 minutes, and zeros ("7:00").
    A date's day is no clock time: "remind me on fifth april" said no 5:00 PM (the 1.5B's)."""
    lex = lexicon()
    value, utterance = without_dates(value), without_dates(utterance)
    words = tokens(utterance)
    said = numbers_said(utterance)
    for number in re.findall(r"\d+\.\d+", utterance):  # "1.5 hours": 1 hour 30 minutes
        whole, part = divmod(float(number), 1)
        said |= {int(whole), round(part * 60)}
    if lex.has("half", words):
        said |= {30, 5}
    if lex.has("quarter", words):
        said |= {15, 45, 25}
    if _one_of_a_unit(words):
        said.add(1)
    if lex.has("noon", words):
        said |= {12, 24}
    if lex.has("afternoon", words):
        said |= {n + 12 for n in said if n <= 12}
    said |= {n - 12 for n in said if 12 < n < 24}  # "15:00" said, "3 PM" written
    if _before_the_hour(words):  # "quarter to seven", "ten to six"
        said |= {n - 1 for n in said if n > 0} | {60 - n for n in said if 0 < n < 60}
    said |= {h * 60 + m for h in said for m in said | {0} if h < 24 and m < 60}
    written = re.findall(r"\d+", numbers_in(value.lower()))
    return [n for n in written if int(n) != 0 and int(n) not in said]


_HALF = re.compile(rf"(?<=\d)\s*(?:{lexicon().regex('meridiem')})(?![\w.])", re.I)


def without_unsaid_half(value: str, utterance: str) -> str:
    """`value` (a clock time in a call) without an "am" or "pm" the user gave no word for:
    "twelve o clock on saturday" was called "12:00 AM saturday", midnight; left out, the
    alarm takes whichever twelve comes first. `value` itself when nothing is left out."""
    words = tokens(numbers_in(utterance.lower()))
    lex = lexicon()
    if (_HALF.search(" ".join(words)) or lex.has("day_parts", words)
            or lex.has("named_times", words) or lex.has("same_day", words)):
        return value
    return " ".join(_HALF.sub("", re.sub(r"(?i)\b([ap])\.\s?m\.", r"\1m", value)).split())
