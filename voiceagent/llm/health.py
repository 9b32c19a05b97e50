"""Is an LLM server there, and in what state: the probes that starting, reusing and waiting
for a server share (a busy server is alive, never replaced)."""

from __future__ import annotations

import socket
import time
from typing import Literal

import httpx


def answers(base_url: str) -> bool:
    """True when an OpenAI-compatible server answers GET {base_url}/models."""
    return probe(base_url) == "ok"


ServerState = Literal["ok", "busy", "absent"]


def probe(base_url: str, timeout_s: float = 2.0) -> ServerState:
    """ok: GET {base_url}/models answers 200; busy: something accepted the connection but is
    loading (503) or too slow to answer; absent: nothing listens, or it is no LLM server.

    A busy server is alive: replacing it (or falling back to the demo) would be wrong.
    """
    try:
        status = httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout_s).status_code
    except httpx.TimeoutException:
        return "busy"
    except httpx.HTTPError:
        return "absent"
    return "ok" if status == 200 else "busy" if status == 503 else "absent"


def wait_while_busy(base_url: str, patience_s: float) -> ServerState:
    """Probe until the server is no longer busy or `patience_s` passes; the last state."""
    deadline = time.monotonic() + patience_s
    state = probe(base_url)
    while state == "busy" and time.monotonic() < deadline:
        time.sleep(0.5)
        state = probe(base_url)
    return state


def free_port(host: str) -> int:
    """A port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_free(host: str, port: int) -> bool:
    """Nothing listens on `port` (it can be bound now)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def healthy(root: str) -> bool:
    """GET {root}/health says ok (200; 503 while the model loads)."""
    try:
        return httpx.get(f"{root}/health", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False
