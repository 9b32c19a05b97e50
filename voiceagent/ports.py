"""The interfaces between the core and the adapters.

The core (assistant, agent loop) only sees these; faster-whisper, piper, sounddevice and
HTTP live behind them, so the core is tested with the fakes in `voiceagent.testing` and the
adapters are tested for real.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, tzinfo
from typing import Protocol

from voiceagent.agent.messages import Message, Reply, ToolChoice, ToolSpec
from voiceagent.audio import Audio


class Transcript(str):
    """What was heard. It is the text itself (so it reads and compares like a str) and
    carries why the recogniser doubts it, so the turn can refuse to act on a guess."""

    doubt: str
    """Empty when the recogniser was confident; else which of its own scores was poor."""
    garbled: bool
    """So poor that nothing should be answered: the user is asked to repeat."""
    words: tuple[tuple[str, float], ...]
    """Each word as written in the text, with the probability the recogniser gave it (0-1),
    in order; empty when the recogniser cannot tell. A number or a duration heard at a low
    probability is one to confirm, not to act on."""

    def __new__(cls, text: str = "", *, doubt: str = "", garbled: bool = False,
                words: tuple[tuple[str, float], ...] = ()) -> Transcript:
        value = super().__new__(cls, text)
        value.doubt = doubt
        value.garbled = garbled
        value.words = tuple(words)
        return value

    @property
    def text(self) -> str:
        return str(self)


class Transcriber(Protocol):
    """Speech to text."""

    def transcribe(self, audio: Audio) -> str:
        """The words in `audio`; "" for silence or noise. A `Transcript` when the recogniser
        can tell how sure it is (a plain str counts as sure)."""
        ...


class TurnDetector(Protocol):
    """Hears whether the speaker has finished their turn, from how the words so far sound."""

    def finished(self, audio: Audio) -> float:
        """The probability (0..1) that the turn is complete at the end of `audio` (16 kHz
        speech so far, a short pause at its end)."""
        ...


class Synthesizer(Protocol):
    """Text to speech."""

    def synthesize(self, text: str) -> Iterator[Audio]:
        """One clip per sentence, yielded as soon as each is ready."""
        ...


class Player(Protocol):
    """Plays audio to the speaker (or a file, or nowhere)."""

    def play(self, audio: Audio) -> None:
        """Play `audio`, blocking until it finished or `stop()` was called."""
        ...

    def stop(self) -> None:
        """Stop playback at once (barge-in); safe to call from any thread."""
        ...


class Recorder(Protocol):
    """Captures one utterance from the microphone."""

    def record(self, stop: threading.Event | None = None) -> Audio:
        """Record until end of speech (VAD) or until `stop` is set (key release)."""
        ...


class ContinuousListener(Protocol):
    """An always-open microphone cut into utterances by voice activity (the kiosk)."""

    def utterances(self, stop: threading.Event) -> Iterator[Audio]:
        """Each utterance as it ends, until `stop` is set; silence and noise are skipped."""
        ...

    def paused(self) -> AbstractContextManager[None]:
        """Ignore the microphone inside the block (half duplex while speaking)."""
        ...


class ChatModel(Protocol):
    """One request to an LLM, streamed; wire formats hide behind this."""

    def complete(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> Reply:
        """Send the conversation; call `on_text` with each text delta; return the whole reply.
        `tool_choice` says whether a tool may, must or must not be called (or which of
        them must be)."""
        ...


Approver = Callable[[str, dict[str, object]], bool]
"""Asks the user whether tool `name` may run with `args`; True means yes."""


class Clock(Protocol):
    """Where the time comes from: the wall clock in the assistant's zone, or a test's.

    Timers, the clock tool, spoken times in templates and follow-ups all read this, so one
    `[tools] timezone` holds everywhere and a test sets the time instead of sleeping."""

    @property
    def zone(self) -> tzinfo | None:
        """The zone times are said in; None for the system's own."""
        ...

    def time(self) -> float:
        """Now, in epoch seconds."""
        ...

    def now(self) -> datetime:
        """Now, as an aware datetime in `zone`."""
        ...
