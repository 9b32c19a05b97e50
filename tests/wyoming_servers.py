"""Wyoming servers run as real processes for the tests: `voiceagent wyoming`,
wyoming-faster-whisper and wyoming-piper, each on a free loopback port."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = next(p for p in (REPO / "voiceagent" / "bench" / "questions",
                             REPO / "tests" / "data" / "questions") if p.is_dir())
"""Spoken questions (qNN.wav) with their transcripts (qNN.txt)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def describe(port: int, timeout: float = 5.0) -> Info:
    async def ask() -> Info:
        async with AsyncTcpClient("127.0.0.1", port, connect_timeout=timeout,
                                  read_timeout=timeout) as client:
            await client.write_event(Describe().event())
            while True:
                event = await client.read_event()
                assert event is not None, "the server closed the connection"
                if Info.is_type(event.type):
                    return Info.from_event(event)

    return asyncio.run(ask())


@contextmanager
def running(args: list[str], port: int, log: Path, timeout: float = 180) -> Iterator[
        subprocess.Popen]:
    """Start a server process (stderr and stdout to `log`), wait until it answers describe,
    stop it at the end and check that it stopped."""
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, *args], stdout=out, stderr=subprocess.STDOUT,
                                cwd=REPO)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"{args[:2]} exited ({proc.returncode}):\n"
                                     f"{log.read_text()[-3000:]}")
            try:
                describe(port, timeout=2)
                break
            except (TimeoutError, OSError, AssertionError):
                if time.monotonic() > deadline:
                    raise AssertionError(f"{args[:2]} did not answer in {timeout} s:\n"
                                         f"{log.read_text()[-3000:]}") from None
                time.sleep(0.3)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
