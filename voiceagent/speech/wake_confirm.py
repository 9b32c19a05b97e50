"""A second opinion on a doubtful run-on wake word: does speech to text hear the name?

The second look (runon.py) asks the wake word model whether it would have fired had the
speaker paused; it must be surer than the model's own rule, because it is a second chance.
Real wake words said in one breath often land between the two (alexa: 0.76-0.97 where 0.975
is needed), and so do a few phrases that only sound like it ("I'd like a" for alexa, "make me
a" for hey_mycroft). Whisper tells those apart: on the shared real recordings it heard
"Alexa." in 10 of the 11 doubtful real ones and "I like it." for the near miss; "Hey,
McRoughton." is near "Hey Mycroft" and "Can I have it?" is not. So a second look the model
leans towards (CONFIRM_FLOOR) but is not sure of wakes the kiosk only when the transcript
of the word as if a pause followed ends in something that sounds like the wake word:
compared by Metaphone keys (jellyfish), since Whisper spells names it does not know as it
hears them ("Okay, now boom." for "okay nabu").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from difflib import SequenceMatcher

import numpy as np

from voiceagent.audio import STT_RATE, Audio
from voiceagent.ports import Transcriber

log = logging.getLogger(__name__)

CONFIRM_FLOOR = 0.5
"""A second look at least this sure (the model leans towards the wake word) is worth asking
speech to text about; below, it is not the wake word."""
ALIKE = 0.75
"""How alike the sound keys must be (difflib ratio): on the shared recordings the real wake
words scored 0.83-1.0 and what only came close to them 0.0-0.6."""


def sound_key(text: str) -> str:
    """The Metaphone key of the words: how they sound, not how they are spelled."""
    import jellyfish

    return "".join(jellyfish.metaphone(w) for w in re.findall(r"[a-z]+", text.lower()))


def ends_with_name(text: str, name: str) -> bool:
    """Do the last words of `text` sound like `name`? As many words as the name has, or one
    more (Whisper may split a name it does not know: "now boom" for "nabu")."""
    words = re.findall(r"[a-z]+", text.lower())
    target = sound_key(name)
    if not words or not target:
        return False
    likeness = max(SequenceMatcher(None, sound_key(" ".join(words[-n:])), target).ratio()
                   for n in range(1, len(name.split()) + 2))
    return likeness >= ALIKE


def heard_by(transcriber: Transcriber, name: str) -> Callable[[np.ndarray], bool]:
    """What WakeWord asks about a doubtful second look: the word up to its end with silence
    after it (16 kHz samples) goes to `transcriber`; True if it heard `name` at the end."""

    def confirm(samples: np.ndarray) -> bool:
        try:
            text = str(transcriber.transcribe(Audio(samples, STT_RATE)))
            heard = ends_with_name(text, name)
        except Exception as exc:  # no second opinion (a failed transcriber, an install
            # without jellyfish: rerun ./install.sh): stay asleep, as without one
            log.warning("could not check the wake word with speech to text: %s", exc)
            return False
        log.info("wake word run on? speech to text heard %r: %s", text,
                 "the wake word" if heard else "not the wake word")
        return heard

    return confirm
