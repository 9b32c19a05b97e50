"""Judging one evaluated turn: the case (what must happen) against what the turn did.

Pure functions over plain values, so the scoring is unit-tested without a model. The checks
are tolerant where people and models legitimately differ (numbers as words, "my Groceries"
for the shopping list, a plural s) and strict where the user is harmed: an item, label or
place nobody said, an error or raw JSON read aloud, a destructive tool nobody asked for.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voiceagent.bench.phrases import digits, refuses
from voiceagent.errors import ToolError
from voiceagent.tools.timers import said_day
from voiceagent.tools.words import numbers_in, parse_clock_time, parse_duration
from voiceagent.wallclock import SystemClock

NONE = "none"
"""Expected tool: answer without any tool."""
REFUSE = "refuse"
"""Expected tool: no tool, and an honest "I can't do that here"."""
ANY = "any"
"""Expected tool: not checked (a session's follow-up judged on its answer and the state)."""
DESTRUCTIVE = frozenset({"clear_list", "remove_from_list", "cancel_timer", "forget_conversation"})
"""Tools that lose the user's data: forbidden in every case that does not expect them."""
GROUNDED = {"add_to_list": ("items",), "remove_from_list": ("items",), "add_note": ("text",),
            "set_timer": ("label",), "set_alarm": ("label",), "get_time": ("place",),
            "cancel_timer": ("which",)}
"""Free-text arguments that must come from the utterance (or the case's setup), per tool
(a parameter a tool does not have is ignored by it, so it invents nothing)."""

_LEAKS = (
    (re.compile(r"\berror\b\s*:|^\s*error\b", re.I), "error text"),
    (re.compile(r"\bparameter\s+'|\bis not one of\b|\bTraceback\b|\bToolError\b|"
                r"\bunknown parameter"), "error text"),
    (re.compile(r"\[\s*(insert|your|current|date|time)\b", re.I), "template placeholder"),
    (re.compile(r"[{\[]\s*\"|\"(name|arguments|items|list_name)\"\s*:"), "raw JSON"),
    (re.compile(r"\{\{|\}\}|```|<tool_call>|</?tool"), "markup"),
)
_STOPWORDS = frozenset("""
a an the my our your his her their some any and or to of for on in at with from by as
please list lists item items timer timers alarm alarms note notes reminder called named
i me you we it its it's is are be that this these those just also up off out all one user
""".split())
_GENERIC: dict[str, set[str]] = {"place": {"city", "time", "zone", "country"},
                                  "which": {"every", "everything", "both", "am", "pm"}}


# --- the corpus -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """A tool call run before the turn (a list that must already hold apples)."""

    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Case:
    """One request and what must (and must not) happen; see requests.toml for each field."""

    say: str
    intent: str
    tool: str
    """A tool name (alternatives joined by |), NONE or REFUSE."""
    args: dict[str, Any] = field(default_factory=dict)
    answer: tuple[str, ...] = ()
    answer_not: tuple[str, ...] = ()
    has: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()
    timers_after: int | None = None
    forbid: tuple[str, ...] = ()
    setup: tuple[Setup, ...] = ()

    @property
    def tools(self) -> tuple[str, ...]:
        """The acceptable tools ((): none may run, or with ANY: not checked)."""
        return () if self.tool in (NONE, REFUSE, ANY) else tuple(self.tool.split("|"))

    @property
    def group(self) -> str:
        """commands, unsupported, chat or near misses: the rows of the summary."""
        if self.tool == REFUSE:
            return "unsupported"
        if self.tool == NONE:
            return "chat" if self.intent.startswith("chat") else "near misses"
        return "commands"


def load_cases(path: Path) -> list[Case]:
    """The [[case]] tables of a corpus file; a malformed case names itself."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    known = set(Case.__dataclass_fields__)
    cases = []
    for n, raw in enumerate(data.get("case", []), 1):
        extra = set(raw) - known
        if extra or not {"say", "intent", "tool"} <= set(raw):
            raise ValueError(f"{path}: case {n} ({raw.get('say')!r}): needs say, intent, tool; "
                             f"unknown keys: {sorted(extra)}")
        cases.append(Case(
            say=raw["say"], intent=raw["intent"], tool=raw["tool"], args=dict(raw.get("args", {})),
            answer=tuple(raw.get("answer", ())), answer_not=tuple(raw.get("answer_not", ())),
            has=tuple(raw.get("has", ())), lacks=tuple(raw.get("lacks", ())),
            timers_after=raw.get("timers_after"), forbid=tuple(raw.get("forbid", ())),
            setup=tuple(Setup(s["tool"], dict(s.get("args", {}))) for s in raw.get("setup", ())),
        ))
    return cases


# --- what a turn did --------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One tool call of the turn, with its result."""

    name: str
    args: dict[str, Any]
    result: str = ""
    error: bool = False
    writes: bool = False
    """The tool changes something (its registry flag): a write on a request nothing serves."""


@dataclass(frozen=True)
class Pending:
    """A timer or alarm left after the turn, read from the timer store (not its sentences)."""

    kind: str
    """timer or alarm."""
    label: str
    due: float
    """Epoch seconds when it goes off."""
    seconds: float = 0.0
    """A timer's length."""


@dataclass(frozen=True)
class Observed:
    """What the real turn did: its calls, its answer, the data before and after.

    The one seam between the turn and the judge: every check reads what the turn did from
    here (built by bench/observe.py), never from the product's sentences elsewhere, so when
    tool results carry typed references only `observe` changes.
    """

    answer: str
    calls: tuple[Call, ...] = ()
    stop: str = "done"
    local: bool = False
    """Answered by a local command, without the language model."""
    llm_requests: int = 0
    seconds: float = 0.0
    """Wall-clock time of the turn."""
    items_before: tuple[str, ...] = ()
    """Every list item (all lists) before the turn."""
    items_after: tuple[str, ...] = ()
    notes_added: tuple[str, ...] = ()
    timers_after: int = 0
    pending: tuple[Pending, ...] = ()
    """The timers and alarms after the turn."""
    lists_after: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(list name, its items) for every list after the turn."""
    at: float = 0.0
    """Epoch seconds when the turn started (an alarm's day is counted from it)."""
    ids_before: tuple[str, ...] = ()
    """The ids of the timers and alarms before the turn: a follow-up ("scrap that") names
    the one it acts on by id, which no user says and nobody invented."""


@dataclass(frozen=True)
class Verdict:
    """The judgement of one case."""

    case: Case
    observed: Observed
    right_tool: bool
    right_args: bool | None
    """None where the case expects no tool."""
    invented: tuple[str, ...]
    """Free-text values (or new list items) with words the user never said."""
    error_aloud: str
    """What leaked into the spoken answer ("" = nothing)."""
    refused: bool | None
    """For unsupported requests: an honest refusal with no tool call."""
    forbidden: tuple[str, ...]
    """Tools that ran (without an error) although forbidden: destructive ones nobody asked
    for, or the case's `forbid` list."""
    problems: tuple[str, ...]
    """Every failed check, one phrase each."""

    @property
    def ok(self) -> bool:
        return not self.problems


def judge(case: Case, seen: Observed, *, setup_words: str = "") -> Verdict:
    """Every check of `case` against `seen`; `setup_words` may also ground arguments."""
    problems: list[str] = []
    names = [c.name for c in seen.calls]
    if case.tool == ANY:
        right_tool = True
    elif case.tools:
        right_tool = any(n in case.tools for n in names)
        if not right_tool:
            problems.append(f"wanted {case.tool}, called {names or 'nothing'}")
    else:
        right_tool = not names
        if names:
            problems.append(f"wanted no tool, called {names}")

    ran = [c.name for c in seen.calls if not c.error]  # a call the turn refused did no harm
    forbidden = tuple(n for n in dict.fromkeys(ran)
                      if n not in case.tools and (n in DESTRUCTIVE or n in case.forbid))
    if forbidden:
        problems.append(f"forbidden {list(forbidden)}")

    right_args: bool | None = None
    if case.tools:
        good = [c for c in seen.calls if c.name in case.tools and not c.error]
        mismatch = next((why for c in good for why in [arg_problem(case.args, c.args)] if why),
                        "") if good else "no call ran without an error"
        matched = any(not arg_problem(case.args, c.args) for c in good)
        state = state_problems(case, seen)
        answer = answer_problems(case, seen.answer)
        right_args = matched and not state and not answer
        if not matched:
            problems.append(mismatch)
        problems += state + answer
    else:
        problems += state_problems(case, seen) + answer_problems(case, seen.answer)

    invented = invented_values(case.say + " " + setup_words, seen)
    if invented:
        problems.append(f"invented {list(invented)}")
    leak = error_aloud(seen.answer, seen.calls)
    if leak:
        problems.append(f"read aloud: {leak}")
    refused = None
    if case.tool == REFUSE:
        refused = not names and refuses(seen.answer)
        if not refused and not names:
            problems.append("no honest refusal")
    if seen.stop not in ("done",):
        problems.append(f"turn ended: {seen.stop}")
    return Verdict(case, seen, right_tool, right_args, invented, leak, refused, forbidden,
                   tuple(problems))


# --- the checks -------------------------------------------------------------------------------


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
        if key == "time":  # the clock time; a day said with it is the alarm's business
            h, m, _ = parse_clock_time(said_day(str(got), SystemClock().now())[0])
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
    text = normal(str(got))
    return any(normal(option) in text for option in str(want).split("|"))


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


def state_problems(case: Case, seen: Observed) -> list[str]:
    """List items that must (not) be there, and how many timers are left."""
    items = " | ".join(normal(i) for i in seen.items_after)
    problems = [f"{w!r} not on the list" for w in case.has if normal(w) not in items]
    problems += [f"{w!r} still on the list" for w in case.lacks if normal(w) in items]
    if case.timers_after is not None and seen.timers_after != case.timers_after:
        problems.append(f"{seen.timers_after} timers left, wanted {case.timers_after}")
    return problems


def answer_problems(case: Case, answer: str) -> list[str]:
    text = normal(answer)
    problems = [f"answer lacks {want!r}" for want in case.answer
                if not any(normal(o) in text for o in want.split("|"))]
    problems += [f"answer says {bad!r}" for bad in case.answer_not
                 if bad.lower() in answer.lower()]
    return problems


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
    return [w for w in re.split(r"[\s:.]+", normal(text))
            if w and w != "o'clock" and not re.fullmatch(r"0+", w)]


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


def error_aloud(answer: str, calls: tuple[Call, ...] = ()) -> str:
    """What the spoken answer should never contain: error text, raw JSON, placeholders."""
    for pattern, what in _LEAKS:
        if pattern.search(answer):
            return what
    spoken = normal(answer)
    for call in calls:
        if call.error:
            text = normal(re.sub(r"^\s*error\s*:?", "", call.result, flags=re.I))
            if len(text) >= 20 and text[:40] in spoken:
                return "the tool's error"
    return ""
