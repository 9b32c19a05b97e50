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
from dataclasses import dataclass
from datetime import datetime, timedelta

from voiceagent.agent.messages import Message
from voiceagent.agent.tools import spoken_result
from voiceagent.intents import slots
from voiceagent.intents.matcher import LocalMatch
from voiceagent.intents.normalize import clean
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

_TIMER = re.compile(r"Timer set for (?P<length>[^:.]+(?:\.\d+)?[^:.]*)(?:: (?P<label>.+))?\.")
_ALARM = re.compile(r"Alarm set for (?P<time>\d{1,2}:\d{2} [AP]M) (?P<day>today|tomorrow|on \w+)"
                    r"(?:: (?P<label>.+))?\.")
_LIST = re.compile(r"(?:Added|Removed) .+ (?:to|from) your (?:new )?(?P<list>.+) list\.|"
                   r"Your (?P<read>.+) list has")


@dataclass(frozen=True)
class _Made:
    """One thing the last exchange made or touched, read from its tool's own result."""

    tool: str
    which: str
    """How cancel_timer finds it: its label, else "5 minute" or "7:30 AM"."""
    label: str = ""
    day: str = ""
    """An alarm's day other than today, to keep when only its time changes ("on Friday")."""
    list_name: str = ""
    items: str = ""


def _last_exchange(history: Sequence[Message]) -> list[tuple[str, str]]:
    """(tool name, result as spoken) of each call of the last exchange."""
    results: list[tuple[str, str]] = []
    for message in reversed(history):
        if message.role == "user":
            break
        if message.role == "tool" and message.name and not message.is_error:
            results.insert(0, (message.name, spoken_result(message.text)))
    return results


def _made(tool: str, result: str) -> _Made | None:
    """What one tool result says was made or touched; None for anything else."""
    if tool == "set_timer" and (m := _TIMER.match(result)):
        label = m["label"] or ""
        return _Made(tool, label or re.sub(r"(minute|hour|second)s\b", r"\1", m["length"]), label)
    if tool == "set_alarm" and (m := _ALARM.match(result)):
        day = {"today": "", "tomorrow": f"on {(datetime.now() + timedelta(days=1)):%A}"}.get(
            m["day"], m["day"])
        return _Made(tool, m["label"] or m["time"], m["label"] or "", day=day)
    if tool == "list_timers" and not result.startswith("You have no"):
        return _Made(tool, "")  # "Cancel it.": the only one, or cancel_timer asks which
    if tool in ("add_to_list", "remove_from_list", "read_list") and (m := _LIST.search(result)):
        added = re.match(r"Added (?P<items>.+) to your", result)
        return _Made(tool, "", list_name=m["list"] or m["read"],
                     items=added["items"] if added else "")
    return None


def _asked_which(exchange: list[tuple[str, str]]) -> bool:
    """The last exchange ended in cancel_timer's "Which one? You have ..."."""
    return any(t == "cancel_timer" and r.startswith("Which one?") for t, r in exchange)


def follow_up(text: str, history: Sequence[Message]) -> list[LocalMatch]:
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
    made = [m for t, r in exchange if t != "cancel_timer" and (m := _made(t, r)) is not None]
    if len(made) != 1:  # nothing, or "it" could be either of two
        return []
    thing = made[0]
    if thing.list_name:
        return _list_follow_up(said, thing)
    if _UNDO.fullmatch(said):
        return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.which})]
    changed = _CHANGE.fullmatch(said)
    if not changed or thing.tool not in ("set_timer", "set_alarm"):
        return []
    new = (slots.duration(changed["new"]) if thing.tool == "set_timer"
           else slots.time_of_day(changed["new"]))
    if new is None:
        return []
    if thing.day and said_day(new["time"], datetime.now())[1] is None:
        new = {"time": f"{new['time']} {thing.day}"}  # "make it 10" keeps "on Friday"
    intent = "timer_start" if thing.tool == "set_timer" else "alarm_set"
    return [LocalMatch("timer_cancel", "cancel_timer", {"which": thing.which}),
            LocalMatch(intent, thing.tool, {**new, "label": thing.label})]


def _list_follow_up(said: str, thing: _Made) -> list[LocalMatch]:
    if _READ.fullmatch(said):
        return [LocalMatch("list_read", "read_list", {"list_name": thing.list_name})]
    if _UNDO.fullmatch(said) and thing.tool == "add_to_list" and thing.items:
        return [LocalMatch("list_remove", "remove_from_list",
                           {"list_name": thing.list_name, "items": thing.items})]
    return []
