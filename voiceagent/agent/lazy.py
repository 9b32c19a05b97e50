"""A chat model connected on its first request.

A one-shot `voiceagent ask` answered by a local command ("what time is it") should not wait
for the embedded LLM server to start and load its model; this wrapper starts it only when a
request actually needs the model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from voiceagent.agent.messages import Message, Reply, ToolSpec
from voiceagent.ports import ChatModel


class LazyChat:
    """The ChatModel port over `connect()`, called once, on the first request."""

    def __init__(self, connect: Callable[[], tuple[ChatModel, Callable[[], bool] | None]]):
        self._connect = connect
        self._model: ChatModel | None = None
        self._recover: Callable[[], bool] | None = None
        self._lock = threading.Lock()

    @property
    def connected(self) -> bool:
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
        return self._get().complete(system, messages, tools, on_text=on_text, cancel=cancel)

    def recover(self) -> bool:
        """Restart a dead server, once connected (True: retry)."""
        return self._recover() if self._recover is not None else False

    def _get(self) -> ChatModel:
        with self._lock:
            if self._model is None:
                self._model, self._recover = self._connect()
            return self._model
