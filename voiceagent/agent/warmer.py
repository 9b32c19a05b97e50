"""Have the model server read a prompt before the request that will send it.

On a small CPU the model reads a prompt at ~100 tokens a second, so whatever it has not read
yet when a request arrives comes before the first word of the answer. Two things are read
ahead, on one worker thread, the newest first (a burst costs one thread, not one each, and
work that is already out of date is skipped):

- **keep-warm**: after every turn, the conversation so far (as the next request will show
  it) and the note a request no tool serves starts with, so the next question does not
  wait for them;
- **prefill**: while the user is still pausing, the transcript started at a pause that may
  end the utterance (speech/read_ahead.py): the conversation and those words, exactly as the
  final request will send them (the fixed prefix, `history.for_model`, the words as the user
  turn), so the model's first token comes right after the turn ends.

Neither is sent while a turn is under way on the same server (agent/foreground.py: the hub's
rooms share one): newer work that comes meanwhile replaces it. Either is a request that
stops at its first token (`Agent.warm_up`): nothing is spoken and nothing is kept.
Those words are used only through the server's prompt cache: the final
request is sent as usual, from the final transcript; when the utterance ended at that pause
the server has read them already, and when the user went on, nothing was said or done and the
request costs what it always did (its common start, the prefix and the history, is still
read). Words the local templates answer (agent/local.py) are never prefilled: the model
never sees them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from voiceagent.agent.foreground import Foreground
from voiceagent.agent.local import recognised
from voiceagent.agent.loop import Agent
from voiceagent.agent.messages import Message

log = logging.getLogger(__name__)

YIELD_S = 30.0
"""The longest reading ahead waits for turns under way (a long answer) before going ahead."""


class Warmer:
    """Reads ahead for one agent (see the module docstring); `warm` and `prefill` return at
    once."""

    def __init__(self, agent: Agent, foreground: Foreground | None = None) -> None:
        self._agent = agent
        self.foreground = foreground or Foreground()
        """The turns under way on the agent's model server, in any conversation."""
        self._lock = threading.Lock()
        self._due: tuple[tuple[Message, ...], str | None] | None = None
        """The newest work not started yet: (history, the words or None for keep-warm)."""
        self._wake = threading.Condition(self._lock)
        self._busy = False
        self._thread: threading.Thread | None = None
        self.sent: list[str | None] = []
        """What each request read after the history (the words, or None): for the log and
        tests."""

    def warm(self, history: Sequence[Message]) -> None:
        """Have the server read the conversation so far."""
        self._put(tuple(history), None)

    def prefill(self, history: Sequence[Message], words: str) -> None:
        """Have the server read the request `words` would make after `history`, unless the
        local templates answer them."""
        if words.strip():
            self._put(tuple(history), words.strip())

    def settled(self, timeout: float | None = None) -> bool:
        """Wait until nothing is due or being sent (True), or `timeout` passes (False)."""
        with self._lock:
            return self._wake.wait_for(lambda: self._due is None and not self._busy, timeout)

    def _put(self, history: tuple[Message, ...], words: str | None) -> None:
        with self._lock:
            self._due = (history, words)
            self._wake.notify_all()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="keep-warm",
                                                daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._lock:
                self._wake.wait_for(lambda: self._due is not None)
                assert self._due is not None
                (history, words), self._due = self._due, None
                self._busy = True
            try:
                if not self.foreground.wait_idle(YIELD_S):
                    log.debug("reading ahead beside a turn that is still under way")
                with self._lock:
                    if self._due is not None:  # newer work came while it waited: that instead
                        (history, words), self._due = self._due, None
                self._send(history, words)
            except Exception:  # a matcher or model fault costs only the head start
                log.exception("reading ahead failed")
            finally:
                with self._lock:
                    self._busy = False
                    self._wake.notify_all()

    def _send(self, history: tuple[Message, ...], words: str | None) -> None:
        agent = self._agent
        if words is not None and agent.local is not None and recognised(agent.local, words,
                                                                         history):
            log.debug("not prefilled (a local command): %r", words)
            return
        if words is not None:
            log.debug("prefilling the request %r", words)
        with self.foreground.reading_ahead() as stop:
            agent.warm_up(history, words or "", stop=stop)
        self.sent.append(words)
