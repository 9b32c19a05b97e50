"""Streams a reply into speech: sentences -> speakable text -> synthesis -> playback.

The turn hands over whole sentences as they are ready (agent/voice.py splits and checks
them), so the first one is synthesised and playing while the model still writes the rest,
and synthesis of sentence n+1 overlaps playback of sentence n (one thread each). The reply's
first clause, up to a colon or semicolon, is synthesised alone: piper takes ~0.6 s before a
long sentence sounds, ~0.2 s before a short one ("I can't order or buy things:" first). This is the
one place text is made speakable (numbers, units and symbols as words): synthesizers get
speakable text only.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator

from voiceagent.agent.events import AudioEnd, AudioStart, Events, Sentence
from voiceagent.audio import Audio
from voiceagent.errors import VoiceAgentError
from voiceagent.ports import Player, Synthesizer
from voiceagent.speech.sentences import first_clause, split_sentences
from voiceagent.speech.speakable import speakable

log = logging.getLogger(__name__)


class SpeechOutput:
    """One reply being spoken. feed() text as it streams, then finish() or cancel()."""

    def __init__(self, synthesizer: Synthesizer, player: Player, events: Events) -> None:
        self._synthesizer = synthesizer
        self._player = player
        self._events = events
        self._sentences: queue.Queue[str | None] = queue.Queue()  # None: no more
        self._clips: queue.Queue[tuple[str | None, Audio] | None] = queue.Queue()
        self._cancelled = threading.Event()
        self._played_any = False
        self.heard: list[str] = []
        """The sentences whose playback started (what the user heard, if cut short)."""
        self._error: BaseException | None = None
        self._threads = [
            threading.Thread(target=self._synthesize_loop, name="tts", daemon=True),
            threading.Thread(target=self._play_loop, name="playback", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def sentence(self, text: str) -> None:
        """Speak one sentence (the turn's `on_text`): synthesis starts at once."""
        self._queue_sentence(text.strip())

    def say(self, text: str) -> None:
        """Speak a whole text (an announcement, an approval question)."""
        for sentence in split_sentences(text):
            self._queue_sentence(sentence)

    def finish(self) -> None:
        """Block until everything was played (or cancelled)."""
        self._sentences.put(None)
        for thread in self._threads:
            thread.join()
        if self._played_any and not self._cancelled.is_set():
            self._events.emit(AudioEnd())
        if self._error is not None:
            raise self._error

    def cancel(self) -> None:
        """Barge-in: drop what is queued and stop playback now."""
        self._cancelled.set()
        self._player.stop()
        self._sentences.put(None)
        self._clips.put(None)

    def _queue_sentence(self, sentence: str) -> None:
        if sentence and not self._cancelled.is_set():
            self._events.emit(Sentence(sentence))
            self._sentences.put(sentence)

    def _synthesize_loop(self) -> None:
        opening = True  # the reply's first words: synthesised on their own
        try:
            while not self._cancelled.is_set():
                item = self._sentences.get()
                if item is None:
                    break
                first = True
                pieces = [p for p in (first_clause(item) if opening else (item,)) if p]
                opening = False
                for piece in pieces:
                    for clip in self._synthesizer.synthesize(speakable(piece)):
                        if self._cancelled.is_set():
                            break
                        self._clips.put((item if first else None, clip))
                        first = False
        except BaseException as exc:  # surfaced by finish(); playback must still end
            self._error = exc
        finally:
            self._clips.put(None)

    def _play_loop(self) -> None:
        while not self._cancelled.is_set():
            item = self._clips.get()
            if item is None:
                break
            text, clip = item
            if self._cancelled.is_set():  # a stop() just before play() would be lost
                break
            if text is not None:
                self._events.emit(AudioStart(text))
            self._played_any = True
            if text is not None:
                self.heard.append(text)
            try:
                self._player.play(clip)
            except VoiceAgentError as exc:  # no speaker: the answer is still shown and kept
                self._mute(text, f"could not speak the reply: {exc}")
            except Exception:
                log.exception("could not speak the reply")
                self._mute(text, "")

    def _mute(self, text: str | None, warning: str) -> None:
        """Give up speaking this reply after a failed clip (one log line, not one per
        sentence); its sentence was not heard."""
        if warning:
            log.warning("%s", warning)
        if text is not None and self.heard and self.heard[-1] == text:
            self.heard.pop()
        self._cancelled.set()


def speak(synthesizer: Synthesizer, player: Player, events: Events, text: str) -> None:
    """Speak `text` now and wait until it has played: a sentence outside an answer's stream
    (a timer going off, an approval question asked inside a turn)."""
    speech = SpeechOutput(synthesizer, player, events)
    speech.say(text)
    speech.finish()


class NoSpeech:
    """A Synthesizer that says nothing (`ask --no-speak`): the answer is only printed."""

    def synthesize(self, text: str) -> Iterator[Audio]:
        return iter(())


def speech_sentences(text: str) -> list[str]:
    """A whole text as a synthesizer takes it: its sentences, each made speakable (for
    callers that speak text outside a turn: `voiceagent say`, Wyoming's synthesize)."""
    return [spoken for sentence in split_sentences(text) if (spoken := speakable(sentence))]
