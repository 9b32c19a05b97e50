"""Bounds what native libraries write to stderr, so a kiosk's log cannot fill the disk.

When the sound server vanished under an open stream, PortAudio's ALSA thread printed
"Expression ... failed" in a tight loop straight to file descriptor 2 and once wrote a 73 GB
log. Python's logging cannot stop that: the writes never pass through Python. So fd 2 is
replaced by a pipe that a reader thread drains: repeated lines are collapsed, the rest passes
through a token bucket (a burst, then a trickle), and what was dropped is reported at most
once a minute. Python's own sys.stderr (our log lines) keeps writing to the real stderr.
If the reader falls behind, the pipe fills and the flooding native thread blocks in write():
it is throttled, never our process.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import IO

BURST_BYTES = 8192
"""Native stderr passed through at once after a quiet spell."""
RATE_BYTES_S = 256.0
"""Sustained native stderr passed through per second after the burst."""
REPORT_S = 60.0
"""At most one "suppressed" summary line this often."""


class LineLimiter:
    """Decides, line by line, what of a byte stream is written: pure logic, clock injected."""

    def __init__(self, write: Callable[[bytes], None], *, burst: int = BURST_BYTES,
                 rate: float = RATE_BYTES_S, report_s: float = REPORT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._write = write
        self._burst = burst
        self._rate = rate
        self._report_s = report_s
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()
        self._last_report = self._last
        self._previous = b""
        self._partial = b""
        self.dropped_lines = 0
        self.dropped_bytes = 0
        self.repeats = 0
        self.written = 0
        """Bytes written so far (native lines and summaries)."""

    def feed(self, data: bytes) -> None:
        """Bytes as they came from the pipe; whole lines are judged, a partial one waits."""
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        if len(self._partial) > 4096:  # a line that never ends is judged in pieces
            lines.append(self._partial)
            self._partial = b""
        for line in lines:
            self._line(line + b"\n")
        self._maybe_report()

    def flush(self) -> None:
        """Judge a pending partial line and report what was dropped (at exit)."""
        if self._partial:
            self._line(self._partial + b"\n")
            self._partial = b""
        self._maybe_report(force=True)

    def _line(self, line: bytes) -> None:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if line == self._previous:  # a tight loop repeats itself: keep one copy
            self.repeats += 1
            return
        self._previous = line
        if self._tokens < len(line):
            self.dropped_lines += 1
            self.dropped_bytes += len(line)
            return
        self._tokens -= len(line)
        self._emit(line)

    def _maybe_report(self, force: bool = False) -> None:
        now = self._clock()
        if not (self.dropped_lines or self.repeats):
            return
        if not force and now - self._last_report < self._report_s:
            return
        self._last_report = now
        self._emit(b"voiceagent: native stderr limited: %d repeated line(s) and %d other "
                   b"line(s) (%d bytes) not shown\n"
                   % (self.repeats, self.dropped_lines, self.dropped_bytes))
        self.repeats = self.dropped_lines = self.dropped_bytes = 0

    def _emit(self, data: bytes) -> None:
        self.written += len(data)
        try:
            self._write(data)
        except OSError:  # stderr closed (journald restarted): nothing to do but drop
            pass


class StderrLimit:
    """Installed once per process by `limit_native_stderr`; `close` restores fd 2."""

    def __init__(self) -> None:
        self._real = os.dup(2)
        read_fd, write_fd = os.pipe()
        os.dup2(write_fd, 2)
        os.close(write_fd)
        self._read_fd = read_fd
        self.limiter = LineLimiter(lambda data: _write_all(self._real, data))
        self.python_stderr: IO[str] = os.fdopen(os.dup(self._real), "w", buffering=1,
                                                 encoding="utf-8", errors="backslashreplace")
        self._saved_stderr = sys.stderr
        sys.stderr = self.python_stderr  # our own log lines are not the flood: unlimited
        faulthandler.enable(self.python_stderr)  # a crash report must not wait on the reader
        # `kill -USR1 PID`: every thread's stack into the log, for a kiosk that seems stuck
        faulthandler.register(signal.SIGUSR1, self.python_stderr, all_threads=True)
        self._thread = threading.Thread(target=self._drain, name="stderr-limit", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._read_fd, 65536)
            except OSError:
                return
            if not data:
                self.limiter.flush()
                return
            self.limiter.feed(data)

    def close(self) -> None:
        """Give fd 2 back to the real stderr and let the reader finish what is queued."""
        os.dup2(self._real, 2)  # the pipe's last writer is gone: the reader sees EOF
        self._thread.join(timeout=2.0)
        sys.stderr = self._saved_stderr
        if faulthandler.is_enabled():
            faulthandler.enable(sys.stderr)
        faulthandler.unregister(signal.SIGUSR1)  # its file is closed next
        self.python_stderr.close()


_installed: StderrLimit | None = None


def limit_native_stderr() -> StderrLimit:
    """Route fd 2 through the limiter (idempotent); call before logging is set up."""
    global _installed
    if _installed is None:
        sys.stderr.flush()
        _installed = StderrLimit()
    return _installed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
