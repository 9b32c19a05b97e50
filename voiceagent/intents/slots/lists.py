"""Readers of the list and note slots: the items, the list's name, the note's text."""

from __future__ import annotations

from voiceagent.intents.slots.text import Args, is_term, strip_edges, without_articles
from voiceagent.language import lexicon, tokens
from voiceagent.language.asking import is_remark


def items(text: str) -> Args | None:
    """What to add to or remove from a list, in the user's words ('apples, milk and eggs');
    None for words that only point at it ("write that down on my list": not "down")."""
    said = without_articles(text)
    low = said.lower()
    asides = lexicon().words("claim_adverbs") | lexicon().words("pointing_asides")
    pointing = " ".join(w for w in low.split() if w not in asides)
    if (not said or is_term("anaphora", low) or is_term("anaphora", pointing)  # "it still"
            or is_term("note_down", text)
            or lexicon().is_one("particles", low) or len(said.split()) > 12
            or lexicon().has("item_stop", low) or lexicon().is_one("wh_words", low.split()[:1])
            or lexicon().is_one("adding_verbs", low.split()[-1:])  # "dish soap put that on"
            or any(
                lexicon().is_one("correction", tokens(part.split()[0]))
                or is_remark(tokens(part))  # "swede, we're nearly out see": no item
                for part in low.split(",")[1:] if part.split()) or is_remark(tokens(low))):
        return None  # "milk, no sorry, add eggs": a correction, not an item
    return {"items": said}


def supplies(text: str) -> Args | None:
    """What the user has run out of, as items for the shopping list; None for what is
    nothing to buy ("time", "ideas": lexicon "not_supplies")."""
    found = items(text)
    if found is None:
        return None
    words = tokens(found["items"])
    if any(lexicon().is_one("not_supplies", words[:n]) for n in range(1, len(words) + 1)):
        return None
    return found


def list_name(text: str) -> Args | None:
    name = without_articles(text).lower()
    words = name.replace("-", " ").split()
    if name in ("to do", "to-do", "todo"):
        return {"list_name": name}
    # "start a brand new list" names none
    if (not words or len(words) > 3 or lexicon().words("list_stop") & set(words)
            or set(words) <= lexicon().words("list_wholes")
            or set(words) <= {w for t in lexicon().terms("fresh_words") for w in t}
            or ("to" in words and "do" not in words)):
        return None
    return {"list_name": name}


def note_text(text: str) -> Args | None:
    said = strip_edges(text)
    first = said.lower().split()[0] if said else ""
    lex = lexicon()
    if (not said or is_term("anaphora", said) or is_term("note_down", said)
            or first in lex.words("note_first_stop")  # "leave a note for the cleaner"
            or first in lex.words("reminiscing")):  # "remember that time we went to Paris?"
        return None
    return {"text": said}
