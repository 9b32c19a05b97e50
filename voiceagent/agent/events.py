"""Trace events: every step of a turn, as typed values, fanned out to any number of listeners.

Each event is a small frozen dataclass (like wyoming's messages): the view, the trace writer,
the bench and the tests all match on the class, so a typo fails at import, not silently.
`Events.emit` stamps the time (seconds since the turn started); `type` is the stable name
written to trace files.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TextIO, TypeVar


@dataclass(frozen=True)
class Event:
    """Base of every event."""

    type: ClassVar[str] = "event"
    """The event's name in trace files (JSON `type`)."""
    t: float = field(default=0.0, kw_only=True)
    """Seconds since the turn started; set by Events.emit."""

    @property
    def fields(self) -> dict[str, Any]:
        """The event's data without the time (JSON-serialisable)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "t"}

    def to_json(self) -> str:
        return json.dumps({"type": self.type, "t": round(self.t, 4), **self.fields}, default=str)


@dataclass(frozen=True)
class TurnStart(Event):
    """A turn began."""

    type: ClassVar[str] = "turn_start"
    source: str
    """"text" or "audio"."""


@dataclass(frozen=True)
class SpeechEnd(Event):
    """The user stopped speaking (key release or the end of the utterance)."""

    type: ClassVar[str] = "speech_end"
    audio_s: float
    """Length of the recorded utterance in seconds."""


@dataclass(frozen=True)
class SttDone(Event):
    """The transcript is ready."""

    type: ClassVar[str] = "stt_done"
    text: str
    """What was heard ("" for silence or noise)."""
    audio_s: float
    """Length of the audio transcribed."""
    confident: bool = True
    """False when Whisper's own scores say the transcript is doubtful."""


@dataclass(frozen=True)
class Misheard(Event):
    """The transcript was too doubtful to act on; the user is asked to repeat."""

    type: ClassVar[str] = "misheard"
    text: str
    """What Whisper thought it heard."""
    reason: str
    """Which score was too low (avg_logprob, no_speech_prob, compression_ratio)."""


@dataclass(frozen=True)
class UserText(Event):
    """The text the turn answers."""

    type: ClassVar[str] = "user_text"
    text: str


@dataclass(frozen=True)
class LocalCommand(Event):
    """A sentence template matched: the turn is answered without the LLM."""

    type: ClassVar[str] = "local_command"
    intent: str
    """The matched intent (e.g. timer_start, list_add, unsupported_weather)."""
    tool: str | None
    """The tool it runs, if any."""


@dataclass(frozen=True)
class Request(Event):
    """A request was sent to the model."""

    type: ClassVar[str] = "request"
    step: int
    """Which request of the turn (1, 2, ...)."""
    attempt: int
    """1, or 2 when the first attempt failed and was retried."""
    messages: int
    """How many messages were sent."""


@dataclass(frozen=True)
class FirstToken(Event):
    """The first streamed text or tool-call delta arrived."""

    type: ClassVar[str] = "first_token"
    step: int


@dataclass(frozen=True)
class ReplyDone(Event):
    """A complete model reply."""

    type: ClassVar[str] = "reply"
    step: int
    text: str
    calls: list[dict[str, Any]]
    """The tool calls as dicts (id, name, args)."""
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class ToolCallStart(Event):
    """A tool is about to run."""

    type: ClassVar[str] = "tool_call"
    id: str
    name: str
    args: dict[str, Any]
    bad_json: str | None = None
    """The raw argument text when it was not valid JSON."""


@dataclass(frozen=True)
class ToolResult(Event):
    """A tool finished."""

    type: ClassVar[str] = "tool_result"
    id: str
    name: str
    result: str
    error: bool
    """True when the result is an error meant for the model."""
    seconds: float
    """How long the tool ran."""
    refs: list[dict[str, Any]] = field(default_factory=list)
    """What it made, changed or read (agent/outcome.py's Ref, as a dict)."""
    ran: dict[str, Any] | None = None
    """The arguments it ran with when the call policy changed the model's (tool_call has
    what the model asked); None when it ran as asked."""


@dataclass(frozen=True)
class Sentence(Event):
    """A sentence is ready to be spoken."""

    type: ClassVar[str] = "sentence"
    text: str


@dataclass(frozen=True)
class HeldBack(Event):
    """A sentence of the model's the speech policy did not speak, and why (agent/voice.py):
    the trace shows what the user did not hear."""

    type: ClassVar[str] = "held_back"
    text: str
    reason: str


@dataclass(frozen=True)
class AudioStart(Event):
    """The first sample of a sentence started playing."""

    type: ClassVar[str] = "audio_start"
    text: str


@dataclass(frozen=True)
class AudioEnd(Event):
    """The last sample of the answer was played."""

    type: ClassVar[str] = "audio_end"


@dataclass(frozen=True)
class Final(Event):
    """The turn's answer."""

    type: ClassVar[str] = "final"
    text: str
    stop: str
    """Why the turn ended (see TurnResult.stop)."""


@dataclass(frozen=True)
class Cap(Event):
    """A cap ended the turn."""

    type: ClassVar[str] = "cap"
    which: str
    """steps, seconds, tokens or cost."""
    limit: float


@dataclass(frozen=True)
class Error(Event):
    """Something failed."""

    type: ClassVar[str] = "error"
    where: str
    """model, approve, tool, ..."""
    message: str
    kind: str = ""
    """The exception's class name, when there was one."""


@dataclass(frozen=True)
class Cancelled(Event):
    """The turn was cancelled (barge-in, shutdown)."""

    type: ClassVar[str] = "cancelled"
    where: str
    """model or tools: what was running."""


@dataclass(frozen=True)
class TurnEnd(Event):
    """The turn is over and the session saved."""

    type: ClassVar[str] = "turn_end"
    stop: str


E = TypeVar("E", bound=Event)
Listener = Callable[[Event], None]


class Events:
    """Fans events out to listeners; thread-safe, so audio threads can emit too."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._turn_listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._t0 = time.monotonic()

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def subscribe_turn(self, listener: Listener) -> None:
        """Listen to the current turn only (dropped at the next start_turn)."""
        with self._lock:
            self._turn_listeners.append(listener)

    def start_turn(self, t0: float | None = None) -> None:
        """Reset the clock: event times count from `t0` (monotonic), default now."""
        with self._lock:
            self._t0 = time.monotonic() if t0 is None else t0
            self._turn_listeners = []

    def emit(self, event: E) -> E:
        """Stamp `event` with the turn's clock and hand it to every listener."""
        stamped = dataclasses.replace(event, t=time.monotonic() - self._t0)
        with self._lock:
            for listener in (*self._listeners, *self._turn_listeners):
                listener(stamped)
        return stamped


class TraceFile:
    """A listener writing one JSON event per line; flushed per event so a crash keeps them."""

    def __init__(self, path: str | Path) -> None:
        self._file: TextIO = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def __call__(self, event: Event) -> None:
        self._file.write(event.to_json() + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class Recording:
    """A listener that keeps events in memory (for `ask --json`, the bench and tests)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def first(self, kind: type[E]) -> E | None:
        return next((e for e in self.events if isinstance(e, kind)), None)

    def of_type(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]
