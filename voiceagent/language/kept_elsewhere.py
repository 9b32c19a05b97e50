"""What the user keeps with a service nothing here reaches (topics.yaml `things` of an
unserved topic: contacts, calendar events): never a list of ours, never an item on one."""

from __future__ import annotations

from voiceagent.language import lexicon, tokens
from voiceagent.language.plural import singular
from voiceagent.language.topics import Topic, find_terms, topics_of


def kept_elsewhere(text: str, *, anywhere: bool = False) -> Topic | None:
    """The unserved topic whose things `text` names: as a whole ("my contact list",
    "calendar": "add tom to my contact list" made a new list called contact), or, with
    `anywhere`, among other words ("my dentist's calendar event" is no shopping item)."""
    topics = topics_of()
    plain = lexicon().words("function_words") | lexicon().words("articles")
    plain |= {w for thing in topics.kept for w in thing}  # "calendar list": the calendar
    said = tuple(singular(w) for w in tokens(text) if w not in plain)
    for topic in topics.topics:
        things = tuple({tuple(map(singular, t)) for t in topic.things})
        if not topic.served and (said in things or anywhere and find_terms(things, said)):
            return topic
    return None
