"""What the conversation's calls made, changed, read or offered (their typed references),
as follow-ups point back at them: the last exchange's, and those made earlier."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voiceagent.agent.messages import Message
from voiceagent.agent.outcome import Ref
from voiceagent.language import lexicon, tokens
from voiceagent.language.plural import singular


def last_refs(history: Sequence[Message]) -> list[Ref]:
    """What the last exchange's calls made, changed, read or offered (calls that ran)."""
    refs: list[Ref] = []
    for message in reversed(history):
        if message.role == "user":
            break
        if message.role == "tool" and not message.is_error:
            refs[:0] = message.refs
    return refs


def of_kind_named(refs: list[Ref], text: str) -> list[Ref]:
    """`refs`, unless `text` names a kind of thing none of them is ("set me an alarm for
    quarter to five, naw, make it four thirty" after a list add is about the alarm)."""
    words = {singular(w) for w in tokens(text)}
    named = ({"timer", "alarm"} if words & lexicon().words("timer_kinds") else set()) | (
        {"list"} if words & lexicon().words("list_words") else set())
    kinds = {r.kind for r in refs} - {"number", "clock"}
    return [] if named and kinds and not named & kinds else refs


def made_before(history: Sequence[Message]) -> list[Ref]:
    """The list items, timers and alarms the conversation's calls made, the latest first: a
    correction naming one ("take the onions off, I meant garlic"; "make the rice timer 25
    minutes") points at it wherever it was made."""
    return [r for m in reversed(history) if m.role == "tool" and not m.is_error
            for r in reversed(m.refs) if (r.kind, r.action) in {
                ("list", "added"), ("timer", "made"), ("alarm", "made")}]


def of_the_kind_named(refs: list[Ref], text: str) -> list[Ref]:
    """The timers or the alarms of `refs`, when `text` names that one kind ("make that alarm
    a quarter to seven" after a timer was set: the alarm); [] when it names neither or
    both."""
    kinds = {singular(w) for w in tokens(text)} & lexicon().words("timer_kinds")
    return [r for r in refs if r.kind in kinds] if len(kinds) == 1 else []


def on_the_list_meant(args: dict[str, Any], text: str,
                      history: Sequence[Message]) -> dict[str, Any]:
    """A call's `args` on the list the conversation is about, where `text` says "the list"
    and names none, rather than the one the templates put in (which `text` does not name):
    "take book room 3 off the list" after the to-dos."""
    named = str(args.get("list_name") or "")
    meant = list_spoken_of(history) if named and names_no_list(text) else None
    if meant is None or set(tokens(named)) & set(tokens(text)):
        return args
    return {**args, "list_name": meant}


def list_spoken_of(history: Sequence[Message]) -> str | None:
    """The list the conversation last made, added to, read or took from; None for none."""
    for message in reversed(history):
        if message.role == "tool" and not message.is_error:
            lists = [r.key for r in message.refs if r.kind == "list" and r.key]
            if lists:
                return lists[-1]
    return None


def names_no_list(text: str) -> bool:
    """`text` speaks of "the list" (or "my list") and names none: "take book room 3 off the
    list, that's done" after the office to-dos is about the to-do list, not the shopping
    list the templates put in when no list is named."""
    words = tokens(text)
    lex = lexicon()
    if set(words) & lex.words("shopping_places"):
        return False  # "... on the list for the store"
    return any(singular(w) in lex.words("list_words")
               and (at == 0 or words[at - 1] in lex.words("determiners"))
               for at, w in enumerate(words))
