"""A chat model that is not there yet, so the run modes keep serving while the LLM is down.

When the configured model cannot be reached at start (its server down, its file missing or
failing to load), the assistant still runs: local commands and tools need no model. Until the
model is back every request fails at once with ServerDown, so the user hears the loop's one
sentence for it ("Sorry, I can't reach the language model right now"), and a background thread
keeps trying to connect, with backoff. This is not the demo: the demo is only for a machine
with no model configured at all.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from voiceagent.agent.messages import Message, Reply, ToolSpec
from voiceagent.errors import ServerDown, VoiceAgentError
from voiceagent.ports import ChatModel

log = logging.getLogger(__name__)

Recover = Callable[[], bool]
Connect = Callable[[ExitStack], tuple[ChatModel, Recover | None]]
"""Connects to the model, pushing what must be stopped later onto the stack; raises
VoiceAgentError when it cannot."""

RETRY_S = (5.0, 10.0, 30.0, 60.0)
"""Seconds between connection attempts; the last one repeats for as long as it takes."""


class StandbyChat:
    """The ChatModel port over a model that may come later; also the Assistant's Recover."""

    def __init__(self, connect: Connect, *, reason: str,
                 retry_s: Sequence[float] = RETRY_S) -> None:
        self._connect = connect
        self._reason = reason
        self._retry_s = tuple(retry_s)
        self._model: ChatModel | None = None
        self._recover: Recover | None = None
        self._stack = ExitStack()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._retry, name="llm-standby", daemon=True)
        self._thread.start()

    @property
    def available(self) -> bool:
        """True once the model is connected."""
        return self._model is not None

    def complete(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Reply:
        model = self._model
        if model is None:
            raise ServerDown(f"the language model is unavailable ({self._reason}); "
                             "retrying in the background")
        return model.complete(system, messages, tools, on_text=on_text, cancel=cancel)

    def recover(self) -> bool:
        """After a failed turn: restart the connected model's server if it died (True = retry
        the turn). Never raises: a restart that fails is logged and tried again next turn."""
        recover = self._recover
        if recover is None:
            return False
        try:
            return recover()
        except VoiceAgentError as exc:
            log.error("could not bring the language model back: %s (trying again at the "
                      "next question)", exc)
            return False

    def close(self) -> None:
        """Stop retrying and stop what the connection started (the embedded server)."""
        self._closed.set()
        self._thread.join(timeout=1.0)
        with self._lock:
            self._stack.close()

    def _retry(self) -> None:
        attempt = 0
        while not self._closed.wait(self._retry_s[min(attempt, len(self._retry_s) - 1)]):
            attempt += 1
            stack = ExitStack()
            try:
                model, recover = self._connect(stack)
            except Exception as exc:  # noqa: BLE001 - this thread must outlive any failure
                stack.close()
                self._reason = str(exc).splitlines()[0]
                log.debug("language model still unavailable (attempt %d): %s", attempt, exc)
                continue
            with self._lock:
                if self._closed.is_set():
                    stack.close()
                    return
                self._stack = stack
                self._recover = recover
                self._model = model
            log.warning("the language model is available again")
            return
