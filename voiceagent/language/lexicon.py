"""The lexicon: named word sets, tables and templates read from `language/<code>/*.yaml`, loaded
once.

Code names a set ("negation", "stop", "trailing") and asks whether words of it occur, or a
table ("relative_days", "units") and reads its values; which words those are is data a reader
can extend without touching Python. Each file maps names to
- a list: a word set (terms are words or phrases; a term `<name>` includes set `name`), or a
  list of two-column rows ([[date, time], ...]),
- a mapping: a table (term -> value: a number, a string, a list or a mapping), whose keys
  are a word set too,
- under the key `templates`: named lists of sentence templates in hassil's syntax
  (templates.py), for the few phrases with a structure ("in {n} days").
A name is defined once across all files.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from importlib.abc import Traversable
from typing import Any

from voiceagent.errors import ConfigError
from voiceagent.language.data_file import load_data
from voiceagent.language.templates import Templates

FILES = ("lexicon.yaml", "numbers.yaml", "time.yaml", "units.yaml", "written.yaml",
         "places.yaml")
"""The files of a language's lexicon (the sentence templates and say.yaml are read apart)."""

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")
_INCLUDE = re.compile(r"^<(\w+)>$")

Term = tuple[str, ...]


def tokens(text: str) -> list[str]:
    """Lower-case words of `text`, apostrophes kept inside words ("don't"), curly quotes
    read as straight ones."""
    return _TOKEN.findall(text.lower().replace("\u2019", "'"))


def token_spans(text: str) -> list[tuple[int, int]]:
    """Where each of `tokens(text)` stands in `text` (start, end): to cut words out of a
    text without losing its punctuation ("12:00 p.m.")."""
    return [m.span() for m in _TOKEN.finditer(text.lower().replace("\u2019", "'"))]


def _without_apostrophes(term: Sequence[str]) -> Term:
    """("valentine's", "day") -> ("valentines", "day"): how a transcript may write it."""
    return tuple(w.replace("'", "") for w in term)


def said(text: str) -> str:
    """`text` as its words: "St. Patrick's Day!" -> "st patrick's day"."""
    return " ".join(tokens(text))


def number(value: Any, where: str) -> float:
    """A table's number: 60, 0.5 or a fraction written "5/9"."""
    if isinstance(value, bool):
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(Fraction(str(value)))
    except (ValueError, ZeroDivisionError):
        raise ConfigError(f"{where}: expected a number such as 60, 0.5 or 5/9, "
                          f"got {value!r}") from None


def alternation(terms: Iterable[Term]) -> str:
    """A regular expression source matching any of `terms`: longest first, the words of a
    phrase apart by spaces or a hyphen, apostrophes straight or curly."""
    ordered = sorted(set(terms), key=lambda t: (-len(" ".join(t)), t))
    return "|".join(r"(?:\s+|\s*-\s*)".join(re.escape(w).replace("'", "['\u2019]")
                                            for w in term) for term in ordered)


@dataclass(frozen=True)
class Lexicon:
    """The word sets, tables and templates of one language."""

    language: str
    sets: dict[str, tuple[Term, ...]]
    """Each set's terms, each term as its words (a table's keys are a set too)."""
    folder: Traversable
    """The language's folder (templates, lexicon, sentences to say)."""
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each table: its keys as written, and their values."""
    patterns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each named list of templates, as written."""
    pairs_: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Lists of two-column rows, in order ("tool_synonyms": ("date", "time"), ...)."""
    _made: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def terms(self, name: str) -> tuple[Term, ...]:
        try:
            return self.sets[name]
        except KeyError:
            raise KeyError(f"no word set {name!r} in the {self.language} lexicon "
                           f"(known: {', '.join(sorted(self.sets))})") from None

    def words(self, name: str) -> frozenset[str]:
        """The one-word terms of set `name`."""
        return frozenset(t[0] for t in self.terms(name) if len(t) == 1)

    def phrases(self, name: str) -> tuple[str, ...]:
        """The terms of set `name` as text, in order: ("never mind", "stop", ...)."""
        return tuple(" ".join(t) for t in self.terms(name))

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

    def is_one(self, name: str, text: str | Sequence[str]) -> bool:
        """All of `text` is one term of set `name` ("the day after tomorrow")."""
        said = tuple(tokens(text) if isinstance(text, str) else text)
        return said in self._index(name)

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

    # --- tables ------------------------------------------------------------------------------

    def table(self, name: str) -> dict[str, Any]:
        """Table `name`: its keys as written, and their values."""
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"no table {name!r} in the {self.language} lexicon "
                           f"(known: {', '.join(sorted(self.tables))})") from None

    def values(self, name: str) -> dict[str, float]:
        """Table `name` whose values are numbers (60, 0.5, "5/9")."""
        return self._typed(name, "values", lambda v, where: number(v, where))

    def names(self, name: str) -> dict[str, str]:
        """Table `name` whose values are words or phrases."""
        def text(value: Any, where: str) -> str:
            if not isinstance(value, str | int | float) or isinstance(value, bool):
                raise ConfigError(f"{where}: expected a word or phrase, got {value!r}")
            return str(value)
        return self._typed(name, "names", text)

    def pairs(self, name: str) -> tuple[tuple[str, str], ...]:
        """The rows of the two-column list `name`, in order."""
        try:
            return self.pairs_[name]
        except KeyError:
            raise KeyError(f"no table {name!r} in the {self.language} lexicon") from None

    def lookup(self, name: str, text: str | Sequence[str]) -> Any:
        """The value of the entry of table `name` that is all of `text` (case, punctuation
        and spacing ignored: "St. Patrick's Day" finds "st patrick's day"; apostrophes too, as
        transcripts drop them: "valentines day"); None if none."""
        said = tuple(tokens(text) if isinstance(text, str) else text)
        index = self._index(name)
        key = index.get(said) or index.get(_without_apostrophes(said))
        return None if key is None else self.table(name)[key]

    # --- patterns ----------------------------------------------------------------------------

    def regex(self, name: str) -> str:
        """A regular expression source matching any term of set `name` (alternation())."""
        return alternation(self.terms(name))

    def pattern(self, name: str) -> re.Pattern[str]:
        """Any term of set `name` as whole words, case ignored."""
        key = ("pattern", name)
        if key not in self._made:
            self._made[key] = re.compile(rf"\b(?:{self.regex(name)})\b", re.I)
        return self._made[key]  # type: ignore[no-any-return]

    def templates(self, name: str, slots: Mapping[str, str] | None = None) -> Templates:
        """The templates `name`, compiled: `{slot}` captures what `slots` gives for it (a
        regular expression; by default the terms of the word set of that name), `<set>`
        matches a term of that set."""
        given = dict(slots or {})
        key = ("templates", name, tuple(sorted(given.items())))
        if key not in self._made:
            if name not in self.patterns:
                raise KeyError(f"no templates {name!r} in the {self.language} lexicon "
                               f"(known: {', '.join(sorted(self.patterns))})")
            self._made[key] = Templates(self.patterns[name], given, self.regex)
        return self._made[key]  # type: ignore[no-any-return]

    def file(self, name: str) -> Traversable:
        """Another data file of this language (templates, sentences to say)."""
        return self.folder / name

    def _index(self, name: str) -> dict[Term, str]:
        """Terms of set or table `name` -> the key as written."""
        key = ("index", name)
        if key not in self._made:
            if name in self.tables:
                index = {tuple(tokens(k)): k for k in self.tables[name]}
                for term, k in list(index.items()):
                    index.setdefault(_without_apostrophes(term), k)
            else:
                index = {t: " ".join(t) for t in self.terms(name)}
            self._made[key] = index
        return self._made[key]  # type: ignore[no-any-return]

    def _typed(self, name: str, kind: str, convert: Any) -> Any:
        key = (kind, name)
        if key not in self._made:
            self._made[key] = {k: convert(v, f"{self.language} lexicon: {name}: {k}")
                               for k, v in self.table(name).items()}
        return self._made[key]


def read_lexicon(folder: Traversable, language: str) -> Lexicon:
    """The lexicon in `folder` (the files of FILES there); ConfigError naming the file and
    the name when one is defined twice, includes a set that is not there, or is neither a
    list nor a table."""
    lists: dict[str, list[str]] = {}
    tables: dict[str, dict[str, Any]] = {}
    patterns: dict[str, tuple[str, ...]] = {}
    pairs: dict[str, tuple[tuple[str, str], ...]] = {}
    seen: dict[str, str] = {}

    def define(name: str, where: str) -> None:
        if name in seen:
            raise ConfigError(f"{where}: {name!r} is defined twice (also in {seen[name]})")
        seen[name] = where

    for file_name in FILES:
        path = folder / file_name
        try:
            data = load_data(path)
        except FileNotFoundError:
            if file_name == FILES[0]:
                raise ConfigError(f"no lexicon for language {language!r} ({path})") from None
            continue
        for name, value in data.items():
            if name == "templates":
                for t_name, templates in (value or {}).items():
                    define(t_name, str(path))
                    if not isinstance(templates, list) or not all(
                            isinstance(t, str) for t in templates):
                        raise ConfigError(f"{path}: templates: {t_name} must be a list of "
                                          "templates")
                    patterns[t_name] = tuple(templates)
                continue
            define(name, str(path))
            if isinstance(value, list) and value and all(
                    isinstance(t, list) and len(t) == 2 and all(isinstance(c, str) for c in t)
                    for t in value):
                pairs[name] = tuple((a, b) for a, b in value)
            elif isinstance(value, list) and all(isinstance(t, str) for t in value):
                lists[name] = value
            elif isinstance(value, dict):
                tables[name] = {str(k): v for k, v in value.items()}
            else:
                raise ConfigError(f"{path}: {name} must be a list of words or phrases (or of "
                                  "two-column rows), or a table of them")
    sets: dict[str, tuple[Term, ...]] = {}
    for name, table in tables.items():
        keys = tuple(dict.fromkeys(tuple(tokens(k)) for k in table if tokens(k)))
        if keys:
            sets[name] = keys

    def expand(name: str, trail: tuple[str, ...]) -> tuple[Term, ...]:
        if name in sets:
            return sets[name]
        terms: list[Term] = []
        for term in lists[name]:
            included = _INCLUDE.match(term.strip())
            if included is None:
                if tokens(term):
                    terms.append(tuple(tokens(term)))
                continue
            other = included[1]
            if other in trail or (other not in lists and other not in sets):
                raise ConfigError(f"{language} lexicon: {name} includes <{other}>, which is "
                                  + ("itself" if other in trail else "no set"))
            terms += expand(other, (*trail, other))
        sets[name] = tuple(dict.fromkeys(terms))
        return sets[name]

    for name in lists:
        expand(name, (name,))
    return Lexicon(language, sets, folder, tables, patterns, pairs)


@functools.cache
def lexicon(language: str = "en") -> Lexicon:
    """The lexicon of `language`, loaded on first use and shared."""
    return read_lexicon(resources.files("voiceagent.language") / language, language)
