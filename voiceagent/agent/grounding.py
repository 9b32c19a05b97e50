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

from voiceagent.agent.amounts import (
    says_amount,
    says_no_number,
    says_one,
    unsaid_numbers,
    without_unsaid_half,
)
from voiceagent.agent.carried import dropped, is_length_said, named
from voiceagent.agent.destroying import (
    asked_not_to_destroy,
    clearly_asked_to_destroy,
    no_longer_wanted,
    only_asked_not_to,
)
from voiceagent.agent.tools import Tool
from voiceagent.language import lexicon, say, tokens
from voiceagent.language.asking import without_name
from voiceagent.language.kept_elsewhere import kept_elsewhere
from voiceagent.language.numbers import numbers_meant, ordinals
from voiceagent.language.plural import singular
from voiceagent.tools.words import numbers_in

__all__ = ["Grounding", "asked_not_to_destroy", "clearly_asked_to_destroy", "ground",
           "on_topic", "unsaid_numbers", "unsaid_words", "words"]

UNIT_FACTORS = {"60", "24", "7", "12", "52", "365", "100", "1000", "3600", "1440"}
"""Conversion factors a sum may use when the user named units ("minutes in 3 hours" is
3 * 60): not numbers the model made up."""


_ORDINAL_WORDS = re.compile(r"\b(?:" + "|".join(sorted(
    (k for k in ordinals(31) if k != "second"), key=len, reverse=True)) + r")\b")
"""Ordinals in words as digits ("june twenty seventh" -> "june 27th"); not "second", a
unit of time too."""


def words(text: str) -> list[str]:
    """Lower-case words with number words as digits ("two apples" -> ["2", "apples"],
    "the twenty third" -> ["the", "23rd"])."""
    text = _ORDINAL_WORDS.sub(lambda m: _ordinal(ordinals(31)[m[0]]), text.lower())
    return tokens(numbers_in(text.replace("’", "'")))


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _said(word: str, heard: set[str], joined: str) -> bool:
    stem = singular(word.removesuffix("'s"))
    if stem in heard or word in joined.replace(" ", ""):
        return True
    return len(stem) >= 5 and bool(difflib.get_close_matches(stem, heard, n=1, cutoff=0.85))


def on_topic(tool: Tool, utterance: str) -> bool:
    """The user named what the tool is for (a word of its description, "alarm", "wake",
    "remind"): only then is its question theirs to answer. Asked "Turn up the volume.", the
    0.5B called set_alarm and the user heard "For what time?"."""
    about = {w[:5] for w in words(tool.description) if len(w) >= 4}
    return any(w[:5] in about for w in words(utterance) if len(w) >= 4)


def _content(value: str) -> list[str]:
    filler = lexicon().words("filler")
    return [w for w in words(value) if w not in filler]


def unsaid_words(value: str, utterance: str) -> list[str]:
    """The content words of `value` that do not occur in `utterance` (forgiving plurals,
    number words, spacing and small misspellings; unit factors when units were named)."""
    lex = lexicon()
    spoken = words(utterance) + words(" ".join(numbers_meant(utterance)))
    heard = {singular(w.removesuffix("'s")) for w in spoken}
    heard |= {other for pair in lex.pairs("said_alike") for word, other in (pair, pair[::-1])
              if word in heard}  # "26 bucks": "dollars" in the sum is the user's word
    heard |= {half for part, half in lex.names("day_parts").items() if part in heard}  # "seven
    # in the evening" is "7 pm": the pm was said
    # spelled otherwise ("icecream", "27th"), but not inside the word for a tool's own kind
    # of thing: "time" in "set a timer for that long" was a timer's label
    joined = " ".join(w for w in spoken if not lex.is_one("own_tools", [w]))
    factors = UNIT_FACTORS if lex.has("units", utterance) or "%" in utterance else set()
    filler = lex.words("filler") | lex.words("containers")
    return [w for w in words(value)
            if w not in filler and w not in factors and not _said(w, heard, joined)]


@dataclass(frozen=True)
class Grounding:
    """What the user's words allow of one call: an `error` for the model (not run), or the
    optional arguments to `drop` before running it (a made-up place or timer label is left
    out and the call runs as if the model had left it empty, which is what the user asked)."""

    error: str | None = None
    drop: tuple[str, ...] = ()
    trim: tuple[tuple[str, str], ...] = ()
    """Optional arguments partly said, and what is left of each without the words nobody
    said: get_time(place="June 27, 2023") for "what day is june twenty seventh" runs with
    "June 27" (dropped whole, it answered with today's date)."""
    ask: str = ""
    """With `error`: what to tell the user instead of another model pass: the question for
    something they did not say ("For how long?"), or that nothing was deleted."""
    stuck: str = ""
    """With `error`: the question for a value the tool asks for that the call made up,
    when the model makes the same call again ("one hundred and thirty" -> set_alarm(10:30),
    twice): "For what time?" rather than that it kept repeating itself."""
    confirm: bool = False
    """A destroying call the user only wished for ("I don't want this list any more"): it
    runs only on their yes to a spoken question (the approver)."""


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
    confirm = False
    if tool.destroys and not template and not clearly_asked_to_destroy(utterance, answering):
        confirm = no_longer_wanted(utterance)  # "i don't want this list any more": ask
        if not confirm:
            # asked not to delete ("Don't clear the list yet") and tried anyway: say it was
            # kept
            return Grounding(ask=say("kept") if asked_not_to_destroy(utterance) else "",
                             error=(f"Error: not run. The user did not ask to delete or "
                                    f"forget anything, and {tool.name} destroys data. Answer "
                                    f"what the user actually asked; if no tool can do it, "
                                    f"say so plainly."))
    if tool.writes and not template and only_asked_not_to(utterance):
        return Grounding(ask=say("kept"), error=(
            f"Error: not run. The user asked not to delete anything and asked for no change, "
            f"and {tool.name} changes their data. Answer what the user actually said."))
    now = utterance = without_name(utterance)  # "... on my shopping list olly": not "olly"
    utterance = f"{answering} {utterance}".strip()
    back = lexicon().has("back", now)  # "and in Paris?", "what's the date there?"
    said = (utterance if tool.writes or not (back or tool.recalls)
            else f"{earlier} {utterance}")
    exists = dict(tool.known)
    for param, has in exists.items():
        value = args.get(param)
        elsewhere = kept_elsewhere(value) if isinstance(value, str) else None
        if elsewhere is not None and not has(str(value)):
            return Grounding(ask=elsewhere.reply, error=(
                f"Error: not run: {param} {value!r} is kept by {elsewhere.name}, which "
                f"nothing here has. Say plainly that you can't do that here."))
    renamed: list[str] = []
    for param, kinds in tool.creates:
        value = args.get(param)
        new = isinstance(value, str) and value.strip() and param in exists and not exists[
            param](value)
        if new and _another_named(tool, param, str(value), now):
            renamed.append(param)  # dropped: the one named goes in (policy.check)
        elif new and not lexicon().has(kinds, utterance) and not lexicon().has(kinds,
                                                                                str(value)):
            return Grounding(ask=dict(tool.asks).get(param, ""), error=(
                f"Error: not run: there is no {value!r} yet, and the user did not ask for a "
                f"new one. Ask them which one they mean, or answer in plain words."))
    required = set(tool.parameters.get("required", ()))
    problems, drop, invented, asked = [], renamed, False, ""
    made_up: list[str] = []
    trim: list[tuple[str, str]] = []
    for param, word_set in tool.asked_by:
        if args.get(param) and not lexicon().has(word_set, utterance):
            drop.append(param)  # "set a timer for 5 minutes" is no more time on one
    for param in tool.grounded:
        value = args.get(param)
        if isinstance(value, str) and value.strip() and param not in drop:
            unsaid = unsaid_words(value, said)
            if tool.recalls:  # a sum's words are the model's ("5 people * 4 wings per
                unsaid = [w for w in unsaid if any(c.isdigit() for c in w)]  # person"): its
                # numbers must be the user's or the conversation's
            if ((unsaid or not _content(value)) and param in exists and exists[param](value)
                    and not tool.destroys):
                continue  # names something the user already has (their shopping list, the
                # one timer running); what is emptied must be what they named
            kept = _without(value, unsaid) if unsaid and param not in required else ""
            if param not in required and _content(kept) and len(_content(kept)) < len(
                    _content(value)):
                trim.append((param, kept))  # the user's part of it, without the rest
            elif param not in required and (unsaid or not _content(value)):
                drop.append(param)  # made up, or only filler ("any", "the")
            elif unsaid:
                problems.append(f"{param} {value!r} has words the user never said "
                                f"({', '.join(unsaid)})")
                made_up.append(param)
                invented |= len(unsaid) >= max(2, len(words(value)) // 2)
                if set(_content(value)) <= set(unsaid) and on_topic(tool, utterance):
                    # nothing of it said ("milk, eggs, bread" for "add this to a list", a
                    # word said twice or a filler in it too): the user is asked for it
                    asked = asked or dict(tool.asks).get(param, "")  # "Add something."
    ask = asked
    for param in tool.counted:
        value = args.get(param)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value == 1 and says_one(utterance) or says_amount(value, utterance):
                continue  # "How many ounces in a pound?", "... in three eighths of an inch?"
            value = f"{value:g}"
        if isinstance(value, str) and (
                kept := without_unsaid_half(value, f"{answering} {utterance}")) != value:
            trim.append((param, kept))  # "twelve o clock on saturday" called "12:00 AM"
        if isinstance(value, str) and value.strip() and not is_length_said(value, utterance):
            unsaid = unsaid_numbers(value, utterance)
            if unsaid:
                problems.append(f"{param} {value!r} has numbers the user never said "
                                f"({', '.join(unsaid)})")
                made_up.append(param)
                nothing_said = says_no_number(utterance)
                invented |= nothing_said and not tool.asks
                if param in required and nothing_said and on_topic(tool, utterance):
                    ask = ask or dict(tool.asks).get(param, "")
    problems += dropped(tool, args, now)  # what the user says now must reach the call
    if problems:
        asks = dict(tool.asks)
        stuck = next((asks[p] for p in made_up if p in asks), "") if on_topic(
            tool, utterance) else ""
        return Grounding(ask=ask, stuck=stuck, error=(
            "Error: not run: " + "; ".join(problems) + ". Use only the user's own words. "
            "If they did not name it, leave it empty or ask them."
            + (f" If the user did not ask for {tool.name} at all, answer them in plain "
               "words, without a tool." if invented else "")))
    return Grounding(drop=tuple(drop), trim=tuple(trim), confirm=confirm)


def _another_named(tool: Tool, param: str, value: str, utterance: str) -> bool:
    """The user named another list than the new one `value` would make ("add cereal to the
    no put that down to the shopping list" made a list "no put that down"), and did not
    name `value` as one too ("... and the baking list")."""
    spoken = named(tool, param, utterance)
    said = f" {' '.join(tokens(utterance))} "
    named_as = lexicon().words("naming_words")  # "new list called van": not a list "new"
    as_one = any(f" {' '.join(tokens(value))} {w} " in said
                 and not any(f" {' '.join(tokens(value))} {w} {n} " in said for n in named_as)
                 for w in lexicon().words("list_words"))
    return bool(spoken) and not set(spoken.split("-")) <= set(tokens(value)) and not as_one


def _without(value: str, unsaid: list[str]) -> str:
    """`value` without the words in `unsaid` (as words() reads them: "2023", "break"), its
    punctuation tidied: "June 27, 2023" without "2023" is "June 27"."""
    gone = set(unsaid)
    kept = [part for part in re.split(r"(\W+)", value)
            if not (words(part) and set(words(part)) <= gone)]
    return re.sub(r"\s*,(\s*,)+", ",", "".join(kept)).strip(" ,;.-")
