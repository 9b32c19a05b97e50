"""A question asked inside another, in the order of a statement ("could you tell me what 225
fahrenheit is in celsius", "do you know how many ounces a pound is"): once the opener is
dropped, "what 225 fahrenheit is in celsius" is no question a template knows. Asked
directly, it is ("what is 225 fahrenheit in celsius"). Which words are the question's own
("what", "what time") is not known from the words alone: each split is tried, and only a
reading that gives a whole command counts. The words are the lexicon's (`embedded_wh`,
`embedded_verbs`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from voiceagent.intents.match import LocalMatch
from voiceagent.language import lexicon


def asked_directly(said: str, command: Callable[[str], LocalMatch | None]) -> LocalMatch | None:
    """The command `said` gives asked directly; None when no reading of it gives one."""
    for reading in _readings(said.split()):
        found = command(reading)
        if found is not None:
            return found
    return None


def _readings(words: list[str]) -> Iterator[str]:
    """`words` with the verb moved before the subject, for each place the subject may start:
    "what 225 fahrenheit is in celsius" -> "what is 225 fahrenheit in celsius"; at the end
    ("how many ounces a pound is") the verb goes before it too."""
    lex = lexicon()
    if not words or words[0].lower() not in lex.words("embedded_wh"):
        return
    verb = next((at for at, w in enumerate(words) if at > 1 and w.lower() in lex.words(
        "embedded_verbs")), 0)
    for start in range(1, verb):
        yield " ".join([*words[:start], words[verb], *words[start:verb], *words[verb + 1:]])
