"""The kiosk: always listening; with a wake word nothing is transcribed until it is heard, and
with echo cancellation the wake word or "stop" over an answer interrupts it; never dies
(failures are logged, spoken briefly, and backed off). Replies hands a question asked inside
a turn (a spoken approval) the kiosk's next utterance.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Protocol

from voiceagent.assistant import Assistant
from voiceagent.audio import Audio
from voiceagent.errors import VoiceAgentError
from voiceagent.language import lexicon, say
from voiceagent.ports import ContinuousListener
from voiceagent.speech.wakegate import WakeGate

log = logging.getLogger(__name__)


class KioskFrontEnd:
    """Always listening; never dies (failures are logged, spoken briefly, and backed off).

    Utterances come from the listener (the recorder, whose per-block processors hold the
    echo canceller and the wake gate). Each turn runs on a worker thread so the microphone is
    read all the time: with echo cancellation (`half_duplex=False` and a gate), the wake word
    or a stop word over an answer interrupts it; otherwise the microphone is ignored while it
    answers. An answer ending in a question opens the gate for `follow_up_s`.
    """

    def __init__(
        self, assistant: Assistant, listener: PausableListener, *, wake_phrase: str = "",
        half_duplex: bool = True, gate: WakeGate | None = None,
        chime: Callable[[str], None] | None = None, follow_up_s: float = 0.0,
        replies: Replies | None = None,
    ) -> None:
        self._assistant = assistant
        self._listener = listener
        self._wake_phrase = wake_phrase
        self._half_duplex = half_duplex
        self._gate = gate
        self._chime = chime or (lambda _which: None)
        self._follow_up_s = follow_up_s
        self._replies = replies
        self._worker: threading.Thread | None = None
        self._failures = 0
        self._stop = threading.Event()
        if gate is not None:
            gate.on_wake = self._woken
            if not half_duplex:
                gate.on_short = self._maybe_stop
        if replies is not None:
            replies.on_wait = self._await_reply

    def run(self, stop: threading.Event) -> None:
        self._stop = stop
        while not stop.is_set():
            try:
                for audio in self._listener.utterances(stop):
                    if self._gate is not None:
                        self._gate.close()
                    if self._replies is not None and self._replies.take(audio):
                        continue
                    self._start_turn(audio)
            except Exception as exc:  # the kiosk must keep serving whatever happened
                log.error("listening failed (%s); again in 1 s", exc,
                          exc_info=not isinstance(exc, VoiceAgentError))
                stop.wait(1.0)
        self._join(interrupt=True)

    # -- turns ---------------------------------------------------------------------------------

    def _start_turn(self, audio: Audio) -> None:
        speech_end = time.monotonic()
        # "got it", heard at once: the transcript and the answer take seconds more
        threading.Thread(target=self._chime, args=("stop",), name="chime", daemon=True).start()
        self._join(interrupt=True)  # a new request replaces an answer still running
        self._worker = threading.Thread(target=self._turn, args=(audio, speech_end),
                                        name="turn", daemon=True)
        self._worker.start()

    def _turn(self, audio: Audio, speech_end: float) -> None:
        gate = self._gate
        if gate is not None:
            gate.busy = True
        if self._half_duplex:
            self._listener.pause()  # never hear, and answer, itself
        try:
            outcome = self._assistant.answer_audio(audio, speech_end=speech_end,
                                                   wake_phrase=self._wake_phrase)
            self._failures = 0
        except Exception as exc:  # one bad turn must not end the kiosk
            self._failed(exc)
            return
        finally:
            self._listener.resume()
            if gate is not None:
                gate.busy = False
        if (gate is not None and self._follow_up_s > 0 and outcome.stop == "done"
                and asks_back(outcome.answer)):
            log.info("the answer asked a question: listening %.0f s without the wake word",
                     self._follow_up_s)
            gate.open(self._follow_up_s)

    def _failed(self, exc: Exception) -> None:
        self._failures += 1
        delay = min(30.0, 2.0 ** (self._failures - 1))
        log.error("turn failed (%s); listening again in %.0f s", exc, delay,
                  exc_info=not isinstance(exc, VoiceAgentError))
        self._apologise()
        self._stop.wait(delay)

    def _join(self, *, interrupt: bool) -> None:
        worker = self._worker
        if worker is not None and worker.is_alive():
            if interrupt:
                self._assistant.interrupt()
            worker.join()
        self._worker = None

    def _busy(self) -> threading.Thread | None:
        worker = self._worker
        return worker if worker is not None and worker.is_alive() else None

    # -- barge-in (called in the listening thread) -----------------------------------------------

    def _woken(self) -> None:
        """The wake word: stop any answer at once, chime, and take the next request."""
        if self._busy() is not None:
            self._assistant.interrupt()
        threading.Thread(target=self._chime, args=("start",), name="chime", daemon=True).start()

    def _maybe_stop(self, audio: Audio) -> None:
        """A short utterance over the answer: a quick Whisper pass for "stop", "cancel"."""
        worker = self._busy()
        transcriber = self._assistant.transcriber
        if worker is None or transcriber is None:
            return

        def check() -> None:
            text = str(getattr(transcriber.transcribe(audio), "text", "") or "")
            if is_stop(text) and worker.is_alive():
                log.info("heard %r over the answer: stopping", text)
                self._assistant.interrupt()
            else:
                log.info("heard %r over the answer: not a stop word", text)

        threading.Thread(target=check, name="stop-check", daemon=True).start()

    def _await_reply(self, waiting: bool) -> None:
        """A question inside the turn (approval) wants the next utterance, wake word or not."""
        if waiting:
            self._listener.resume()
            if self._gate is not None:
                self._gate.open(self._replies.timeout_s if self._replies else 8.0)
        elif self._half_duplex and self._busy() is not None:
            self._listener.pause()

    def _apologise(self) -> None:
        try:
            with self._listener.paused():
                self._assistant.announce(say("turn_failed"))
        except Exception as exc:  # no speaker either: the log line above is all we can do
            log.error("could not speak the apology: %s", exc)


class PausableListener(ContinuousListener, Protocol):
    """The kiosk's microphone: utterances, and pausing while it answers (half duplex)."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class Replies:
    """The Recorder port for a question asked inside a kiosk turn (a spoken approval): the
    kiosk's listening loop hands over its next utterance, so only one reader uses the mic."""

    def __init__(self, timeout_s: float = 8.0) -> None:
        self.timeout_s = timeout_s
        self.on_wait: Callable[[bool], None] = lambda _waiting: None
        self._waiting = threading.Event()
        self._queue: queue.Queue[Audio] = queue.Queue(maxsize=1)

    def record(self, stop: threading.Event | None = None) -> Audio:
        """The next utterance the kiosk hears; empty audio if none within `timeout_s`."""
        while not self._queue.empty():
            self._queue.get_nowait()
        self._waiting.set()
        self.on_wait(True)
        try:
            return self._queue.get(timeout=self.timeout_s)
        except queue.Empty:
            return Audio.silence(0)
        finally:
            self._waiting.clear()
            self.on_wait(False)

    def take(self, audio: Audio) -> bool:
        """Give `audio` to a waiting question; False if none is waiting."""
        if not self._waiting.is_set():
            return False
        try:
            self._queue.put_nowait(audio)
        except queue.Full:
            return False
        return True


def is_stop(text: str) -> bool:
    """A spoken stop command: "stop", "cancel", "never mind", "be quiet" (lexicon "stop")."""
    return lexicon().has("stop", text)


def asks_back(answer: str) -> bool:
    """The answer ends with a question to the user ("Which list?")."""
    return answer.rstrip().rstrip("\"')").endswith("?")
