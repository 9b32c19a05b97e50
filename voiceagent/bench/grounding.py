"""Invented values: free-text arguments, list items and notes holding words nobody said
(plurals and numbers forgiven), which harm the user however fluent the answer sounds."""

from __future__ import annotations

import re
from collections.abc import Collection

from voiceagent.bench.matching import normal
from voiceagent.bench.observed import Observed

GROUNDED = {"add_to_list": ("items",), "remove_from_list": ("items",), "add_note": ("text",),
            "set_timer": ("label",), "set_alarm": ("label",), "get_time": ("place",),
            "cancel_timer": ("which",)}
"""Free-text arguments that must come from the utterance (or the case's setup), per tool
(a parameter a tool does not have is ignored by it, so it invents nothing)."""

_STOPWORDS = frozenset("""
a an the my our your his her their some any and or to of for on in at with from by as
please list lists item items timer timers alarm alarms note notes reminder called named
i me you we it its it's is are be that this these those just also up off out all one user
""".split())
_GENERIC: dict[str, set[str]] = {"place": {"city", "time", "zone", "country"},
                                  "which": {"every", "everything", "both", "am", "pm"}}


def _forms(word: str) -> set[str]:
    forms = {word}
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if word.endswith("es"):
        forms.add(word[:-2])
    if word.endswith("s"):
        forms.add(word[:-1])
    if word.endswith("'s"):
        forms.add(word[:-2])
    return forms


def _words(text: str) -> list[str]:
    """Words and numbers of `text` ("7:00" -> "7"; "o'clock" and zeros carry nothing)."""
    words = (w.strip("'") for w in re.split(r"[\s:.]+", normal(text)))  # "the kids' timer"
    return [w for w in words if w and w != "o'clock" and not re.fullmatch(r"0+", w)]


def ungrounded(value: str, said: str, generic: Collection[str] = ()) -> list[str]:
    """Content words of `value` that appear nowhere in `said` (plurals and numbers forgiven)."""
    heard: set[str] = set()
    for w in _words(said):
        heard |= _forms(w)
    return [w for w in _words(value)
            if w not in _STOPWORDS and w not in generic and not _forms(w) & heard]


def invented_values(said: str, seen: Observed) -> tuple[str, ...]:
    """Accepted free-text arguments and new list items or notes holding words not said."""
    found: list[str] = []
    for call in seen.calls:
        if call.error:
            continue  # refused by the tool: nothing was written
        for key in GROUNDED.get(call.name, ()):
            value = call.args.get(key)
            if value in seen.ids_before:
                continue
            if isinstance(value, str) and ungrounded(value, said, _GENERIC.get(key, ())):
                found.append(f"{call.name}.{key}={value!r}")
    before = {normal(i) for i in seen.items_before}
    for item in seen.items_after:
        if normal(item) not in before and ungrounded(item, said):
            found.append(f"list item {item!r}")
    found += [f"note {n!r}" for n in seen.notes_added if ungrounded(n, said)]
    return tuple(dict.fromkeys(found))
