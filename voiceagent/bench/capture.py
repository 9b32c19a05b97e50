"""`bench --live`'s ears and mouth on the sound server: play a question into a sink, and
capture sources (the microphone, the speaker's monitor) with every sample placed on this
process's monotonic clock, so a sound in the recording can be compared with a turn's events.

Uses PulseAudio's own clients (`paplay`, `parec` from pulseaudio-utils; PipeWire ships them
too), because only the sound server can record what a speaker plays.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np

from voiceagent.errors import DeviceError

RATE = 16000
"""Capture rate (Hz); plenty for finding where sound starts and ends."""


def _need(binary: str) -> str:
    path = shutil.which(binary)
    if path is None:
        raise DeviceError(f"bench --live needs {binary} (apt install pulseaudio-utils) and a "
                          "PulseAudio or PipeWire sound server")
    return path


class Capture:
    """Records one source continuously from start until close().

    Sample i was captured at `start + i / RATE` (monotonic seconds). `start` is the earliest
    arrival time minus the audio already delivered, over all reads: buffering only ever
    delays a read, so the smallest such value is the tightest estimate.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self._proc = subprocess.Popen(
            [_need("parec"), f"--device={source}", f"--rate={RATE}", "--channels=1",
             "--format=float32le", "--latency-msec=10", "--raw"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._chunks: list[np.ndarray] = []
        self._n = 0
        self._lock = threading.Lock()
        self.start = float("inf")
        self._reader = threading.Thread(target=self._read, name=f"capture {source}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        pending = b""
        while True:
            data = os.read(fd, 3200)
            now = time.monotonic()
            if not data:
                return
            pending += data
            usable = len(pending) - len(pending) % 4
            block = np.frombuffer(pending[:usable], dtype=np.float32).copy()
            pending = pending[usable:]
            with self._lock:
                self._chunks.append(block)
                self._n += len(block)
                self.start = min(self.start, now - self._n / RATE)

    def wait_started(self, timeout_s: float = 5.0) -> None:
        """Block until audio flows (DeviceError naming the source if it never does)."""
        deadline = time.monotonic() + timeout_s
        while self._n == 0:
            if self._proc.poll() is not None or time.monotonic() > deadline:
                err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr \
                    and self._proc.poll() is not None else ""
                raise DeviceError(f"cannot record {self.source!r}: {err.strip() or 'no audio'}"
                                  "; pass --speaker-source/--mic-source (pactl list short "
                                  "sources)")
            time.sleep(0.02)

    def window(self, t_from: float, t_to: float) -> tuple[np.ndarray, float]:
        """The samples captured between two monotonic times, and the time of the first one."""
        with self._lock:
            audio = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.float32)
            self._chunks = [audio]
            start = self.start
        i = max(0, int((t_from - start) * RATE))
        j = max(i, int((t_to - start) * RATE))
        return audio[i:j], start + i / RATE

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._reader.join(timeout=2)
        for pipe in (self._proc.stdout, self._proc.stderr):
            if pipe is not None:
                pipe.close()


def play(wav: Path, sink: str) -> float:
    """Play a WAV file into `sink`; returns when it is done, with the monotonic start time."""
    start = time.monotonic()
    done = subprocess.run([_need("paplay"), f"--device={sink}", str(wav)],
                          capture_output=True, timeout=120)
    if done.returncode != 0:
        raise DeviceError(f"cannot play into {sink!r}: {done.stderr.decode().strip()}; pass "
                          "--feed-sink (pactl list short sinks)")
    return start
