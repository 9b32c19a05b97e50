"""Nothing the user said is dropped: the inverse of grounding.

A day said with an alarm ("set wake up thursday seven am", "at eight am next saturday")
must reach the call: the 1.5B set both for tomorrow, and told so, repeated the same call
until the turn's time ran out. The words are the user's, so the turn adds them to the call
itself (`carry`). A length said for a timer must be the length called (`dropped`: the model
is told). Which words must be carried is data: `Tool.carries` names a lexicon set ("days")
and the parameters that hold its words.
"""

from __future__ import annotations

import re
from typing import Any

from voiceagent.agent.tools import Tool
from voiceagent.language import lexicon, tokens
from voiceagent.language.lengths import lengths_said
from voiceagent.language.numbers import ordinals
from voiceagent.tools.words import parse_duration

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
            last = end
            if lex.is_one("months", said[end - 1:end]):
                last = _past_day(said, end)  # "june 27th"
                if last == end:
                    continue  # a month alone is no date ("may I ask")
            term = " ".join(said[start:last])
            carried = " ".join(tokens(" ".join(str(args.get(p, "")) for p in params)))
            if " ".join(said[start + (said[start] in qualifiers):end]) not in carried:
                args[first] = f"{str(args.get(first, '')).strip()} {term}".strip()
                added.append(term)
    return args, added


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


def _past_day(said: list[str], end: int) -> int:
    """`end`, past the day of the month said right after it ("june twenty seventh", "june
    27th"): a date goes whole into the call, or not at all."""
    lex = lexicon()
    day_words = lex.words("number_words") | {w for o in ordinals(31) for w in o.split()}
    while end < len(said) and (said[end] in day_words or _DAY.fullmatch(said[end])):
        end += 1
    return end


_DAY = re.compile(r"\d{1,2}(?:st|nd|rd|th)?")


def dropped(tool: Tool, args: dict[str, Any], utterance: str) -> list[str]:
    """What the user said that the call changes, written for the model."""
    problems: list[str] = []
    for param in tool.counted:
        value = args.get(param)
        if not isinstance(value, str):
            continue
        try:
            called = parse_duration(value)
        except Exception:  # not a length (a clock time): nothing to compare
            continue
        spoken = lengths_said(utterance)
        if spoken and not any(abs(called - s) < 0.5 for s in spoken):
            problems.append(f"{param} {value!r} is not the length the user said")
    return problems
