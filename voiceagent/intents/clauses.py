"""Where one clause of an utterance ends and the next begins, with or without punctuation.

A transcript often has no comma where the speaker paused between a remark and a command
("okay pasta's in the water set a pasta timer for 11 minutes", "nah take the monster off my
mom's gonna kill me", "the hotel is 250 kilometres from the airport how far is that in
miles"). The matcher tries such an utterance as two clauses cut at each word boundary where
a clause can end and begin, and keeps a cut only when one part is a whole command and the
other an aside (`is_aside`) — or the last part points at what the first told.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from voiceagent.intents.match import LocalMatch
from voiceagent.language import lexicon, tokens
from voiceagent.language.asking import is_request
from voiceagent.language.numbers import numbers_in

_CLAUSE = re.compile(r"\s*[,.;!?]\s+|\s*[.;!?]$")
SHORTEST = 2
"""Words in the shortest clause of an unpunctuated cut."""
LONGEST = 24
"""Words in the longest utterance cut without punctuation (each cut costs a match)."""


def punctuated(text: str) -> list[str]:
    """The clauses the transcript's own punctuation marks."""
    return [c for c in _CLAUSE.split(text) if c.strip()]


def unpunctuated_cuts(text: str) -> Iterator[tuple[str, str]]:
    """(first, rest) at each word boundary where one clause may end and another begin,
    first the earliest: not after a word that needs the next ("for", "the", "my") nor before
    one that goes on from the last ("in", "off", "of"). Nothing for a punctuated
    utterance (its commas are the cuts) or a long one."""
    if len(punctuated(text)) > 1:
        return
    words = text.split()
    if len(words) > LONGEST:
        return
    lex = lexicon()
    ends, starts = lex.words("trailing"), lex.words("clause_not_first")
    for at in range(SHORTEST, len(words) - SHORTEST + 1):
        last, first = tokens(words[at - 1])[-1:], tokens(words[at])[:1]
        if last and first and last[0] not in ends and first[0] not in starts:
            yield " ".join(words[:at]), " ".join(words[at:])


def is_aside(part: str, *, after: bool = False, beside: str = "") -> bool:
    """`part` may be left out of a command said beside it: a remark ("my mom's gonna kill
    me", "okay pasta's in the water", "no sorry i meant"), not a question or a request of
    its own, and with nothing a command takes from words (a day, a time of day, a number
    the command `beside` it does not say too).
    Said `after` the command it opens on a subject ("my", "it's": lexicon "subjects"), or it
    may go on from it ("what's the time | complexity of quicksort")."""
    said = tokens(part)
    lex = lexicon()
    why = next((n for n in (2, 1) if lex.is_one("reasons", said[:n])), 0)  # "so i remember"
    if lex.is_one("checks_done", said) or after and lex.is_one("asked_again", said):
        return True  # "did that go through | how many timers have i got": the read answers
    return (len(said) >= SHORTEST and not is_request(part, said[why:])
            and (not after or said[0] in lex.words("subjects"))
            and set(re.findall(r"\d+", numbers_in(part))) <= set(  # "ten was right | go
                re.findall(r"\d+", numbers_in(beside)))  # back to ten": no number dropped
            and not (set(said) & (lex.words("days") | lex.words("clock_words"))))


def beside_an_aside(text: str, read: Callable[[str], list[LocalMatch]],
                    command: Callable[[str], LocalMatch | None]) -> list[LocalMatch]:
    """What `read` finds in one part of `text` cut without punctuation, the other part an
    aside that is no `command` of its own; said after it, the aside may not correct it ("set
    an alarm for 7 no wait": the user is not done). A part said first may be a correction
    the user starts over after ("no sorry i meant | twelve times seventy")."""
    for first, rest in unpunctuated_cuts(text):
        for part, aside, before in ((rest, first, True), (first, rest, False)):
            if (is_aside(aside, after=not before, beside=part)
                    and (before or not lexicon().has("correction", aside))
                    and command(aside) is None):
                found = read(part)
                if found:
                    return found
    return []
