"""Zeroconf (mDNS) announcement of the server as `_wyoming._tcp`, so Home Assistant lists it
under discovered devices without anyone typing a host and port.

A server bound to one address is announced on that address's interface only; one bound to
0.0.0.0 on every interface, with every address the machine has. Having no network
is not fatal: the server runs, and the log says that Home Assistant needs host and port.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import urlparse

log = logging.getLogger(__name__)

SERVICE = "_wyoming._tcp.local."
ANY = ("0.0.0.0", "", "::")


def service_name(name: str) -> str:
    """The instance name: [wyoming] name, else voiceagent-<hostname>."""
    return name or f"voiceagent-{socket.gethostname().split('.')[0]}"


def addresses(host: str) -> list[str]:
    """The IPv4 addresses to announce: the bound one, or for 0.0.0.0 every address the
    machine has (loopback only when it has nothing else)."""
    if host not in ANY:
        return [socket.gethostbyname(host)]
    from zeroconf import get_all_addresses

    found = get_all_addresses()
    outside = [a for a in found if not a.startswith("127.")]
    if not (outside or found):
        raise OSError("this machine has no IPv4 address")
    return outside or found


async def announce_server(uri: str, name: str) -> Callable[[], Awaitable[None]] | None:
    """Register the service; returns how to withdraw it, or None when it could not be sent."""
    parsed = urlparse(uri)
    if parsed.scheme != "tcp" or parsed.port is None:
        log.warning("zeroconf announces tcp:// servers only; %s is not announced", uri)
        return None
    from zeroconf import InterfaceChoice
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    host = parsed.hostname or ""
    try:
        found = addresses(host)
        zc = AsyncZeroconf(interfaces=InterfaceChoice.All if host in ANY else found)
        info = AsyncServiceInfo(
            SERVICE, f"{service_name(name)}.{SERVICE}", port=parsed.port,
            addresses=[socket.inet_aton(a) for a in found], properties={"program": "voiceagent"},
        )
        await zc.async_register_service(info, allow_name_change=True)
    except OSError as exc:
        log.warning("zeroconf: could not announce the server (%s); add it in Home Assistant "
                    "by host and port instead", exc)
        return None
    log.info("announced as %s at %s port %d", info.name, ", ".join(found), parsed.port)

    async def withdraw() -> None:
        await zc.async_unregister_service(info)
        await zc.async_close()

    return withdraw
