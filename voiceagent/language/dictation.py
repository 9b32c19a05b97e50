"""What dictating and typing put into a request, as the words meant: punctuation said
aloud written ("add to the shopping list colon eggs comma flour full stop" is "add to the
shopping list: eggs, flour."), and typed shorthand read ("can u add eggs pls tmrw"). Which
words are marks, after which words a mark is a noun ("what is a comma"), and the shorthand
are the lexicon's (written.yaml spoken_marks, shorthand)."""

from __future__ import annotations

import re

from voiceagent.language.lexicon import lexicon


def marks_written(text: str) -> str:
    """`text` with its spoken marks written, when they are dictation: two or more said, or
    one that ends a sentence said last, and one of them no common noun ("colon", "period").
    Otherwise `text` as it was."""
    lex = lexicon()
    marks = lex.names("spoken_marks")
    found = [m for m in re.finditer(rf"\b(?:{lex.regex('spoken_marks')})\b", text, re.I)
             if not lex.has("spoken_mark_governors", text[:m.start()].split()[-1:])]
    if not found:
        return text
    last = found[-1]
    ends = (text[last.end():].strip(" .,!?") == ""
            and lex.has("spoken_marks_ending", last[0]))
    plain = [m for m in found if not lex.has("spoken_marks_nouns", m[0])]
    if not plain or (len(found) < 2 and not ends):
        return text  # "what causes colon cancer and colon polyps": no mark said
    out, at = [], 0
    for m in found:
        out.append(text[at:m.start()].rstrip(" ,.") + marks[" ".join(m[0].lower().split())])
        at = m.end()
    out.append(text[at:])
    written = " ".join("".join(out).split())
    written = re.sub(r"([.,;:!?])(?=\w)", r"\1 ", written)
    return re.sub(r"([.,;:!?])[.,;:!?]+", r"\1", written).strip(" ,;:")


def unabbreviated(text: str) -> str:
    """`text` with typed shorthand as the words it stands for; a one-letter shorthand only
    away from other single letters ("u s d" stays a currency)."""
    lex = lexicon()
    short = lex.names("shorthand")
    pieces = re.split(r"(\s+)", text)
    words = [p.lower().strip(",.!?") for p in pieces]

    def alone(i: int) -> bool:
        near = [words[j] for j in (i - 2, i + 2) if 0 <= j < len(words)]
        return not any(len(w) == 1 and w.isalpha() for w in near)

    for i, word in enumerate(words):
        if word in short and (len(word) > 1 or alone(i)):
            at = pieces[i].lower().find(word)
            pieces[i] = pieces[i][:at] + short[word] + pieces[i][at + len(word):]
    return "".join(pieces)
