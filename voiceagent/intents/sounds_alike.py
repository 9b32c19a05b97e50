"""A word a transcript wrote for another that sounds the same ("timer four 7 minutes for the
eggs": "for"; "set timer to minutes": "two", before a unit of time only), tried one at a
time, only when the words as written give no command. The pairs are the lexicon's
`homophones` and `numbers_as_words`."""

from __future__ import annotations

from collections.abc import Callable

from voiceagent.intents.match import LocalMatch
from voiceagent.language import lexicon


def respelled(said: str, command: Callable[[str], LocalMatch | None]) -> LocalMatch | None:
    """The command `said` gives with one word read as the word it sounds like; None."""
    sounds, numbers = lexicon().names("homophones"), lexicon().names("numbers_as_words")
    units = set(lexicon().table("durations"))
    words = said.split()
    for at, word in enumerate(words):
        after = words[at + 1].lower().rstrip("s") if at + 1 < len(words) else ""
        meant = sounds.get(word.lower()) or (numbers.get(word.lower()) if after in units
                                             else None)
        if meant is not None:
            found = command(" ".join([*words[:at], meant, *words[at + 1:]]))
            if found is not None:
                return found
    return None
