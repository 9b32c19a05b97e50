"""The judge's English, read from phrases.toml: refusals, negations, hedges and claim classes.

Phrasing is data: a reader extends a word set in the TOML without touching the checks.
Terms are matched on the lexicon's tokens (lower case, apostrophes kept), with "*" for any
one word and "**" for up to four, so "your * list" covers "your shopping list".
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceagent.language.lexicon import tokens

PHRASES = Path(__file__).with_name("phrases.toml")
"""The bundled judge phrases (package data)."""

Term = tuple[str, ...]


@dataclass(frozen=True)
class ClaimClass:
    """One kind of claim an answer can make, and what backs it (see phrases.toml)."""

    name: str
    terms: tuple[Term, ...] = ()
    tools: frozenset[str] = frozenset()
    values: tuple[Term, ...] = ()
    value_patterns: tuple[re.Pattern[str], ...] = ()
    markers: tuple[Term, ...] = ()
    conversation: bool = False
    """Tool results of earlier turns back it too (what is on a list), not only this turn's."""
    requests: bool = False
    """Only checked when the user asked for something to be done."""

    @property
    def about_values(self) -> bool:
        """A claim about live values (the time): needs a value and a marker."""
        return bool(self.values or self.value_patterns)


@dataclass(frozen=True)
class Phrases:
    """Every word set the judge uses."""

    refusal: tuple[Term, ...]
    negation: tuple[Term, ...]
    hedge: tuple[Term, ...]
    contrast: frozenset[str]
    claims: tuple[ClaimClass, ...]
    ordinals: tuple[str, ...] = ()
    """Days of the month as words, the n-th meaning day n."""


def _terms(raw: Any, where: str) -> tuple[Term, ...]:
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        raise ValueError(f"{where} must be a list of words or phrases")
    return tuple(tuple(t.split()) if "*" in t else tuple(tokens(t)) for t in raw if t.strip())


def load_phrases(path: Path = PHRASES) -> Phrases:
    """The word sets of `path`; a malformed entry names its key."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    claims = []
    for name, raw in data.get("claims", {}).items():
        where = f"{path}: claims.{name}"
        claims.append(ClaimClass(
            name=name,
            terms=_terms(raw.get("terms", []), f"{where}.terms"),
            tools=frozenset(raw.get("tools", [])),
            values=_terms(raw.get("values", []), f"{where}.values"),
            value_patterns=tuple(re.compile(p, re.I) for p in raw.get("value_patterns", [])),
            markers=_terms(raw.get("markers", []), f"{where}.markers"),
            conversation=bool(raw.get("conversation", False)),
            requests=bool(raw.get("requests", False)),
        ))
    return Phrases(
        refusal=_terms(data.get("refusal", []), f"{path}: refusal"),
        negation=_terms(data.get("negation", []), f"{path}: negation"),
        hedge=_terms(data.get("hedge", []), f"{path}: hedge"),
        contrast=frozenset(t[0] for t in _terms(data.get("contrast", []), f"{path}: contrast")),
        claims=tuple(claims),
        ordinals=tuple(" ".join(t) for t in _terms(data.get("ordinals", []),
                                                   f"{path}: ordinals")),
    )


@functools.cache
def phrases() -> Phrases:
    """The bundled phrases, loaded on first use."""
    return load_phrases()


def _match_at(term: Term, words: list[str], at: int) -> int | None:
    """The end of `term` matched at word `at`, or None."""
    if not term:
        return None
    head, rest = term[0], term[1:]
    if head == "**":
        for skip in range(0, 5):
            end = _match_at(rest, words, at + skip) if rest else at + skip
            if end is not None and at + skip <= len(words):
                return end
        return None
    if at >= len(words) or (head != "*" and words[at] != head):
        return None
    return _match_at(rest, words, at + 1) if rest else at + 1


def found(terms: tuple[Term, ...], text: str | list[str]) -> list[str]:
    """The terms of `terms` that occur in `text`, as the words they matched."""
    words = tokens(text) if isinstance(text, str) else text
    hits = []
    for term in terms:
        for at in range(len(words)):
            end = _match_at(term, words, at)
            if end is not None:
                hits.append(" ".join(words[at:end]))
                break
    return hits


_SUFFIX = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")


def digits(text: str) -> str:
    """`text` (lower case) with days of the month as digits: "twenty seventh" and "27th" are
    "27"; a bare "second" is left alone."""
    text = _SUFFIX.sub(r"\1", text)
    if not any(o.split()[-1] in text for o in phrases().ordinals):
        return text
    for n, word in sorted(enumerate(phrases().ordinals, 1), key=lambda kv: -len(kv[1])):
        if word != "second":
            text = re.sub(rf"\b{re.escape(word)}\b", str(n), text)
    return text


def refuses(text: str) -> bool:
    """`text` says plainly that something cannot be done."""
    return bool(found(phrases().refusal, text))


def beside_refusals(sentence: str) -> list[str]:
    """The words of `sentence` that are not a refusal: all of them when it refuses nothing,
    else those after a contrast word that follows the refusal ("..., but Hamlet was ...")."""
    words = tokens(sentence)
    if not refuses(sentence):
        return words
    for at, word in enumerate(words):
        if word in phrases().contrast and refuses(" ".join(words[:at])):
            return words[at + 1:]
    return []
