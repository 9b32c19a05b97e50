"""A word a transcript wrote for another that sounds the same ("timer four 7 minutes for the
eggs": "for"; "set timer to minutes": "two", before a unit of time only), tried one at a
time, only when the words as written give no command. The pairs are the lexicon's
`homophones` and `numbers_as_words`. And a first word whose start the recogniser cut off
("imer for ten minutes", "ncel the timer"): the command word it is the end of (lexicon
`clipped_firsts`), when only one is. A dialect's words (`dialect_words`) are read all at once.
"""

from __future__ import annotations

from collections.abc import Callable

from voiceagent.intents.match import LocalMatch
from voiceagent.language import lexicon
from voiceagent.language.numbers import heard_as_number


def respelled(said: str, command: Callable[[str], LocalMatch | None]) -> LocalMatch | None:
    """The command `said` gives with one word read as the word it sounds like; None."""
    sounds = lexicon().names("homophones")
    words = said.split()
    whole = _unclipped(words[0]) if words else ""
    dialect = lexicon().names("dialect_words")
    plain = [dialect.get(w.lower(), w) for w in words]
    for reading in ([whole, *words[1:]] if whole else [], plain if plain != words else []):
        found = command(" ".join(reading)) if reading else None
        if found is not None:
            return found
    for at, word in enumerate(words):
        meant = sounds.get(word.lower()) or heard_as_number(words, at)
        if meant:
            found = command(" ".join([*words[:at], meant, *words[at + 1:]]))
            if found is not None:
                return found
    return None


CLIPPED = 3
"""At most this many letters of a first word are cut off, and at least this many heard."""


def _unclipped(word: str) -> str:
    """The one command word `word` is the end of, a few letters cut off ("imer": "timer");
    "" when it is no such end or could be several."""
    heard = word.lower()
    whole = [w for w in lexicon().words("clipped_firsts")
             if w.endswith(heard) and 0 < len(w) - len(heard) <= CLIPPED <= len(heard)]
    return whole[0] if len(whole) == 1 else ""
