"""Named lists (shopping, to-do, ...) and free notes, kept as plain text files.

<data_dir>/lists/<name>.txt holds one item per line; <data_dir>/notes.txt one note per line.
List names are matched forgivingly: "my Shopping List", "shopping" and an alias such as
"groceries" all mean lists/shopping.txt.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from voiceagent.agent.outcome import Outcome, Ref
from voiceagent.agent.tools import Tool, tool
from voiceagent.atomic import write_atomic
from voiceagent.errors import ToolError
from voiceagent.language import lexicon, say
from voiceagent.language.plural import plural, singular
from voiceagent.ports import Clock
from voiceagent.tools.list_items import split_items
from voiceagent.tools.words import capitalised

_LEX = lexicon()


def _slug(name: str) -> str:
    """'My Shopping List' -> 'shopping'; 'to do' -> 'to-do'; 'new grocery' -> 'grocery';
    'shopping list for today' -> 'shopping' (the name is what comes before "list")."""
    words = re.sub(r"[^a-z0-9]+", " ", name.lower().replace("'s ", " ")).split()
    while words and words[0] in _LEX.words("determiners"):
        words.pop(0)
    fresh = _LEX.find("fresh_words", words)
    if fresh and fresh[0][0] == 0 and fresh[0][1] < len(words) and not _LEX.find(
            "new_names", words[:3]):
        words = words[fresh[0][1]:]  # "a new grocery list": the grocery list
    named = next((at for at, w in enumerate(words) if at and singular(w) in _LEX.words(
        "list_words")), len(words))
    words = words[:named]  # "shopping list for today": the shopping list
    while words and singular(words[-1]) in _LEX.words("list_words"):
        words.pop()
    return "-".join(words)


def _all_lists(slug: str) -> bool:
    """"all", "everything", "lists": every list, not one of them."""
    return not slug or _LEX.is_one("every", slug.split("-"))


def _forms(slug: str) -> list[str]:
    """The name and its singular/plural: 'grocery' <-> 'groceries', 'task' <-> 'tasks'."""
    return list(dict.fromkeys([slug, plural(slug), singular(slug)]))


def _same(a: str, b: str) -> bool:
    """Forgiving item match: case and a plural ("apple", "apples"; "berry", "berries")."""
    return singular(a) == singular(b)


_CALLED = re.compile(rf"\blists?\s+(?:{_LEX.regex('naming_words')})\s+"
                     r"([a-z0-9']+(?:\s+[a-z0-9']+)?)\s*(?:[,.:;]|$)")
"""A list named as such, its name at the end of a clause ("a new list called van,")."""


def meant_item(said: str, current: list[str]) -> str | None:
    """The item on the list `said` names: itself, forgiving a plural; else the one item said
    with words after it ("balloons the birthday girl is scared of them", unpunctuated); else
    the one item it names part of ("the monster" -> "monster energy"); else the one item
    its last words are ("enough rice" -> "rice")."""
    exact = [c for c in current if _same(said, c)]
    if exact:
        return exact[0]
    plain = lexicon().words("articles")
    words = [singular(w) for w in re.findall(r"[\w']+", said.lower()) if w not in plain]
    heads, parts, tails = [], [], []
    of = lexicon().words("partitive")
    for item in current:
        own = [singular(w) for w in re.findall(r"[\w']+", item.lower()) if w not in plain]
        # "a pack of balloons" is named "balloons" too
        thing = own[max((i + 1 for i, w in enumerate(own) if w in of), default=0):]
        if any(name and words[:len(name)] == name for name in (own, thing)):
            heads.append(item)
        elif words and set(words) <= set(own):
            parts.append(item)
        elif own and len(words) > len(own) and words[-len(own):] == own and lexicon().is_one(
                "item_amounts", words[:-len(own)]):
            tails.append(item)  # "we've got enough rice now": "enough rice" is the rice
    for found in (sorted(heads, key=len, reverse=True)[:1], parts, tails):
        if len(found) == 1:
            return found[0]
    return None


def spoken_join(items: list[str]) -> str:
    """['a', 'b', 'c'] -> 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _be(items: list[str], one: str = "is") -> str:
    """'is'/'are' ('was'/'were') for one item or several ("eggs are")."""
    if len(items) == 1 and singular(items[0]) == items[0]:
        return one
    return "are" if one == "is" else "were"


def _how_many(items: list[str]) -> str:
    """'1 item', '3 items'."""
    return f"{len(items)} item{'s' if len(items) != 1 else ''}"


def _write(path: Path, lines: list[str]) -> None:
    write_atomic(path, "".join(f"{line}\n" for line in lines))


class Lists:
    """The lists folder and the alias table."""

    def __init__(self, folder: Path, aliases: dict[str, str]):
        self.folder = folder
        self.aliases = {_slug(k): _slug(v) for k, v in aliases.items()}

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.txt"))

    def named_in(self, utterance: str) -> bool:
        """`utterance` names one of the user's lists after a determiner, without the word
        "list" ("read me the favours", "take him off the guests")."""
        words = re.sub(r"[^a-z0-9' -]+", " ", utterance.lower()).split()
        plain = _LEX.words("function_words")
        mine = set(self.names())
        return any(word in _LEX.words("determiners") and not set(words[at + 1:end]) & plain
                   and any(f in mine for f in _forms(_slug(" ".join(words[at + 1:end]))))
                   for at, word in enumerate(words) for end in (at + 2, at + 3)
                   if end <= len(words))

    def resolve(self, name: str, must_exist: bool) -> str:
        """The stored name for what the user called the list."""
        slug = _slug(name)
        if not slug:
            raise ToolError(f"say which list. Your lists: {self._known()}.")
        existing = self.names()
        forms = _forms(slug)
        for candidate in [self.aliases[f] for f in forms if f in self.aliases] + forms:
            if candidate in existing:
                return candidate
        slug = next((self.aliases[f] for f in forms if f in self.aliases), slug)
        part_of = [n for n in existing if set(slug.split("-")) < set(n.split("-"))]
        if len(part_of) == 1 and slug not in self.aliases.values():
            return part_of[0]  # "the house list" is the one "shared-house" list
        if must_exist:
            raise ToolError(f"there is no {slug!r} list. Your lists: {self._known()}.")
        return slug

    def said(self, utterance: str) -> str:
        """The list named in `utterance` as "<name> list": 'list the items on my shopping list
        olly' -> 'shopping'; '' when none is ("what's on my list", "all my lists")."""
        words = re.sub(r"[^a-z0-9' -]+", " ", utterance.lower()).split()
        stop = _LEX.words("list_stop") | _LEX.words("determiners")
        called = _CALLED.search(utterance.lower())  # "new list called van, 15 mil pipe"
        if called and _slug(called[1]) and not _all_lists(_slug(called[1])):
            return _slug(called[1])
        for at, word in enumerate(words):
            if singular(word) not in _LEX.words("list_words"):
                continue
            start = at
            while start > 0 and at - start < 3 and words[start - 1] not in stop:
                start -= 1
            slug = _slug(" ".join(words[start:at]))
            if slug and not _all_lists(slug):
                return slug
        return ""

    def said_from(self, utterance: str) -> str:
        """The list named to take things off, not one they go to: "move the sunscreen over to
        the shopping list" names none (the sunscreen is on another)."""
        name = self.said(utterance)
        to = "|".join(map(re.escape, sorted(_LEX.words("destinations"))))
        words = "|".join(map(re.escape, sorted(_LEX.words("determiners"))))
        going = rf"\b(?:{to})\s+(?:(?:{words})\s+)?{re.escape(name.replace('-', ' '))}\b"
        return "" if name and re.search(going, utterance.lower()) else name

    def exists(self, name: str) -> bool:
        """`name` is a list the user has, or one of the configured names (shopping, to-do)."""
        slug = _slug(name)
        return bool(slug) and any(
            f in self.names() or f in self.aliases or f in self.aliases.values()
            for f in _forms(slug))

    def missing(self, name: str) -> str | None:
        """The spoken answer when list `name` does not exist yet; None when it does."""
        names = self.names()
        if name in names:
            return None
        if name in self.aliases.values():  # one of the lists there always is, not yet used
            return f"Your {name} list is empty."
        known = f" Your lists: {spoken_join(names)}." if names else ""
        return f"You have no {name} list yet.{known}"

    def _known(self) -> str:
        return ", ".join(self.names()) or "none yet (adding an item creates a list)"

    def read(self, name: str) -> list[str]:
        path = self.folder / f"{name}.txt"
        if not path.exists():
            return []
        try:
            text = path.read_text(encoding="utf-8")
        except ValueError as exc:  # not text (a torn write, garbage): keep it, start afresh
            aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
            path.replace(aside)
            logging.getLogger(__name__).warning(
                "list file %s unreadable (%s); moved it to %s", path, exc, aside)
            return []
        return [line.strip() for line in text.splitlines() if line.strip()]

    def write(self, name: str, items: list[str]) -> None:
        _write(self.folder / f"{name}.txt", items)


def make_tools(data_dir: Path, aliases: dict[str, str],
               clock: Clock) -> tuple[list[Tool], Lists]:
    """The list and note tools, and the Lists store (its names feed speech biasing)."""
    lists = Lists(data_dir / "lists", aliases)
    notes_path = data_dir / "notes.txt"

    @tool(speaks_result=True, writes=True, grounded=("items", "list_name"),
          known={"list_name": lists.exists}, asks={"items": say("ask_items")},
          creates={"list_name": "list_kinds"}, found={"list_name": lists.said})
    def add_to_list(list_name: str, items: str) -> Outcome | str:
        """Add or put items on a list (shopping, to-do, ...); a new list is created.

        Args:
            list_name: the list's name as said.
            items: what to add, in the user's words; commas between items.
        """
        name = lists.resolve(list_name, must_exist=False)
        new = name not in lists.names()
        current = lists.read(name)
        added = [i for i in split_items(items) if not any(_same(i, c) for c in current)]
        if not split_items(items):
            raise ToolError("say what to add, e.g. items='milk and eggs'.")
        if not added:
            said = split_items(items)
            return capitalised(f"{spoken_join(said)} {_be(said)} already on your {name} list.")
        lists.write(name, current + added)
        return Outcome(f"Added {spoken_join(added)} to your {'new ' if new else ''}{name} list.",
                       (Ref("list", "added", key=name, items=tuple(added)),))

    @tool(speaks_result=True, grounded=("list_name", "item"),
          known={"list_name": lists.exists}, found={"list_name": lists.said},
          keeps=lists.named_in)
    def read_list(list_name: str = "", item: str = "") -> Outcome | str:
        """What is on a list, or which lists there are; or whether something is on one.

        Args:
            list_name: the list's name as said; empty for all list names.
            item: what the user asked whether is on the list, in their words; else empty.
        """
        if item.strip():
            return _has_item(list_name, item)
        if _all_lists(_slug(list_name)):
            names = lists.names()
            return f"Your lists: {spoken_join(names)}." if names else "You have no lists yet."
        name = lists.resolve(list_name, must_exist=False)
        items = lists.read(name)
        read = (Ref("list", "read", key=name, items=tuple(items)),)  # "add ... to it" next
        if lists.missing(name):
            return Outcome(str(lists.missing(name)), read)
        if not items:
            return Outcome(f"Your {name} list is empty.", read)
        count = _how_many(items)
        return Outcome(f"Your {name} list has {count}: {spoken_join(items)}.", read)

    def _has_item(list_name: str, item: str) -> Outcome:
        """"Is milk on my shopping list?": yes or no, from the list named or, when none
        was, from every list."""
        asked = split_items(item)
        names = (lists.names() if _all_lists(_slug(list_name))
                 else [lists.resolve(list_name, must_exist=False)])
        kept = {name: lists.read(name) for name in names}
        where = [n for n, items in kept.items() if any(_same(a, i) for a in asked for i in items)]
        named = names[0] if len(names) == 1 else "shopping"
        refs = tuple(Ref("list", "read", key=n, items=tuple(kept[n])) for n in where or names)
        if not where:
            return Outcome(say("not_on_list", items=spoken_join(asked), be=_be(asked),
                               name=named), refs)
        on = [a for a in asked if any(_same(a, i) for n in where for i in kept[n])]
        return Outcome(say("on_list", items=spoken_join(on), be=_be(on), name=where[0])
                       + (" " + say("not_on_list", items=spoken_join(off), be=_be(off),
                                    name=where[0])
                          if (off := [a for a in asked if a not in on]) else ""), refs)

    @tool(speaks_result=True, writes=True, grounded=("items",),
          known={"list_name": lists.exists}, asks={"items": say("ask_removed")},
          found={"list_name": lists.said_from})
    def remove_from_list(items: str, list_name: str = "") -> Outcome | str:
        """Remove, delete or tick off items from a list.

        Args:
            items: what to remove, in the user's words.
            list_name: the list's name as said; empty for the one list they are on.
        """
        wanted = split_items(items) or [items.strip()]
        name = lists.resolve(list_name or holding(wanted), must_exist=False)
        if lists.missing(name):
            return str(lists.missing(name))
        current = lists.read(name)
        meant = {w: meant_item(w, current) for w in wanted}
        gone = [c for c in current if c in meant.values()]
        missing = [w for w, c in meant.items() if c is None]
        if not gone:  # an answer, not an error: the user hears what is on the list
            on = f"; it has {spoken_join(current)}." if current else ", which is empty."
            return capitalised(f"{spoken_join(wanted)} {_be(wanted)} not on your {name} list{on}")
        lists.write(name, [c for c in current if c not in gone])
        tail = (f" {capitalised(spoken_join(missing))} {_be(missing, 'was')} not on it."
                if missing else "")
        return Outcome(f"Removed {spoken_join(gone)} from your {name} list.{tail}",
                       (Ref("list", "removed", key=name, items=tuple(gone)),))

    def holding(wanted: list[str]) -> str:
        """The one list any of `wanted` is on; a ToolError when none or several are."""
        on = [n for n in lists.names() if any(_same(w, c) for c in lists.read(n) for w in wanted)
              ] or [n for n in lists.names() if any(meant_item(w, lists.read(n)) for w in wanted)]
        if len(on) != 1:
            raise ToolError(f"{spoken_join(wanted)} {_be(wanted)} on "
                            f"{'no list' if not on else 'more than one list: ' + spoken_join(on)}"
                            ". Ask the user which list, or answer in plain words.")
        return on[0]

    # no `known`: the new list's name is the user's, said now ("start a new list" after a
    # camping list named that one again)
    @tool(speaks_result=True, writes=True, grounded=("list_name", "items"),
          asks={"list_name": say("ask_new_list")})
    def create_list(list_name: str, items: str = "") -> Outcome | str:
        """Create, start or make a new list, empty or with the things said to go on it.

        Args:
            list_name: the new list's name as said.
            items: what to put on it, in the user's words; empty if none were said.
        """
        if split_items(items):
            return add_to_list.func(list_name=list_name, items=items)  # the Outcome
        name = lists.resolve(list_name, must_exist=False)
        if name in lists.names():  # nothing is made: what there is, is said
            kept = lists.read(name)
            return Outcome(say("list_exists", name=name, count=_how_many(kept)) if kept
                           else say("list_exists_empty", name=name),
                           (Ref("list", "read", key=name, items=tuple(kept)),))
        lists.write(name, [])
        return Outcome(say("list_made", name=name), (Ref("list", "made", key=name),))

    # the list emptied must be one the user named: asked "please remove a list", a model's
    # pick ("shopping") would empty a list nobody spoke of
    @tool(speaks_result=True, writes=True, destroys=True, grounded=("list_name",),
          known={"list_name": lists.exists}, asks={"list_name": say("ask_list")})
    def clear_list(list_name: str) -> Outcome | str:
        """Clear, empty or delete a whole list.

        Args:
            list_name: the list's name as said.
        """
        name = lists.resolve(list_name, must_exist=False)
        if lists.missing(name):
            return str(lists.missing(name))
        gone = lists.read(name)
        lists.write(name, [])
        return Outcome(f"Your {name} list is now empty.",
                       (Ref("list", "cleared", key=name, items=tuple(gone)),))

    @tool(speaks_result=True, writes=True, grounded=("text",))
    def add_note(text: str) -> Outcome:
        """Take a note: write down or remember something.

        Args:
            text: the note, in the user's words.
        """
        text = " ".join(text.split())
        if not text:
            raise ToolError("say what the note should say.")
        old = notes_path.read_text(encoding="utf-8").splitlines() if notes_path.exists() else []
        _write(notes_path, [*old, f"{clock.now():%Y-%m-%d %H:%M} | {text}"])
        return Outcome("Noted.", (Ref("note", "made", label=text),))

    @tool(speaks_result=True)
    def read_notes() -> str:
        """Read the notes back (what the user asked to remember)."""
        lines = notes_path.read_text(encoding="utf-8").splitlines() if notes_path.exists() else []
        notes = [line.split(" | ", 1)[-1] for line in lines if line.strip()]
        if not notes:
            return "You have no notes."
        latest = notes[-10:][::-1]
        more = f" (newest {len(latest)} of {len(notes)})" if len(notes) > len(latest) else ""
        return f"Your notes{more}: " + "; ".join(latest) + "."

    tools = [add_to_list, create_list, read_list, remove_from_list, clear_list, add_note,
             read_notes]
    return tools, lists
