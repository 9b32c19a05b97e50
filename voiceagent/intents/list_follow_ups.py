"""Follow-ups on a list the last exchange touched: an item named off it ("take the bananas
off" after it was read), more of the same ("and grapes"), one item put in place of another
("make that almond milk"). The list and its items come from the exchange's typed
references (agent/outcome.py); the items are read as the list templates read them."""

from __future__ import annotations

import re
from dataclasses import replace

from voiceagent.agent.outcome import Ref
from voiceagent.intents import slots
from voiceagent.intents.match import LocalMatch
from voiceagent.language import lexicon, tokens
from voiceagent.language.plural import singular
from voiceagent.tools.list_items import items_said
from voiceagent.tools.lists import meant_item
from voiceagent.tools.words import numbers_in


def take_off(gone: str, refs: list[Ref]) -> list[LocalMatch]:
    """What the user names off the one list the last exchange touched: "take the bananas
    off" after the list was read out (not "take it off": that is cancel's)."""
    named = set(tokens(gone)) - lexicon().words("pointing") - lexicon().words(
        "determiners") - lexicon().words("item_trailers")  # "we've got some already": none
    touched = _one_list(refs) or _one_list(  # of several, the one list holding it
        [r for r in refs if r.kind == "list" and any(set(_norm(gone)) & set(_norm(i))
                                                     for i in r.items)])
    if touched is None or not named or _clause_in(gone):
        return []
    known = [i for r in refs if r.kind == "list" for i in r.items]
    every = lexicon().words("every")
    if (set(tokens(gone)) & lexicon().words("pronouns") and not named <= every
            and not any(set(_norm(gone)) & set(_norm(i)) for i in known)):
        return []  # "cancel the fish tank timer, i've done it early": "it" names no item
    if named <= every and known:  # "i bought all that": what it holds
        gone = ", ".join(dict.fromkeys(known))
    gone = _the_one_meant(gone, known)
    found = slots.items(gone)
    return [LocalMatch("list_take_off", "remove_from_list",
                       {"list_name": touched, **found})] if found else []


def only_named(found: list[LocalMatch], said: str) -> list[LocalMatch]:
    """Items taken off by pointing ("it", "them") beside words that name some of them:
    "sorry dal is already there at home, please remove it" after "add toor dal and rice"
    takes off the dal alone. All of them when the words name none, or every one."""
    named = {singular(w) for w in tokens(said)} - lexicon().words("function_words")
    kept = []
    for m in found:
        items = items_said(m.args.get("items", "")) if m.tool == "remove_from_list" else []
        meant = [i for i in items if {singular(w) for w in tokens(i)} & named]
        kept.append(replace(m, args={**m.args, "items": ", ".join(meant)})
                    if meant and len(meant) < len(items) else m)
    return kept


def on_the_list(said: str, before: LocalMatch | None) -> str:
    """`said` with the list the command `before` it spoke of in place of "it" ("add flour
    to the shopping list then read me what's on it"); "" when it has no list or no "it"."""
    name = before.args.get("list_name") if before is not None else None
    pointing = re.compile(rf"\b(?:{lexicon().regex('pronouns')})\b", re.I)
    if not isinstance(name, str) or not name or not pointing.search(said):
        return ""
    return pointing.sub(lexicon().names("list_named")["as"].format(name=name), said, count=1)


def _clause_in(said: str) -> bool:
    """A part of `said` after a comma starts as a question or a command does ("all that, you
    can clear it"): the slot ran on into another clause, and names no item."""
    return any(lexicon().is_one("no_item_first", tokens(part)[:1])
               for part in said.split(",")[1:] if tokens(part))


def put_on(more: str, refs: list[Ref]) -> list[LocalMatch]:
    """What the user puts on "it", the one list the last exchange touched: "add call the
    dentist to it" after the to-do list was read out (or found missing). Said with "to it",
    a command word starts an item ("call", "pay")."""
    touched = _one_list(refs)
    found = slots.items(more) if touched is not None and tokens(more) else None
    return [LocalMatch("list_put_on", "add_to_list",
                       {"list_name": touched, **found})] if found else []


def _one_list(refs: list[Ref]) -> str | None:
    """The one list the last exchange touched (added to, read, taken from); None for none or
    several."""
    lists = {r.key for r in refs if r.kind == "list"}
    return lists.pop() if len(lists) == 1 else None


def more_items(more: str, refs: list[Ref]) -> list[LocalMatch]:
    """`more` on the one list the last exchange added to, or off the one it took from;
    only when `more` reads as items the way the list templates read them, and starts
    no question or command ("and who wrote hamlet?" is no item). After a note: one more."""
    touched = {(r.key, r.action) for r in refs if r.kind == "list"}
    words = tokens(more)
    if not touched and any(r.kind == "note" and r.action == "made" for r in refs):
        # "and also that the bins go out on thursday" after a note: another note
        told = re.sub(rf"^\W*(?:(?:{lexicon().regex('note_openers')})\b\W*)+", "", more,
                      flags=re.I)
        first = tokens(told)[:2]
        if not first or any(lexicon().is_one("no_item_first", first[:n]) for n in (1, 2)):
            return []
        found = slots.note_text(told)
        return [LocalMatch("note_more", "add_note", found)] if found else []
    if (len(touched) != 1 or not words
            or any(lexicon().is_one("no_item_first", words[:n]) for n in (1, 2))):
        return []
    [(key, action)] = touched
    # "and a timer for- Sam" after an add starts a command of another tool's, not an item
    found = None if slots.mentions_own_tools(more) else slots.items(more)
    if found is None or action not in ("added", "removed"):
        return []
    if action == "added":
        return [LocalMatch("list_more", "add_to_list", {"list_name": key, **found})]
    return [LocalMatch("list_more", "remove_from_list", {"list_name": key, **found})]


def replace_item(on: Ref, old: str, new: str) -> list[LocalMatch]:
    """On list `on`, `old` taken off and `new` put on instead; a new amount alone changes
    the amount of `old` ("make that 3 pounds" after "2 pounds of ground beef")."""
    said = new.split()
    if len(said) > 1 and said[0].lower() in lexicon().words("adding_verbs"):
        new = " ".join(said[1:])  # "no, add eggs": the eggs
    items = slots.items(_with_amount(old, new) or new)
    if items is None or same_item(items["items"], old):
        return []
    return [LocalMatch("list_remove", "remove_from_list", {"list_name": on.key, "items": old}),
            LocalMatch("list_add", "add_to_list", {"list_name": on.key, **items})]


def _with_amount(item: str, amount: str) -> str:
    """`item` with `amount` in place of the amount it begins with ("2 pounds of ground beef",
    "3 pounds" -> "3 pounds of ground beef"; "6 eggs", "twelve" -> "12 eggs"); "" when
    `amount` is more than an amount, or `item` has none."""
    old, new = numbers_in(item).split(), numbers_in(amount).split()
    if not old or not new or not _is_number(old[0]) or not _is_number(new[0]):
        return ""
    if len(new) == 1:
        return " ".join(new + old[1:])
    unit = len(new) - 1  # the words after the number: the unit, if they are one
    if [singular(w) for w in old[1:1 + unit]] == [singular(w) for w in new[1:]]:
        return " ".join(new + old[1 + unit:])
    of = old.index("of") if "of" in old[1:4] else 0
    return " ".join(new + old[of:]) if of and unit <= 2 else ""


def _is_number(word: str) -> bool:
    return word.replace(".", "", 1).isdigit()


def _the_one_meant(said: str, items: list[str]) -> str:
    """The one item of `items` that `said` names by part of it ("the passport one" ->
    "renew passport"); `said` itself when it names several things, or none of the items."""
    named = [w for w in tokens(said) if w != "one"]
    if not named or len(items_said(said)) > 1:
        return said
    return meant_item(" ".join(named), items) or said


def _norm(text: str) -> list[str]:
    return [w.rstrip("s") for w in tokens(text) if w not in lexicon().words("articles")]


def same_item(a: str, b: str) -> bool:
    """The same thing, forgiving case, articles and a plural s."""
    return bool(_norm(a)) and _norm(a) == _norm(b)


def alike(a: str, b: str) -> bool:
    """Things of one kind: their last words, forgiving a plural s ("oat milk", "almond
    milk")."""
    return bool(_norm(a)) and bool(_norm(b)) and _norm(a)[-1] == _norm(b)[-1]
