"""Find the LLM server to talk to, or start ours, and share a long-running one.

A server that already answers is reused (a busy one waited for, never replaced); a one-shot
ask also finds the one a running assistant announced (registry.py). `voiceagent server` runs
one in the foreground for asks to share.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable

from voiceagent.config import Config
from voiceagent.llm import registry
from voiceagent.llm.health import probe, wait_while_busy
from voiceagent.llm.server import LLMServer
from voiceagent.models import gguf_path

log = logging.getLogger(__name__)


def ensure_server(config: Config, *, share: registry.Share = "") -> tuple[str, LLMServer | None]:
    """The base URL to talk to, and the server we started (None if we reuse another).

    For provider local: a server that already answers at [llm] base_url, or at [server]
    port, is reused; with `share="reuse"` (a one-shot ask) also the one a running assistant
    announced for the same model (registry.py); otherwise the embedded one is started,
    announced with `share="announce"`. Other providers are not ours.
    """
    if config.llm.provider != "local":
        return config.llm.base_url, None
    candidates = [config.llm.base_url] if config.llm.base_url else []
    if config.server.port:
        candidates.append(f"http://{config.server.host}:{config.server.port}/v1")
    if share == "reuse" and not config.llm.base_url:
        model = gguf_path(config.llm.model, config.models_dir)
        running = registry.announced(config.data_dir, model)
        if running is not None:
            log.info("using the LLM server of the running assistant at %s", running)
            candidates.insert(0, running)
    for url in candidates:
        state = probe(url)
        if state == "busy":  # alive but slow (prefilling, loading): wait, never replace it
            log.info("the LLM server at %s is busy; waiting up to %g s for it", url,
                     config.llm.timeout_s)
            state = wait_while_busy(url, config.llm.timeout_s)
        if state != "absent":
            return url, None
        log.info("nothing answers at %s; starting the embedded LLM server", url)
    server = LLMServer.from_config(config, announce=share == "announce")
    return server.start(), server


def serve_forever(config: Config, out: Callable[[str], None] | None = None, *,
                  ready: Callable[[LLMServer], None] = lambda _server: None) -> None:
    """`voiceagent server`: run the embedded server in the foreground until SIGINT/SIGTERM;
    one-shot asks with the same data directory and model use it (registry.py). `ready` runs
    once it serves (the composition root primes the asks' prompt prefix there)."""
    say = out or (lambda line: print(line, flush=True))  # a pipe reads it at once
    server = LLMServer.from_config(config, announce=True)
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT,
                                                                     signal.SIGTERM)}
    try:
        url = server.start()
        ready(server)
        say(f"LLM server ({server.engine}, {server.model.name}) at {url}; Ctrl-C stops it")
        while not stop.wait(1.0):
            if not server.is_alive():
                say("the LLM server stopped; restarting it")
                server.restart()
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
