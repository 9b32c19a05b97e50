"""The plural rule: one noun made plural or singular, and the head of a phrase found.

A singular is made by the lexicon's `plural_endings` (tried in order) and a plural by the
regular endings here; the words that break them ("foot" "feet", "hertz", "tomatoes") are the
table `plurals`. Grounding, lists, units and list names all compare and say plurals through
this one place (Lexicon.singular is this).
"""

from __future__ import annotations

import functools

from voiceagent.language.lexicon import lexicon

_HISSING = ("s", "x", "z", "ch", "sh")


@functools.cache
def _irregular(language: str) -> tuple[dict[str, str], dict[str, str]]:
    """(singular -> plural, plural -> singular) of the words the rule gets wrong."""
    forms = {k.lower(): v.lower() for k, v in lexicon(language).names("plurals").items()}
    return forms, {v: k for k, v in forms.items()}


def plural(word: str, language: str = "en") -> str:
    """'apple' -> 'apples', 'berry' -> 'berries', 'inch' -> 'inches', 'foot' -> 'feet'."""
    forms = _irregular(language)[0]
    low = word.lower()
    if low in forms:
        return _cased(forms[low], word)
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    if low.endswith(_HISSING):
        return word + "es"
    return word + "s"


def singular(word: str, language: str = "en") -> str:
    """'apples' -> 'apple', 'berries' -> 'berry', 'glasses' -> 'glass', 'feet' -> 'foot';
    a word that is not a plural stays as it is ('glass', 'hummus')."""
    forms, back = _irregular(language)
    low = word.lower()
    if low in back:
        return _cased(back[low], word)
    if low in forms:  # already singular ("hertz", "celsius")
        return word
    for ending, instead in lexicon(language).pairs("plural_endings"):
        if low.endswith(ending) and len(low) > len(ending) + 1:
            return word[:len(word) - len(ending)] + instead
    return word


def plural_phrase(phrase: str, language: str = "en") -> str:
    """A unit's or item's name made plural at its head noun: 'mile per hour' -> 'miles per
    hour', 'fluid ounce' -> 'fluid ounces', 'degree Celsius' -> 'degrees Celsius'."""
    words = phrase.split(" ")
    if "per" in words[1:]:
        head = words.index("per") - 1
    else:  # the last word, unless it is a name after the noun ("degree Celsius")
        head = len(words) - 1
        while head > 0 and words[head][:1].isupper() and not words[head].isupper():
            head -= 1
    words[head] = plural(words[head], language)
    return " ".join(words)


def _cased(form: str, like: str) -> str:
    return form.capitalize() if like[:1].isupper() else form
