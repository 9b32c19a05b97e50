"""Remote Wyoming speech services as our Transcriber and Synthesizer ports.

`[stt] engine = "wyoming"` / `[tts] engine = "wyoming"`: a kiosk (a Raspberry Pi) sends its
audio to Whisper, or its text to piper, on a stronger machine: another `voiceagent wyoming`,
or Home Assistant's wyoming-faster-whisper / wyoming-piper. Each request is one connection.

A remote that fails is tried once more, then reported in one log line; with `fallback =
"local"` the bundled model answers until the remote is back (it is tried again every
RECHECK_S, and its return is one more line), without fallback the turn fails with an error
naming the fix. The wire is blocking sockets with the `wyoming` library's own event codec:
the ports are synchronous and called from worker threads.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, Generic, TypeVar, cast
from urllib.parse import urlparse

import numpy as np
from wyoming.asr import Transcribe
from wyoming.asr import Transcript as TranscriptEvent
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event, read_event, write_event
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize

from voiceagent.audio import STT_RATE, Audio
from voiceagent.config import Config
from voiceagent.errors import ConfigError, VoiceAgentError
from voiceagent.ports import Synthesizer, Transcriber, Transcript
from voiceagent.wyoming.wire import BadAudio, audio_chunks, chunk_audio

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 3.0
READ_TIMEOUT_S = 60.0
"""Longest wait for one event (a long sentence on a slow remote)."""
RETRY_DELAY_S = 0.5
RECHECK_S = 30.0
"""While a remote is down and the local model stands in, try the remote this often."""

L = TypeVar("L")
R = TypeVar("R")


class RemoteError(Exception):
    """The remote did not answer as the protocol says (refused, closed, sent `error`)."""


def parse_uri(uri: str, table: str) -> tuple[str, str | int]:
    """(host, port) for tcp://, ("unix", path) for unix://; ConfigError naming the key."""
    parsed = urlparse(uri)
    try:
        port = parsed.port
    except ValueError:
        port = None
    if parsed.scheme == "tcp" and parsed.hostname and port:
        return parsed.hostname, port
    if parsed.scheme == "unix" and parsed.path:
        return "unix", parsed.path
    raise ConfigError(f"[{table}] uri = {uri!r}: write tcp://HOST:PORT, for example "
                      "tcp://192.168.1.20:10300")


@contextmanager
def connection(uri: str, *, read_timeout: float = READ_TIMEOUT_S) -> Iterator[BinaryIO]:
    """A socket to the remote as one buffered file, closed afterwards."""
    host, port = parse_uri(uri, "wyoming")
    if host == "unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(str(port))
    else:
        sock = socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S)
    sock.settimeout(read_timeout)
    with sock, sock.makefile("rwb") as stream:
        yield cast(BinaryIO, stream)


def replies(stream: BinaryIO) -> Iterator[Event]:
    """The remote's events until it closes; RemoteError for an `error` event or early close."""
    while True:
        event = read_event(stream)
        if event is None:
            raise RemoteError("it closed the connection without an answer")
        if Error.is_type(event.type):
            raise RemoteError(f"it answered: {Error.from_event(event).text}")
        yield event


def describe(uri: str, *, timeout: float = 5.0) -> Info:
    """The remote's `info` (what it offers)."""
    with connection(uri, read_timeout=timeout) as stream:
        write_event(Describe().event(), stream)
        for event in replies(stream):
            if Info.is_type(event.type):
                return Info.from_event(event)
    raise AssertionError("unreachable")


def transcribe_remote(uri: str, audio: Audio, language: str) -> str:
    """One transcription: 16 kHz 16-bit mono audio out, the `transcript` text back."""
    clip = audio.resampled(STT_RATE)
    with connection(uri) as stream:
        write_event(Transcribe(language=language or None).event(), stream)
        write_event(AudioStart(rate=STT_RATE, width=2, channels=1).event(), stream)
        for chunk in audio_chunks(clip):
            write_event(chunk, stream)
        write_event(AudioStop().event(), stream)
        for event in replies(stream):
            if TranscriptEvent.is_type(event.type):
                return TranscriptEvent.from_event(event).text
    raise AssertionError("unreachable")


def synthesize_remote(uri: str, text: str) -> Audio:
    """One synthesis: the text out, the audio between audio-start and audio-stop back."""
    parts: list[np.ndarray] = []
    rate = 0
    with connection(uri) as stream:
        write_event(Synthesize(text=text).event(), stream)
        for event in replies(stream):
            if AudioChunk.is_type(event.type):
                try:
                    clip = chunk_audio(event)
                except BadAudio as exc:
                    raise RemoteError(f"it sent unusable audio: {exc}") from None
                rate = rate or clip.rate
                parts.append(clip.resampled(rate).samples)
            elif AudioStop.is_type(event.type):
                break
    samples = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
    return Audio(samples.astype(np.float32), rate or 22050)


class Remote(Generic[L]):
    """Retry, one-line reporting and the local stand-in, for one remote service."""

    def __init__(self, uri: str, table: str, what: str,
                 fallback: Callable[[], L] | None) -> None:
        parse_uri(uri, table)  # a wrong URI is a config error at start, not at the first turn
        self.uri, self.table, self.what = uri, table, what
        self._fallback = fallback
        self._local: L | None = None
        self._lock = threading.Lock()
        self._down_at: float | None = None
        """When the remote last failed, while it is considered down."""
        self.recheck_s = RECHECK_S

    def call(self, remote: Callable[[], R], local: Callable[[L], R]) -> R:
        """`remote()`, or `local(the stand-in)` while the remote is down (see module doc)."""
        if self._fallback is not None and self._down_at is not None \
                and time.monotonic() - self._down_at < self.recheck_s:
            return local(self._stand_in())
        tries = 1 if self._down_at is not None else 2
        for attempt in range(tries):
            try:
                result = remote()
            except (OSError, RemoteError) as exc:
                problem = exc
                if attempt + 1 < tries:
                    time.sleep(RETRY_DELAY_S)
                continue
            if self._down_at is not None:
                log.warning("%s at %s answers again", self.what, self.uri)
                self._down_at = None
            return result
        return self._failed(problem, local)

    def _failed(self, problem: Exception, local: Callable[[L], R]) -> R:
        reason = describe_failure(problem)
        if self._down_at is None:
            then = (f"the local model answers; it is tried again every {self.recheck_s:g} s"
                    if self._fallback is not None else "requests fail until it is back")
            log.warning("%s at %s failed (%s); %s", self.what, self.uri, reason, then)
        self._down_at = time.monotonic()
        if self._fallback is None:
            raise VoiceAgentError(
                f"{self.what} at {self.uri} failed ({reason}); start it, correct "
                f"[{self.table}] uri, or set [{self.table}] fallback = \"local\"")
        return local(self._stand_in())

    def _stand_in(self) -> L:
        with self._lock:  # built on first need: a kiosk using a remote may not hold it
            if self._local is None:
                assert self._fallback is not None
                self._local = self._fallback()
            return self._local


def describe_failure(exc: Exception) -> str:
    if isinstance(exc, socket.timeout):
        return "no answer in time"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused: nothing listens there"
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc)


class RemoteTranscriber:
    """The Transcriber port on a remote Wyoming speech-to-text service."""

    def __init__(self, uri: str, language: str, fallback: Callable[[], Transcriber] | None):
        self.remote: Remote[Transcriber] = Remote(uri, "stt", "speech to text", fallback)
        self.language = language

    def transcribe(self, audio: Audio) -> str:
        """A `Transcript` (a remote gives no confidence: it counts as sure)."""
        if len(audio.samples) == 0:
            return Transcript("")
        return self.remote.call(
            lambda: Transcript(transcribe_remote(self.remote.uri, audio, self.language)),
            lambda local: local.transcribe(audio),
        )


class RemoteSynthesizer:
    """The Synthesizer port on a remote Wyoming text-to-speech service (the remote's default
    voice; played as it arrives, at the remote's volume)."""

    def __init__(self, uri: str, fallback: Callable[[], Synthesizer] | None) -> None:
        self.remote: Remote[Synthesizer] = Remote(uri, "tts", "text to speech", fallback)

    def synthesize(self, text: str) -> Iterator[Audio]:
        if not text.strip():
            return
        clips: Iterable[Audio] = self.remote.call(
            lambda: [synthesize_remote(self.remote.uri, text)],
            lambda local: local.synthesize(text),
        )
        yield from clips


def check_remotes(config: Config) -> str:
    """`voiceagent doctor`: each configured remote answers `describe` and offers its service."""
    found = []
    for table, engine, uri, domain in (("stt", config.stt.engine, config.stt.uri, "asr"),
                                       ("tts", config.tts.engine, config.tts.uri, "tts")):
        if engine != "wyoming":
            continue
        parse_uri(uri, table)
        try:
            info = describe(uri)
        except (OSError, RemoteError) as exc:
            raise VoiceAgentError(f"[{table}] uri {uri}: {describe_failure(exc)}; start the "
                                  "service there or correct the uri") from None
        programs = [p.name for p in getattr(info, domain) if p.installed]
        if not programs:
            raise VoiceAgentError(f"[{table}] uri {uri} answers but offers no {domain} service")
        found.append(f"{table} {uri} ({', '.join(programs)})")
    return "; ".join(found) if found else "none configured ([stt] and [tts] engine = local)"
