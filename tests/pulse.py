"""A private PulseAudio daemon with a virtual microphone and speaker, for real-device tests.

    test ──paplay──▶ sink "micfeed" ──monitor──▶ remap source "mic" (default source) ──▶ program
    program ──▶ sink "speaker" (default sink) ──monitor──▶ parecord ──▶ test

PortAudio reaches it through ALSA's pulse plugin ("pulse" and "default" ALSA devices). Clients
find it through PULSE_SERVER, which must be in os.environ before `sounddevice` is first
imported (it lists devices once, at import). An idle null sink renders in chunks of up to 2 s,
so a fresh stream can lose its first second: a permanent low-latency reader on each monitor
and a settling pause after start keep the sinks ticking.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from voiceagent.audio import Audio, write_wav
from voiceagent.bench.onset import FRAME_S, LOUD, envelope

SETTLE_S = 2.5
"""Pause after start so the null sinks have started rendering in small chunks."""

_MODULES = [
    ["module-native-protocol-unix", "auth-anonymous=1", "socket={socket}"],
    ["module-null-sink", "sink_name=speaker", "rate=48000",
     "sink_properties=device.description=Speaker"],
    ["module-null-sink", "sink_name=micfeed", "rate=48000",
     "sink_properties=device.description=MicFeed"],
    ["module-remap-source", "source_name=mic", "master=micfeed.monitor",
     "source_properties=device.description=Microphone"],
]


class PulseServer:
    """Starts, drives and stops one private pulseaudio daemon in `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.socket = root / "native"
        self._procs: list[subprocess.Popen[bytes]] = []
        self.rooms: list[str] = []
        """Rooms added with add_room."""
        self.env = {
            "PULSE_SERVER": f"unix:{self.socket}",
            "PULSE_COOKIE": str(root / "cookie"),
            "PULSE_CLIENTCONFIG": str(root / "client.conf"),
        }
        """What a client needs to reach this daemon (and nothing else)."""

    def start(self) -> None:
        missing = [b for b in ("pulseaudio", "pactl", "paplay", "parecord", "parec")
                   if shutil.which(b) is None]
        if missing:
            raise RuntimeError(f"missing {', '.join(missing)}: apt install pulseaudio "
                               "pulseaudio-utils libasound2-plugins libportaudio2")
        (self.root / "client.conf").write_text("autospawn = no\n")
        script = self.root / "default.pa"
        script.write_text("".join(
            "load-module " + " ".join(m).format(socket=self.socket) + "\n" for m in _MODULES
        ) + "set-default-sink speaker\nset-default-source mic\n")
        home = self.root / "home"
        home.mkdir(exist_ok=True)
        daemon_env = {**os.environ, **self.env, "HOME": str(home),
                      "XDG_RUNTIME_DIR": str(self.root), "XDG_CONFIG_HOME": str(home)}
        log = open(self.root / "pulseaudio.log", "wb")
        self._procs.append(subprocess.Popen(
            ["pulseaudio", "-n", "-F", str(script), "--daemonize=no", "--exit-idle-time=-1",
             "--disallow-exit", "--use-pid-file=no", "--disable-shm=yes", "--log-target=stderr"],
            env=daemon_env, stdout=log, stderr=log,
        ))
        log.close()
        self._wait_ready()
        for monitor in ("speaker.monitor", "mic"):
            self._spawn(["parec", "--latency-msec=20", f"--device={monitor}"],
                        stdout=subprocess.DEVNULL)
        time.sleep(SETTLE_S)

    def stop(self) -> None:
        """Stop every process this server started, by PID, newest first."""
        for proc in reversed(self._procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self._procs.clear()

    def add_room(self, name: str) -> None:
        """Two more null sinks for a room: "<name>_mic" (play into it; a satellite records its
        monitor) and "<name>_speaker" (a satellite plays into it; record its monitor), each
        kept ticking by a low-latency reader, as the default ones are."""
        if name in self.rooms:
            return
        self.rooms.append(name)
        for sink in (f"{name}_mic", f"{name}_speaker"):
            subprocess.run(["pactl", "load-module", "module-null-sink", f"sink_name={sink}",
                            "rate=48000", f"sink_properties=device.description={sink}"],
                           env=self._client_env(), check=True, capture_output=True, timeout=10)
            self._spawn(["parec", "--latency-msec=20", f"--device={sink}.monitor"],
                        stdout=subprocess.DEVNULL)

    def play_into(self, sink: str, audio: Audio | Path) -> subprocess.Popen[bytes]:
        """Start playing a clip into `sink`; wait() on the result."""
        return self._spawn(["paplay", f"--device={sink}", str(self._as_wav(audio))])

    def play_into_mic(self, audio: Audio | Path) -> None:
        """Play a clip into the virtual microphone; returns when it has been played."""
        subprocess.run(["paplay", "--device=micfeed", str(self._as_wav(audio))],
                       env=self._client_env(), check=True, timeout=120)

    def start_playing_into_mic(self, audio: Audio | Path) -> subprocess.Popen[bytes]:
        """Like play_into_mic, but returns at once; wait() on the result."""
        return self._spawn(["paplay", "--device=micfeed", str(self._as_wav(audio))])

    @contextmanager
    def record_speaker(self, sink: str = "speaker") -> Iterator[Path]:
        """Record what is played to `sink` while the block runs; yields the WAV path.

        The file is complete once the block has exited: read it with read_wav then.
        """
        path = Path(tempfile.mkstemp(suffix=".wav", dir=self.root)[1])
        proc = self._spawn(["parecord", f"--device={sink}.monitor", "--channels=1",
                            "--rate=16000", "--format=s16le", "--latency-msec=20",
                            "--file-format=wav", str(path)])
        time.sleep(0.3)  # parecord connects asynchronously; nothing played before is wanted
        try:
            yield path
        finally:
            time.sleep(0.3)  # let the tail of the playback reach the monitor
            proc.send_signal(signal.SIGINT)  # parecord finalises the WAV header on SIGINT
            proc.wait(timeout=10)
            self._procs.remove(proc)

    @staticmethod
    def wait_played(path: Path, quiet_s: float = 2.5, timeout_s: float = 120.0) -> None:
        """Wait inside a record_speaker block until what it records has sounded and then
        stayed quiet for `quiet_s` of audio (more than a null sink's 2 s chunk): the answer
        has reached the monitor whole, however late a loaded machine plays it. A hang guard,
        not a stopwatch: it returns when the audio says so, or after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            data = path.read_bytes()[44:]  # parecord's WAV header, then s16le at 16 kHz
            samples = np.frombuffer(data[:len(data) // 2 * 2], dtype="<i2")
            loud = np.flatnonzero(envelope(samples.astype(np.float32) / 32768, 16000) > LOUD)
            if len(loud) and len(samples) / 16000 - (loud[-1] + 1) * FRAME_S >= quiet_s:
                return
            time.sleep(0.25)

    def _as_wav(self, audio: Audio | Path) -> Path:
        if isinstance(audio, Path):
            return audio
        path = Path(tempfile.mkstemp(suffix=".wav", dir=self.root)[1])
        write_wav(path, audio)
        return path

    def _spawn(self, cmd: list[str], **kw: object) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(cmd, env=self._client_env(), **kw)  # type: ignore[call-overload]
        self._procs.append(proc)
        return proc

    def _client_env(self) -> dict[str, str]:
        return {**os.environ, **self.env}

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._procs[0].poll() is not None:
                raise RuntimeError("pulseaudio exited:\n"
                                   + (self.root / "pulseaudio.log").read_text()[-2000:])
            done = subprocess.run(["pactl", "info"], env=self._client_env(),
                                  capture_output=True, timeout=5)
            if done.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("pulseaudio did not answer within 15 s")
