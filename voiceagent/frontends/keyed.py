"""Push-to-talk in a terminal, and the wake-on-keypress daemon: a key starts listening; its
release (hold-to-talk), a second press, or silence ends it. A press while the assistant speaks
interrupts it (barge-in) and listens again.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Protocol

from voiceagent.assistant import Assistant, TurnOutcome
from voiceagent.audio import Audio
from voiceagent.errors import VoiceAgentError
from voiceagent.triggers import KeySource
from voiceagent.view import TerminalView

log = logging.getLogger(__name__)


class Listen(Protocol):
    """Records one utterance until `stop` is set (or silence, with `end_on_silence`)."""

    def __call__(self, stop: threading.Event, *, end_on_silence: bool) -> Audio: ...


class KeyedFrontEnd:
    """Push-to-talk (terminal keys) and the daemon (evdev keys or stdin lines)."""

    def __init__(
        self,
        assistant: Assistant,
        listen: Listen,
        keys: KeySource,
        *,
        view: TerminalView | None = None,
        chime: Callable[[str], None] | None = None,
    ) -> None:
        self._assistant = assistant
        self._listen = listen
        self._keys = keys
        self._view = view
        self._chime = chime or (lambda _which: None)
        self._worker: threading.Thread | None = None

    def run(self, stop: threading.Event) -> None:
        """Serve key presses until `stop` is set or the user quits."""
        self._show("idle")
        while not stop.is_set():
            try:
                event = self._keys.events.get(timeout=0.2)
            except queue.Empty:
                continue
            if event.kind == "quit":
                break
            if event.kind != "down":
                continue
            self._stop_answer()
            audio, speech_end = self._record(stop)
            if audio is None:
                break
            self._show("thinking")
            self._worker = threading.Thread(
                target=self._answer, args=(audio, speech_end), name="turn", daemon=True
            )
            self._worker.start()
        self._stop_answer()

    def _record(self, stop: threading.Event) -> tuple[Audio | None, float]:
        """Listen until key release or silence (hold-to-talk), or until the second press
        (press-to-start/press-to-stop, where a pause must not end it); None if told to stop."""
        self._chime("start")
        self._show("listening")
        done = threading.Event()
        result: list[Audio] = []
        recorder = threading.Thread(
            target=lambda: result.append(self._listen(done, end_on_silence=self._keys.holds)),
            name="record", daemon=True,
        )
        recorder.start()
        while recorder.is_alive():
            if stop.is_set():
                done.set()
                recorder.join()
                return None, 0.0
            try:
                event = self._keys.events.get(timeout=0.05)
            except queue.Empty:
                continue
            if event.kind == "quit":
                done.set()
                recorder.join()
                return None, 0.0
            if event.kind == "up" or (event.kind == "down" and not self._keys.holds):
                done.set()
        speech_end = time.monotonic()
        recorder.join()
        # "got it" plays while the words are transcribed, not before (0.16 s + the latency)
        threading.Thread(target=self._chime, args=("stop",), name="chime", daemon=True).start()
        return (result[0] if result else Audio.silence(0)), speech_end

    def _answer(self, audio: Audio, speech_end: float) -> None:
        try:
            outcome = self._assistant.answer_audio(audio, speech_end=speech_end)
            self._report(outcome)
        except Exception as exc:  # one bad turn must not end the front end
            log.error("turn failed: %s", exc, exc_info=not isinstance(exc, VoiceAgentError))
        self._show("idle")

    def _stop_answer(self) -> None:
        worker = self._worker
        if worker is not None and worker.is_alive():
            self._assistant.interrupt()
            worker.join()
        self._worker = None

    def _report(self, outcome: TurnOutcome) -> None:
        if self._view is not None:
            if outcome.stop == "empty":
                self._view.state("nothing heard")
            self._view.answered(outcome.timings)

    def _show(self, state: str) -> None:
        if self._view is not None:
            self._view.state(state)
