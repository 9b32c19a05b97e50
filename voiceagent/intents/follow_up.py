"""Commands that point back at the last exchange: "cancel it" right after a timer was set,
"make it 12 minutes", "take that off" after adding to a list.

The templates cannot know what "it" is, and "cancel it" matched "never mind": the user heard
"OK." and the pasta timer kept running; "Actually make it 12 minutes" went to the model, which
set a second timer next to the first. What the last turn's tool call did says what "it" is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from voiceagent.agent.messages import Message, ToolCall
from voiceagent.intents import slots
from voiceagent.intents.matcher import LocalMatch
from voiceagent.intents.normalize import clean

_FIRST = r"(?:(?:no|oh|wait|actually|sorry|oops)[\s,]+)*"
"""A correction's opening words: "No, take it off.", "Actually, make it 12 minutes."."""
_UNDO = re.compile(_FIRST + r"(?:please\s+)?(?:cancel|stop|delete|remove|kill|undo|scratch|"
                   r"turn off|switch off|get rid of|take)\s+(?:it|that|this|that one|this one|"
                   r"them|those)(?:\s+(?:off|out|away))?(?:\s+(?:please|again|now))?", re.I)
_CHANGE = re.compile(_FIRST + r"(?:(?:make|change|set|switch)\s+(?:it|that)\s+"
                     r"(?:to\s+|for\s+|into\s+)?|(?:no|actually)[\s,]+)(?P<length>.+)", re.I)
_TIMERS = ("set_timer", "set_alarm", "list_timers")


def last_calls(history: Sequence[Message]) -> list[ToolCall]:
    """The tool calls of the last exchange (after the last user message)."""
    calls: list[ToolCall] = []
    for message in reversed(history):
        if message.role == "user":
            break
        if message.role == "assistant":
            calls[:0] = message.calls
    return calls


def _asked_which(history: Sequence[Message]) -> bool:
    """The last exchange ended in cancel_timer's "Which one? You have ..."."""
    for message in reversed(history):
        if message.role == "user":
            return False
        if message.role == "tool" and message.name == "cancel_timer":
            return message.text.startswith("Which one?")
    return False


def follow_up(text: str, history: Sequence[Message]) -> list[LocalMatch]:
    """The calls `text` asks for when it points at what the last exchange made (one timer,
    alarm or list addition); [] when it does not (the templates and the model take it)."""
    said = clean(text)
    if said and _asked_which(history):  # "Which one? You have ..." -> "The pasta one."
        which = " ".join(re.sub(r"\b(?:the|one|ones|please|timers?|alarms?|cancel|stop|delete|"
                                r"remove|of|them|it)\b", " ", said, flags=re.I).split())
        if re.fullmatch(r"(?:all|both|every|everything)", which, re.I):
            which = "all"
        if which:
            return [LocalMatch("timer_which", "cancel_timer", {"which": which})]
    calls = [c for c in last_calls(history) if c.name != "cancel_timer"]  # kept: what was made
    if len(calls) != 1 or not said:  # none, or "it" could be either of two
        return []
    call = calls[0]
    label = str(call.args.get("label") or "").strip()
    if _UNDO.fullmatch(said):
        if call.name in _TIMERS:
            which = label or ("alarm" if call.name == "set_alarm" else
                              "timer" if call.name == "set_timer" else "")
            return [LocalMatch("timer_cancel", "cancel_timer", {"which": which})]
        if call.name == "add_to_list" and call.args.get("items"):
            return [LocalMatch("list_remove", "remove_from_list",
                               {"list_name": call.args.get("list_name", ""),
                                "items": call.args["items"]})]
        return []
    changed = _CHANGE.fullmatch(said)
    if changed and call.name == "set_timer" and label:  # a label says which timer it was
        length = slots.duration(changed["length"])
        if length is not None:
            return [LocalMatch("timer_cancel", "cancel_timer", {"which": label}),
                    LocalMatch("timer_start", "set_timer", {**length, "label": label})]
    return []
