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
