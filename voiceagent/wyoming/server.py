"""`voiceagent wyoming`: one Wyoming server offering speech to text, text to speech and the
assistant, to Home Assistant or to a kiosk on another machine.

Models load once at start and are shared by every connection; each connection is one task.
A client that sends garbage gets an `error` event, one log line and a closed connection (the
stream cannot be trusted after it); a client that vanishes costs nothing. Failed speech
requests also close the connection, because Home Assistant ignores `error` and would wait.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from urllib.parse import urlparse

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Describe, Info
from wyoming.ping import Ping, Pong
from wyoming.server import AsyncEventHandler, AsyncServer
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
)

from voiceagent.config import Config
from voiceagent.errors import ConfigError, VoiceAgentError
from voiceagent.language import say
from voiceagent.ports import Synthesizer, Transcriber
from voiceagent.wyoming.asr import AudioStream, transcript_events
from voiceagent.wyoming.handle import ANSWERED, IntentHandler
from voiceagent.wyoming.tts import TextStream, send_speech
from voiceagent.wyoming.wire import BadAudio, BadEvent, read_event

log = logging.getLogger(__name__)


@dataclass
class Services:
    """What every connection shares: the loaded models and the one assistant."""

    info: Info
    transcriber: Transcriber
    synthesizer: Synthesizer
    intents: IntentHandler | None


class ServiceFailed(Exception):
    """A model failed on one request (the message says which and why)."""

    def __init__(self, what: str, exc: BaseException) -> None:
        super().__init__(f"{what} failed: {type(exc).__name__}: {exc}")
        self.what = what


class Connection(AsyncEventHandler):
    """One client: its requests, in order, until it leaves or breaks the protocol."""

    def __init__(self, services: Services, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        super().__init__(reader, writer)
        self.services = services
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "client"
        self.audio = AudioStream()
        self.text: TextStream | None = None

    async def run(self) -> None:
        """Read events until the client leaves; refuse what cannot be read (see module doc)."""
        try:
            while True:
                try:
                    event = await read_event(self.reader)
                except BadEvent as exc:
                    await self._refuse(f"not a Wyoming event: {exc}", "bad-event")
                    return
                if event is None or not await self.handle_event(event):
                    return
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            log.info("%s went away mid-request (%s)", self.peer, type(exc).__name__)
        finally:
            self.writer.close()

    async def handle_event(self, event: Event) -> bool:
        try:
            return await self._dispatch(event)
        except ServiceFailed as failed:  # this request is lost, the server is not
            log.debug("%s failed", failed.what, exc_info=failed.__cause__)
            await self._refuse(str(failed), "failed")
        except BadAudio as exc:
            await self._refuse(str(exc), "bad-audio")
        except (KeyError, TypeError, ValueError) as exc:
            await self._refuse(f"malformed {event.type} event ({exc!r})", "bad-event")
        return False

    async def _dispatch(self, event: Event) -> bool:
        kind = event.type
        if Describe.is_type(kind):
            await self.write_event(self.services.info.event())
        elif Ping.is_type(kind):
            await self.write_event(Pong(text=Ping.from_event(event).text).event())
        elif Transcribe.is_type(kind):
            self.audio = AudioStream()
            self.audio.language = Transcribe.from_event(event).language
        elif AudioStart.is_type(kind):
            pass  # the format travels with every chunk
        elif AudioChunk.is_type(kind):
            self.audio.add(event)
        elif AudioStop.is_type(kind):
            await self._transcribe()
        elif SynthesizeStart.is_type(kind):
            self.text = TextStream()
        elif SynthesizeChunk.is_type(kind):
            if self.text is None:
                raise ValueError("synthesize-chunk without synthesize-start")
            for sentence in self.text.feed(SynthesizeChunk.from_event(event).text):
                await self._speak(sentence)
        elif SynthesizeStop.is_type(kind):
            await self._end_text_stream()
        elif Synthesize.is_type(kind):
            if self.text is None:  # inside a stream it only repeats the text, for old servers
                text = Synthesize.from_event(event).text
                await self._speak(text)
        elif Transcript.is_type(kind):
            await self._handle(Transcript.from_event(event))
        else:
            log.debug("%s: ignored %s", self.peer, kind)
        return True

    async def _speak(self, text: str) -> None:
        try:
            await send_speech(self.services.synthesizer, text, self.write_event)
        except (ConnectionError, asyncio.IncompleteReadError):
            raise
        except Exception as exc:
            raise ServiceFailed("text to speech", exc) from exc

    async def _transcribe(self) -> None:
        audio, language = self.audio.take(), self.audio.language
        try:
            result = await asyncio.to_thread(self.services.transcriber.transcribe, audio)
        except Exception as exc:
            raise ServiceFailed("speech to text", exc) from exc
        text = str(getattr(result, "text", result))
        log.info("%s: heard %.1f s: %r", self.peer, audio.seconds, text)
        for event in transcript_events(text, language):
            await self.write_event(event)

    async def _end_text_stream(self) -> None:
        if self.text is not None:
            for sentence in self.text.finish():
                await self._speak(sentence)
        self.text = None
        await self.write_event(SynthesizeStopped().event())

    async def _handle(self, transcript: Transcript) -> None:
        intents = self.services.intents
        if intents is None:
            await self.write_event(NotHandled(text="This server does not run the assistant.",
                                              context=transcript.context).event())
            return
        try:
            outcome = await intents.answer(transcript.text)
        except Exception as exc:  # noqa: BLE001 - Home Assistant waits for handled/not-handled
            log.warning("%s: the assistant failed on %r: %s: %s", self.peer, transcript.text,
                        type(exc).__name__, exc)
            await self.write_event(NotHandled(text=say("turn_failed"),
                                              context=transcript.context).event())
            return
        log.info("%s: %r -> %r (%s)", self.peer, transcript.text, outcome.answer, outcome.stop)
        if outcome.stop in ANSWERED and outcome.answer.strip():
            reply: Handled | NotHandled = Handled(text=outcome.answer, context=transcript.context)
        else:
            reply = NotHandled(text=outcome.answer or say("not_answered"),
                               context=transcript.context)
        await self.write_event(reply.event())

    async def _refuse(self, text: str, code: str) -> None:
        """One log line, an `error` event (if the client still listens); the caller closes."""
        log.warning("%s: %s; closing the connection", self.peer, text)
        try:
            await self.write_event(Error(text=text, code=code).event())
        except ConnectionError:
            pass


def check_uri(uri: str) -> None:
    """A ConfigError naming the fix for a URI the server cannot listen on."""
    parsed = urlparse(uri)
    if parsed.scheme == "unix" and parsed.path:
        return
    try:
        port = parsed.port
    except ValueError:
        port = None
    if parsed.scheme != "tcp" or not parsed.hostname or port is None:
        raise ConfigError(f"cannot listen on {uri!r}: write tcp://HOST:PORT (tcp://0.0.0.0:10300 "
                          "for the whole LAN, tcp://127.0.0.1:10300 for this machine) or "
                          "unix:///path/to/socket")


def port_is_free(uri: str) -> None:
    """VoiceAgentError naming the fix when a tcp:// address cannot be listened on."""
    parsed = urlparse(uri)
    if parsed.scheme != "tcp" or parsed.port is None:
        return
    try:
        with socket.create_server((parsed.hostname or "", parsed.port), reuse_port=False):
            pass
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise VoiceAgentError(f"cannot listen on {uri}: {reason}; stop what uses "
                              "it or choose another address with --uri or [wyoming] uri") from None


def build_services(config: Config, stack: ExitStack) -> Services:
    """Load the models and the assistant once; `stack` stops what was started."""
    from voiceagent.build import build_synthesizer
    from voiceagent.wyoming.handle import build_intent_handler
    from voiceagent.wyoming.info import build_info

    intents = build_intent_handler(config, stack, with_transcriber=True)
    transcriber = intents.assistant.transcriber
    assert transcriber is not None
    return Services(build_info(config), transcriber, build_synthesizer(config), intents)


async def serve_async(services: Services, uri: str, *, announce: bool = False,
                      name: str = "", ready: asyncio.Event | None = None) -> None:
    """Serve until cancelled (SIGINT/SIGTERM in `serve`)."""
    server = AsyncServer.from_uri(uri)
    await server.start(partial(Connection, services))
    stop_announcing = None
    if announce:
        from voiceagent.wyoming.announce import announce_server

        stop_announcing = await announce_server(uri, name)
    log.info("Wyoming server listening at %s (speech to text, text to speech%s)", uri,
             ", assistant" if services.intents else "")
    if ready is not None:
        ready.set()
    try:
        await asyncio.Event().wait()
    finally:
        if stop_announcing is not None:
            await stop_announcing()
        await server.stop()


def serve(config: Config, *, uri: str | None = None, verbose: bool = False) -> int:
    """`voiceagent wyoming`: load everything, then serve until SIGINT or SIGTERM."""
    from voiceagent.view import setup_logging

    setup_logging(verbose)
    uri = uri or config.wyoming.uri
    check_uri(uri)
    if urlparse(uri).hostname not in ("127.0.0.1", "localhost", "::1", None):
        log.warning("the Wyoming port %s is open to the network and Wyoming has no "
                    "authentication: anyone who can reach it can use the assistant", uri)
    port_is_free(uri)  # before a minute of loading models, not after
    with ExitStack() as stack:
        services = build_services(config, stack)
        try:
            asyncio.run(_main(services, uri, config))
        except OSError as exc:  # the port is taken, the address is not this machine's
            raise VoiceAgentError(f"cannot listen on {uri}: {exc.strerror or exc}; stop what "
                                  "uses it or choose another with --uri or [wyoming] uri") from None
    return 0


async def _main(services: Services, uri: str, config: Config) -> None:
    task = asyncio.create_task(serve_async(services, uri, announce=config.wyoming.zeroconf,
                                           name=config.wyoming.name))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        log.info("Wyoming server stopped")
