"""One connection to one satellite, kept up for as long as the hub runs.

The hub is the client, as Home Assistant is: it connects, asks the satellite to `describe`
itself, sends `run-satellite`, and from then on reads its events (`run-pipeline`,
`audio-chunk`, `detection`, `ping`...) and hands them to the room. A satellite that goes
away (killed, unplugged, rebooted) is tried again after 0.5 s, then twice as long each time
up to `[hub] reconnect_max_s`: one warning when it is lost, one line when it is back, nothing
in between. TCP keep-alive notices a satellite that vanished without closing the socket.

wyoming-satellite serves one hub at a time: a second one gets its `info` and then the
connection is closed. Such a refusal is named in the log line (Home Assistant may have it).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable
from typing import Protocol

from wyoming.event import Event, async_write_event
from wyoming.info import Describe, Info
from wyoming.ping import Ping, Pong
from wyoming.satellite import RunSatellite

from voiceagent.errors import DeviceError
from voiceagent.hub.discovery import Place
from voiceagent.wyoming.wire import BadEvent, read_event

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5.0
SEND_TIMEOUT_S = 5.0
FIRST_DELAY_S = 0.5
REFUSED_WITHIN_S = 2.0
"""A satellite that closes this soon after run-satellite, having sent only its info, is
serving another hub."""


class Handler(Protocol):
    """What the link tells its room (all called in the event loop, quickly)."""

    def connected(self) -> None: ...

    def event(self, event: Event) -> None: ...

    def disconnected(self) -> None: ...


class SatelliteLink:
    """Keeps one satellite connected (see the module docstring); `send` from any thread."""

    def __init__(self, place: Place, handler: Handler, *, reconnect_max_s: float = 30.0,
                 clock: Callable[[], float] | None = None) -> None:
        self.place = place
        self._handler = handler
        self._max_s = reconnect_max_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.connected = threading.Event()
        """Set while the satellite is connected and has been told to run."""
        self.info: Info | None = None
        """What the satellite said about itself (name, area)."""
        self.connections = 0
        """How often it was connected (for logs and tests)."""

    async def run(self) -> None:
        """Connect, serve, reconnect with back-off; until cancelled."""
        self._loop = asyncio.get_running_loop()
        failures = 0
        while True:
            reason, served = await self._serve_once(back=self.connections > 0)
            failures = 1 if served else failures + 1
            delay = min(self._max_s, FIRST_DELAY_S * 2 ** (failures - 1))
            if failures == 1:
                log.warning("%s: %s the satellite at %s (%s); trying again, waiting up to %g s "
                            "between tries", self.place.room, "lost" if served else
                            "cannot use", self.place.address, reason, self._max_s)
            else:
                log.debug("%s: %s; next try in %.1f s", self.place.room, reason, delay)
            await asyncio.sleep(delay)

    async def _serve_once(self, *, back: bool) -> tuple[str, bool]:
        """One connection from connect to loss: why it ended, and whether it served (was
        connected and not refused)."""
        loop = asyncio.get_running_loop()
        writer: asyncio.StreamWriter | None = None
        settled: asyncio.TimerHandle | None = None
        others = 0
        since = loop.time()
        try:
            reader, opened = await asyncio.wait_for(
                asyncio.open_connection(self.place.host, self.place.port), CONNECT_TIMEOUT_S)
            writer = self._writer = opened
            _keep_alive(opened)
            await async_write_event(Describe().event(), opened)
            await async_write_event(RunSatellite().event(), opened)
            since = loop.time()
            self.connected.set()
            self._handler.connected()
            settled = loop.call_later(REFUSED_WITHIN_S, self._settled, back)
            while (event := await read_event(reader)) is not None:
                others += not Info.is_type(event.type)
                await self._dispatch(event)
            reason = "it closed the connection"
        except TimeoutError:
            reason = "no answer"
        except BadEvent as exc:
            reason = f"it sent something that is not a Wyoming event: {exc}"
        except asyncio.IncompleteReadError:
            reason = "the connection broke"
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
        finally:
            was_connected = self.connected.is_set()
            self._writer = None
            self.connected.clear()
            if settled is not None:
                settled.cancel()
            if writer is not None:
                writer.close()
            if was_connected:
                self._handler.disconnected()
        refused = was_connected and others == 0 and loop.time() - since < REFUSED_WITHIN_S
        if refused:
            reason += (" right after run-satellite, as a satellite does while it serves another"
                       " hub (Home Assistant?)")
        return reason, was_connected and not refused

    def _settled(self, back: bool) -> None:
        """Still connected a moment after run-satellite: it serves us (one log line)."""
        self.connections += 1
        log.info("%s: %s the satellite at %s", self.place.room,
                 "connected again to" if back else "connected to", self.place.address)

    async def _dispatch(self, event: Event) -> None:
        if Ping.is_type(event.type):
            await self._write(Pong(text=Ping.from_event(event).text).event())
        elif Info.is_type(event.type):
            self.info = Info.from_event(event)
        else:
            try:
                self._handler.event(event)
            except Exception:  # the room's fault, not the connection's: keep reading
                log.exception("%s: handling %s from the satellite failed", self.place.room,
                              event.type)

    async def _write(self, event: Event) -> None:
        writer = self._writer
        if writer is None:
            raise ConnectionError("not connected")
        await async_write_event(event, writer)

    def send(self, event: Event) -> None:
        """Write `event` (from any thread but the loop's), waiting until it is sent; a
        DeviceError when the satellite is not connected or the write fails."""
        loop = self._loop
        if loop is None or not self.connected.is_set():
            raise DeviceError(f"the {self.place.room} satellite is not connected")
        future = asyncio.run_coroutine_threadsafe(self._write(event), loop)
        try:
            future.result(SEND_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            future.cancel()
            raise DeviceError(f"the {self.place.room} satellite went away "
                              f"({type(exc).__name__})") from None

    def post(self, event: Event) -> None:
        """Send `event` if the satellite is there, without waiting (pipeline events)."""
        loop = self._loop
        if loop is None or not self.connected.is_set():
            return

        def sent(future: object) -> None:
            exc = getattr(future, "exception", lambda: None)()
            if exc is not None:
                log.debug("%s: %s not sent: %s", self.place.room, event.type, exc)

        asyncio.run_coroutine_threadsafe(self._write(event), loop).add_done_callback(sent)


def _keep_alive(writer: asyncio.StreamWriter) -> None:
    """Probe an idle connection, so a satellite that vanished is noticed in ~11 s."""
    sock = writer.get_extra_info("socket")
    if sock is None:
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 5), ("TCP_KEEPINTVL", 2), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
