"""A time said on one place's clock and asked on another's, however the sentence runs ("if i
land at 6 pm tokyo time what time will that be back in london", "when here is 3 in the
afternoon what is the time in tokyo"), and how far apart two places' clocks are ("how many
hours ahead is paris from new york", "KL and tokyo differ how many hours").

Templates know the orders people usually say these in; this reads the parts wherever they
are: the clock time said, the places named (after "in", "at", "from", before "time", ...),
the user's own clock ("here", "my time"), and what is asked (the lexicon's `time_asked`,
`hours_apart_asked`). The place next to the time is the one whose clock it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voiceagent.errors import ToolError
from voiceagent.intents.slots.text import Args
from voiceagent.intents.slots.times import place
from voiceagent.language import lexicon, tokens
from voiceagent.language.lexicon import token_spans
from voiceagent.language.numbers import SMALL
from voiceagent.tools.words import parse_clock_time

MOST_WORDS = 30
"""Longer than this is a story, not a question about two clocks."""
_LONGEST_TIME = 5
_LONGEST_PLACE = 3
_NEAR = 2
"""At most this many words between a time and the place whose clock it is ("6:30 in the
morning in karachi", "3 pm tokyo time")."""


@dataclass(frozen=True)
class _Said:
    """A part of the sentence and where it is (word positions, end exclusive)."""

    value: str
    start: int
    end: int

    def gap(self, other: _Said) -> int:
        """How many words lie between the two."""
        return max(other.start - self.end, self.start - other.end)

    def near(self, other: _Said) -> bool:
        return self.gap(other) <= _NEAR


def time_between_places(text: str) -> Args | None:
    """convert_time's arguments for a time asked between two clocks, or for how far apart
    they are; None unless a place, and what is asked, are said plainly."""
    said = tokens(text)
    if not said or len(said) > MOST_WORDS:
        return None
    lex = lexicon()
    time = _time(text, said)
    places = _places(said, time)
    if lex.has("hours_apart_asked", said) and lex.has("hours_apart_words", said):
        named = _distinct(places)
        if len(named) == 2 and time is None:
            return {"to_place": named[0].value, "time": "", "from_place": named[1].value}
        return None
    if time is None or not lex.has("time_asked", said):
        return None
    here = [_Said("here", start, end) for start, end in lex.find("own_clock", said)
            if not (start < time.end and time.start < end)]
    clocks = [p for p in [*places, *here] if p.near(time)]
    if not clocks:
        return None
    source = min(clocks, key=time.gap)
    others = [p for p in places if p.value.lower() != source.value.lower()]
    if not others and source.value != "here" and here:
        others = here
    if len({p.value.lower() for p in others}) != 1:
        return None
    return {"to_place": others[0].value, "time": time.value,
            "from_place": "" if source.value == "here" else source.value}


def _time(text: str, said: list[str]) -> _Said | None:
    """The first clock time said, as many of its words as read as one ("6:30 in the
    morning", "6 p.m.", "half past seven"), as written; a time needs a number in it or a
    named time ("noon")."""
    numeric = re.compile(r"\d")
    named = lexicon().words("clock_named") | lexicon().words("clock_leads")
    spans = token_spans(text)
    for start in range(len(said)):
        if not (numeric.search(said[start]) or said[start] in SMALL or said[start] in named):
            continue
        for end in range(min(len(said), start + _LONGEST_TIME), start, -1):
            words = text[spans[start][0]:spans[end - 1][1]]
            try:
                parse_clock_time(words)
            except ToolError:
                continue
            return _Said(words, start, end)
    return None


def _places(said: list[str], time: _Said | None) -> list[_Said]:
    """The places named where a place is said: after "in", "at", "from", "between", ...,
    or before "time" ("tokyo time"), the longest name first; "here" is not among them, nor
    the time's words."""
    lex = lexicon()
    before, after = lex.words("place_before"), lex.words("place_after")
    found: list[_Said] = []
    taken: set[int] = set(range(time.start, time.end)) if time else set()
    for at in range(len(said)):
        for size in range(_LONGEST_PLACE, 0, -1):
            start, end = at, at + size
            if end > len(said) or taken & set(range(start, end)):
                continue
            cued = (start > 0 and said[start - 1] in before) or (
                end < len(said) and said[end] in after)
            words = " ".join(said[start:end])
            if not cued or lex.is_one("here", said[start:end]) or set(said[start:end]) & (
                    lex.words("function_words")):
                continue
            named = place(words)
            if named is not None:
                found.append(_Said(named["place"], start, end))
                taken |= set(range(start, end))
                break
    return found


def _distinct(places: list[_Said]) -> list[_Said]:
    """Each place once, in the order first named."""
    seen: dict[str, _Said] = {}
    for p in places:
        seen.setdefault(p.value.lower(), p)
    return list(seen.values())
