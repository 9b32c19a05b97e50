"""Small sentence templates in hassil's syntax, compiled to one regular expression.

    in {n} day[s] [from (now|today)]
    (to|on|into) [<determiners>] {name} list

`[x]` is optional, `(a|b)` one of several, `{slot}` captures a slot (its pattern is given by
the code, or is a word set of that name), `<set>` is any term of a word set. Words match
whole, case ignored, however many spaces lie between them. The same syntax as the sentence
templates of local commands (builtin.yaml), for the phrases with a structure inside a
slot: a day said as a count, a fraction of an hour, where list items go.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_SPACE = r"(?:\s+|(?<!\w)|(?!\w))"
"""Between two words: spaces, or nothing beside a space, a sign or an end (where an optional
word was left out); never nothing between two letters or digits ("in5" is not "in 5")."""


@dataclass(frozen=True)
class Found:
    """One template matched."""

    which: int
    """The index of the template that matched (the first one that did)."""
    slots: dict[str, str]
    """What each slot captured."""
    start: int
    end: int


class Templates:
    """Templates compiled together; `match` a whole text, or `search` one inside it."""

    def __init__(self, templates: Iterable[str], slots: Mapping[str, str],
                 set_regex: Callable[[str], str]) -> None:
        self.templates = tuple(templates)
        self._slots = dict(slots)
        self._set_regex = set_regex
        self._groups: dict[str, str] = {}
        parts = [f"(?P<t{i}>{self._compile(t)})" for i, t in enumerate(self.templates)]
        self.regex = re.compile("|".join(parts), re.I)

    def match(self, text: str) -> Found | None:
        """The template all of `text` is (spaces at the ends ignored), or None."""
        found = self.regex.fullmatch(text.strip())
        return None if found is None else self._found(found)

    def search(self, text: str) -> Found | None:
        """The first place in `text` a template matches whole words, or None."""
        found = re.search(rf"(?<!\w)(?:{self.regex.pattern})(?!\w)", text, re.I)
        return None if found is None else self._found(found)

    def sub(self, text: str, replace: Callable[[Found], str]) -> str:
        """`text` with each place a template matches replaced by `replace(found)`."""
        return re.sub(rf"(?<!\w)(?:{self.regex.pattern})(?!\w)",
                      lambda found: replace(self._found(found)), text, flags=re.I)

    def _found(self, found: re.Match[str]) -> Found:
        groups = found.groupdict()
        which = next(i for i in range(len(self.templates)) if groups[f"t{i}"] is not None)
        slots: dict[str, str] = {}
        for group, slot in self._groups.items():
            if groups.get(group) is not None:
                slots.setdefault(slot, groups[group])
        matched = found.group(0)  # the span without the spaces a left-out word leaves
        start = found.start() + len(matched) - len(matched.lstrip())
        return Found(which, slots, start, max(start, found.end() - len(matched)
                                              + len(matched.rstrip())))

    def _compile(self, template: str) -> str:
        from hassil import parse_sentence  # the parser of hassil's template syntax

        try:
            return self._expression(parse_sentence(template).expression)
        except ValueError as exc:
            raise ValueError(f"template {template!r}: {exc}") from None

    def _expression(self, node: Any) -> str:
        from hassil.expression import (
            Alternative,
            ListReference,
            RuleReference,
            Sequence,
            TextChunk,
        )

        if isinstance(node, TextChunk):
            return "".join(_SPACE if run.isspace() else re.escape(run)
                           for run in re.findall(r"\s+|\S+", node.text))
        if isinstance(node, Alternative):
            return "(?:" + "|".join(self._expression(item) for item in node.items) + ")"
        if isinstance(node, Sequence):
            return "".join(self._expression(item) for item in node.items)
        if isinstance(node, ListReference):
            pattern = self._slots.get(node.list_name) or self._set_regex(node.list_name)
            group = f"s{len(self._groups)}"
            self._groups[group] = node.slot_name
            return f"(?P<{group}>{pattern})"
        if isinstance(node, RuleReference):
            return f"(?:{self._set_regex(node.rule_name)})"
        raise ValueError(f"{type(node).__name__} is not supported here")
