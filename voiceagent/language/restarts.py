"""Words broken off and started again, as a transcript writes a stammer or a false start:
"set a t- a timer for f- fifteen" -> "set a timer for fifteen", "and an al- an alarm for
s- six thirty" -> "and an alarm for six thirty", "s-s-six" -> "six"; and a start taken back
before the request is said ("add, no wait, put butter on the list"); and words said again
after a pause ("what's, what's the time", "for the, the scones"); and a word or two taken
back at the end and put in place ("wake me up tomorrow at seven. no, not tomorrow, friday").

A broken-off word is a word's first letters and a hyphen, the word itself said within the
next two words; the words said again after it ("a t- a timer") are kept once. A hyphen that
joins words ("t-shirt", "x-ray") or ends a thought ("a timer for- Sam, put that down") is
no break: the letters before it do not start what follows.
"""

from __future__ import annotations

import re

from voiceagent.language.dictation import marks_written, unabbreviated
from voiceagent.language.lexicon import lexicon
from voiceagent.language.numbers import SMALL

_NUMBER_WORDS = "|".join(sorted(SMALL, key=len, reverse=True))

_IN_WORD = re.compile(r"\b([a-z]{1,3})-(?:\1-)*(?=\1)", re.I)
"""A stammer written inside the word: "s-s-six", "tw-twelve"."""
_BROKEN = re.compile(r"^[a-z']{1,4}-$", re.I)
AHEAD = 2
"""The broken word is said again within this many words ("al- an alarm")."""
RESTARTED = 3
"""At most this many words before the break are said again after it ("for the t- for the")."""


def unbroken(text: str) -> str:
    """`text` without its broken-off words and the words said twice around them."""
    words = _IN_WORD.sub("", text).split()
    kept: list[str] = []
    for at, word in enumerate(words):
        if _broken(word, words[at + 1:at + 1 + AHEAD]):
            kept = _without_restart(kept, words[at + 1:])
            continue
        kept.append(word)
    return " ".join(kept)


def said_once(text: str, taking_back: str = "") -> str:
    """`text` with what was said again after a pause (and a correction, `taking_back`: a
    regular expression) said once: "what's, what's 220 celsius" -> "what's 220 celsius",
    "make it quarter past, sorry, quarter past seven" -> "make it quarter past seven"."""
    back = rf"(?:(?:{taking_back})\b[\s,]*)*" if taking_back else ""
    return re.sub(rf"\b((?:[\w']+\s+){{0,2}}[\w']+),\s+{back}\1\b", r"\1", text, flags=re.I)


def _broken(word: str, after: list[str]) -> bool:
    start = word[:-1].lower()
    return bool(_BROKEN.match(word)) and any(
        w.lower().startswith(start) and len(w) > len(start) for w in after)


def _without_restart(before: list[str], after: list[str]) -> list[str]:
    """`before` without its last words when the words after the break say them again."""
    for size in range(min(RESTARTED, len(before)), 0, -1):
        said = [w.lower().strip(",.") for w in before[-size:]]
        if said == [w.lower().strip(",.") for w in after[:size]]:
            return before[:-size]
    return before


def started_again(text: str, taking_back: str) -> str:
    """`text` from where it starts again after its first word was taken back by a correction
    (`taking_back`, a regular expression): "add, no wait, put butter on the shopping list" ->
    "put butter on the shopping list". What follows must be longer than what was taken back:
    "milk, no sorry, eggs" corrects an item, and stays whole; "add milk, not the oat milk"
    too."""
    found = re.match(rf"^\s*(\S+?),\s*(?:(?:{taking_back})\b[\s,.]*)+", text, re.I)
    if (found is None or len(text[found.end():].split()) <= len(found[1].split())
            or re.fullmatch(rf"(?:{taking_back})", found[1], re.I)):
        return _verb_said_again(text, taking_back)  # "no, wait, make it twelve": the
    return text[found.end():]  # correction is the request's own


def _verb_said_again(text: str, taking_back: str) -> str:
    """`text` from its first word said again after a correction, with no pause written: "add
    bread actually no add bagels to the list" -> "add bagels to the list"."""
    first = re.match(r"^\s*([a-z']+)\s", text, re.I)
    if first is None or re.fullmatch(rf"(?:{taking_back})", first[1], re.I):
        return text
    again = re.search(rf"\s(?:(?:{taking_back})\b[\s,.]*)+(?={re.escape(first[1])}\s+\S)",
                      text[first.end():], re.I)
    return text[first.end() + again.end():] if again else text


def value_said_again(text: str, taking_back: str, heads: str) -> str:
    """`text` with a value taken back right after it was said, and said again ("set an alarm
    for seven, wait, no, half seven tomorrow" -> "set an alarm for half seven tomorrow"):
    a word or two after a word that takes a value (`heads`: "for", "at"), a pause, then a
    correction (`taking_back`); regular expressions."""
    text = re.sub(rf"\b({heads}),?\s+[\w']+(?:\s+[\w']+)?,\s*(?:(?:{taking_back})\b[\s,]*)+"
                  rf"(?=\w)", r"\1 ", text, flags=re.I)
    # ... and a number taken back by a number with no pause between ("for 20 no 25 minutes");
    # not by "not": "at 7 not 8" says which of the two is wrong
    said = rf"(?:\d+(?:\.\d+)?|(?:{_NUMBER_WORDS})(?:[\s-](?:{_NUMBER_WORDS}))?)"
    negation = lexicon().regex("instead_of")
    return re.sub(rf"\b({heads})\s+{said}\s+(?:(?!(?:{negation})\b)(?:{taking_back})\b\s*)+"
                  rf"(?={said}\b)", r"\1 ", text, flags=re.I)


def said_instead(text: str, taking_back: str, negation: str) -> str:
    """`text` with what its end takes back put in its place: "wake me up tomorrow at seven.
    no, not tomorrow, friday" -> "wake me up friday at seven", "put limes and coarse salt on
    the party list, no wait not coarse salt, flaky salt" -> "... flaky salt on the party
    list" (`taking_back`, `negation`: regular expressions). `text` itself when what is taken
    back was not said before it, or said twice."""
    found = re.search(
        rf"[,.;!]?\s+(?:(?:{taking_back})\b[\s,.]*)*(?:{negation})\s+(?P<old>[^,.;]+?)[,.;]\s*"
        rf"(?:(?:{taking_back})\s+)?(?P<new>[^,.;]+?)[.!]?$", text, re.I)
    if found is None:
        return text
    head = text[:found.start()]
    said = list(re.finditer(rf"\b{re.escape(found['old'])}\b", head, re.I))
    if len(said) != 1:
        return text
    return f"{head[:said[0].start()]}{found['new']}{head[said[0].end():]}"


def restated(text: str) -> str:
    """What the user says instead after disowning a reading at the start: "i don't mean
    switch it on, i mean time the tea for four minutes" -> "time the tea for four minutes"
    (the lexicon's `disowning` and `restating`); `text` itself otherwise."""
    lex = lexicon()
    found = re.match(rf"^\W*(?:(?:{lex.regex('correction')})\W+)*(?:{lex.regex('disowning')})"
                     rf"\b[^,.;!?]*[,.;!?]\s*"
                     rf"(?:(?:no|nah)\W+)?(?:{lex.regex('restating')})\s+(?P<new>\S.*)$",
                     text, re.I)
    return found["new"] if found else text


def meant(text: str) -> str:
    """What the user meant to say: punctuation dictated written and shorthand read
    (language/dictation.py), broken-off words said once, a reading disowned at its start
    left out, and what the end of `text` takes back put in its place (the lexicon's
    `correction` and `instead_of`)."""
    lex = lexicon()
    return said_instead(restated(unbroken(marks_written(unabbreviated(text)))),
                        lex.regex("correction"), lex.regex("instead_of"))
