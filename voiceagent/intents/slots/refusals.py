"""Readers of the slots in the sentences we decline (replies.yaml): who, what, where.

They only check that the words fit; the reply says why we cannot help, so they give no
arguments.
"""

from __future__ import annotations

import re

from voiceagent.intents.slots.text import Args, is_term, strip_edges, without_articles
from voiceagent.language import lexicon, tokens
from voiceagent.language.lengths import lengths_said
from voiceagent.language.topics import topics_of


def contact(text: str) -> Args | None:
    who = without_articles(text).lower()
    if not who or who.split()[0] in lexicon().words("not_contacts"):
        return None
    return {}


def device_name(text: str) -> Args | None:
    what = without_articles(text).lower()
    if (not what or is_term("anaphora", what) or len(what.split()) > 4
            or lexicon().has("not_devices", what)):
        return None
    return {}


def anything(_text: str) -> Args | None:
    return {}


def somewhere(text: str) -> Args | None:
    """A place named in a refusal ("weather in New York"): a few words, not a second question."""
    where = strip_edges(text)
    if (not where or len(where.split()) > 5 or re.search(r"[?!.;]", where)
            or lexicon().has("not_places", where)):
        return None
    return {}

def mentions_own_tools(text: str) -> bool:
    """Timers, alarms, lists and notes are ours: never refuse a sentence naming them."""
    lex = lexicon()
    said = tokens(text)
    own = lex.find("own_tools", said)
    shadowed = {i for start, end in lex.find("not_own_tools", said) for i in range(start, end)}
    return any(start not in shadowed for start, _end in own)


def supposed(text: str) -> bool:
    """`text` supposes the user does a thing it asks nothing about ("so if i phone her at
    half seven here, what time's that for her in toronto"): it starts with a condition
    (lexicon `conditionals`, maybe after "so" or "and") whose subject is not the assistant
    ("if you can, call mum" asks; so does "play some music when i get home")."""
    words = tokens(text)
    lex = lexicon()
    return any(w in lex.words("conditionals") and at + 1 < len(words)
               and words[at + 1] not in lex.words("addressee")
               for at, w in enumerate(words[:SUPPOSED_WITHIN]))


SUPPOSED_WITHIN = 3
"""A condition that supposes starts the request: among its first words ("so if i ...")."""


def times_a_length(text: str) -> bool:
    """`text` asks for a length of time to be kept ("ok the oven one set 45 minutes lah": the
    oven's timer, not the oven): lexicon `timing_asks` with a length said."""
    return lexicon().has("timing_asks", tokens(text)) and bool(lengths_said(text))


def yields_to_the_model(reply: str, text: str) -> bool:
    """A refusal (its `reply`) on a topic whose questions the model may know (topics.yaml
    `knowable`: a web search) is no refusal of what the model makes itself (lexicon
    "creations"): "search for new jokes" asks for a joke, "find me the best knock knock joke
    on the internet" too."""
    topic = next((t for t in topics_of().topics if t.reply == reply), None)
    return topic is not None and topic.knowable and lexicon().has("creations", tokens(text))
