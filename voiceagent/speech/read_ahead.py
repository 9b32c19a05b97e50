"""The request's transcript computed while the user is still pausing, so it is ready at the cut.

Whisper on its full window takes 0.6-0.7 s per command on this machine, and it used to start
only once the utterance was cut. But at every pause the listener already judges the words so
far (speech/drafts.py), and when it hears them as finished or open the utterance usually ends
right there. The cutter makes that exact: an utterance with no speech after its last judged
pause is the audio that was judged, sample for sample (speech/cutter.py; what came after is
the pause itself). So `ReadAhead.start(audio)` runs the request's own transcriber on that
audio in the background, and `transcribe(audio)` hands back that result when it is given the
very same samples (waiting for it if it is still running), and transcribes as usual
otherwise.

The request's text still comes from one place, the request's transcriber on the whole
utterance, with the same settings: it is only computed before it is asked for. A draft
(decoded more cheaply, on words that may go on) is never used as the request.

A transcript ready ahead also goes to `on_ready`: the kiosk has the model server read the
request those words make while the user is still pausing (Assistant.prefill), so a request
that ends there finds its prompt read. Those are the words the request will have (or, when
the user goes on, no request at all), not a cheaper draft's guess; and Whisper and the model
no longer share the two cores at the same moment for it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import numpy as np

from voiceagent.audio import Audio
from voiceagent.ports import Transcriber

log = logging.getLogger(__name__)


class _Job:
    """One transcription started ahead of time."""

    def __init__(self, audio: Audio) -> None:
        self.audio = audio
        self.result: str | None = None
        self.done = threading.Event()
        self.taken = False
        """A request has asked for it (its turn is under way: no prefill then)."""

    def same(self, audio: Audio) -> bool:
        mine = self.audio
        return (mine.rate == audio.rate and mine.samples.shape == audio.samples.shape
                and bool(np.array_equal(mine.samples, audio.samples)))

    def run(self, transcriber: Transcriber) -> None:
        try:
            self.result = transcriber.transcribe(self.audio)
        except Exception as exc:  # the request is transcribed again when it is asked for
            log.debug("transcribing ahead failed: %s", exc)
        finally:
            self.done.set()


class ReadAhead:
    """A Transcriber that can start on an utterance before it is asked to (see the module
    docstring). One transcription runs at a time, in one worker thread; a start while one
    runs waits for it, replacing any other start still waiting (only the latest pause can be
    the utterance's end), so a pause never queues work behind more than one other."""

    def __init__(self, transcriber: Transcriber, *,
                 on_ready: Callable[[str], None] | None = None) -> None:
        self.transcriber = transcriber
        self.on_ready = on_ready
        """Hears each transcript started ahead, once it is ready and still the latest (in the
        worker thread: return at once): the model server can read the request it makes
        before the cut (Assistant.prefill), with the very words the request will have."""
        self.used = 0
        """Requests whose transcript was ready from a start (for logs and tests)."""
        self._lock = threading.Lock()
        self._waiting: _Job | None = None
        self._running: _Job | None = None
        self._done: _Job | None = None
        self._worker: threading.Thread | None = None

    def start(self, audio: Audio) -> None:
        """Begin transcribing `audio` in the background: the utterance may end here."""
        with self._lock:
            if any(job is not None and job.same(audio) for job in self._jobs()):
                return
            self._waiting = _Job(audio)
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="read-ahead",
                                                daemon=True)
                self._worker.start()

    def transcribe(self, audio: Audio) -> str:
        """The words in `audio`: the result started ahead when it is the same audio."""
        with self._lock:
            found = next((job for job in self._jobs() if job is not None and job.same(audio)),
                         None)
            if found is not self._waiting:
                self._waiting = None  # nobody will ask for it now
            if found is not None:
                found.taken = True
            self._done = None
        if found is not None:
            found.done.wait()
            if found.result is not None:
                self.used += 1
                log.debug("transcript ready from the pause before the cut")
                return found.result
        return self.transcriber.transcribe(audio)

    def _jobs(self) -> tuple[_Job | None, ...]:
        return self._waiting, self._running, self._done

    def _work(self) -> None:
        while True:
            with self._lock:
                job, self._waiting = self._waiting, None
                self._running = job
                if job is None:
                    self._worker = None
                    return
            job.run(self.transcriber)
            with self._lock:
                self._running, self._done = None, job
                latest = self._waiting is None and not job.taken
            if latest and job.result and self.on_ready is not None:
                try:
                    self.on_ready(str(job.result))
                except Exception:  # a head start only
                    log.exception("passing on a transcript ready ahead failed")
