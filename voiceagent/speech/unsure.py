"""An amount the recogniser is unsure of: never acted on.

The real "set a timer for 5 minutes", cut after "for", came out "Set a timer for two
hours." with "two" at 0.18; a duration, a number or a count in a request is what a write acts
on, so a number word or a unit of time heard below `AMOUNT_FLOOR` makes the transcript
doubtful: questions are still answered, but nothing that changes anything runs and the user
is asked to say it again. (On real spoken coffee orders, clear numbers scored 0.8-0.99 and
misheard ones 0.15-0.32; units of weight are often low even when right, so only units of
time count.)
"""

from __future__ import annotations

import re

from voiceagent.language import lexicon
from voiceagent.ports import Transcript

AMOUNT_FLOOR = 0.5


def unsure_amount(heard: Transcript, *, floor: float = AMOUNT_FLOOR, last: int = 0) -> str:
    """Why an amount in `heard` (in its `last` words, when given) is a guess ("" when none
    is): the word and its probability, below `floor`."""
    lex = lexicon()
    amounts = lex.words("number_words") | lex.words("time_units") | {
        u + "s" for u in lex.words("time_units")}
    for word, probability in heard.words[-last:] if last else heard.words:
        parts = [p for p in re.split(r"[-\s]+", word.lower().strip(".,!?;:\"'")) if p]
        if probability < floor and any(p in amounts or p[:1].isdigit() for p in parts):
            return f"unsure of {word.strip(' .,!?')!r} ({probability:.2f})"
    return ""
