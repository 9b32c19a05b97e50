"""The end of the turn from what was said and how, judged while the user pauses.

A fixed silence window is a guess made without the words: too long after "what time is it?",
too short after "set a timer for... um". About `[audio] turn_end_ms` into each pause the
listener (sound/recorder.py) hands the utterance so far to `Drafts.judge` and keeps listening;
the verdict sets how long this pause may last:

- FINISHED: the turn model (speech/turn.py) hears a finished turn AND the words so far,
  transcribed (a draft), read as a whole request: the pause ends it at `turn_end_ms` (200 ms).
  After a short first phrase (it may be a name: "Picovoice, ...") only when the words are a
  whole command the assistant knows.
- UNFINISHED: the words trail off ("and", "um", "for"), are only a name ("alexa", "hey
  jarvis, um"), end in words Whisper had to guess, or the turn model hears more coming and
  the words do not read finished: the pause may last `hold_ms` longer than usual.
- OPEN: the two disagree, Whisper doubts the words or the way they end, or there is no turn
  model: the usual window (`silence_ms`, longer after a short first phrase).

Neither signal ends a turn alone: on the real "set a timer for 5 minutes" smart-turn called
the words up to "for" finished (0.98), and Whisper completed them as "Set a timer for two
hours." (that draft, taken for a whole command, once cut the request). Whisper gave the words
it made up there 0.00-0.03 (`Transcript.words`), the ones said 0.8-1.0: a draft whose last
words are a guess (`WORD_FLOOR`) holds the pause longer. What ends a turn early is a pause
that lasts turn_end_ms with no speech, with both signals agreeing.

A draft is never the request's text: it only decides the pause. The request is transcribed
from the whole utterance after the cut (the assistant does it), so nothing a draft guessed
about unfinished words can reach the answer. (Reusing the draft when the audio is the same
would save one transcription; it was dropped because drafts may be decoded more cheaply than
the final transcript, and a request's text must come from one place.)

A pause heard as finished ends the utterance unless speech comes: its audio goes to
`read_ahead`, which has the request's own transcriber start on it (speech/read_ahead.py; the
listener does the same for an open pause once it has lasted what an utterance keeps); the
kiosk and push-to-talk have the model server read the request those words make as soon as
they are ready (agent/warmer.py), so its first token comes right after the turn ends. That is
only a head start in the server's cache: the request is sent from the final transcript.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from voiceagent.audio import Audio
from voiceagent.language import lexicon, tokens
from voiceagent.ports import Transcriber, Transcript, TurnDetector
from voiceagent.speech.unsure import unsure_amount

log = logging.getLogger(__name__)

WORD_FLOOR = 0.5
"""A draft whose last two words Whisper gave less than this did not hear them: it guessed how
the words go on (on the real "set a timer for" + pause: "two hours." at 0.00-0.03)."""
AMOUNT_END_FLOOR = 0.8
"""...and one ending on an amount (a number, a unit of time) it gave less than this: cut at
1.55 s, the same request came out "five hours." at 0.60 / 0.51, and live it once ended
there and set a 5-hour timer. An amount is what a request acts on, and "five" is where
"minutes" may still come; clear ones score 0.97-1.0. (All last words at 0.8 held every pause
longer: the cut 0.26 -> 0.72 s after the words on 43 real requests, docs/endpointing.md.)"""
_FINISHED = re.compile(r"[.?!]['\")\]]*$")
_ELLIPSIS = re.compile(r"(?:\.\.\.|…)['\")\]]*$")


def sounds_finished(text: str) -> bool:
    """True when `text` reads as a whole request: at least two words (a lone name before a
    pause, "Picovoice, ...", is not one), ending a sentence (Whisper punctuates what it hears
    as complete) on a word a request can end on."""
    text = text.strip()
    if not _FINISHED.search(text) or _ELLIPSIS.search(text):
        return False
    lex = lexicon()
    words = tokens(text)
    if len(words) >= 3 and words[-1] == "it" and words[-2] in lex.words("prepositions"):
        return False  # "Set a timer for it.": Whisper's filler for silence after "for"
    return len(words) >= 2 and words[-1] not in lex.words("trailing")


def only_an_address(text: str, names: Iterable[str] = ()) -> bool:
    """True when `text` is nothing but a way of addressing the assistant ("Alexa.", "Hey
    Jarvis, um...", "Okay, Nabu."): a name from the lexicon's `addresses` or `names` (the
    configured wake word or phrase), with only `address_openers` and `fillers` around it."""
    lex = lexicon()
    said = tokens(text)
    own = {tuple(tokens(n)) for n in names if tokens(n)}
    named = [False] * len(said)
    for start, end in lex.find("addresses", said):
        named[start:end] = [True] * (end - start)
    for term in own:
        for at in range(len(said) - len(term) + 1):
            if tuple(said[at:at + len(term)]) == term:
                named[at:at + len(term)] = [True] * len(term)
    other = lex.words("address_openers") | lex.words("fillers")
    return any(named) and all(n or w in other for n, w in zip(named, said, strict=True))


class Verdict(Enum):
    FINISHED = "finished"
    """End at turn_end_ms of silence, if no speech comes by then."""
    UNFINISHED = "unfinished"
    """Wait longer than usual (hold_ms more)."""
    OPEN = "open"
    """Let the usual silence window decide."""


@dataclass(frozen=True)
class Draft:
    """One judgement of a pause (for the log and tests; never the request's text)."""

    verdict: Verdict
    text: str
    """What the draft heard so far."""
    probability: float | None
    """The turn model's probability that the turn is finished; None when it was not asked
    (no model, or the words settled it)."""


class Drafts:
    """Judges a pause from the words so far (`transcriber`) and how they sound (`turn`).

    `command(text)` says whether words are a whole command the assistant answers itself;
    `names` are the words the assistant is addressed by (wake word, wake phrase);
    `read_ahead(audio)` gets the audio of each pause heard as finished, with words heard (in
    the listening thread: return at once).
    """

    def __init__(self, transcriber: Transcriber, turn: TurnDetector | None = None, *,
                 threshold: float = 0.5, command: Callable[[str], bool] | None = None,
                 names: Iterable[str] = (),
                 read_ahead: Callable[[Audio], None] | None = None) -> None:
        self.transcriber = transcriber
        self.turn = turn
        self.threshold = threshold
        self.command = command
        self.names = tuple(names)
        self.read_ahead = read_ahead

    def judge(self, audio: Audio, *, short: bool = False) -> Draft:
        """The verdict on a pause at the end of `audio`; `short`: only a short first phrase
        (it may be a name) has been heard. The turn model is asked only when the words do
        not settle it."""
        heard = self.transcriber.transcribe(audio)
        transcript = heard if isinstance(heard, Transcript) else Transcript(str(heard))
        text = transcript.strip()
        guessed = any(prob < WORD_FLOOR for _w, prob in transcript.words[-2:]) or bool(
            unsure_amount(transcript, floor=AMOUNT_END_FLOOR, last=2))
        words_done = bool(text) and not transcript.doubt and not guessed and (
            sounds_finished(text) or (len(tokens(text)) == 1 and self._known(text)))
        p = None
        if text and (guessed or only_an_address(text, self.names)):
            verdict = Verdict.UNFINISHED  # a name, or Whisper made up how the words go on
        elif text and not transcript.doubt and not words_done:
            verdict = Verdict.UNFINISHED  # "set a timer for", "add eggs and", "um"
        elif self.turn is None:
            verdict = Verdict.OPEN
        else:
            p = self.turn.finished(audio)
            if p < self.threshold:
                verdict = Verdict.OPEN if words_done else Verdict.UNFINISHED
            elif words_done and (not short or self._known(text)):
                verdict = Verdict.FINISHED
            else:
                verdict = Verdict.OPEN
        log.debug("draft after a pause: %r, turn %s -> %s", text,
                  "-" if p is None else f"{p:.2f}", verdict.value)
        draft = Draft(verdict, text, p)
        if text and verdict is Verdict.FINISHED and self.read_ahead is not None:
            try:
                self.read_ahead(audio)
            except Exception:  # a head start only; the verdict stands
                log.exception("starting the transcript ahead failed")
        return draft

    def _known(self, text: str) -> bool:
        """A whole command the assistant knows, or a one-word answer ("Yes.", "Stop.": the
        lexicon's yes, no and stop words), ending a sentence."""
        if not _FINISHED.search(text):
            return False
        lex = lexicon()
        if len(tokens(text)) == 1 and any(lex.only(n, text) for n in ("yes", "no", "stop")):
            return True
        return self._is_command(text)

    def _is_command(self, text: str) -> bool:
        if self.command is None:
            return False
        try:
            return self.command(text)
        except Exception:  # a matcher fault only costs the sooner end
            log.exception("matching a draft against the local commands failed")
            return False
