"""Several whole commands said in one breath, cut where a join word or a comma is: "set a
timer for ten minutes and add milk to my shopping list". A part said without the words
that start the one before it borrows them ("set a timer for 12 minutes for the ribs and 4
minutes for the fries", "set alarms for 6 am, 2 pm and 10 pm"): the fewest words of the
part before that make it a command of the same tool; a bare number for a timer is in the unit
of the timer before ("... and 4 for the fries"). Things counted and then each said as "one"
("set two timers one for 5 minutes for the eggs and one for 12 for the rice") are each that
thing."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import combinations

from voiceagent.intents.list_follow_ups import on_the_list
from voiceagent.intents.match import LocalMatch
from voiceagent.intents.normalize import clean
from voiceagent.language import lexicon, tokens
from voiceagent.language.asking import is_remark, is_request
from voiceagent.language.numbers import NUMBER, numbers_in
from voiceagent.language.spoken_time import UNIT_WORDS
from voiceagent.language.topics import topics_of

JOIN = re.compile(rf"\s*[,.;!?]\s+(?:(?:{lexicon().regex('joins')})\b\s*)?"
                  rf"|\s+(?:{lexicon().regex('joins')})\s+", re.I)
MAX_JOINS = 4
"""More places to cut than this: not tried as several commands (each run of words between
two of them is matched once: 15 runs for 4)."""
MAX_BORROWED = 5
"""The most words a part borrows from the start of the one before it."""

Command = Callable[[str], LocalMatch | None]


def cut_into_commands(said: str, match: Command) -> list[LocalMatch]:
    """The fewest parts of `said` that are each a command (`match`) with a tool, or a request
    nothing here serves, each one once; [] when it cannot be."""
    said = _each_one(said)
    words = tokens(said)
    ends = [start for start, end in lexicon().find("in_place", words) if end == len(words)]
    if not said or lexicon().has("correction", words[:ends[0]] if ends else words):
        return []  # "5 minutes, no wait, 10"; not "cancel it then set one ... instead"
    joins = [m.span() for m in JOIN.finditer(said)]
    if not joins or len(joins) > MAX_JOINS:
        return []
    known: dict[str, LocalMatch | None] = {"": None}

    def command(part: str) -> LocalMatch | None:
        if part not in known:
            known[part] = match(part)
        return known[part]

    for count in range(1, len(joins) + 1):
        for cuts in combinations(joins, count):
            bounds = [0, *(x for cut in cuts for x in cut), len(said)]
            found: list[LocalMatch | None] = []
            parts: list[str] = []
            for a, b in zip(bounds[::2], bounds[1::2], strict=True):
                part = clean(said[a:b])  # "... then read me what's on it": the list
                one = command(part) or (  # the part before spoke of
                    command(on_the_list(part, found[-1])) if found else None)
                if one is None and found:  # "... and 4 minutes for the fries"
                    part = _with_head(_in_unit_before(part, found[-1]), parts[-1], found[-1],
                                      command)
                    one = command(part)
                found.append(one)
                parts.append(part)
            if len(found) > 2 and found[-1] is None and is_remark(tokens(parts[-1])):
                found.pop()  # "..., and a swede, we're nearly out see": a reason, no command
            if (all(m is not None and (m.tool is not None or m.intent.startswith(
                    "unsupported_")) for m in found)
                    and any(m is not None and m.tool is not None for m in found)):
                return _once_each([m for m in found if m is not None])
    return []


def _once_each(found: list[LocalMatch]) -> list[LocalMatch]:
    """`found` with a command said again in the same breath run once ("set a timer for ten
    minutes. ten. one zero minutes, for my eggs" is one timer, "remind me at three to take
    my pills. three o'clock. the pills" one alarm): the same tool with the same values, where
    a name said both times may be said shorter ("the pills"); the fuller one is kept, with
    what either said."""
    kept: list[LocalMatch] = []
    for one in found:
        at = next((i for i, k in enumerate(kept) if _said_again(k, one)), None)
        if at is None:
            kept.append(one)
        elif one.tool is not None:
            fuller, other = (one, kept[at]) if len(str(one.args)) > len(str(kept[at].args)) \
                else (kept[at], one)
            kept[at] = LocalMatch(fuller.intent, fuller.tool, {**other.args, **fuller.args},
                                  fuller.reply)
    return kept


def _said_again(a: LocalMatch, b: LocalMatch) -> bool:
    """`b` is `a` said again: the same request nothing serves, or the same tool with no value
    that differs, beyond a name one of them says in fewer words ("pills", "take my pills")."""
    if a.tool is None or b.tool is None:
        return a.tool is None and b.tool is None and a.intent == b.intent
    if a.tool != b.tool:
        return False
    plain = lexicon().words("function_words")
    for key in a.args.keys() & b.args.keys():
        words = [set(tokens(str(x.args[key]).lower())) - plain for x in (a, b)]
        if a.args[key] != b.args[key] and not (key in NAMES and (
                words[0] <= words[1] or words[1] <= words[0])):
            return False
    return True


NAMES = frozenset({"label", "which", "text"})
"""The arguments that name a thing; said again, a name may be said in fewer words."""


def _with_head(part: str, before: str, previous: LocalMatch | None, command: Command) -> str:
    """`part` with the fewest first words of `before` (and, failing that, its last
    preposition's words) that make it a command of the tool `previous` (the command `before`
    gave) has; `part` itself when none do."""
    if previous is None or previous.tool is None or is_remark(tokens(part)):
        return part  # "..., they are in water already" tells, and borrows nothing
    head = before.split()
    prepositions = lexicon().words("prepositions")
    # ... and the words from its last preposition on, where the thing goes ("add milk to the
    # shopping list, and eggs": "add eggs to the shopping list")
    tails: list[list[str]] = [[]] + [head[at:] for at in range(len(head) - 1, 0, -1)
                    if head[at] in prepositions][:1]
    for tail in tails:
        for count in range(1, min(len(head) - len(tail) - 1, MAX_BORROWED) + 1):
            whole = " ".join([*head[:count], part, *tail])
            found = command(whole)
            if found is not None and found.tool == previous.tool and _adds(found, part):
                return whole
    return part


def _adds(found: LocalMatch, part: str) -> bool:
    """Some value of `found` comes from `part`'s own words: "and 4 minutes for the fries"
    says a length; "..., they are in water already" after "set timer four minutes for
    pierogi" borrows the whole command and says nothing of it (the timer, set twice)."""
    plain = lexicon().words("function_words")
    own = set(tokens(numbers_in(part.lower()))) - plain
    return any(own & set(tokens(numbers_in(str(value).lower())))
               for value in found.args.values())


_KINDS = lexicon().regex("timer_kinds")
_ONE = lexicon().regex("each_one")
_COUNTED = re.compile(
    rf"\b(?:{lexicon().regex('few_counts')})\s+({_KINDS})s\b[,:]?\s+(?:{_ONE})\b", re.I)
_ANOTHER_ONE = re.compile(rf"({JOIN.pattern})(?:{_ONE})\b", re.I)


def _each_one(said: str) -> str:
    """"set two timers one for 5 minutes ... and one for 12 ..." as "set a timer for 5
    minutes ... and a timer for 12 ...": each "one" is the thing counted."""
    counted = _COUNTED.search(said)
    if counted is None:
        return said
    kind = counted[1].lower()
    rest = _ANOTHER_ONE.sub(lambda m: f"{m[1]}a {kind}", said[counted.end():])
    return f"{said[:counted.start()]}a {kind}{rest}"


def _in_unit_before(part: str, previous: LocalMatch | None) -> str:
    """`part` with its bare number ("and 12 for the rice") in the unit of the timer before
    it ("12 minutes" after "a timer for 5 minutes"); `part` itself otherwise."""
    length = str(previous.args.get("duration", "")) if previous is not None else ""
    units = re.findall(rf"\b(?:{UNIT_WORDS})\b", length.lower())
    words = numbers_in(part.lower())
    bare = re.search(rf"\b{NUMBER}\b(?!\s*(?:{UNIT_WORDS})\b)", words)
    if len(units) != 1 or bare is None or re.search(rf"\b(?:{UNIT_WORDS})\b", words):
        return part
    return f"{words[:bare.end()]} {units[0]}{words[bare.end():]}"


def beside_a_question(said: str, command: Callable[[str], bool],
                      for_the_model: Callable[[str], bool]) -> tuple[str, str] | None:
    """(the commands, the question) when `said` joins a question only the model answers and
    commands the templates do ("what's a good internal temperature for a medium rare steak
    and set a timer for four minutes"), in either order; None otherwise."""
    for join in JOIN.finditer(said):
        first, rest = clean(said[:join.start()]), clean(said[join.end():])
        for question, commands in ((first, rest), (rest, first)):
            if question and commands and for_the_model(question) and command(commands):
                return commands, question
    return None


def for_the_model(part: str) -> bool:
    """`part` asks something of no topic a tool serves or that nothing here does: the model
    answers it ("how long should i let it rest")."""
    said = tokens(part)
    known = topics_of()
    return (len(said) >= QUESTION_WORDS and is_request(part, said) and known.cannot(part) is None
            and not any(t.served for t in known.about(part))
            and not lexicon().is_one("checks_done", said))  # "did you get that?": a read


QUESTION_WORDS = 3
"""The fewest words of a question said beside a command."""


MOVE = "list_move"
"""The intent of "move the sunscreen over to the shopping list" (builtin.yaml)."""


def moved(found: LocalMatch) -> list[LocalMatch]:
    """A move as the two commands it is: off the list the items are on (the one holding
    them), onto the list named."""
    return [LocalMatch(f"{MOVE}_off", "remove_from_list", {"items": found.args["items"]}),
            LocalMatch(f"{MOVE}_on", "add_to_list", dict(found.args))]
