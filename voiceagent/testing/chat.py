"""ScriptedChatModel: a ChatModel you `enqueue()` replies into; it records every request and
`assert_consumed()` checks nothing scripted was left over."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from voiceagent.agent.messages import Message, Reply, ToolCall, ToolChoice, ToolSpec


@dataclass(frozen=True)
class ChatRequest:
    """What the loop sent to the model in one request."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tool_choice: ToolChoice = "auto"


@dataclass(frozen=True)
class _Scripted:
    reply: Reply | BaseException
    deltas: tuple[str, ...]
    during: Callable[[], None] | None
    pace: float


class ScriptedChatModel:
    """A ChatModel answering from a queue; `enqueue` replies, then `assert_consumed()`."""

    def __init__(self) -> None:
        self._queue: deque[_Scripted] = deque()
        self.requests: list[ChatRequest] = []

    def enqueue(
        self,
        reply: Reply | str | BaseException,
        *,
        deltas: Sequence[str] | None = None,
        during: Callable[[], None] | None = None,
        pace: float = 0.0,
    ) -> ScriptedChatModel:
        """Queue one reply: a Reply, a plain text answer, or an exception to raise.

        `deltas` are the text pieces streamed to on_text (default: the whole text at once);
        `during` runs after the first piece, e.g. to set the cancel event mid-stream;
        `pace` is the pause in seconds before each further piece (a slow model).
        """
        if isinstance(reply, str):
            reply = Reply(reply)
        if deltas is None:
            deltas = (reply.text,) if isinstance(reply, Reply) and reply.text else ()
        self._queue.append(_Scripted(reply, tuple(deltas), during, pace))
        return self

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
        self.requests.append(ChatRequest(system, tuple(messages), tuple(tools), tool_choice))
        if not self._queue:
            raise AssertionError(f"ScriptedChatModel: no reply left for request "
                                 f"{len(self.requests)}")
        scripted = self._queue.popleft()
        said: list[str] = []
        for i, delta in enumerate(scripted.deltas):
            if i and scripted.pace:
                time.sleep(scripted.pace)
            if cancel is not None and cancel.is_set():
                return Reply("".join(said))
            if on_text is not None:
                on_text(delta)
            said.append(delta)
            if i == 0 and scripted.during is not None:
                scripted.during()
        if not scripted.deltas and scripted.during is not None:
            scripted.during()
        if isinstance(scripted.reply, BaseException):
            raise scripted.reply
        if cancel is not None and cancel.is_set():
            return Reply("".join(said), (), scripted.reply.usage)
        return scripted.reply

    def assert_consumed(self) -> None:
        assert not self._queue, f"ScriptedChatModel: {len(self._queue)} reply(s) never asked for"


def calls(*calls: tuple[str, dict[str, Any]] | ToolCall, text: str = "") -> Reply:
    """A reply calling tools: calls(("get_time", {}), ("add", {"a": 1})) with ids c1, c2..."""
    made = tuple(
        c if isinstance(c, ToolCall) else ToolCall(f"c{i}", c[0], c[1])
        for i, c in enumerate(calls, 1)
    )
    return Reply(text, made)
