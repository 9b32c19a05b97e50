"""Checks that a tool call acts on what the user said, before it runs.

Small models fill free-text arguments with things nobody said ("add apples" became
"apples, bananas, oranges"; timers got the worked example's label) and call destructive tools
on unrelated requests ("call my mom" forgot the conversation). Both are caught here, by
comparing the call with the user's own words: a required argument nobody said goes back to
the model as an error result; an optional one (a place, a timer label) is left out.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from voiceagent.agent.carried import dropped
from voiceagent.agent.tools import Tool
from voiceagent.language import lexicon, say
from voiceagent.tools.words import numbers_in

FILLER = {
    "a", "an", "the", "some", "any", "of", "and", "or", "my", "our", "your", "to", "for",
    "with", "on", "in", "at", "please", "also", "too", "more", "few", "couple", "pack",
    "bottle", "bottles", "can", "cans", "bag", "bags", "box", "boxes", "list", "item", "items",
    "thing", "things", "timer", "alarm", "note", "city", "country", "called", "named", "it",
    "plus", "minus", "times", "multiplied", "divided", "by", "over", "percent", "sqrt",
    "square", "root", "squared", "cubed", "power", "pow", "mod", "x", "is", "what",
}
"""Words a model may add around what the user named without inventing anything, and the
words it writes for the operators of a sum the user said."""

DESTROY_VERBS = (r"forget|clear|delete|erase|remove|cancel|wipe|reset|empty|stop|drop|purge|"
                 r"scrap|abort|kill|end|dismiss|silence|disable|get\s+rid|"
                 r"(?:turn|switch|shut)\s+off|call\s+off|clean\s+out|never\s*mind\s+the|"
                 r"don'?t\s+wake|start\s+(?:over|again|fresh|from\s+scratch)|"
                 r"(?:start\s+)?(?:a\s+)?new\s+(?:conversation|chat|session)")
VAGUE_OBJECT = r"(?:it|that|this|about\s+(?:it|that|this))?\s*[.!?,]*\s*$"
_DESTROY = re.compile(rf"\b(?:{DESTROY_VERBS})\b(?=\s+\w)(?!\s+{VAGUE_OBJECT})", re.I)
"""A deleting verb with a real object after it ("stop", "forget it" alone are not)."""
_START_OVER = re.compile(r"\bstart\s+(?:over|again|fresh|from\s+scratch)\b|"
                         r"\bnew\s+(?:conversation|chat|session)\b", re.I)


def words(text: str) -> list[str]:
    """Lower-case words with number words as digits ("two apples" -> ["2", "apples"])."""
    return re.findall(r"[a-z0-9']+", numbers_in(text.lower().replace("’", "'")))


def _stem(word: str) -> str:
    """Singular-ish form, so "tomatoes" matches "tomato" and "berries" "berry"."""
    word = word.removesuffix("'s")
    for suffix, repl in (("ies", "y"), ("oes", "o"), ("ches", "ch"), ("shes", "sh"),
                         ("ses", "s"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + repl
    return word


def _said(word: str, heard: set[str], joined: str) -> bool:
    stem = _stem(word)
    if stem in heard or word in joined.replace(" ", ""):
        return True
    return len(stem) >= 5 and bool(difflib.get_close_matches(stem, heard, n=1, cutoff=0.85))


UNIT_FACTORS = {"60", "24", "7", "12", "52", "365", "100", "1000", "3600", "1440"}
"""Conversion factors a sum may use when the user named units ("minutes in 3 hours" is
3 * 60): not numbers the model made up."""
_UNITS = re.compile(r"\b(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|dozens?|"
                    r"percent|%|meters?|metres?|kilo\w*|grams?|lit(?:er|re)s?|cents?|"
                    r"centi\w*|milli\w*)\b", re.I)


_HALF = re.compile(r"\bhalf\b", re.I)
_QUARTER = re.compile(r"\bquarter\b", re.I)
_ONE = re.compile(r"\b(?:an?|one)\s+(?:second|minute|hour|day|week|month|year)\b|"
                  r"\b(?:an?|one)\s+(?:and\s+a\s+half|o'?clock)\b", re.I)
_A = re.compile(r"\b(?:an?|one|per)\b", re.I)
"""An amount of one, as said before a unit ("a pound", "per hour")."""
_AFTERNOON = re.compile(r"\b(?:p\.?\s?m\.?|afternoon|evening|tonight|night)\b", re.I)
_BEFORE = re.compile(r"\b(?:to|till|til|before)\s+\w+\s*(?:[ap]\.?m\.?|o'?clock)?\s*[.?!]*$|"
                     r"\b(?:quarter|half|\d+|\w+)\s+(?:minutes\s+)?(?:to|till|til|before)"
                     r"\s+\w+", re.I)
_NOON = re.compile(r"\b(?:noon|midday|midnight)\b", re.I)


def _numbers_said(utterance: str) -> set[int]:
    """The numbers in `utterance`; a clock reading ("seven thirty" is 730) as its hour and
    minutes too."""
    said = {int(n) for n in re.findall(r"\d+", numbers_in(utterance.lower()))}
    return said | {part for n in said if 100 <= n < 2400 and n % 100 < 60
                   for part in divmod(n, 100)}


def says_no_number(utterance: str) -> bool:
    """Nothing in it could be a length of time or a clock time ("Set an alarm.")."""
    return not (_numbers_said(utterance) or _HALF.search(utterance)
                or _QUARTER.search(utterance) or _ONE.search(utterance)
                or _NOON.search(utterance))


def on_topic(tool: Tool, utterance: str) -> bool:
    """The user named what the tool is for (a word of its description, "alarm", "wake",
    "remind"): only then is its question theirs to answer. Asked "Turn up the volume.", the
    0.5B called set_alarm and the user heard "For what time?"."""
    about = {w[:5] for w in words(tool.description) if len(w) >= 4}
    return any(w[:5] in about for w in words(utterance) if len(w) >= 4)


def unsaid_numbers(value: str, utterance: str) -> list[str]:
    """The numbers in `value` (a duration, a clock time) the user did not say, allowing the
    ways a model writes what was said: "half an hour" 30 minutes, "quarter past" 15, "an
    hour" 1, "3 pm" 15:00, "noon" 12:00, "1 hour 30 minutes" 90 minutes, and zeros ("7:00")."""
    said = _numbers_said(utterance)
    if _HALF.search(utterance):
        said |= {30, 5}
    if _QUARTER.search(utterance):
        said |= {15, 45, 25}
    if _ONE.search(utterance):
        said.add(1)
    if _NOON.search(utterance):
        said |= {12, 24}
    if _AFTERNOON.search(utterance):
        said |= {n + 12 for n in said if n <= 12}
    said |= {n - 12 for n in said if 12 < n < 24}  # "15:00" said, "3 PM" written
    if _BEFORE.search(utterance):  # "quarter to seven", "ten to six"
        said |= {n - 1 for n in said if n > 0} | {60 - n for n in said if 0 < n < 60}
    said |= {h * 60 + m for h in said for m in said | {0} if h < 24 and m < 60}
    written = re.findall(r"\d+", numbers_in(value.lower()))
    return [n for n in written if int(n) != 0 and int(n) not in said]


def _content(value: str) -> list[str]:
    return [w for w in words(value) if w not in FILLER]


def unsaid_words(value: str, utterance: str) -> list[str]:
    """The content words of `value` that do not occur in `utterance` (forgiving plurals,
    number words, spacing and small misspellings; unit factors when units were named)."""
    spoken = words(utterance)
    heard = {_stem(w) for w in spoken}
    joined = " ".join(spoken)
    factors = UNIT_FACTORS if _UNITS.search(utterance) else set()
    return [w for w in words(value)
            if w not in FILLER and w not in factors and not _said(w, heard, joined)]


_NEGATED = re.compile(r"\b(?:don'?t|do\s+not|doesn'?t|never|not|no\s+need\s+to|shouldn'?t|"
                      r"wouldn'?t|won'?t)\s+(?:\w+\s+){0,2}$", re.I)
"""Just before the verb: "don't cancel the timer" is the opposite of a request."""
_VERB_IT = re.compile(rf"\b(?:{DESTROY_VERBS})\s+(?:it|that|this|them)\b", re.I)
_THINGS = re.compile(r"\b(?:timers?|alarms?|lists?|notes?|conversation|chat|history)\b", re.I)


def clearly_asked_to_destroy(utterance: str) -> bool:
    """True when the user used a deleting verb with an object ("clear my list", "forget this
    conversation", "start over", "I don't need the timer any more, cancel it"); "forget it",
    "never mind" and "don't cancel the timer" are not such a request."""
    for pattern in (_DESTROY, _START_OVER):
        for found in pattern.finditer(utterance):
            if not _NEGATED.search(utterance[: found.start()]):
                return True
    for found in _VERB_IT.finditer(utterance):  # "cancel it" where "it" was named
        if _THINGS.search(utterance) and not _NEGATED.search(utterance[: found.start()]):
            return True
    return False


def asked_not_to_destroy(utterance: str) -> bool:
    """"Don't clear the shopping list yet.", "Don't cancel the pasta timer": a deleting verb
    the user said not to do."""
    return any(_NEGATED.search(utterance[: found.start()])
               for pattern in (_DESTROY, _VERB_IT) for found in pattern.finditer(utterance))


@dataclass(frozen=True)
class Grounding:
    """What the user's words allow of one call: an `error` for the model (not run), or the
    optional arguments to `drop` before running it (a made-up place or timer label is left
    out and the call runs as if the model had left it empty, which is what the user asked)."""

    error: str | None = None
    drop: tuple[str, ...] = ()
    ask: str = ""
    """With `error`: what to tell the user instead of another model pass: the question for
    something they did not say ("For how long?"), or that nothing was deleted."""


def ground(tool: Tool, args: dict[str, Any], utterance: str, *, earlier: str = "",
           answering: str = "", template: bool = False) -> Grounding:
    """Check a call against what the user said.

    A call from a sentence template (`template`) was explicit by construction: only its
    arguments are checked. `earlier` is what the user said before this turn; it counts for
    tools that only read ("what time is it there?" after naming Tokyo), never for writes.
    `answering` is the user's request that the assistant answered with a question, when this
    turn is the reply to it ("Remind me to buy milk." "For what time?" "At seven."): it
    counts for writes too.
    """
    if tool.destroys and not template and not clearly_asked_to_destroy(utterance):
        # asked not to delete ("Don't clear the list yet") and tried anyway: say it was kept
        return Grounding(ask=say("kept") if asked_not_to_destroy(utterance) else "", error=(
            f"Error: not run. The user did not ask to delete or forget anything, and "
            f"{tool.name} destroys data. Answer what the user actually asked; if no tool "
            f"can do it, say so plainly."))
    now = utterance
    utterance = f"{answering} {utterance}".strip()
    back = lexicon().has("back", now)  # "and in Paris?", "what's the date there?"
    said = utterance if tool.writes or not back else f"{earlier} {utterance}"
    exists = dict(tool.known)
    required = set(tool.parameters.get("required", ()))
    problems, drop, invented = [], [], False
    for param in tool.grounded:
        value = args.get(param)
        if isinstance(value, str) and value.strip():
            unsaid = unsaid_words(value, said)
            if unsaid and param in exists and exists[param](value):
                continue  # names something the user already has (their shopping list)
            if param not in required and (unsaid or not _content(value)):
                drop.append(param)  # made up, or only filler ("any", "the")
            elif unsaid:
                problems.append(f"{param} {value!r} has words the user never said "
                                f"({', '.join(unsaid)})")
                invented |= len(unsaid) >= max(2, len(words(value)) // 2)
    ask = ""
    for param in tool.counted:
        value = args.get(param)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value == 1 and _A.search(utterance):
                continue  # "How many ounces in a pound?"
            value = f"{value:g}"
        if isinstance(value, str) and value.strip():
            unsaid = unsaid_numbers(value, utterance)
            if unsaid:
                problems.append(f"{param} {value!r} has numbers the user never said "
                                f"({', '.join(unsaid)})")
                nothing_said = says_no_number(utterance)
                invented |= nothing_said and not tool.asks
                if param in required and nothing_said and on_topic(tool, utterance):
                    ask = ask or dict(tool.asks).get(param, "")
    problems += dropped(tool, args, now)  # what the user says now must reach the call
    if problems:
        return Grounding(ask=ask, error=(
            "Error: not run: " + "; ".join(problems) + ". Use only the user's own words. "
            "If they did not name it, leave it empty or ask them."
            + (f" If the user did not ask for {tool.name} at all, answer them in plain "
               "words, without a tool." if invented else "")))
    return Grounding(drop=tuple(drop))
