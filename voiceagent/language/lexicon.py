"""The lexicon: named word sets read from `language/<code>/lexicon.yaml`, loaded once.

Code names a set ("negation", "stop", "trailing") and asks whether words of it occur; which
words those are is data a reader can extend without touching Python.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable

import yaml

from voiceagent.errors import ConfigError

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")


def tokens(text: str) -> list[str]:
    """Lower-case words of `text`, apostrophes kept inside words ("don't"), curly quotes
    read as straight ones."""
    return _TOKEN.findall(text.lower().replace("\u2019", "'"))


@dataclass(frozen=True)
class Lexicon:
    """The word sets of one language."""

    language: str
    sets: dict[str, tuple[tuple[str, ...], ...]]
    """Each set's terms, each term as its words."""
    folder: Traversable
    """The language's folder (templates, lexicon, sentences to say)."""
    pairs_: dict[str, tuple[tuple[str, str], ...]] = dataclasses.field(default_factory=dict)
    """Tables of two columns ("plural_endings": ("ies", "y"), ...)."""

    def terms(self, name: str) -> tuple[tuple[str, ...], ...]:
        try:
            return self.sets[name]
        except KeyError:
            raise KeyError(f"no word set {name!r} in the {self.language} lexicon "
                           f"(known: {', '.join(sorted(self.sets))})") from None

    def words(self, name: str) -> frozenset[str]:
        """The one-word terms of set `name`."""
        return frozenset(t[0] for t in self.terms(name) if len(t) == 1)

    def find(self, name: str, text: str | Sequence[str]) -> list[tuple[int, int]]:
        """(start, end) word positions of each term of set `name` in `text` (a string or
        its tokens), left to right, longest term first where two start at one word."""
        said = tokens(text) if isinstance(text, str) else list(text)
        found: list[tuple[int, int]] = []
        terms = sorted(self.terms(name), key=len, reverse=True)
        at = 0
        while at < len(said):
            for term in terms:
                if tuple(said[at:at + len(term)]) == term:
                    found.append((at, at + len(term)))
                    at += len(term) - 1
                    break
            at += 1
        return found

    def has(self, name: str, text: str | Sequence[str]) -> bool:
        """Some term of set `name` occurs in `text`."""
        return bool(self.find(name, text))

    def only(self, name: str, text: str | Sequence[str], *,
             besides: Iterable[str] = ()) -> bool:
        """Every word of `text` belongs to a term of set `name` (or of the sets `besides`),
        and there is at least one: "Okay, stop." is only stop words and fillers."""
        said = tokens(text) if isinstance(text, str) else list(text)
        covered = [False] * len(said)
        for set_name in (name, *besides):
            for start, end in self.find(set_name, said):
                covered[start:end] = [True] * (end - start)
        return bool(self.find(name, said)) and all(covered)

    def pairs(self, name: str) -> tuple[tuple[str, str], ...]:
        """The rows of table `name`."""
        try:
            return self.pairs_[name]
        except KeyError:
            raise KeyError(f"no table {name!r} in the {self.language} lexicon") from None

    def singular(self, word: str) -> str:
        """`word` without a plural ending ("tomatoes" -> "tomato", "berries" -> "berry"),
        by the table "plural_endings"; short words are left as they are."""
        word = word.removesuffix("'s")
        for ending, instead in self.pairs("plural_endings"):
            if word.endswith(ending) and len(word) > len(ending) + 2:
                return word[: -len(ending)] + instead
        return word

    def file(self, name: str) -> Traversable:
        """Another data file of this language (templates, sentences to say)."""
        return self.folder / name


def _load(language: str) -> Lexicon:
    folder = resources.files("voiceagent.language") / language
    path = folder / "lexicon.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ConfigError(f"no lexicon for language {language!r} ({path})") from None
    sets: dict[str, tuple[tuple[str, ...], ...]] = {}
    pairs: dict[str, tuple[tuple[str, str], ...]] = {}
    for name, terms in data.items():
        if isinstance(terms, list) and all(isinstance(t, list) and len(t) == 2
                                           and all(isinstance(c, str) for c in t)
                                           for t in terms):
            pairs[name] = tuple((a, b) for a, b in terms)
            continue
        if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
            raise ConfigError(f"{path}: {name} must be a list of words or phrases, or of "
                              "two-column rows")
        sets[name] = tuple(tuple(tokens(t)) for t in terms if tokens(t))
    return Lexicon(language, sets, folder, pairs)


@functools.cache
def lexicon(language: str = "en") -> Lexicon:
    """The lexicon of `language`, loaded on first use and shared."""
    return _load(language)
