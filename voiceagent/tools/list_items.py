"""A list's items as said: "eggs, milk and bread", "sunglasses a plug adapter and my
swimsuit", "bread to my shopping list" -> each thing once, without where it goes."""

from __future__ import annotations

import re

from voiceagent.errors import ToolError
from voiceagent.language import lexicon
from voiceagent.language.numbers import SMALL

_LEX = lexicon()
_LIST_NAME = r"[\w'-]+(?:\s+[\w'-]+)?"
_WHERE = _LEX.templates("item_destinations", {"name": _LIST_NAME}).regex.pattern
_DESTINATION = re.compile(rf"(?:^|\s)(?:{_WHERE})\s*$", re.I)
"""Where the items go, said with them: "bread to my shopping list" (the model passes it on)."""
_OPENER = re.compile(rf"^\s*(?:{_LEX.regex('item_openers')})\s+")
_LEAD = re.compile(rf"^\s*(?:{_LEX.regex('item_leads')})\s+")
_JOINERS = re.compile(rf",|;|\n|&|\b(?:{_LEX.regex('joiners')})\b")
_TRAILERS = re.compile(rf"(?:\s+(?:{_LEX.regex('item_trailers')}))+\s*$")


def split_items(text: str) -> list[str]:
    """'eggs, milk and bread' -> ['eggs', 'milk', 'bread']; 'milk and then to my shopping
    list' -> ['milk']."""
    items: list[str] = []
    for part in [piece for joined in _JOINERS.split(text.lower())
                 for piece in _counted_apart(_LEAD.sub("", _DESTINATION.sub(
                     "", joined.strip(" .!?\"'"))))]:
        part = _DESTINATION.sub("", part.strip(" .!?\"'"))
        part = _OPENER.sub("", part).strip(" .!?\"'")
        part = _TRAILERS.sub("", part)  # "coffee too"
        if _LEX.templates("no_item").match(part):
            # the 0.5B passed "put it" for "We're out of coffee, put it on the shopping list"
            raise ToolError(f"{part!r} names no item: pass the things themselves, as the user "
                            "named them (e.g. items='coffee').")
        if part and not _LEX.is_one("not_items", part) and part not in items:
            items.append(part)
    return _described(items)


def items_said(text: str) -> list[str]:
    """`split_items` for what the user said, not what the model passed: words that name no
    item by themselves ("the ict suite one") are one part, to be found among the items."""
    try:
        return split_items(text)
    except ToolError:
        return [text.strip()]


def _counted_apart(part: str) -> list[str]:
    """Items said without a comma between them, each opened by a word that starts one or a
    number: 'sunglasses a plug adapter' -> ['sunglasses', 'a plug adapter']; 'half a dozen
    eggs' and 'a bag of 12 rolls' are one."""
    words = part.split()
    starts = _LEX.words("item_starts")
    cuts = [at for at in range(1, len(words) - 1)
            if (words[at] in starts or words[at].isdigit() or words[at] in SMALL)
            and words[at - 1] not in _LEX.words("item_start_governors")
            and not words[at - 1].isdigit() and words[at - 1] not in SMALL]
    pieces, start = [], 0
    for at in cuts:
        pieces.append(" ".join(words[start:at]))
        start = at
    pieces.append(" ".join(words[start:]))
    return pieces


def _described(items: list[str]) -> list[str]:
    """Items with "the ADJ ones" folded into the item before them: ['tea bags', 'ordinary
    ones'] -> ['ordinary tea bags'] (nothing said is dropped, nothing added as an item)."""
    kept: list[str] = []
    for item in items:
        words = item.split()
        if not words or words[-1] not in _LEX.words("pro_forms"):
            kept.append(item)
            continue
        said = [w for w in words[:-1] if w not in _LEX.words("determiners")]
        if not kept:
            raise ToolError(f"{item!r} names no item: pass the things themselves, as the user "
                            "named them.")
        kept[-1] = " ".join([*said, kept[-1]])
    return kept
