"""Trace events: every step of a turn is emitted to any number of listeners (the audit log)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

EVENT_TYPES = (
    "turn_start",  # a turn began (fields: source = "text" | "audio")
    "speech_end",  # the user stopped speaking (key release or VAD end)
    "stt_done",  # transcript ready (text, audio_s)
    "user_text",  # the text the model will get
    "request",  # a request was sent to the model (step, messages)
    "first_token",  # the first streamed text or tool-call delta arrived (step)
    "reply",  # a complete reply (step, text, calls, input_tokens, output_tokens)
    "tool_call",  # a tool is about to run (id, name, args)
    "tool_result",  # a tool finished (id, name, result, error, seconds)
    "sentence",  # a sentence is ready to speak (text)
    "audio_start",  # the first sample of a sentence started playing (text)
    "audio_end",  # the last sample of the answer was played
    "final",  # the turn's answer (text, stop)
    "cap",  # a cap ended the turn (which, limit)
    "error",  # something failed (where, message)
    "cancelled",  # the turn was cancelled (where)
    "turn_end",  # the turn is over and the session saved (stop)
)


@dataclass(frozen=True)
class Event:
    """One thing that happened during a turn."""

    type: str
    """One of EVENT_TYPES."""
    t: float
    """Seconds since the turn started."""
    fields: dict[str, Any] = field(default_factory=dict)
    """The event's data (JSON-serialisable)."""

    def to_json(self) -> str:
        return json.dumps({"type": self.type, "t": round(self.t, 4), **self.fields}, default=str)


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

    def emit(self, type: str, **fields: Any) -> Event:
        event = Event(type, time.monotonic() - self._t0, fields)
        with self._lock:
            for listener in (*self._listeners, *self._turn_listeners):
                listener(event)
        return event


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

    def first(self, type: str) -> Event | None:
        return next((e for e in self.events if e.type == type), None)

    def of_type(self, type: str) -> list[Event]:
        return [e for e in self.events if e.type == type]
