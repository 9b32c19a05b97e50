"""Written abbreviations, from the lexicon's table (written.yaml): how a voice says each ("e.g."
is "for example,") and whether its period ends a sentence ("Dr. Patel" does not).

The sentence splitter and the speakable pass read the same table, so an abbreviation added
there is both kept whole and said right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from voiceagent.errors import ConfigError
from voiceagent.language import lexicon

_BEFORE = {"name": r"(?=\s+[A-Z])", "number": r"(?=\s*\d)", "space": r"(?=\s)"}
"""What must follow an abbreviation that could be something else."""


@dataclass(frozen=True)
class Abbreviation:
    """One written abbreviation."""

    written: str
    """As written; a final "." is needed, without one it may be left out; capitals make it
    match only so written."""
    say: str = ""
    """What a voice says for it; "" for as written."""
    before: str = ""
    """What must follow it: "name", "number", "space" or "" (anything)."""
    ends: bool = False
    """Its period may still end a sentence ("... and so on, etc.")."""

    def pattern(self) -> re.Pattern[str]:
        """The abbreviation as written: "e.g." also as "e. g." and "e.g.,"; "vs" also "vs."."""
        body = self.written.rstrip(".")
        regex = r"\.\s?".join(map(re.escape, body.split(".")))
        regex += r"\." if self.written.endswith(".") else r"\.?"
        if self.say.endswith(","):
            regex += ",?"
        flags = 0 if any(c.isupper() for c in self.written) else re.I
        return re.compile(rf"\b{regex}{_BEFORE[self.before] if self.before else ''}", flags)


@cache
def abbreviations() -> tuple[Abbreviation, ...]:
    """The table, in its order."""
    found = []
    for written, row in lexicon().table("abbreviations").items():
        fields = row if isinstance(row, dict) else {"say": row or ""}
        before = str(fields.get("before", ""))
        if before and before not in _BEFORE:
            raise ConfigError(f"written.yaml: abbreviations: {written}: before must be one of "
                              f"{', '.join(_BEFORE)}, not {before!r}")
        found.append(Abbreviation(written, str(fields.get("say") or ""), before,
                                  bool(fields.get("ends", False))))
    return tuple(found)


@cache
def _spoken() -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((a.pattern(), a.say) for a in abbreviations() if a.say)


def said(text: str) -> str:
    """`text` with each abbreviation a voice should expand expanded: "Dr. Patel, e.g." ->
    "Doctor Patel, for example,"."""
    for pattern, say in _spoken():
        text = pattern.sub(say, text)
    return text


@cache
def not_ending() -> frozenset[str]:
    """Words whose final period ends no sentence, lower case and without that period ("dr",
    "e.g", "jan")."""
    written = {a.written.lower().rstrip(".") for a in abbreviations() if not a.ends}
    return frozenset(written | lexicon().words("month_abbreviations"))
