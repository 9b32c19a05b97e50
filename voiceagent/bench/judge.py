"""Judging one evaluated turn: the case (what must happen) against what the turn did.

Pure functions over plain values, so the scoring is unit-tested without a model. The checks
are tolerant where people and models legitimately differ (numbers as words, "my Groceries"
for the shopping list, a plural s) and strict where the user is harmed: an item, label or
place nobody said, an error or raw JSON read aloud, a destructive tool nobody asked for.
The checks themselves live beside it: matching.py (arguments), grounding.py (invented
values), leaks.py (what must not be read aloud).
"""

from __future__ import annotations

from dataclasses import dataclass

from voiceagent.bench.cases import ANY, REFUSE, Case
from voiceagent.bench.grounding import invented_values
from voiceagent.bench.leaks import error_aloud
from voiceagent.bench.matching import arg_problem, normal
from voiceagent.bench.observed import Observed
from voiceagent.bench.phrases import refuses

DESTRUCTIVE = frozenset({"clear_list", "remove_from_list", "cancel_timer", "forget_conversation"})
"""Tools that lose the user's data: forbidden in every case that does not expect them."""


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
