"""ChatModel for the Anthropic messages API, streamed (SSE).

The differences from the OpenAI shape live here only: the system prompt is a request
parameter, calls are `tool_use` blocks with structured input (streamed as input_json_delta
pieces), and results are `tool_result` blocks inside a user message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from voiceagent.agent.http import HTTPChat, ServerError, StreamCancelled
from voiceagent.agent.messages import Message, Reply, ToolCall, ToolChoice, ToolSpec, Usage
from voiceagent.agent.wire_openai import decode_chunk, parse_call
from voiceagent.errors import ChatError

API_VERSION = "2023-06-01"


class AnthropicChat(HTTPChat):
    """One Anthropic-compatible server and model."""

    @staticmethod
    def auth_headers(api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def request_body(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "messages": to_wire(messages),
            "stream": True,
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
        body.update(self.extra_body)
        return body

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
        body = self.request_body(system, messages, tools)
        if tools and tool_choice != "auto":
            body["tool_choice"] = _choice(tool_choice)
        reply_id = f"toolu_{next(self._replies)}_"
        blocks: dict[int, dict[str, Any]] = {}
        usage = Usage()
        finished = False
        try:
            with self._http.stream("/messages", body, cancel) as events:
                for event in events:
                    data = decode_chunk(event.data, self._http.base_url)
                    kind = data.get("type", event.event)
                    if kind == "error":
                        raise self._error(data)
                    if kind == "message_start":
                        u = data.get("message", {}).get("usage", {})
                        usage = Usage(u.get("input_tokens") or 0, u.get("output_tokens") or 0)
                    elif kind == "content_block_start":
                        if not blocks and on_text is not None:
                            on_text("")  # "something arrived": times the first token
                        block = data.get("content_block", {})
                        blocks[data.get("index", len(blocks))] = {
                            "type": block.get("type"), "id": block.get("id", ""),
                            "name": block.get("name", ""), "parts": [],
                        }
                    elif kind == "content_block_delta":
                        _delta(blocks, data, on_text)
                    elif kind == "message_delta":
                        out = data.get("usage", {}).get("output_tokens")
                        usage = Usage(usage.input_tokens, out or usage.output_tokens)
                    elif kind == "message_stop":
                        finished = True
        except StreamCancelled:
            return Reply(_text(blocks), (), usage)
        if not finished:
            raise ChatError(
                f"the reply from {self._http.base_url} ended early (the stream was cut off)"
            )
        calls = tuple(
            parse_call(b["id"] or f"{reply_id}{i}", b["name"], "".join(b["parts"]))
            for i, b in sorted(blocks.items())
            if b["type"] == "tool_use"
        )
        return Reply(_text(blocks), calls, usage)

    def _error(self, data: dict[str, Any]) -> ServerError:
        error = data.get("error", {})
        detail = self._http.scrub(str(error.get("message", error)))
        return ServerError(
            f"{self._http.base_url} reported an error mid-reply: {detail}",
            status=529 if error.get("type") == "overloaded_error" else 500,
            detail=detail,
        )


def _delta(
    blocks: dict[int, dict[str, Any]], data: dict[str, Any], on_text: Callable[[str], None] | None
) -> None:
    block = blocks.get(data.get("index", 0))
    delta = data.get("delta", {})
    if block is None:
        return
    if delta.get("type") == "text_delta":
        block["parts"].append(delta.get("text", ""))
        if on_text is not None and delta.get("text"):
            on_text(delta["text"])
    elif delta.get("type") == "input_json_delta":
        block["parts"].append(delta.get("partial_json", ""))


def _text(blocks: dict[int, dict[str, Any]]) -> str:
    return "".join("".join(b["parts"]) for _, b in sorted(blocks.items()) if b["type"] == "text")


def to_wire(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The internal conversation as Anthropic messages: tool results become user content, and
    neighbouring messages of one role are merged (the API wants the roles to alternate)."""
    wire: list[dict[str, Any]] = []
    for m in messages:
        blocks: list[dict[str, Any]]
        if m.role == "tool":
            role, blocks = "user", [_result_block(m)]
        else:
            role = m.role
            blocks = [{"type": "text", "text": m.text}] if m.text.strip() else []
            blocks += [_use_block(c) for c in m.calls]
        if not blocks:
            continue
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return wire


def _use_block(call: ToolCall) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.args}


def _result_block(m: Message) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.call_id, "content": m.text}
    if m.is_error:
        block["is_error"] = True
    return block


def _choice(choice: ToolChoice) -> dict[str, str]:
    """Anthropic's tool_choice: one named tool, any tool, or none (it has no subset: a
    tuple of several is "any")."""
    if isinstance(choice, tuple) and len(choice) == 1:
        return {"type": "tool", "name": choice[0]}
    return {"type": "none" if choice == "none" else "any"}
