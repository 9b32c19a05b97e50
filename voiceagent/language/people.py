"""The people a request speaks of that the user knows, and answers that state facts of them.

"does bob live in france" -> "Yes, Bob lives in France."; "what is john's last name" -> "John
is last name Smith.": the 1.5B makes up what only the user's contacts could say. A person the
user knows is one named by a first name alone or as "my <relation>" (lexicon given_names,
relations); a sentence whose subject is that person, stating what is (no modal: "Your mom
would love it" is advice), is such a claim. Famous people come with their surname ("Bob
Dylan was born..."), and "who is/was ..." asks who someone is.
"""

from __future__ import annotations

import functools
import re

from voiceagent.language.asking import skip_fillers
from voiceagent.language.lexicon import lexicon, tokens
from voiceagent.language.topics import Topic, topics_of


def people_known(request: str, earlier: str = "") -> tuple[str, ...]:
    """How an answer names the people `request` speaks of that the user knows ("Bob", "your
    mom"); none the user spoke of `earlier` in the conversation (what they told of them backs
    an answer), none in a request for something made (a joke about bob) or for who one is."""
    lex = lexicon()
    said = tokens(request)
    start = skip_fillers(said)
    if lex.has("creations", said) or any(lex.is_one("who_openers", said[start:start + n])
                                         for n in (1, 2, 3)):
        return ()
    before = {w.removesuffix("'s") for w in tokens(earlier)}
    bare = [w.removesuffix("'s") for w in said]
    found = [w.capitalize() for w in dict.fromkeys(bare)
             if w in lex.words("given_names") and w not in before]
    owners = lex.table("owners_said_back")
    found += [f"{owners[said[at - 1]]} {w}" for at, w in enumerate(bare)
              if at and said[at - 1] in owners and w in lex.words("relations")
              and w not in before]
    return tuple(dict.fromkeys(found))


def states_of(sentence: str, people: tuple[str, ...]) -> bool:
    """`sentence` opens on one of `people` (after "Yes," "No," and the like) and states what is:
    "Bob lives in France.", "John's last name is Smith.", "Your mom said..."; not "Bob Dylan
    was...", not "Your mom would love it.", not a question."""
    if not people or sentence.rstrip().endswith("?"):
        return False
    words = sentence.split()
    bare = [w.strip(",.!").lower() for w in words]
    start = skip_fillers(bare)
    if start < len(words) and words[start].endswith(",") and bare[start] in lexicon().words(
            "no"):
        start += 1  # "No, Bob does not live in France." states as much as "Yes, ..."
    rest = " ".join(words[start:])
    for person in people:
        found = re.match(rf"{re.escape(person)}(?:'s)?,?\s+(\S+)", rest,
                         0 if person[0].isupper() else re.I)
        if found is None:
            continue
        after = found.group(1).strip(".,!")
        if after[:1].isupper() or after.lower() in lexicon().words("modals"):
            continue  # a surname ("Bob Dylan"), or what might be
        return True
    return False


@functools.cache
def keeper() -> Topic:
    """The unserved topic that keeps what is known of the user's people (their contacts)."""
    kept = tuple(tuple(tokens(t)) for t in lexicon().words("people_kept_as"))
    return next(t for t in topics_of().topics if not t.served and set(kept) & set(t.things))
