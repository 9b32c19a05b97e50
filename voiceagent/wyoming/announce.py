"""Zeroconf (mDNS) announcement of the server as `_wyoming._tcp`, so Home Assistant lists it
under discovered devices without anyone typing a host and port.

A server bound to one address is announced on that address's interface only; one bound to
0.0.0.0 on every interface, with the address the machine uses on its LAN. Having no network
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


def lan_address() -> str:
    """The IPv4 address this machine would use towards the mDNS group (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("224.0.0.251", 5353))
        return str(probe.getsockname()[0])


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
        address = lan_address() if host in ANY else socket.gethostbyname(host)
        zc = AsyncZeroconf(interfaces=InterfaceChoice.All if host in ANY else [address])
        info = AsyncServiceInfo(
            SERVICE, f"{service_name(name)}.{SERVICE}", port=parsed.port,
            addresses=[socket.inet_aton(address)], properties={"program": "voiceagent"},
        )
        await zc.async_register_service(info, allow_name_change=True)
    except OSError as exc:
        log.warning("zeroconf: could not announce the server (%s); add it in Home Assistant "
                    "by host and port instead", exc)
        return None
    log.info("announced as %s at %s:%d", info.name, address, parsed.port)

    async def withdraw() -> None:
        await zc.async_unregister_service(info)
        await zc.async_close()

    return withdraw
