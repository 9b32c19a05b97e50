"""Transcribing while the user pauses, so the end of an utterance needs no fixed wait.

A fixed silence window (700 ms) is a guess made without the words: too long after "what time
is it?", too short after "set a timer for... um". Here, after a short pause (`[audio]
early_end_ms`) the listener hands the words so far to `Drafts.draft` and keeps listening:

- they are a whole command the local templates know ("what time is it", "set a timer for ten
  minutes"; `command`, from voiceagent.intents) and no speech came meanwhile: the utterance
  ends at `[audio] command_end_ms` (300 ms), and its transcript is already made:
  `transcribe()` of the same audio returns it without running Whisper again;
- they sound finished otherwise (a sentence end, no trailing "and", "um", "the", "for"): the
  same at `early_end_ms` (550 ms), if no speech came by then;
- they trail off: the window is held longer (`[audio] hold_ms`), so a thinking pause is not
  the end;
- Whisper doubts them, or they are empty: the usual silence window decides.

Ending early needs finished-sounding words AND a pause that outlasts both the draft and
`early_end_ms` (`command_end_ms` for a whole command), so a speaker who pauses mid-sentence is
only cut off when the words before the pause are a whole request on their own.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from voiceagent.audio import Audio
from voiceagent.language import lexicon, tokens
from voiceagent.ports import Transcriber, Transcript

log = logging.getLogger(__name__)

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


class Verdict(Enum):
    FINISHED = "finished"
    """End the utterance now if no speech came meanwhile."""
    TRAILING = "trailing"
    """Wait longer than usual."""
    COMMAND = "command"
    """A whole known command: end the utterance sooner still (command_end_ms)."""
    UNSURE = "unsure"
    """Let the usual silence window decide."""


@dataclass(frozen=True)
class Draft:
    verdict: Verdict
    text: str


class Drafts:
    """The Transcriber port, with drafts: `draft(audio)` while listening, and `transcribe`
    returns the draft's transcript when it is asked for the same audio. `command(text)` says
    whether finished words are a whole command the assistant answers itself."""

    def __init__(self, transcriber: Transcriber,
                 command: Callable[[str], bool] | None = None) -> None:
        self.transcriber = transcriber
        self.command = command
        self._lock = threading.Lock()
        self._last: tuple[np.ndarray, Transcript] | None = None

    def draft(self, audio: Audio) -> Draft:
        heard = self.transcriber.transcribe(audio)
        transcript = heard if isinstance(heard, Transcript) else Transcript(str(heard))
        with self._lock:
            self._last = (audio.samples, transcript)
        text = transcript.strip()
        if not text or transcript.doubt:
            verdict = Verdict.UNSURE
        elif sounds_finished(text):
            verdict = Verdict.COMMAND if self._is_command(text) else Verdict.FINISHED
        else:
            verdict = Verdict.TRAILING
        log.debug("draft after a pause: %r -> %s", text, verdict.value)
        return Draft(verdict, text)

    def _is_command(self, text: str) -> bool:
        if self.command is None:
            return False
        try:
            return self.command(text)
        except Exception:  # a matcher fault only costs the sooner end
            log.exception("matching a draft against the local commands failed")
            return False

    def transcribe(self, audio: Audio) -> str:
        with self._lock:
            last, self._last = self._last, None
        if (last is not None and len(last[0]) == len(audio.samples)
                and np.array_equal(last[0], audio.samples)):
            return last[1]
        return self.transcriber.transcribe(audio)
