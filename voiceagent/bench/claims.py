"""Claims nothing backs: an answer that says what no tool did, or states live or personal
state no tool result gave.

One general check over the answer and the turn's results, not a list of sentences: each
sentence of the answer is matched against the claim classes of phrases.toml ("I'll add",
"the current month is", "your calendar"); a claim is backed when a tool of its class ran
without an error (this turn, or earlier in the session for state that lasts, like a list),
when the sentence repeats a tool result, or — for live values such as a time or a month —
when every value it states was said by the user or appears in a tool result.
"""

from __future__ import annotations

from collections.abc import Sequence

from voiceagent.bench.matching import normal
from voiceagent.bench.observed import Call
from voiceagent.bench.phrases import ClaimClass, found, phrases
from voiceagent.language.lexicon import tokens
from voiceagent.language.sayings import own_sentences
from voiceagent.speech.sentences import SentenceSplitter


def sentences(answer: str) -> list[str]:
    """The answer's sentences, split the way speech splits them."""
    splitter = SentenceSplitter()
    return splitter.feed(answer.strip() + " ") + splitter.flush()


def _repeats(sentence: str, results: Sequence[str]) -> bool:
    """The sentence is (nearly all) words of one tool result: the tool said it."""
    words = [w for w in normal(sentence).split() if len(w) > 2]
    if not words:
        return False
    for result in results:
        have = set(normal(result).split())
        if sum(w in have for w in words) >= 0.8 * len(words):
            return True
    return False


def _values(cls: ClaimClass, sentence: str) -> list[str]:
    """The live values a sentence states (October, 4:30 PM, 2024)."""
    got = found(cls.values, sentence)
    for pattern in cls.value_patterns:
        got += [m.group(0) for m in pattern.finditer(sentence)]
    return got


def _known(value: str, corpus: set[str]) -> bool:
    words = [w for w in normal(value).replace(":", " ").split() if w.strip("0")]
    return bool(words) and all(w in corpus for w in words)


def unbacked(answer: str, *, said: str, calls: Sequence[Call],
             earlier: Sequence[Call] = (), asked_action: bool = True) -> tuple[str, ...]:
    """Each claim of `answer` nothing backs, as "class: sentence".

    `said`: the user's words (this turn and, in a session, the earlier ones); `calls`: this
    turn's tool calls; `earlier`: the calls of the earlier turns of the session;
    `asked_action`: the user asked for something to be done (then "Done." is a claim too).
    """
    words = phrases()
    ran_now = {c.name for c in calls if not c.error}
    ran_before = {c.name for c in earlier if not c.error}
    results = [c.result for c in (*calls, *earlier) if c.result and not c.error]
    corpus = set(normal(" ".join([said, *results])).replace(":", " ").split())
    problems: list[str] = []
    own = {normal(s) for s in own_sentences()}
    for sentence in sentences(answer):
        said_words = tokens(sentence)
        if normal(sentence) in own:  # "Sorry, I kept repeating the same step, so I stopped."
            continue
        if (sentence.rstrip().endswith("?") or found(words.negation, said_words)
                or found(words.refusal, said_words) or found(words.hedge, said_words)):
            continue
        if _repeats(sentence, results):
            continue
        for cls in words.claims:
            if cls.requests and not asked_action:
                continue
            # what the user had done earlier ("You just added lentils.") rests on the session
            backing = (ran_now | ran_before if cls.conversation or said_words[:1] == ["you"]
                       else ran_now)
            if cls.tools & backing:
                continue
            if cls.about_values:
                values = _values(cls, sentence)
                if not values or not found(cls.markers, said_words):
                    continue
                if all(_known(v, corpus) for v in values):
                    continue
            elif not found(cls.terms, said_words):
                continue
            problems.append(f"{cls.name}: {sentence}")
            break
    return tuple(problems)
