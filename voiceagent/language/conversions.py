"""Whether a request asks to convert: two units of one kind named ("how many miles is a
10 km run", "oven. two hundred celsius. fahrenheit?"), from units.yaml's `unit_sizes`. Such a
request is a sum's (the converter's), whatever else it names ("oven" is no device to reach
then), and a number in its answer must come from the converter. Also the one place that
knows units' two spellings ("litre" and "liter"), for every reader of unit names."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from voiceagent.language.lexicon import lexicon
from voiceagent.language.plural import singular


def as_written(text: str) -> str:
    """`text` with units spelled as units.yaml spells them ("litre" -> "liter",
    "kilometres" -> "kilometers")."""
    for said, written in lexicon().names("unit_respellings").items():
        text = text.replace(said, written)
    return text


def spelt_either_way(name: str) -> set[str]:
    """A unit's name as units.yaml writes it and as it may be spelt ("liter", "litre")."""
    return {name} | {name.replace(written, said)
                     for said, written in lexicon().names("unit_respellings").items()
                     if written in name}


def converts(said: Sequence[str]) -> bool:
    """Two units of one kind are named in `said` (its tokens): a conversion, not a fact
    about one amount ("how many calories are in 100 grams of rice")."""
    words = {form for w in said for form in (w, singular(w))}
    named: dict[str, set[str]] = {}
    for word in words | {as_written(w) for w in words}:
        for kind, name in _units_named_by().get(word, ()):
            named.setdefault(kind, set()).add(name)
    return any(len(names) >= 2 for names in named.values())


@functools.cache
def _units_named_by() -> dict[str, frozenset[tuple[str, str]]]:
    """Word -> the (kind, unit) it names: every spelling of units.yaml's `unit_sizes`, and
    `other_kind_names` ("30 mil shots out of a litre": millilitres)."""
    lex = lexicon()
    found: dict[str, set[tuple[str, str]]] = {}
    kind_of: dict[str, str] = {}
    for kind, units in lex.table("unit_sizes").items():
        for name, row in units.items():
            kind_of[name] = kind
            for spelling in {name, *(row[1:] if isinstance(row, list) else ())}:
                found.setdefault(spelling, set()).add((kind, name))
    for word, name in lex.names("other_kind_names").items():
        if name in kind_of:
            found.setdefault(word, set()).add((kind_of[name], name))
    return {word: frozenset(units) for word, units in found.items()}
