"""Every length of time a sentence holds, wherever it is in it ("the pasta needs eleven
minutes"): what a call's length must be one of, what "set a timer for that" points at, and
what puts a request on the timers' topic."""

from __future__ import annotations

import re

from voiceagent.language.lexicon import lexicon, tokens
from voiceagent.language.numbers import NUMBER, numbers_in
from voiceagent.language.spoken_time import UNITS, duration

LONGEST = 7
"""Words in the longest length people say ("one hour and a half minutes" has six)."""


_FRACTION = re.compile(r"\b(\d+)\s*/\s*(\d+)\s+(?:an?\s+)?")


def lengths_said(utterance: str) -> set[float]:
    """Every length of time in `utterance`, in seconds ("5 minutes and 30 seconds": 300, 30,
    330; "1/2 an hour": 1800), and each number in it in the units it says."""
    text = _FRACTION.sub(lambda m: f"{int(m[1]) / max(1, int(m[2])):g} ", utterance.lower())
    said = re.findall(r"\d+(?:\.\d+)?|[a-z']+", text)
    found: set[float] = set()
    for start in range(len(said)):
        for end in range(start + 1, min(len(said), start + LONGEST) + 1):
            said_length = duration(" ".join(said[start:end]))
            if said_length is not None and said_length.seconds:
                found.add(said_length.seconds)
    units = {UNITS[w] for w in said if w in UNITS} if found else set()
    return found | {float(n) * unit for n in re.findall(NUMBER, numbers_in(text))  # "12 minutes
                    for unit in units}  # for the ribs and 4 for the fries": 4 minutes too



def length_alone(utterance: str) -> bool:
    """A clause of `utterance` says a length of time and nothing else but its fillers
    (lexicon "length_clause_fillers"): "right, thirty minutes, letting the silicone skin
    over", "another. lamb resting, six minutes" ask for one kept."""
    lex = lexicon()
    for clause in re.split(r"[,.;:!?]\s*", utterance.lower()):
        said = tokens(clause)
        while said and lex.is_one("length_clause_fillers", said[:1]):
            said = said[1:]
        if len(said) > 1 and lex.is_one("length_clause_fillers", said[:2]):
            said = said[2:]
        if said and duration(" ".join(said)) is not None:
            return True
    return False
