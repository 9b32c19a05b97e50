"""One topic requests are about (topics.yaml), and finding its terms in what was said."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Terms = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Topic:
    """One thing requests are about."""

    name: str
    served: bool
    tools: tuple[str, ...] = ()
    terms: Terms = ()
    claims: Terms = ()
    numbers: bool = False
    """Amounts said in a question or request put it on this topic (sums), two of them when
    no term of it is said ("what's 17 and 25"); one is a count in a question of knowledge
    ("who were the three musketeers": offered the calculator, the 1.5B called it for "the
    three laws of robotics"); in a remark ("I parked on level four") none do."""
    conversation: bool = False
    """Its state may rest on results earlier in the conversation, not only this turn's."""
    reply: str = ""
    """Unserved: what the user hears instead (the reply of the local intent named in
    topics.yaml, from replies.yaml)."""
    when: bool = False
    """Its words may only say when ("today", "on sunday"): the clock's."""
    lengths: bool = False
    """A length of time said in a request of the assistant (lexicon "asking_to_do") puts it
    on this topic (timers: "the dough has to rise for forty five minutes, can you keep
    track of that?"), unless it names a topic nothing here serves ("mute for one hour")."""
    asked: Terms = ()
    """Words that put a request on this topic only when it asks (a question or a request):
    "what day is it", but not the remark "today was a tiring day" or "joke of the day"."""
    things: Terms = ()
    """What its tools keep (a list, a timer): saying the user has none is its live state.
    Unserved: what that service keeps that people name like a list (contacts, a calendar)."""
    knowable: bool = False
    """Unserved, but what is asked of it the model may know ("google the meaning of
    demonetisation"): only a request about the user's own world or live state is refused
    without the model."""
    when_terms: Terms = ()
    """Its terms that also ask when something else is: followed by an unserved topic's term
    ("the time of the train") the request is that topic's."""
    one_each: bool = False
    """Its terms name what there is one of here: "new batteries" are not this machine's."""


def find_terms(terms: Terms, said: Sequence[str]) -> list[int]:
    """Start positions of the terms in `said`."""
    return [i for i in range(len(said)) for t in terms if tuple(said[i:i + len(t)]) == t]


def terms_at(terms: Terms, said: Sequence[str]) -> list[tuple[int, tuple[str, ...]]]:
    """(start, term) of each term found in `said`."""
    return [(i, t) for i in range(len(said)) for t in terms if tuple(said[i:i + len(t)]) == t]


def term_spans(terms: Terms, said: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of each term found in `said`: where a promise such as "sure I can" ends
    matters, not only where it starts."""
    return [(i, i + len(t)) for i in range(len(said)) for t in terms
            if tuple(said[i:i + len(t)]) == t]
