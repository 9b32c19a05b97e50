"""What every slot reader shares: the reader's shape and the cleaning of the user's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voiceagent.language import lexicon, tokens

Args = dict[str, Any]
"""The tool arguments a reader gives for its slot."""
Reader = Callable[[str], Args | None]
"""The user's words for one slot -> its arguments, or None: that reading is rejected."""


def strip_edges(text: str) -> str:
    """The words without the quotes and punctuation around them."""
    return text.strip(" \t\"'.,!?;:…-")


def read_two(text: str, read: Callable[[str, str], Args | None], *,
             longest_first: bool = True) -> Args | None:
    """Two slots said with no word between them ("10 minute pasta", "nine am cst", "84
    dollars four"): a template cannot tell where one ends, so every cut of the words is
    tried, the longest first part first (or the shortest), until `read` takes both parts."""
    words = strip_edges(text).split()
    cuts = range(len(words) - 1, 0, -1) if longest_first else range(1, len(words))
    for cut in cuts:
        found = read(" ".join(words[:cut]), " ".join(words[cut:]))
        if found is not None:
            return found
    return None


def without_articles(text: str) -> str:
    """`text` without the determiners before it ("the pasta" -> "pasta"), case kept."""
    words = strip_edges(text).split()
    determiners = lexicon().words("determiners")
    while words and words[0].lower() in determiners:
        words.pop(0)
    return " ".join(words)


def is_term(set_name: str, text: str) -> bool:
    """`text` is, as a whole, one term of the lexicon's set `set_name`."""
    return tuple(tokens(text)) in lexicon().terms(set_name)
