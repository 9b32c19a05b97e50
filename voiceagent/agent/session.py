"""Conversation history that survives restarts: one JSONL file per session.

Written only at turn boundaries and atomically (voiceagent.atomic), so a crash or a
kill -9 leaves the previous valid file; a save that fails (disk full) is logged once and
the conversation goes on in memory. A file that does not read back as a valid history is
moved aside with a warning, never silently dropped. One voiceagent at a time holds a session:
`lock()` takes an exclusive lock and names the pid of the holder when it is taken.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from voiceagent.agent.messages import Message
from voiceagent.atomic import write_atomic
from voiceagent.errors import VoiceAgentError

log = logging.getLogger(__name__)

VERSION = 1


class SessionStore:
    """The history of one session in a JSONL file: a header line, then one message a line."""

    def __init__(self, path: Path, max_turns: int, max_chars: int | None = None) -> None:
        self.path = Path(path)
        self.max_turns = max_turns
        """User turns kept; older ones are dropped at save."""
        self.max_chars = max_chars
        """Characters of history kept (None: no cap), so requests fit the context window."""
        self._lock_file: IO[str] | None = None
        self._save_failing = False
        """The last save failed (said once in the log, not at every turn)."""

    def load(self) -> list[Message]:
        """The saved history; [] when there is none or it was corrupt (then moved aside)."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        except ValueError as exc:  # not UTF-8: binary garbage, a torn sector
            self._move_aside(exc)
            return []
        try:
            header = json.loads(lines[0]) if lines else {}
            if header.get("voiceagent_session") != VERSION:
                raise ValueError(f"the first line is not a version {VERSION} session header")
            messages = [Message.from_dict(json.loads(line)) for line in lines[1:] if line]
            problem = unpaired(messages)
            if problem:
                raise ValueError(problem)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self._move_aside(exc)
            return []
        return messages

    def save(self, messages: Sequence[Message]) -> None:
        """Replace the file with `messages` (bounded), atomically."""
        problem = unpaired(messages)
        if problem:
            raise ValueError(f"refusing to save a broken history: {problem}")
        kept = bound(messages, self.max_turns, self.max_chars)
        header = {"voiceagent_session": VERSION, "saved": time.strftime("%Y-%m-%dT%H:%M:%S")}
        lines = [json.dumps(header)] + [json.dumps(m.to_dict(), ensure_ascii=False) for m in kept]
        try:
            write_atomic(self.path, "\n".join(lines) + "\n", mode=0o600)  # private conversation
        except OSError as exc:  # disk full, read-only: the previous file is still intact
            (log.debug if self._save_failing else log.error)(
                "could not save the session %s (%s); the previous file is kept and the "
                "conversation goes on in memory", self.path, exc.strerror or exc)
            self._save_failing = True
            return
        if self._save_failing:
            log.warning("the session %s is saved again", self.path)
            self._save_failing = False

    def acquire(self) -> None:
        """Take the session's exclusive lock; VoiceAgentError naming the holder's pid if held."""
        lock_path = self.path.with_name(self.path.name + ".lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        f = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 (held until release)
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.seek(0)
            pid = f.read().strip() or "unknown"
            f.close()
            raise VoiceAgentError(
                f"another voiceagent (pid {pid}) is using the session {self.path}; stop it "
                f"first, or use another session name ([session] name)"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._lock_file = f

    def release(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()  # closing drops the flock
            self._lock_file = None

    @contextmanager
    def lock(self) -> Iterator[SessionStore]:
        self.acquire()
        try:
            yield self
        finally:
            self.release()

    def _move_aside(self, exc: Exception) -> None:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        os.replace(self.path, aside)
        log.warning("session file %s could not be read (%s); moved it to %s and started a new "
                    "conversation", self.path, exc, aside)


def bound(messages: Sequence[Message], max_turns: int,
          max_chars: int | None = None) -> list[Message]:
    """At most `max_turns` user turns and `max_chars` characters; cut only where a user
    message starts a turn, so a tool call is never separated from its results.

    The size cap keeps the history inside the model's context window: bounded by turns
    alone, a long-running kiosk's requests outgrew it and every later turn failed (HTTP 400
    "exceeds the available context size"). Over either cap it is cut in one step to half
    of it (the newest turn is always kept): cut by one turn each time, the conversation
    shown to the model changed at its start on every turn, so the server prefilled all of
    it again; live, after 20 turns every answer of the kiosk's came 10-13 s later. Cut by
    half, that happens once in `max_turns / 2` turns."""
    starts = [i for i, m in enumerate(messages) if m.role == "user"]
    cut = starts[-_half(max_turns)] if len(starts) > max_turns else 0
    if max_chars is not None and starts:
        sizes = [len(m.text) + sum(len(json.dumps(c.to_dict())) for c in m.calls)
                 for m in messages]
        if sum(sizes[cut:]) > max_chars:
            for start in [cut] + [i for i in starts if i > cut]:
                cut = start  # the last one (the newest turn) is kept whatever its size
                if sum(sizes[start:]) <= max_chars // 2:
                    break
    return list(messages[cut:])


def _half(turns: int) -> int:
    """How many turns are left after a cut: half of the cap, at least one."""
    return max(1, turns - turns // 2)


def unpaired(messages: Sequence[Message]) -> str | None:
    """What breaks the rule "every tool call is followed by exactly its results", or None."""
    waiting: list[str] = []
    for i, m in enumerate(messages):
        if m.role == "tool":
            if m.call_id not in waiting:
                return f"message {i} is a result for {m.call_id!r}, which no call is waiting for"
            waiting.remove(m.call_id)
            continue
        if waiting:
            return f"message {i} comes before the results of call(s) {', '.join(waiting)}"
        waiting = [c.id for c in m.calls]
    if waiting:
        return f"the history ends before the results of call(s) {', '.join(waiting)}"
    return None
