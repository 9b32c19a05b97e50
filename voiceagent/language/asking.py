"""How a request reads, before what it is about: whether it asks (a question or a request)
or remarks, and which of its words are the assistant's name rather than what is wanted.
language/topics.py reads topics from these; grounding leaves the name out of what was said."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from voiceagent.language.lexicon import lexicon, tokens


def is_request(text: str, said: Sequence[str]) -> bool:
    """`text` is a question or a request, not a remark: it ends with "?", opens with a
    question's or a request's word (lexicon "question_openers", after a name or filler), or
    its last clause does ("board's 31 inches, four cuts, how long is each piece"), or it
    asks after a condition ("if i ran ten k in fifty two minutes what's my pace"),
    with a number ("12 times 7"), or asks the assistant (lexicon "asking_to_do")."""
    lex = lexicon()
    if text.rstrip().endswith("?") or lex.has("asking_to_do", said):
        return True
    rest = content_words(said)
    first = rest[:1]
    clauses = re.split(r"[,.;:!]\s+", text.strip())
    last = content_words(tokens(clauses[-1])) if len(clauses) > 1 else rest
    if any(lex.is_one("conditionals", words[:1]) and lex.has("wh_words", words)
           for words in (rest, last)):
        return True  # "if i ran ten k in fifty two minutes what's my pace", "the board is
        # 2.4 metres, if i cut it into five equal bits how long is each one"
    return not rest or bool(re.fullmatch(r"\d.*", first[0])) or first[0] in lex.words(
        "number_words") or any(lex.is_one("question_openers", words[:n])
                               for words in (rest, last) for n in (1, 2))


def is_remark(said: Sequence[str]) -> bool:
    """Words that neither ask nor request (`is_request`) state something ("i had a lot of
    meetings today", "the weather is sunny today", "tube was super busy today"): a verb of
    stating (lexicon "statement_verbs") second or third, not followed by what turns it into a
    question ("weather is it going to rain"), or a stating opener ("i'm", "we're"); never
    with a word that asks after all ("statement_unless": "i need to tweet them")."""
    lex = lexicon()
    rest = content_words(said)
    if not rest or rest[0] in lex.words("question_openers") or lex.has("statement_unless",
                                                                         said):
        return False
    verbs, questions = lex.words("statement_verbs"), lex.words("statement_questions")
    return rest[0] in lex.words("statement_openers") or any(
        rest[at] in verbs and rest[at + 1] not in questions
        for at in (1, 2) if at + 1 < len(rest))


def asks_only(said: Sequence[str]) -> bool:
    """A question for information ("what time is my wakeup alarm set for", "when is my
    meeting"): it opens with a word of lexicon "information_openers" (after a preposition:
    "at what time is my alarm"), or asks to be told ("telling": "please let me know the
    morning alarm time", "show me my alarms"), and neither asks for something to be done
    ("asking_to_do": "why don't you set one"; "tell me when it's done" asks to be told later)
    nor goes on from the last exchange ("going_on": "what about ten minutes"). Nothing is
    changed for one: asked "what time is my wakeup alarm set for", the 1.5B set a breakfast
    alarm."""
    lex = lexicon()
    rest = [w for w in content_words(said) if w not in lex.words("politeness")]
    rest = rest[_span(rest, "request_asides"):]
    told = _span(rest, "telling")
    rest, tail = rest[told:], _tail(rest[told:])
    rest = rest[:len(rest) - tail]  # "... for me", "..., thanks"
    while len(rest) > 1 and rest[0] in lex.words("prepositions") and rest[1] in lex.words(
            "information_openers"):
        rest = rest[1:]
    if not rest or (told and rest[0] not in lex.words("told_what")) or (
            not told and rest[0] not in lex.words("information_openers")):
        return False
    return not lex.has("asking_to_do", rest) and not any(
        lex.is_one("going_on", rest[:n]) for n in (1, 2, 3))


def _span(words: Sequence[str], name: str) -> int:
    """How many of the first `words` are phrases of lexicon set `name`, one after another."""
    lex, at = lexicon(), 0
    while found := next((n for n in range(min(5, len(words) - at), 0, -1)
                         if lex.is_one(name, words[at:at + n])), 0):
        at += found
    return at


def _tail(words: Sequence[str]) -> int:
    """How many of the last `words` are one phrase of lexicon "request_tails"."""
    return next((n for n in range(min(4, len(words) - 1), 0, -1)
                 if lexicon().is_one("request_tails", words[-n:])), 0)


def unaddressed(said: Sequence[str]) -> list[str]:
    """The words without the assistant's name where people say it, first or last ("hey
    google i hit the jackpot", "today i got rewards olly"): a name is no topic's word (web
    search), but "my computer's memory" speaks of the computer."""
    words = list(said)
    for start, end in reversed(lexicon().find("addresses", words)):
        owned = start > 0 and words[start - 1] in lexicon().words("function_words")
        if start == 0 or (end == len(words) and not owned):  # not "... on my computer"
            del words[start:end]
    return words


def without_name(text: str) -> str:
    """`text` without the assistant's name where people say it, first or last ("list the
    items on my shopping list olly"), as `_unaddressed` reads it: the name is whom the user
    speaks to, never what they want (the 1.5B read the list called "olly")."""
    lex = lexicon()
    said = tokens(text)
    for start, end in lex.find("addresses", said):
        owned = start > 0 and said[start - 1] in lex.words("function_words")
        if start != 0 and (end != len(said) or owned):
            continue
        name = r"\W+".join(map(re.escape, said[start:end]))
        edge = rf"^\W*{name}\b\W*" if start == 0 else rf"\W*\b{name}\W*$"
        rest = re.sub(edge, " " if start else "", text, count=1, flags=re.I).strip()
        if rest:
            return without_name(rest)
    return text


def content_words(said: Sequence[str]) -> list[str]:
    """The words without the assistant's name ("hey olly"), fillers and openers."""
    lex = lexicon()
    named = {at for start, end in lex.find("addresses", said) for at in range(start, end)}
    skip = lex.words("fillers") | lex.words("openers")
    return [w for at, w in enumerate(said) if at not in named and w not in skip]


def skip_fillers(said: Sequence[str]) -> int:
    """Where a sentence starts after "OK,", "Sure,", "Of course," (lexicon "openers")."""
    terms = _openers_longest_first()
    at = 0
    while opener := next((t for t in terms if tuple(said[at:at + len(t)]) == t), None):
        at += len(opener)
    return at


@functools.cache
def _openers_longest_first() -> list[tuple[str, ...]]:
    """Lexicon "openers", the longest first ("of course" before "of")."""
    return sorted(lexicon().terms("openers"), key=len, reverse=True)
