"""The three ways to use the assistant, as composition around one `Assistant`.

- KeyedFrontEnd: push-to-talk in a terminal, and the wake-on-keypress daemon: a key starts
  listening; its release (hold-to-talk), a second press, or silence ends it. A press while the
  assistant speaks interrupts it (barge-in) and listens again.
- KioskFrontEnd: always listening with voice-activity detection, half-duplex, optional wake
  phrase; never dies (failures are logged, spoken briefly, and backed off).
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from typing import Protocol

from voiceagent.assistant import Assistant, TurnOutcome
from voiceagent.audio import Audio
from voiceagent.errors import VoiceAgentError
from voiceagent.ports import ContinuousListener, Recorder
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
        self._chime("stop")
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


class KioskFrontEnd:
    """Always listening (VAD), half-duplex, optional wake phrase; never dies."""

    def __init__(
        self, assistant: Assistant, listener: ContinuousListener, *, wake_phrase: str = "",
        half_duplex: bool = True,
    ) -> None:
        self._assistant = assistant
        self._listener = listener
        self._wake_phrase = wake_phrase
        self._half_duplex = half_duplex

    def run(self, stop: threading.Event) -> None:
        failures = 0
        while not stop.is_set():
            try:
                for audio in self._listener.utterances(stop):
                    self._answer(audio)
                    failures = 0
            except Exception as exc:  # the kiosk must keep serving whatever one turn did
                failures += 1
                delay = min(30.0, 2.0 ** (failures - 1))
                log.error("turn failed (%s); listening again in %.0f s", exc, delay,
                          exc_info=not isinstance(exc, VoiceAgentError))
                self._apologise()
                stop.wait(delay)

    def _answer(self, audio: Audio) -> None:
        speech_end = time.monotonic()
        if not self._half_duplex:
            self._assistant.answer_audio(audio, speech_end=speech_end,
                                         wake_phrase=self._wake_phrase)
            return
        with self._listener.paused():  # never hear, and answer, itself
            self._assistant.answer_audio(audio, speech_end=speech_end,
                                         wake_phrase=self._wake_phrase)

    def _apologise(self) -> None:
        try:
            with self._listener.paused():
                self._assistant.announce("Sorry, something went wrong. Please try again.")
        except Exception as exc:  # no speaker either: the log line above is all we can do
            log.error("could not speak the apology: %s", exc)


YES = {"yes", "yeah", "yep", "yup", "sure", "ok", "okay", "allow", "confirm", "confirmed",
       "affirmative", "correct", "please", "proceed", "go"}
NO = {"no", "nope", "don't", "dont", "not", "cancel", "stop", "deny", "never", "negative"}


def is_yes(reply: str) -> bool:
    """A spoken yes; any negative word wins, silence is no."""
    words = set(re.findall(r"[a-z']+", reply.lower()))
    return bool(words & YES) and not (words & NO)


class VoiceApprover:
    """Asks aloud before an irreversible tool runs and listens for a spoken yes or no.

    It listens through the front end's own recorder; a kiosk pauses that recorder while it
    answers (half duplex), so the microphone is opened to the user just for the reply."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self.assistant: Assistant | None = None

    def __call__(self, name: str, args: dict[str, object]) -> bool:
        assistant = self.assistant
        if assistant is None or assistant.transcriber is None:
            return False
        what = ", ".join(f"{k} {v}" for k, v in args.items())
        question = f"May I {name.replace('_', ' ')}" + (f" with {what}" if what else "")
        assistant.speak_now(f"{question}? Say yes or no.")
        reply = assistant.transcriber.transcribe(self._listen()).strip()
        log.info("approval for %s: heard %r", name, reply)
        return is_yes(reply)

    def _listen(self) -> Audio:
        pause = getattr(self._recorder, "pause", None)
        resume = getattr(self._recorder, "resume", None)
        was_paused = bool(getattr(self._recorder, "is_paused", False))
        if was_paused and resume is not None:
            resume()
        try:
            return self._recorder.record(None)
        finally:
            if was_paused and pause is not None:
                pause()
