"""The one speech policy of a turn: what reaches the speaker, a whole sentence at a time.

Everything a turn says passes here: the model's streamed text (split into sentences by the
one splitter, each checked by `spoken.unspeakable`: no error text, JSON, placeholders, nor a
claim nothing backs), a tool's result spoken as the answer, and the turn's own closing
sentences (language/en/say.yaml). `on_text` receives one whole sentence at a time; joined
with spaces they are the answer as the user heard it.
"""

from __future__ import annotations

from collections.abc import Callable

from voiceagent.agent.spoken import DECLINES_GENERAL, Facts, unspeakable
from voiceagent.language import lexicon, tokens
from voiceagent.speech.sentences import SentenceSplitter, ends_sentence

REST_OF_DECLINING = "rest of an answer that opened by declining"
INTRODUCES_DROPPED = "introduces what was held back"
UNFINISHED_BEFORE_CALL = "unfinished words before a tool call"


class Voice:
    """What one turn says, as it says it."""

    def __init__(self, on_text: Callable[[str], None] | None, facts: Facts,
                 on_held: Callable[[str, str], None] = lambda _sentence, _reason: None) -> None:
        self._on_text = on_text
        self._on_held = on_held
        """Told each sentence held back and why (the trace's held_back)."""
        self.facts = facts
        """What the user said and the tools answered: what a sentence may state."""
        self._splitter = SentenceSplitter()
        self.said: list[str] = []
        """Every sentence spoken so far, in order."""
        self.reply_said: list[str] = []
        """The sentences of the model reply being streamed."""
        self.dropped: list[tuple[str, str]] = []
        """(sentence, reason) for each sentence held back."""
        self._rest_dropped = False
        self._opened_declining = False
        self._held = ""
        """A sentence that introduces what follows ("Here are your options:"): spoken with
        the next one, or not at all."""

    # -- the model's streamed text --------------------------------------------------------------

    def feed(self, delta: str) -> None:
        """A streamed delta of the model's reply; whole sentences are checked and spoken."""
        for sentence in self._splitter.feed(delta):
            self._check_and_say(sentence)

    def end_reply(self, *, calls: bool = False) -> str:
        """The model's reply is over: its last sentence, then what the reply said. Words
        left unfinished before the reply's tool `calls` are not said: the 1.5B wrote "To set
        a timer, use the command" before its call, and the user heard it before "For how
        long?"."""
        for sentence in self._splitter.flush():
            if calls and not ends_sentence(sentence):
                self._hold(sentence, UNFINISHED_BEFORE_CALL)
                continue
            self._check_and_say(sentence)
        if self._held:  # it introduced nothing
            self._hold(self._held, INTRODUCES_DROPPED)
            self._held = ""
        said, self.reply_said = " ".join(self.reply_said), []
        self._opened_declining = False
        return said

    def discard(self) -> None:
        """Drop an unfinished sentence (the reply was cut off or will be asked again)."""
        self._splitter = SentenceSplitter()
        self._rest_dropped = self._opened_declining = False
        self._held = ""

    def cut(self) -> str:
        """The reply stops here (cancel, error, cap): its unfinished sentence is dropped;
        what it said is returned."""
        self.discard()
        said, self.reply_said = " ".join(self.reply_said), []
        return said

    # -- the turn's own words ---------------------------------------------------------------------

    def say(self, text: str) -> None:
        """A sentence of the turn's own (a closing sentence, a spoken tool result)."""
        if text.strip():
            self._emit(text.strip())

    @property
    def silent(self) -> bool:
        """Nothing has been said yet."""
        return not self.said

    @property
    def answer(self) -> str:
        return " ".join(self.said)

    # -- inside -----------------------------------------------------------------------------------

    def _check_and_say(self, sentence: str) -> None:
        reason = unspeakable(sentence, self.facts) or (
            "rest of a dropped sentence" if self._rest_dropped else "") or (
            REST_OF_DECLINING if self._opened_declining else "")
        # a long sentence comes in clauses: the rest of a dropped one goes too
        self._rest_dropped = bool(reason) and not ends_sentence(sentence)
        # a general question's answer that opens by declining ("As an AI language model, I
        # don't have personal preferences. However, many people enjoy ...") is held whole,
        # to be asked again as in a plain chat, not spoken from its "However"
        self._opened_declining |= reason == DECLINES_GENERAL and not self.reply_said
        held, self._held = self._held, ""
        if reason:
            if held:  # "You can call these functions:" and then their names
                self._hold(held, INTRODUCES_DROPPED)
            self._hold(sentence, reason)
            return
        if sentence.rstrip().endswith(":") or _only_purpose(sentence):
            # said with what it introduces: "To remove an item from a list," was heard
            # alone when the rest named a tool and was held back
            self._held = f"{held} {sentence}".strip()
            return
        for each in (held, sentence):
            if each:
                self.reply_said.append(each)
                self._emit(each)

    def _hold(self, sentence: str, reason: str) -> None:
        self.dropped.append((sentence, reason))
        self._on_held(sentence, reason)

    def _emit(self, sentence: str) -> None:
        self.said.append(sentence)
        if self._on_text is not None:
            self._on_text(sentence)


def _only_purpose(clause: str) -> bool:
    """`clause` is the first part of a sentence that says only what the rest is for ("To
    remove an item from a list,"; lexicon `purpose_openers`)."""
    said = tokens(clause)
    return not ends_sentence(clause) and any(
        lexicon().is_one("purpose_openers", said[:n]) for n in (1, 2, 3))
