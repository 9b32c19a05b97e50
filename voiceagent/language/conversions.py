"""Whether a request asks to convert: two units of one kind named ("how many miles is a
10 km run", "oven. two hundred celsius. fahrenheit?"), from units.yaml's `unit_sizes`. Such a
request is a sum's (the converter's), whatever else it names ("oven" is no device to reach
then), and a number in its answer must come from the converter."""

from __future__ import annotations

from collections.abc import Sequence

from voiceagent.language.lexicon import lexicon
from voiceagent.language.plural import singular


def converts(said: Sequence[str]) -> bool:
    """Two units of one kind are named in `said` (its tokens): a conversion, not a fact
    about one amount ("how many calories are in 100 grams of rice")."""
    lex = lexicon()
    sizes = lex.table("unit_sizes")
    kind_of = {name: kind for kind, units in sizes.items() for name in units}
    others = lex.names("other_kind_names")  # "30 mil shots out of a litre": millilitres
    respelt = lex.names("unit_respellings")  # "litre", "kilometres"
    words = {form for w in said for form in (w, singular(w))}
    words |= {_respelt(w, respelt) for w in words}
    named: dict[str, set[str]] = {}
    for kind, units in sizes.items():
        for name, row in units.items():
            spellings = {name, *(row[1:] if isinstance(row, list) else ())}
            if words & spellings:
                named.setdefault(kind, set()).add(name)
    for word in words & set(others):
        if others[word] in kind_of:
            named.setdefault(kind_of[others[word]], set()).add(others[word])
    return any(len(names) >= 2 for names in named.values())


def _respelt(word: str, respellings: dict[str, str]) -> str:
    """`word` as units.yaml spells units ("litre" -> "liter", "kilometre" -> "kilometer")."""
    for said, written in respellings.items():
        word = word.replace(said, written)
    return word
