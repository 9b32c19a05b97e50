"""A time said on a 24-hour clock ("oh five forty five", "0545", "twenty two hundred hours",
"1430"), read as (hour, minute, "am"/"pm" or None) for language/spoken_time.clock_time. The
words are the lexicon's (`number_parts` nought, `twenty_four_hour_tails`)."""

from __future__ import annotations

import re

from voiceagent.language.lexicon import lexicon
from voiceagent.language.numbers import SCALES, SMALL, numbers_in

_LEX = lexicon()
_NOUGHT = _LEX.names("number_parts")["nought"]
_HUNDRED = next(word for word, size in SCALES.items() if size == 100)
_NOUGHTS = {_NOUGHT, *(word for word, value in SMALL.items() if value == 0)}
_HOURS_AFTER = _LEX.words("twenty_four_hour_tails")


def twenty_four_hour(words: list[str]) -> tuple[int, int, str | None] | None:
    """A time said on a 24-hour clock: "oh five forty five" and "0545" (5:45 am), "twenty
    two hundred hours" (22:00), "1430". Said with its nought or its hundred the hour is
    exact; "730" leaves am or pm open, as "7:30" does."""
    if len(words) > 1 and words[-1] in _HOURS_AFTER and (
            words[-2] == _HUNDRED or re.fullmatch(r"\d{3,4}", words[-2])):
        words = words[:-1]  # "2200 hours", "oh six hundred hours"
    nought = len(words) > 1 and words[0] in _NOUGHTS
    said = words[1:] if nought else words
    hundred = len(said) > 1 and said[-1] == _HUNDRED
    digits = len(said) == 1 and re.fullmatch(r"\d{3,4}", said[0]) is not None
    if not (nought or hundred or digits):
        return None
    if said[0] in SMALL and not hundred and len(said) > 1:
        hour, minute = SMALL[said[0]], numbers_in(" ".join(said[1:]))  # "oh five forty five"
    else:
        number = numbers_in(" ".join(said))  # "six hundred", "twenty two hundred", "0545"
        if not number.isdigit() or len(number) < 3:
            return None
        hour, minute = int(number[:-2]), number[-2:]
    if not minute.isdigit() or hour > 23 or int(minute) > 59:
        return None
    exact = nought or hundred or said[0].startswith("0") or hour > 12
    if not exact:
        return hour, int(minute), None
    return hour, int(minute), "am" if hour < 12 else "pm" if hour == 12 else None
