"""Streaming sentence splitter: text deltas in, complete sentences out as soon as each ends.

Speech can start while the model is still writing, so a sentence is handed on the moment
it is known to have ended — at ". " but not at "Dr. ", "e.g. ", "3.5" or a list's "1. ".
A long first sentence is cut at a comma so the first words are heard early. A code block is
held back whole (the speakable filter drops it).
"""

from __future__ import annotations

import re

from voiceagent.speech.abbreviations import not_ending

_END = re.compile(r"[.!?…]+[\"')\]]*(?=\s)|\n")
"""A candidate end: terminal punctuation (and closing quotes) once a space follows, or a newline.

Waiting for the space keeps "3." from ending a sentence before its "5" arrives."""

FIRST_CLAUSE_MIN = 24
"""A first sentence is only cut at a comma after this many characters..."""
LONG_FIRST = 60
"""...and only once it has grown longer than this without ending."""


class SentenceSplitter:
    """Feed text deltas, get sentences as soon as they are complete; flush() at the end."""

    def __init__(self) -> None:
        self._buffer = ""
        self._emitted = 0

    def feed(self, delta: str) -> list[str]:
        """Add a delta; return the sentences it completed (possibly none)."""
        self._buffer += delta
        out: list[str] = []
        while (cut := self._next_cut()) is not None:
            out += self._take(cut)
        return out

    def flush(self) -> list[str]:
        """The rest of the text, at the end of the stream."""
        rest, self._buffer = self._buffer.strip(), ""
        self._emitted = 0
        return [rest] if rest else []

    def _take(self, cut: int) -> list[str]:
        sentence, self._buffer = self._buffer[:cut].strip(), self._buffer[cut:]
        if not sentence:
            return []
        self._emitted += 1
        return [sentence]

    def _next_cut(self) -> int | None:
        """Where the first complete sentence in the buffer ends, if one has."""
        text = self._buffer
        search_from = 0
        while (m := _END.search(text, search_from)) is not None:
            search_from = m.end()
            if _in_code_block(text, m.start()):
                continue
            if m.group() == "\n" or _ends_sentence(text, m.start(), m.group()):
                return m.end()
        if self._emitted == 0 and len(text) > LONG_FIRST:
            comma = text.find(", ", FIRST_CLAUSE_MIN)
            if comma != -1 and not _in_code_block(text, comma):
                return comma + 2
        return None


def _ends_sentence(text: str, at: int, mark: str) -> bool:
    """Whether the punctuation `mark` at `at` really ends a sentence."""
    if not mark.startswith(".") or mark.startswith("..."):
        return True
    word = re.search(r"(\S+)$", text[:at])
    if word is None:
        return True
    token = word.group(1).lstrip("\"'([*_")
    if token.lower().rstrip(".") in not_ending():  # "Dr. ", "e.g. " (written.yaml)
        return False
    if re.fullmatch(r"[A-Z]", token):  # an initial: "J. Smith"
        return False
    line_start = text.rfind("\n", 0, at) + 1
    if re.fullmatch(r"\s*\d{1,2}", text[line_start:at]):  # a numbered list item: "1. "
        return False
    return True


def _in_code_block(text: str, at: int) -> bool:
    return text.count("```", 0, at) % 2 == 1


_CLOSED = re.compile(r"[.!?…][\"')\]]*$")


def ends_sentence(piece: str) -> bool:
    """`piece` (a sentence or a first clause the splitter cut at a comma) ends a sentence."""
    return bool(_CLOSED.search(piece.strip()))


_CLAUSE = re.compile(r"(?<=\w)[:;] (?=\S)")
"""A colon or semicolon between words: a clause ends there (not "10:30", not "http://")."""


def first_clause(text: str) -> tuple[str, str]:
    """`text` cut after its first clause when that ends at a colon or semicolon before the
    first sentence does, at least FIRST_CLAUSE_MIN characters in ("I can't order or buy
    things:" + "this assistant works offline. ..."); else (text, "")."""
    clause = _CLAUSE.search(text, FIRST_CLAUSE_MIN)
    end = SentenceSplitter().feed(text + " ")
    first = end[0] if end else text
    if clause is None or clause.end() > len(first) or _in_code_block(text, clause.start()):
        return text, ""
    return text[:clause.end()].strip(), text[clause.end():].strip()


def split_sentences(text: str) -> list[str]:
    """A whole text as the splitter would stream it: its sentences, in order."""
    splitter = SentenceSplitter()
    return splitter.feed(text) + splitter.flush()
