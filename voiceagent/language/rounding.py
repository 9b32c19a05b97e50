"""Precision asked of a result ("... in grams to the nearest gram", "to the nearest whole
number"): those words say how to round, not where something is (the nearest chemist), so the
topics do not read them. The words are the lexicon's (numbers.yaml rounding_leads,
rounding_targets) and its units (units.yaml unit_sizes, time.yaml durations)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from voiceagent.language.lexicon import lexicon, tokens
from voiceagent.language.plural import singular


@functools.cache
def _targets() -> frozenset[str]:
    lex = lexicon()
    units = [name for kind in lex.table("unit_sizes").values() for name in kind]
    words = [*units, *lex.table("durations"), *lex.phrases("rounding_targets")]
    return frozenset(w for name in words for w in tokens(str(name))[:1])


def without_rounding(said: Sequence[str]) -> list[str]:
    """`said` with each lead of a precision ("nearest" before "gram", "whole", "tenth")
    blanked: what is left names no place."""
    leads = lexicon().words("rounding_leads")
    return ["" if w in leads and i + 1 < len(said) and singular(said[i + 1]) in _targets()
            else w for i, w in enumerate(said)]
