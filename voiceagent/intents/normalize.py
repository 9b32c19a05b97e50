"""Whisper's text made matchable: hesitations, politeness and the assistant's name dropped.

The result keeps the user's words, case and inner commas (list items are cut from it), so
whatever a template's slot takes from it is still what the user said.
"""

from __future__ import annotations

import re

_HESITATION = re.compile(r"\b(?:u+m+|u+h+m*|e+r+m*|h+m+|mm+)\b[,.]?\s*", re.I)
_ANYWHERE = re.compile(r"(?:,\s*)?\bplease\b,?\s*", re.I)
_LEADING = re.compile(
    r"^(?:hey|hi|hello|ok|okay|so|well|alright|all right|oh|yeah|yes|and|now|just|right|"
    r"hey jarvis|jarvis|okay nabu|ok nabu|hey mycroft|mycroft|alexa|computer|assistant|"
    r"can you|could you|would you|will you|can you please|would you mind|would you be able to|"
    r"i want to|i'd like to|i would like to|i wanna|i want you to|i need you to|i'd like you to|"
    r"go ahead and|quickly|kindly|do me a favou?r and|actually|also|"
    r"do you know|can you tell me|could you tell me|tell me|i want to know|i'd like to know|"
    r"i wonder|any idea|do you have any idea)\b[,.!]?\s+",
    re.I,
)
_TRAILING = re.compile(
    r"[,\s]+(?:for me|thanks|thank you|if you can|if you could|if possible|real quick|"
    r"quickly|ok|okay)$",
    re.I,
)
_EDGE = "\"'.,!?;:…-–— \t\n"


def clean(text: str) -> str:
    """'Um, hey, could you add apples to my shopping list, please?' ->
    'add apples to my shopping list'."""
    t = text.replace("\u2019", "'").replace("\u2018", "'")
    t = " ".join(t.split())
    t = _HESITATION.sub("", t)
    t = _ANYWHERE.sub(" ", t)
    t = " ".join(t.split()).strip(_EDGE)
    while True:
        before = t
        t = _LEADING.sub("", t).strip(_EDGE)
        t = _TRAILING.sub("", t).strip(_EDGE)
        if t == before:
            return t
