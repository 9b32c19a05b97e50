"""The last gate before the speaker: what the model says is let through a sentence at a time,
and sentences no person should hear are held back.

Tool errors are written for the model; small models read them out ("Error: parameter
'part' ..."), print raw JSON, or leave template placeholders ("The current date is [insert
date]."). Those sentences are dropped; if nothing is left to say, the turn says one plain
sentence instead (the loop decides which).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from voiceagent.speech.sentences import SentenceSplitter

_ERROR = re.compile(r"\berror\b\s*:|\btraceback\b|\bexception\b\s*:|\bnot run\b\s*:", re.I)
_JSON = re.compile(r"[{}\[\]]\s*\"|\"\s*:\s*[\[{\"\d]|^\s*[{\[]|[}\]]\s*$")
_PLACEHOLDER = re.compile(r"\[[^\]]{1,60}\]|<[a-z_ ]{2,40}>|\{\{?[^}]{1,40}\}?\}|"
                          r"\bplaceholder\b", re.I)


_WEEKDAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)", re.I)
"""A day of the week in an answer must come from a tool or the user: asked "What day of the
week is it?" without the clock, the 1.5B said "Monday" on a Tuesday."""


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")


def unspeakable(sentence: str, errors: Sequence[str] = (), known: Sequence[str] | None = None,
                ) -> str:
    """Why `sentence` must not be spoken ("" when it may): error text, JSON, a placeholder,
    a sentence that mostly repeats one of this turn's tool errors, or (when `known` is
    given: the user's words and this turn's tool results) a clock time or weekday nobody told
    it."""
    if _ERROR.search(sentence):
        return "error text"
    if _JSON.search(sentence):
        return "raw JSON"
    if _PLACEHOLDER.search(sentence):
        return "placeholder"
    if known is not None:
        for time in _CLOCK.findall(sentence):
            if not any(time in fact for fact in known):
                return "made-up time"
        for day in _WEEKDAY.findall(sentence):
            if not any(day.lower() in fact.lower() for fact in known):
                return "a weekday no tool gave"
    said = _words(sentence)
    if len(said) >= 5:
        for error in errors:
            error_words = set(_words(error))
            if sum(w in error_words for w in said) / len(said) >= 0.7:
                return "repeats a tool error"
    return ""


class SpokenFilter:
    """Streams text through, a sentence at a time, dropping unspeakable sentences."""

    def __init__(self) -> None:
        self._splitter = SentenceSplitter()
        self.errors: list[str] = []
        """This turn's tool errors (sentences that parrot them are dropped)."""
        self.known: list[str] = []
        """What the user said and the tools answered: a clock time must come from these (a
        small model answers "what's the time" with a time it made up)."""
        self.dropped: list[tuple[str, str]] = []
        """(sentence, reason) for each sentence held back."""
        self._rest_of_dropped = ""

    def feed(self, delta: str) -> str:
        """Text that may be spoken now (whole sentences, with a trailing space so the speech
        side sees them end at once), from a streamed delta."""
        return self._pass(self._splitter.feed(delta))

    def flush(self) -> str:
        """The rest, at the end of a model reply."""
        return self._pass(self._splitter.flush())

    def discard(self) -> None:
        """Drop an unfinished sentence (the reply was cut off or will be asked again)."""
        self._splitter = SentenceSplitter()

    def _pass(self, sentences: Sequence[str]) -> str:
        kept = []
        for sentence in sentences:
            reason = unspeakable(sentence, self.errors, self.known) or self._rest_of_dropped
            if reason:
                self.dropped.append((sentence, reason))
            else:
                kept.append(sentence)
            # a long sentence comes in clauses: the rest of a dropped one goes too
            unfinished = not re.search(r"[.!?…][\"')\]]*$", sentence)
            self._rest_of_dropped = "rest of a dropped sentence" if reason and unfinished else ""
        return " ".join(kept) + " " if kept else ""
