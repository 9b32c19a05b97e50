"""Whisper's text made matchable: hesitations, words broken off and started again,
politeness and the assistant's name dropped.

The result keeps the user's words, case and inner commas (list items are cut from it), so
whatever a template's slot takes from it is still what the user said. The words are the
lexicon's: fillers, politeness, request_asides, addresses, request_openers,
request_tails.
"""

from __future__ import annotations

import re

from voiceagent.language import lexicon
from voiceagent.language.lexicon import alternation
from voiceagent.language.restarts import (
    said_instead,
    said_once,
    started_again,
    unbroken,
    value_said_again,
)

_LEX = lexicon()


def _stretched(term: str) -> str:
    """A hesitation as people stretch it: "um" is also "uum" and "ummm"."""
    return "".join(re.escape(letter) + "+" for letter in term)


_HESITATION = re.compile(
    r"\b(?:" + "|".join(_stretched(t) for t in _LEX.phrases("fillers")) + r")\b[,.]?\s*",
    re.I)
_ANYWHERE = re.compile(rf"(?:,\s*)?\b(?:{_LEX.regex('politeness')})\b,?\s*", re.I)
# one alternation, longest first: "ok google" is an address, not the aside "ok" + "google ..."
_STARTS = alternation(term for name in ("request_asides", "addresses", "request_openers")
                      for term in _LEX.terms(name))
_LEADING = re.compile(rf"^(?:{_STARTS})\b[,.!]?\s+", re.I)
_TRAILING = re.compile(rf"[,\s]+(?:{_LEX.regex('request_tails')})$", re.I)
_TAKEN_BACK = _LEX.regex("correction")
_NOT = _LEX.regex("instead_of")
_VALUE_HEADS = _LEX.regex("value_heads")
_PASSED_ON = re.compile(
    rf"^(?:[\w']+\s+){{0,2}}[\w']+\s+(?:{_LEX.regex('passed_on')}),?\s+(?=\S+\s+\S)",
    re.I)
"""Who a question is passed on from, before it: "our kid's asking how long's left"."""
_PAUSED = re.compile(rf",\s*(?:{_LEX.regex('paused_fillers')})\s*,", re.I)
_LOOSE = re.compile(rf"(?<![\w'])(\S+\s+)?(?:{_LEX.regex('loose_fillers')})\b,?\s*(?=\S)", re.I)
"""A loose filler with a word after it: at the end "like" asks ("what's the weather like")."""
_EDGE = "\"'.,!?;:…-–— \t\n"


def clean(text: str) -> str:
    """'Um, hey, could you add apples to my shopping list, please?' ->
    'add apples to my shopping list'."""
    return opened(text)[1]


def opened(text: str) -> tuple[str, str]:
    """(what clean() drops from the start of `text`, what it keeps): "Oh and also sponges"
    -> ("Oh and also", "sponges"). The asides dropped are no part of a command, but one may
    say that the request goes on from the last one (intents/follow_up.py reads them)."""
    t = text.replace("\u2019", "'").replace("\u2018", "'")
    t = unbroken(" ".join(t.split()))
    t = _without_loose_fillers(_PAUSED.sub(",", _HESITATION.sub("", t)))
    t = started_again(said_once(t, _TAKEN_BACK), _TAKEN_BACK)
    t = value_said_again(said_instead(t, _TAKEN_BACK, _NOT), _TAKEN_BACK, _VALUE_HEADS)
    t = _ANYWHERE.sub(" ", t)
    t = " ".join(t.split()).strip(_EDGE)
    passed_on = _PASSED_ON.match(t)
    dropped: list[str] = [passed_on[0].strip()] if passed_on else []
    t = t[passed_on.end():] if passed_on else t
    while True:
        before = t
        found = _LEADING.match(t)
        if found:
            dropped.append(found.group(0).strip(_EDGE))
            t = t[found.end():].strip(_EDGE)
        tail = _TRAILING.search(t)
        if tail and not _LEX.has("tail_governors", t[:tail.start()].split()[-1:]):
            t = t[:tail.start()].strip(_EDGE)
        if t == before:
            return " ".join(dropped), t


def _without_loose_fillers(text: str) -> str:
    """'add like bin bags' -> 'add bin bags'; 'i'd like', 'do you know' and 'looks like'
    keep theirs (lexicon loose_fillers, loose_filler_governors)."""
    governors = _LEX.words("loose_filler_governors")

    def drop(found: re.Match[str]) -> str:
        before = found[1] or ""
        if before.strip(" ,.").lower() in governors:
            return found[0]
        return before

    return _LOOSE.sub(drop, text)

