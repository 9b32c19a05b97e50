"""Where the satellites are: `[hub] satellites` (NAME=URI), and zeroconf on the LAN.

A satellite announces itself as `_wyoming._tcp` (wyoming-satellite does unless started with
`--no-zeroconf`), as do other Wyoming services (speech to text, wake word, voiceagent's own
server): each one found is asked to `describe` itself and kept only if it is a satellite. Its
room is the satellite's area, else its name. The house connects to each address once, however
it was found (a configured satellite that also announces itself is not connected twice).
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from wyoming.event import async_write_event
from wyoming.info import Describe, Info

from voiceagent.errors import ConfigError
from voiceagent.wyoming.wire import BadEvent, read_event

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

log = logging.getLogger(__name__)

SERVICE = "_wyoming._tcp.local."
DESCRIBE_TIMEOUT_S = 3.0
DESCRIBE_RETRY_S = (0.0, 1.0, 2.0, 4.0, 8.0, 15.0)
"""Waits before each try to describe a service just announced: wyoming-satellite registers
on zeroconf before its server listens, so the first try is refused."""


@dataclass(frozen=True)
class Place:
    """A satellite to connect to, and the room it serves."""

    room: str
    """The room's name: its conversation, where its timers ring."""
    host: str
    port: int
    found_by: str = "config"
    """"config" or "zeroconf"."""

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def parse_satellites(entries: list[str], source: str) -> list[Place]:
    """The satellites of `[hub] satellites`; a ConfigError names the entry and the fix."""
    places: list[Place] = []
    for i, entry in enumerate(entries):
        name, sep, uri = entry.partition("=")
        parsed = urlparse(uri.strip())
        try:
            port = parsed.port
        except ValueError:
            port = None
        room = room_name(name)
        if not sep or not room or parsed.scheme != "tcp" or not parsed.hostname or not port:
            raise ConfigError(f"{source}: hub.satellites[{i}]: expected NAME=tcp://HOST:PORT, "
                              f"e.g. \"kitchen=tcp://kitchen.local:10700\", found {entry!r}")
        if any(p.room == room for p in places):
            raise ConfigError(f"{source}: hub.satellites[{i}]: the room {room!r} is named "
                              "twice; give each satellite its own room")
        places.append(Place(room, parsed.hostname, port))
    return places


def room_name(text: str) -> str:
    """A room's name as it is kept: lower case, words joined by "-" ("Living Room" ->
    "living-room"), safe in a file name."""
    return "-".join(re.findall(r"[\w]+", text.lower()))


def same_address(a: Place, b: Place) -> bool:
    """The same satellite: same port, and the hosts name the same address."""
    if a.port != b.port:
        return False
    return a.host == b.host or bool(_addresses(a.host) & _addresses(b.host))


def _addresses(host: str) -> set[str]:
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(host, None, socket.AF_INET)}
    except OSError:
        return set()


async def describe(host: str, port: int) -> Info | None:
    """What answers at host:port, by its own `info`; None if it does not answer so."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port),
                                                DESCRIBE_TIMEOUT_S)
    except (TimeoutError, OSError):
        return None
    try:
        await async_write_event(Describe().event(), writer)
        async with asyncio.timeout(DESCRIBE_TIMEOUT_S):
            while (event := await read_event(reader)) is not None:
                if Info.is_type(event.type):
                    return Info.from_event(event)
    except (TimeoutError, OSError, BadEvent, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()
    return None


def place_of(info: Info, host: str, port: int, service: str) -> Place | None:
    """The Place a described service is, if it is a satellite."""
    satellite = info.satellite
    if satellite is None:
        return None
    room = room_name(satellite.area or satellite.name or service.split(".")[0])
    return Place(room or "satellite", host, port, "zeroconf")


class Discovery:
    """Browses `_wyoming._tcp` and hands each satellite found to `found` (once per address)."""

    def __init__(self, found: Callable[[Place], Awaitable[None]],
                 interfaces: list[str] | None = None) -> None:
        self._found = found
        self._interfaces = interfaces
        """Addresses to browse on; None: every interface."""
        self._seen: set[tuple[str, int]] = set()
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> bool:
        """Start browsing; False (and one log line) when there is no network to browse."""
        from zeroconf import InterfaceChoice, ServiceStateChange
        from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

        def changed(zeroconf: object, service_type: str, name: str,  # zeroconf's names
                    state_change: ServiceStateChange) -> None:
            if state_change in (ServiceStateChange.Added, ServiceStateChange.Updated):
                task = asyncio.ensure_future(self._resolve(service_type, name))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

        try:
            zc = AsyncZeroconf(interfaces=self._interfaces or InterfaceChoice.All)
            self._browser = AsyncServiceBrowser(zc.zeroconf, [SERVICE], handlers=[changed])
        except OSError as exc:
            log.warning("zeroconf: cannot look for satellites on the network (%s); list them "
                        "in [hub] satellites instead", exc)
            return False
        self._zeroconf = zc
        log.info("looking for satellites on the network (zeroconf %s)", SERVICE)
        return True

    async def _resolve(self, service_type: str, name: str) -> None:
        from zeroconf.asyncio import AsyncServiceInfo

        assert self._zeroconf is not None
        info = AsyncServiceInfo(service_type, name)
        if not await info.async_request(self._zeroconf.zeroconf, 3000):
            return
        hosts = info.parsed_addresses()
        if not hosts or info.port is None or (hosts[0], info.port) in self._seen:
            return
        host, port = hosts[0], int(info.port)
        self._seen.add((host, port))
        described = None
        for wait in DESCRIBE_RETRY_S:  # a satellite announces itself before it listens
            await asyncio.sleep(wait)
            if (described := await describe(host, port)) is not None:
                break
        if described is None:
            self._seen.discard((host, port))  # its next announcement tries again
            log.info("zeroconf: %s at %s:%d does not answer", name, host, port)
            return
        place = place_of(described, host, port, name)
        if place is None:
            log.debug("zeroconf: %s at %s:%d is not a satellite", name, host, port)
            return
        await self._found(place)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._browser is not None:
            await self._browser.async_cancel()
        if self._zeroconf is not None:
            await self._zeroconf.async_close()
