"""Nothing the user said is dropped: the inverse of grounding.

A day said with an alarm ("set wake up thursday seven am", "at eight am next saturday")
must reach the call: the 1.5B set both for tomorrow, and told so, repeated the same call
until the turn's time ran out. The words are the user's, so the turn adds them to the call
itself (`carry`). A length said for a timer must be the length called (`dropped`: the model
is told). Which words must be carried is data: `Tool.carries` names a lexicon set ("days")
and the parameters that hold its words. A name said for an optional parameter the call left
empty is put in too (`Tool.found`: "on my shopping list" -> read_list("shopping")).
"""

from __future__ import annotations

import re
from typing import Any

from voiceagent.agent.tools import Tool
from voiceagent.language import lexicon, tokens
from voiceagent.language.calendar_days import calendar_day, date_spans
from voiceagent.language.lengths import lengths_said
from voiceagent.language.numbers import NUMBER, numbers_in
from voiceagent.language.spoken_time import UNIT_WORDS
from voiceagent.tools.words import parse_clock_time, parse_duration

OWN_WORDS_ONLY = frozenset({"repeats"})
"""Carried word sets whose terms in a call must be the user's: how often an alarm repeats
is said or it does not repeat (the 1.5B wrote label="daily breakfast" for "7 am every
weekday"). The model's terms of these are taken out before the user's go in."""


def carry(tool: Tool, args: dict[str, Any], utterance: str,
          heard: str = "") -> tuple[dict[str, Any], list[str]]:
    """`args` with the words of `tool.carries` the user said and the call left out added
    to the first of their parameters ("7:00 am" + "thursday"), and those words. `heard`:
    what else the user said that this call answers (their request before "For what
    time?"): terms of OWN_WORDS_ONLY sets in neither are taken out of the call."""
    lex = lexicon()
    said = tokens(utterance)
    qualifiers = lex.words("day_qualifiers")
    args, added = dict(args), []
    for param, find in tool.found:
        value = args.get(param)
        if (value is None or value == "") and (name := find(utterance)):
            args[param] = name  # a string already there is the model's: grounding reads it
            added.append(name)
    for word_set, params in tool.carries:
        if word_set in OWN_WORDS_ONLY:
            args |= _only_said(word_set, params, args, said + tokens(heard))
        first = params[0]
        value = args.get(first, "")
        required = first in tool.parameters.get("required", ())
        if not isinstance(value, str) or (required and not value.strip()):
            continue  # a time nobody said is asked for, not made of a day
        for start, end in lex.find(word_set, said):
            if start > 0 and said[start - 1] in qualifiers:  # "next saturday"
                start -= 1
            last, a_date = end, lex.is_one("months", said[end - 1:end])
            if a_date:
                dated = [span for span in date_spans(said) if span[0] <= start < span[1]]
                if not dated:
                    continue  # a month alone is no date ("may I ask")
                start, last = dated[0]  # "june 27th", "the fifth of april": the whole date
            term = " ".join(said[start:last])
            carried = " ".join(tokens(" ".join(str(args.get(p, "")) for p in params)))
            if a_date and _has_date(carried, term):
                continue  # "april 5" in the call for "the fifth of april"
            if " ".join(said[start + (said[start] in qualifiers):end]) not in carried:
                args[first] = f"{str(args.get(first, '')).strip()} {term}".strip()
                added.append(term)
    return args, added


def named(tool: Tool, param: str, utterance: str) -> str:
    """What the user named for `param` in `utterance` (`Tool.found`), or ''. Also the value
    of a parameter grounding drops: the 1.5B passed list_name="olly" for "list the items on
    my shopping list olly"."""
    return next((find(utterance) for p, find in tool.found if p == param), "")


def _only_said(word_set: str, params: tuple[str, ...], args: dict[str, Any],
               said: list[str]) -> dict[str, Any]:
    """The string `params` of `args` without the terms of `word_set` that `said` lacks."""
    lex = lexicon()
    kept: dict[str, Any] = {}
    for param in params:
        value = args.get(param)
        if not isinstance(value, str):
            continue
        words = tokens(value)
        unsaid = [words[start:end] for start, end in lex.find(word_set, words)
                  if not any(said[at:at + end - start] == words[start:end]
                             for at in range(len(said)))]
        for term in unsaid:
            value = re.sub(r"\W+".join(map(re.escape, term)), " ", value, count=1, flags=re.I)
        kept[param] = " ".join(value.split()) if unsaid else args[param]
    return kept


def _has_date(carried: str, term: str) -> bool:
    """`carried` (a call's words) already says the date `term` says, in any words."""
    day = calendar_day(term)
    words = carried.split()
    return any(calendar_day(" ".join(words[s:e])) == day for s, e in date_spans(words))


def is_length_said(value: str, utterance: str) -> bool:
    """`value` is a length the user said, in other numbers ("1 minute 30 seconds" for "a 90
    second timer": no number of it was said, the length was)."""
    try:
        called = parse_duration(value)
    except Exception:  # not a length (a clock time)
        return False
    return any(abs(called - s) < 0.5 for s in lengths_said(utterance))


def dropped(tool: Tool, args: dict[str, Any], utterance: str) -> list[str]:
    """What the user said that the call changes, written for the model."""
    problems: list[str] = []
    for param in tool.counted:
        value = args.get(param)
        if not isinstance(value, str):
            continue
        try:
            called = parse_duration(value)
        except Exception:  # not a length: a clock time, which must not be made of one
            if _made_of_a_length(value, utterance):
                problems.append(f"{param} {value!r} is a clock time, but the user said a "
                                "length of time: a length is a timer's")
            continue
        spoken = lengths_said(utterance)
        if spoken and not any(abs(called - s) < 0.5 for s in spoken):
            problems.append(f"{param} {value!r} is not the length the user said")
    return problems


def _made_of_a_length(value: str, utterance: str) -> bool:
    """The hour of the clock time `value` is a number the user said only as a length ("ok
    warm up first, ten minutes on the clock please" -> an alarm at 10:00, set by the 1.5B)."""
    try:
        hour = parse_clock_time(value)[0]
    except Exception:  # noqa: BLE001 - not a clock time either
        return False
    said = numbers_in(utterance.lower())
    places = [m for m in re.finditer(NUMBER, said) if float(m[0]) in (hour, hour % 12, hour + 12)]
    return bool(places) and all(re.match(rf"\s*(?:{UNIT_WORDS})\b", said[m.end():])
                                for m in places)
