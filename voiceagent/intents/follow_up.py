"""Commands that point back at the last exchange: "cancel it" right after a timer was set,
"make it 12 minutes", "take that off" after adding to a list, "what's on it now?".

The templates cannot know what "it" is, and "cancel it" matched "never mind": the user heard
"OK." and the pasta timer kept running; "Actually make it 12 minutes" went to the model, which
set a second timer next to the first; "How many things are on it?" was answered by the model
from memory, one item short. What the last turn's tools did (their results, which say what
really happened) says what "it" is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from voiceagent.agent.messages import Message
from voiceagent.agent.outcome import Ref
from voiceagent.intents import slots
from voiceagent.intents.matcher import LocalMatch
from voiceagent.intents.normalize import clean
from voiceagent.ports import Clock
from voiceagent.tools.timers import said_day

_FIRST = r"(?:(?:no|oh|wait|actually|sorry|oops|and|so)[\s,]+)*"
"""A correction's opening words: "No, take it off.", "Actually, make it 12 minutes."."""
_UNDO = re.compile(_FIRST + r"(?:please\s+)?(?:cancel|stop|delete|remove|kill|undo|scratch|"
                   r"turn off|switch off|get rid of|take)\s+(?:it|that|this|that one|this one|"
                   r"them|those)(?:\s+(?:off|out|away))?(?:\s+(?:please|again|now))?", re.I)
_CHANGE = re.compile(_FIRST + r"(?:(?:make|change|set|switch|move)\s+(?:it|that)\s+"
                     r"(?:to\s+|for\s+|into\s+)?|(?:no|actually)[\s,]+)(?P<new>.+)", re.I)
_READ = re.compile(_FIRST + r"(?:(?:what's|what is|whats|what else is|what's left|what is left)"
                   r"\s+(?:on|in)\s+(?:it|there|that|that list|the list)|how many (?:things|"
                   r"items)(?:\s+(?:are|have i got|do i have|is there))?\s+(?:on|in)\s+(?:it|"
                   r"there|that|that list|the list)|read (?:it|that|the list|that list)"
                   r"(?:\s+(?:back|out))?(?:\s+to me)?)(?:\s+(?:now|then|please))?", re.I)
_WHICH_NOISE = re.compile(r"\b(?:the|one|ones|please|timers?|alarms?|cancel|stop|delete|remove|"
                          r"of|them|it)\b", re.I)

def _last_exchange(history: Sequence[Message]) -> list[tuple[str, tuple[Ref, ...]]]:
    """(tool name, its outcome's references) of each call of the last exchange that ran."""
    results: list[tuple[str, tuple[Ref, ...]]] = []
    for message in reversed(history):
        if message.role == "user":
            break
        if message.role == "tool" and message.name and not message.is_error:
            results.insert(0, (message.name, message.refs))
    return results


def _made(refs: Sequence[Ref]) -> list[Ref]:
    """What the last exchange made or put on a list: what "it" can be."""
    return [r for r in refs if r.action in ("made", "added", "read", "removed")
            and r.kind in ("timer", "alarm", "list")]


def _asked_which(exchange: list[tuple[str, tuple[Ref, ...]]]) -> bool:
    """The last exchange ended in a question naming what it offers ("Which one? You have
    ...")."""
    return any(r.action == "offered" for _t, refs in exchange for r in refs)


def follow_up(text: str, history: Sequence[Message], clock: Clock) -> list[LocalMatch]:
    """The calls `text` asks for when it points at what the last exchange made (one timer,
    alarm or list); [] when it does not (the templates and the model take it as usual)."""
    said = clean(text)
    exchange = _last_exchange(history)
    if not said or not exchange:
        return []
    if _asked_which(exchange):  # "Which one? You have ..." -> "The pasta one."
        which = " ".join(_WHICH_NOISE.sub(" ", said).split())
        if re.fullmatch(r"(?:all|both|every|everything)", which, re.I):
            which = "all"
        return [LocalMatch("timer_which", "cancel_timer", {"which": which})] if which else []
    made = _made([r for _t, refs in exchange for r in refs])
    if len({(r.kind, r.key) for r in made}) > 1 and _UNDO.fullmatch(said) \
            and all(r.action == "read" and r.kind != "list" for r in made):
        return [LocalMatch("timer_cancel", "cancel_timer", {"which": ""})]  # it asks which
    if len({(r.kind, r.key) for r in made}) != 1:  # nothing, or "it" could be either of two
        return []
    thing = made[-1]
    if thing.kind == "list":
        return _list_follow_up(said, thing, made)
    if _UNDO.fullmatch(said):
        return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.key})]
    changed = _CHANGE.fullmatch(said)
    if not changed or thing.action != "made":
        return []
    tool = "set_timer" if thing.kind == "timer" else "set_alarm"
    new = slots.duration(changed["new"]) if tool == "set_timer" else slots.time_of_day(
        changed["new"], clock)
    if new is None:
        return []
    today = clock.now()
    if tool == "set_alarm" and thing.due is not None \
            and said_day(new["time"], today)[1] is None:
        day = datetime.fromtimestamp(thing.due, clock.zone).date()
        if day != today.date():  # "make it 10" keeps "on Friday"
            new = {"time": f"{new['time']} on {day:%A}"}
    intent = "timer_start" if tool == "set_timer" else "alarm_set"
    return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.key}),
            LocalMatch(intent, tool, {**new, "label": thing.label})]


def _list_follow_up(said: str, thing: Ref, made: list[Ref]) -> list[LocalMatch]:
    if _READ.fullmatch(said):
        return [LocalMatch("list_read", "read_list", {"list_name": thing.key})]
    added = [item for r in made if r.action == "added" for item in r.items]
    if _UNDO.fullmatch(said) and added:
        return [LocalMatch("list_remove", "remove_from_list",
                           {"list_name": thing.key, "items": ", ".join(added)})]
    return []
