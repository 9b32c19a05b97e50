"""Real, unmodified wyoming-satellite 1.0.0 processes on the PulseAudio test devices, and a
real `voiceagent hub` process serving them, for the hub's tests and its measurement.

Each room has two null sinks (tests/pulse.py `add_room`): the test plays a request into
"<room>_mic", whose monitor the satellite records with parec; the satellite plays the answer
into "<room>_speaker" with paplay, whose monitor the test records. The satellite comes from
its own venv (.venv-satellite/, made by scripts/satellite-venv.sh at test set-up: it pins
wyoming 1.4.1), started as `python -m wyoming_satellite` (1.0.0's console script is broken).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.pulse import PulseServer

REPO = Path(__file__).resolve().parent.parent
SATELLITE_PYTHON = REPO / ".venv-satellite" / "bin" / "python"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with code {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout_s:g} s")


class Satellite:
    """One wyoming-satellite process for `room` on 127.0.0.1:`port`."""

    def __init__(self, pulse: PulseServer, room: str, port: int, log_dir: Path,
                 *extra: str) -> None:
        self.pulse, self.room, self.port = pulse, room, port
        self.log_path = log_dir / f"satellite-{room}.log"
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def start(self) -> Satellite:
        if not SATELLITE_PYTHON.is_file():
            raise RuntimeError(f"{SATELLITE_PYTHON} is missing: run scripts/satellite-venv.sh "
                               "(test.sh does)")
        mic = (f"parec --device={self.room}_mic.monitor --rate=16000 --channels=1 "
               "--format=s16le --raw --latency-msec=20")
        # paplay's default buffer (2 s) starts a short answer only once it is all written:
        # 1-2 s that a satellite's aplay (0.5 s) does not add
        snd = (f"paplay --device={self.room}_speaker --raw --rate=22050 --channels=1 "
               "--format=s16le --latency-msec=100")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [str(SATELLITE_PYTHON), "-m", "wyoming_satellite", "--name", self.room,
                 "--area", self.room, "--uri", self.uri, "--no-zeroconf", "--debug",
                 "--mic-command", mic, "--snd-command", snd, *self.extra],
                env={**os.environ, **self.pulse.env}, stdout=log, stderr=log,
                start_new_session=True,  # its parec and paplay are killed with it
            )
        wait_for_port(self.port, self.proc)
        return self

    def kill(self) -> None:
        """SIGKILL the satellite and its parec/paplay (its own process group)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


HUB_MAIN = ("import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1); "
            "from voiceagent.cli import main; sys.exit(main(sys.argv[1:]))")
"""`voiceagent hub`, which prints every thread's stack on SIGUSR1 (a test that hangs)."""


class Hub:
    """`voiceagent hub` as its own process, with a config file of its own."""

    def __init__(self, root: Path, satellites: list[Satellite], **tables: dict[str, object]):
        self.root = root
        self.config = root / "hub.toml"
        self.log_path = root / "hub.log"
        hub = {"satellites": [f"{s.room}={s.uri}" for s in satellites], "zeroconf": False,
               **tables.pop("hub", {})}
        settings: dict[str, dict[str, object]] = {
            "llm": {"model": "qwen2.5-coder-0.5b"},
            "paths": {"data_dir": str(root / "data")},
            "hub": hub, **tables}
        self.config.write_text("".join(
            f"[{name}]\n" + "".join(f"{k} = {toml(v)}\n" for k, v in table.items()) + "\n"
            for name, table in settings.items()))
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, ready_rooms: int, timeout_s: float = 240.0) -> Hub:
        """Start it and wait for its rooms' connections (HUB_VERBOSE=1 in the environment:
        it logs every event)."""
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", HUB_MAIN, "--config", str(self.config),
                 *(["-v"] if os.environ.get("HUB_VERBOSE") else []), "hub"],
                cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=log, stderr=log)
        self.wait_for("connected to the satellite", count=ready_rooms, timeout_s=timeout_s)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for(self, text: str, *, count: int = 1, timeout_s: float = 60.0) -> str:
        """Wait until `text` is in the log `count` times; the log."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            log = self.log()
            if log.count(text) >= count:
                return log
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"the hub exited ({self.proc.returncode}):\n{log[-3000:]}")
            time.sleep(0.1)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)  # its threads' stacks, into its log
            time.sleep(1.0)
        raise AssertionError(f"{text!r} x{count} not in the hub's log:\n{self.log()[-9000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def toml(value: object) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | list):
        return json.dumps(value)
    return repr(value)
