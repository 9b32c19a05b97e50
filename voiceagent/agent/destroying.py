"""Whether the user clearly asked to delete or forget something.

Small models call destructive tools on unrelated requests ("call my mom" forgot the
conversation). A deleting verb counts only with a real object after it ("clear my list",
"forget this conversation"), or "start over"; "forget it", "never mind" and "don't cancel the
timer" are no such request. The words are the lexicon's ("destroy", "vague", "start_over",
"negation", "own_things").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from voiceagent.language import lexicon, tokens
from voiceagent.language.topics import find_terms, topics_of

NEAR = 2
"""A negation this many words before the verb ("don't ever cancel") still negates it."""
WANTED_OBJECT = 3
"""The thing no longer wanted comes this soon after the wish ("don't want my shopping list"),
not later ("don't want eggs on the shopping list": an item, not the list)."""


def _negated(said: Sequence[str], at: int) -> bool:
    """A negation ends within NEAR words before position `at`; not one that only sounds
    like it ("never mind, cancel the rice timer": lexicon "not_negating")."""
    lex = lexicon()
    kept = {start for start, _end in lex.find("not_negating", said[:at])}
    return any(start <= at and end >= at - NEAR and end <= at and start not in kept
               for start, end in lex.find("negation", said[:at]))


def _with_object(said: Sequence[str]) -> Iterator[tuple[int, bool]]:
    """(position, whether a real object follows) of each deleting verb."""
    lex = lexicon()
    for start, end in lex.find("destroy", said):
        rest = said[end:]
        vague = not rest or any(tuple(rest) == t for t in lex.terms("vague"))
        yield start, not vague


def clearly_asked_to_destroy(utterance: str, named: str = "") -> bool:
    """True when the user used a deleting verb with an object ("clear my list", "forget this
    conversation", "start over", "I don't need the timer any more, cancel it"); "it" may
    point at what `named` (the last exchange, when the user refers back to it) spoke of:
    "clear it" right after the shopping list was read out."""
    lex = lexicon()
    said = tokens(utterance)
    owned = lex.has("own_things", said) or lex.has("own_things", tokens(named))
    for start, real in _with_object(said):
        if real and not _negated(said, start):
            return True
    for start, _end in lex.find("start_over", said):
        if not _negated(said, start):
            return True
    for start, end in lex.find("destroy", said):  # "cancel it" where "it" was named
        if (tuple(said[end:end + 1]) in lex.terms("vague") or said[end:end + 1] == ["them"]) \
                and owned and not _negated(said, start):
            return True
    return False


def asked_not_to_destroy(utterance: str) -> bool:
    """"Don't clear the shopping list yet.", "Don't cancel the pasta timer": a deleting verb
    the user said not to do."""
    said = tokens(utterance)
    return any(_negated(said, start) for start, _end in lexicon().find("destroy", said))


def only_asked_not_to(utterance: str) -> bool:
    """"Don't clear my shopping list yet.": a deleting verb said not to be done, and no verb
    of doing that is not negated: nothing was asked to change (the 1.5B took "shopping list"
    off the shopping list). "Don't cancel the timer, just remove the milk" asks something."""
    said = tokens(utterance)
    return asked_not_to_destroy(utterance) and all(
        _negated(said, at) for at in find_terms(topics_of().verbs, said))


def no_longer_wanted(utterance: str) -> bool:
    """The user says they no longer want one of their things, without asking to delete it
    ("I don't want this list any more", "get rid of my alarms"): a destroying call then
    runs only on their yes to a spoken question, never on the wish alone."""
    lex = lexicon()
    said = tokens(utterance)
    return any(lex.has("own_things", said[end:end + WANTED_OBJECT])
               for _start, end in lex.find("unwanting", said))
