"""A word a transcript wrote for another that sounds the same ("timer four 7 minutes for the
eggs": "for"; "set timer to minutes": "two", before a unit of time only), tried one at a
time, only when the words as written give no command. The pairs are the lexicon's
`homophones` and `numbers_as_words`."""

from __future__ import annotations

from collections.abc import Callable

from voiceagent.intents.match import LocalMatch
from voiceagent.language import lexicon
from voiceagent.language.numbers import heard_as_number


def respelled(said: str, command: Callable[[str], LocalMatch | None]) -> LocalMatch | None:
    """The command `said` gives with one word read as the word it sounds like; None."""
    sounds = lexicon().names("homophones")
    words = said.split()
    for at, word in enumerate(words):
        meant = sounds.get(word.lower()) or heard_as_number(words, at)
        if meant:
            found = command(" ".join([*words[:at], meant, *words[at + 1:]]))
            if found is not None:
                return found
    return None
