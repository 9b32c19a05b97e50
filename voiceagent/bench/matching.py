"""Tolerant matching of what a model said against what a case expects: numbers as words or
digits, "my Groceries" for the shopping list, a plural s, a clock time with a day."""

from __future__ import annotations

import re
from typing import Any

from voiceagent.bench.phrases import digits
from voiceagent.errors import ToolError
from voiceagent.language.repeats import read_repeat
from voiceagent.tools.list_items import split_items
from voiceagent.tools.timers import on_date, said_day
from voiceagent.tools.words import numbers_in, parse_clock_time, parse_duration
from voiceagent.wallclock import SystemClock


def arg_problem(expected: dict[str, Any], args: dict[str, Any]) -> str:
    """Why `args` does not meet the matchers ("" = it does)."""
    for key, want in expected.items():
        got = args.get(key)
        if not matches(key, want, got):
            return f"{key}={got!r}, wanted {want!r}"
    return ""


def matches(key: str, want: Any, got: Any) -> bool:
    """One argument against its matcher (see requests.toml for the kinds)."""
    if got is None:
        return False
    try:
        if key == "duration":
            return abs(parse_duration(str(got)) - float(want)) < 0.5
        if key == "time":  # the clock time; a day or how often, said with it, is the
            now = SystemClock().now()  # alarm's business ("eight every morning")
            rest = on_date(read_repeat(str(got)).rest, now)[1]
            h, m, _ = parse_clock_time(said_day(rest, now)[0])
            wh, wm, _ = parse_clock_time(str(want))
            return (h % 12, m) == (wh % 12, wm)
    except ToolError:
        return False
    if isinstance(want, int | float) and not isinstance(want, bool):
        try:
            return abs(float(numbers_in(str(got))) - float(want)) < 1e-6
        except ValueError:
            return False
    if key == "list_name":
        return list_key(str(got)) in {list_key(w) for w in str(want).split("|")}
    if key == "items":  # as the list tool reads them: "plantain and shito" is two items
        return any(_all_items(option, str(got)) for option in str(want).split("|"))
    text = normal(str(got))
    return any(normal(option) in text for option in str(want).split("|"))


def _all_items(want: str, got: str) -> bool:
    """Every item of `want` is (part of) an item the list tool reads from `got`."""
    try:
        read = [normal(item) for item in split_items(got)]
    except ToolError:
        return False
    return all(any(normal(w) in item for item in read) for w in split_items(want))


ALIASES = {"grocery": "shopping", "groceries": "shopping", "todo": "to-do", "to-do": "to-do",
           "shop": "shopping", "store": "shopping"}


def list_key(name: str) -> str:
    """'My Grocery List' -> 'shopping', 'to do' -> 'to-do': the list a name means."""
    words = [w for w in re.findall(r"[a-z0-9]+", name.lower())
             if w not in ("my", "the", "our", "a", "list", "lists")]
    key = "-".join(words)
    key = ALIASES.get(key, key)
    return key[:-1] if key.endswith("s") else key


def normal(text: str) -> str:
    """Lower case, numbers as digits, punctuation and runs of spaces folded."""
    text = numbers_in(digits(text.lower().replace("-", " ")))
    return " ".join(re.findall(r"[a-z0-9.:']+", text))
