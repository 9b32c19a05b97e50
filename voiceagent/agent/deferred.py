"""A chat model connected later, so nothing waits for a language model it does not need.

Two front ends need one, in two ways:

- `voiceagent ask` connects on the first request that needs the model: a one-shot question
  answered by a local command ("what time is it") never starts the embedded server.
- The run modes, when the configured model cannot be reached at start (its server down, its
  file missing or failing to load), still serve: local commands and tools need no model. Until
  the model is back every request fails at once with ServerDown, so the user hears the loop's
  one sentence for it ("Sorry, I can't reach the language model right now"), and a background
  thread keeps trying to connect, with backoff.

Neither is the demo: the demo is only for a machine with no model configured at all.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from voiceagent.agent.messages import Message, Reply, ToolChoice, ToolSpec
from voiceagent.errors import ServerDown, VoiceAgentError
from voiceagent.ports import ChatModel

log = logging.getLogger(__name__)

Recover = Callable[[], bool]
Connect = Callable[[ExitStack], tuple[ChatModel, Recover | None]]
"""Connects to the model, pushing what must be stopped later onto the stack; raises
VoiceAgentError when it cannot."""

RETRY_S = (5.0, 10.0, 30.0, 60.0)
"""Seconds between background connection attempts; the last repeats for as long as it takes."""


class DeferredChat:
    """The ChatModel port over a model connected later; also the Assistant's Recover.

    With `background_retry`, a thread connects while requests fail with ServerDown (naming
    `reason`, the last failure); without, the first request connects, and a failure to connect
    is that request's error (the next one tries again).
    """

    def __init__(self, connect: Connect, *, background_retry: bool,
                 reason: str = "not connected yet", retry_s: Sequence[float] = RETRY_S) -> None:
        self._connect = connect
        self._reason = reason
        self._retry_s = tuple(retry_s)
        self._model: ChatModel | None = None
        self._recover: Recover | None = None
        self._stack = ExitStack()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        if background_retry:
            self._thread = threading.Thread(target=self._retry, name="llm-standby", daemon=True)
            self._thread.start()

    @property
    def connected(self) -> bool:
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
        tool_choice: ToolChoice = "auto",
    ) -> Reply:
        model = self._model if self._thread is not None else self._connect_now()
        if model is None:
            raise ServerDown(f"the language model is unavailable ({self._reason}); "
                             "retrying in the background")
        return model.complete(system, messages, tools, on_text=on_text, cancel=cancel,
                              tool_choice=tool_choice)

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
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        with self._lock:
            self._stack.close()

    def _connect_now(self) -> ChatModel:
        """Connect on this request (once; concurrent first requests wait for it)."""
        with self._lock:
            if self._model is not None:
                return self._model
            stack, model, recover = self._attempt()
            self._adopt(stack, model, recover)
            return model

    def _attempt(self) -> tuple[ExitStack, ChatModel, Recover | None]:
        stack = ExitStack()
        try:
            model, recover = self._connect(stack)
        except BaseException:
            stack.close()
            raise
        return stack, model, recover

    def _adopt(self, stack: ExitStack, model: ChatModel, recover: Recover | None) -> None:
        """Take a new connection (the lock held): recover is set before the model shows."""
        self._stack, self._recover, self._model = stack, recover, model

    def _retry(self) -> None:
        attempt = 0
        while not self._closed.wait(self._retry_s[min(attempt, len(self._retry_s) - 1)]):
            attempt += 1
            try:
                connection = self._attempt()
            except Exception as exc:  # noqa: BLE001 - this thread must outlive any failure
                self._reason = str(exc).splitlines()[0]
                log.debug("language model still unavailable (attempt %d): %s", attempt, exc)
                continue
            with self._lock:
                if self._closed.is_set():
                    connection[0].close()
                    return
                self._adopt(*connection)
            log.warning("the language model is available again")
            return
