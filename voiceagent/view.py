"""What a person sees: a terminal view of the turn, or timestamped log lines for services."""

from __future__ import annotations

import json
import logging
import sys
from typing import TextIO

from voiceagent.agent.events import (
    AudioStart,
    Cap,
    Error,
    Event,
    Final,
    LocalCommand,
    Misheard,
    SttDone,
    ToolCallStart,
    ToolResult,
    TurnEnd,
)

log = logging.getLogger("voiceagent")


class TerminalView:
    """State at a glance (idle / listening / thinking / speaking), transcript, tools, answer,
    and the key latency figure after each turn."""

    def __init__(self, stream: TextIO | None = None, *, key_hint: str = "space") -> None:
        self._out = stream or sys.stdout
        self._tty = self._out.isatty()
        self._key_hint = key_hint
        self._answer_started = False

    def state(self, name: str) -> None:
        hints = {
            "idle": f"idle - press {self._key_hint} to talk, q to quit",
            "listening": f"listening - press {self._key_hint} to stop",
            "thinking": "thinking",
            "speaking": f"speaking - press {self._key_hint} to interrupt",
        }
        self._line(f"[{hints.get(name, name)}]")

    def level(self, rms: float) -> None:
        """A live input meter on one line, so the user sees it hearing them."""
        if not self._tty:
            return
        bars = min(30, int(rms * 300))
        self._out.write("\r  mic " + "#" * bars + " " * (30 - bars))
        self._out.flush()

    def __call__(self, event: Event) -> None:
        if isinstance(event, SttDone):
            self._line(f"you: {event.text or '(nothing heard)'}")
        elif isinstance(event, Misheard):
            self._line(f"  ? not sure I heard that right: {event.text!r}")
        elif isinstance(event, LocalCommand):
            self._line(f"  (local: {event.intent})")
        elif isinstance(event, ToolCallStart):
            self._line(f"  -> {event.name}({json.dumps(event.args, ensure_ascii=False)})")
        elif isinstance(event, ToolResult):
            self._line(f"  <- {event.result[:120]}")
        elif isinstance(event, AudioStart) and not self._answer_started:
            self._answer_started = True
            self.state("speaking")
        elif isinstance(event, Final):
            self._line(f"assistant: {event.text}")
        elif isinstance(event, Error):
            self._line(f"  ! {event.message}")
        elif isinstance(event, Cap):
            self._line(f"  ! stopped: {event.which} cap ({event.limit:g})")
        elif isinstance(event, TurnEnd):
            self._answer_started = False

    def answered(self, timings: dict[str, object]) -> None:
        """The key figure: end of speech to the first sound of the answer."""
        first_audio = timings.get("first_audio")
        if isinstance(first_audio, float | int):
            self._line(f"  answered in {first_audio:.2f} s")

    def _line(self, text: str) -> None:
        prefix = "\r\033[K" if self._tty else ""
        self._out.write(prefix + text + "\n")
        self._out.flush()


class LogView:
    """Events as log lines (stderr/journald) for the kiosk and the daemon; -v adds all events."""

    def __init__(self, verbose: bool) -> None:
        self._verbose = verbose

    def __call__(self, event: Event) -> None:
        if isinstance(event, SttDone):
            log.info("heard: %s", event.text or "(nothing)")
        elif isinstance(event, Misheard):
            log.info("not acting on a doubtful transcript (%s): %s", event.reason, event.text)
        elif isinstance(event, LocalCommand):
            log.info("local command: %s", event.intent)
        elif isinstance(event, ToolCallStart):
            log.info("tool %s %s", event.name, json.dumps(event.args))
        elif isinstance(event, Final):
            log.info("answered: %s", event.text)
        elif isinstance(event, Error):
            log.warning("error in %s: %s", event.where, event.message)
        elif isinstance(event, Cap):
            log.warning("cap: %s (%g)", event.which, event.limit)
        elif isinstance(event, TurnEnd):
            log.info("turn over (%s)", event.stop)
        elif self._verbose:
            log.debug("%s", event.to_json())


def setup_logging(verbose: bool) -> None:
    """Timestamped lines on stderr (journald keeps them for services)."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not verbose:  # a line per request / per clip is noise
        for noisy in ("httpx", "faster_whisper"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
