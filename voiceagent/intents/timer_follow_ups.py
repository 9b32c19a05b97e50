"""Follow-ups on the one timer the last exchange set or read: more or less time on it
("add five more minutes to it", "take a minute off it"), pause it, resume it; and one of
several it read out, cancelled by its name ("cancel the pasta one").

Which timer "it" is comes from the exchange's typed references (agent/outcome.py): its own
id, never a label the user did not say; with more than one timer there, the model answers.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo

from voiceagent.agent.outcome import Ref
from voiceagent.errors import ToolError
from voiceagent.intents import slots
from voiceagent.intents.match import LocalMatch
from voiceagent.intents.numbers import number_value
from voiceagent.language import lexicon, tokens
from voiceagent.language.spoken_time import clock_time
from voiceagent.tools.words import numbers_in, spoken_duration

__all__ = ["TIMER_FOLLOW_UPS", "in_unit_of", "said_of", "without_closing_words"]

Words = dict[str, str]


def _the_timer(refs: list[Ref]) -> str | None:
    """The id of the one timer the last exchange set or read, else None."""
    timers = {r.key for r in refs if r.kind == "timer" and r.action in ("made", "read")}
    return timers.pop() if len(timers) == 1 else None


def _length(param: str) -> Callable[[Words, list[Ref]], list[LocalMatch]]:
    """{new} more (or less) on that timer: set_timer's `add_to` (or `take_from`)."""
    def on(words: Words, refs: list[Ref]) -> list[LocalMatch]:
        timer, length = _the_timer(refs), slots.duration(words.get("new", ""))
        if timer is None or length is None:
            return []
        intent = "timer_more_time" if param == "add_to" else "timer_less_time"
        return [LocalMatch(intent, "set_timer", {**length, param: timer})]
    return on


def _pause(resume: bool) -> Callable[[Words, list[Ref]], list[LocalMatch]]:
    """That timer paused (or resumed)."""
    def on(_words: Words, refs: list[Ref]) -> list[LocalMatch]:
        timer = _the_timer(refs)
        if timer is None:
            return []
        args: dict[str, object] = {"which": timer} | ({"resume": True} if resume else {})
        return [LocalMatch("timer_resume" if resume else "timer_pause", "pause_timer", args)]
    return on


def _cancel_named(words: Words, refs: list[Ref]) -> list[LocalMatch]:
    """The one timer or alarm the last exchange set or read whose name has the words said
    ("how long is left on the rice" ... "cancel the pasta one"); [] for none or several."""
    said = set(tokens(words.get("which", ""))) - lexicon().words("pointing")
    named = {r.key for r in refs if r.kind in ("timer", "alarm") and r.label
             and said and said <= set(tokens(r.label))}
    return [LocalMatch("timer_cancel_named", "cancel_timer", {"which": named.pop()})] if len(
        named) == 1 else []


def said_of(thing: Ref, old: str, zone: tzinfo | None = None) -> bool:
    """`old` names the timer or alarm `thing`: its label, its length, its clock time. "make
    that quarter to seven" after a 7:30 alarm changes it to 6:45; it does not say "quarter" is
    the alarm to change (read so, it was set for seven)."""
    plain = lexicon().words("pointing") | lexicon().words("articles")
    if lexicon().has("indefinite", tokens(old)[:2]):
        return False  # "set a timer for 10 minutes" after an alarm: a new one, not it
    if set(tokens(old)) <= plain | set(tokens(thing.label)):  # "my alarm", "the pasta one"
        return True
    if thing.kind == "timer":  # "10 minutes", or "10" alone in its unit
        length, had = slots.duration(old), spoken_duration(thing.value or 0)
        return had in (length or {}).values() or tokens(had)[:1] == tokens(numbers_in(old))
    try:
        said = clock_time(old)
    except ToolError:
        return False
    due = datetime.fromtimestamp(thing.due, zone) if thing.due is not None else None
    return due is not None and (said.hour % 12, said.minute) == (due.hour % 12, due.minute)


def without_closing_words(new: str) -> str:
    """`new` without the correction words that close it ("quarter to seven instead")."""
    words = new.split()
    while words and lexicon().is_one("correction", tokens(words[-1])):
        words.pop()
    return " ".join(words)


TIMER_FOLLOW_UPS: dict[str, Callable[[Words, list[Ref]], list[LocalMatch]]] = {
    "more_time": _length("add_to"), "less_time": _length("take_from"),
    "pause": _pause(False), "resume": _pause(True), "cancel_named": _cancel_named,
}
"""follow_ups.yaml `follow` names -> the calls they make, from the {slot} words said."""


def in_unit_of(timer: Ref, new: str) -> str:
    """A bare number said for a timer ("No, 12." after "a timer for ten minutes") in the
    largest unit of time its length is a whole number of; "" when `new` is no number."""
    value = number_value(new)
    if value is None or not timer.value:
        return ""
    units = sorted(lexicon().table("durations").items(), key=lambda kv: -float(kv[1][0]))
    unit = next((name for name, row in units if timer.value % float(row[0]) == 0), "")
    return f"{new} {unit}" if unit else ""
