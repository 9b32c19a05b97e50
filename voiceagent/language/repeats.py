"""How often an alarm repeats, as said: "every weekday at 7", "on Fridays", "daily".

People set the alarm they wake to once and expect it every morning. Before this, "every
weekday" reached the alarm's time ("7 am weekday"), which no clock reads, and the user heard
"Sorry, I couldn't do that."; "every single day at nine" set one alarm for today and said
nothing of the rest. The phrases are time.yaml's (repeat_days, repeat_every,
repeat_unsupported, repeat_names); what is here is how they are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voiceagent.errors import ToolError
from voiceagent.language.lexicon import lexicon, token_spans, tokens
from voiceagent.language.plural import singular
from voiceagent.language.spoken_time import clock_time

WEEK = "week"
"""repeat_days' value for "every week": the weekday the alarm first rings on."""


@dataclass(frozen=True)
class Repeat:
    """What a text says of repeating, and the text without it."""

    days: str = ""
    """Weekdays it repeats on, "0" for Monday ("01234": weekdays); WEEK: the first ring's
    weekday; "": it does not repeat."""
    rest: str = ""
    """The text without the words that say how often ("7 am every weekday" -> "7 am")."""
    unsupported: str = ""
    """A repeat nothing here keeps ("every month"), as said; "" if none."""


def read_repeat(text: str) -> Repeat:
    """The repeat `text` says, if any: a phrase of repeat_days, a weekday after "every" or
    "each" ("every Friday", "each Monday and Thursday"), a weekday in the plural ("on
    Fridays"); or one of repeat_unsupported."""
    lex = lexicon()
    said = tokens(text)
    for start, end in lex.find("repeat_unsupported", said):
        return Repeat(rest=text, unsupported=" ".join(said[start:end]))
    days: set[str] = set()
    used = [False] * len(said)
    half = ""
    for start, end in lex.find("repeat_days", said):
        value = str(lex.lookup("repeat_days", said[start:end]))
        days |= {WEEK} if value == WEEK else set(value)
        used[start:end] = [True] * (end - start)
        half = half or str(lex.lookup("repeat_halves", said[start:end]) or "")
    days |= _weekdays(said, used)
    if not days:
        return Repeat(rest=text)
    named = days - {WEEK}
    rest = _cut(text, used)
    if half and _bare_hour(rest):
        rest = f"{rest} {half}"  # "7 every morning": 7 am
    return Repeat(days="".join(sorted(named)) if named else WEEK, rest=rest)


def _bare_hour(text: str) -> bool:
    """`text` is a time of day without its half of the day ("7", "at 10"; not "7 pm")."""
    try:
        return clock_time(text).half is None
    except ToolError:  # no time at all ("take my pills")
        return False


def _weekdays(said: list[str], used: list[bool]) -> set[str]:
    """The weekdays `said` repeats on by name ("every Friday", "Mondays and Thursdays"),
    marking their words in `used`."""
    lex = lexicon()
    weekdays = list(lex.phrases("weekdays"))
    every = lex.words("repeat_every")
    days: set[str] = set()
    repeating = False
    for at, word in enumerate(said):
        following = said[at + 1] if at + 1 < len(said) else ""
        day = singular(word)
        if used[at]:
            repeating = False
        elif word in every and singular(following) in weekdays:
            repeating = used[at] = True
        elif day in weekdays and (repeating or word != day):
            days.add(str(weekdays.index(day)))
            repeating = used[at] = True
        elif word == "and" and repeating and singular(following) in weekdays:
            used[at] = True
        elif word == "on" and following != singular(following) and singular(
                following) in weekdays:
            used[at] = True  # "on Fridays"
        else:
            repeating = False
    return days


def _cut(text: str, used: list[bool]) -> str:
    """`text` without its words marked in `used`, its punctuation kept."""
    kept, last = [], 0
    for (start, end), gone in zip(token_spans(text), used, strict=True):
        if gone:
            kept.append(text[last:start])
            last = end
    kept.append(text[last:])
    return re.sub(r"\s+", " ", "".join(kept)).strip(" ,")


def spoken_repeat(days: str) -> str:
    """"every weekday", "every Friday", "every Monday and Thursday"."""
    lex = lexicon()
    named = lex.names("repeat_names").get(days)
    if named:
        return named
    weekdays = list(lex.phrases("weekdays"))
    names = [weekdays[int(d)].capitalize() for d in days]
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{lex.phrases('repeat_every')[0]} {joined}"
