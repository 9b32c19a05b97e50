"""What the user told in the last exchange, which no tool acted on: the follow-ups that act
on it ("The pasta needs eleven minutes." "Set a timer for that.") read it from here; and
what they told in the same breath ("I need prunes, put them on my shopping list")."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from voiceagent.agent.messages import Message
from voiceagent.intents.match import LocalMatch
from voiceagent.intents.normalize import opened
from voiceagent.language import lexicon, tokens
from voiceagent.language.numbers import numbers_in


def last_told(history: Sequence[Message]) -> str:
    """What the user told in the last exchange when it was a statement no tool acted on
    ("The pasta needs eleven minutes."); "" after a question, a call that ran, or nothing
    (a call refused or failed did nothing: the 1.5B tried set_alarm on "The remote needs
    new batteries.")."""
    for message in reversed(history):
        if message.role == "tool" and not message.is_error:
            return ""
        if message.role == "user":
            text = message.text.strip()
            return "" if not text or text.endswith("?") else text
    return ""


_POINTING = re.compile(rf"\b(?:{lexicon().regex('pronouns')})\b", re.I)
def needed(told: str) -> str:
    """What a remark says is needed: the words after the lexicon's `needing` ("The remote
    needs new batteries." -> "new batteries"); "" when it says no such thing."""
    said = tokens(told)
    found = lexicon().find("needing", said)
    return " ".join(said[found[0][1]:]) if found else ""




def told_in_the_same_breath(text: str, last: str, match: Callable[[str], LocalMatch | None],
                            on_told: Callable[[str, str], list[LocalMatch]]) -> list[LocalMatch]:
    """"I need prunes, put them on my shopping list", "The pasta needs eleven minutes,
    set a timer for that": the last clause points at what the words before it told,
    when those are no question and no command of their own. Only a clause with a
    pointing word is tried: the others are no follow-up of this kind."""
    told = text[:text.rfind(last)].strip(" ,;")
    said = opened(last)[1]
    amounts = re.findall(r"(\d+(?:\.\d+)?)(?:\s+([a-z]+))?", numbers_in(told.lower()))
    total = (len(amounts) > 1 and lexicon().has("totals", said)  # "... and 380 in
             and not re.search(r"\d", numbers_in(said))  # snacks whats the total"
             and not lexicon().has("each_words", told))  # "2 ounces each": a product
    if (not said or told.endswith("?") or not (_POINTING.search(said) or total)
            or match(told) is not None):
        return []
    if total:  # the amounts told, added up
        return [LocalMatch("told_total", "calculate",
                           {"expression": " + ".join(a for a, _unit in amounts)})]
    found = on_told(said, told)
    if found or len(amounts) != 1:
        return found
    # a sum on the one amount told: "The dinner was 84 dollars, split it four ways.";
    # a conversion of it, in the unit it was told in: "the hotel is 250 kilometres from
    # the airport how far is that in miles"
    amount, unit = amounts[0]
    tries = [(f"{amount} {unit}", "convert_units")] if unit else []
    for told_as, tool in [*tries, (amount, "calculate")]:
        done = match(_POINTING.sub(told_as, said, count=1))
        if done is not None and done.tool == tool:
            return [done]
    return []


def told_after_pointing(text: str, first: str, match: Callable[[str], LocalMatch | None],
                        on_told: Callable[[str, str], list[LocalMatch]]) -> list[LocalMatch]:
    """"ok write that down, the big tin holds 340 grams of loose leaf", "set a timer for that,
    the rice needs twelve minutes": the first clause points at what the words after it tell
    (no question, no command), not at the last exchange."""
    told = text[text.find(first) + len(first):].strip(" ,;.")
    said = opened(first)[1]
    if (not said or not told or told.endswith("?") or not _POINTING.search(said)
            or _POINTING.search(told) or match(told) is not None):
        return []
    return on_told(said, told)
