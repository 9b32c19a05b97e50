"""ChatModel for OpenAI-compatible chat completions: llama.cpp, Ollama, vLLM, LM Studio, OpenAI,
Groq, DeepSeek. Streams (SSE) and assembles tool calls from their deltas.

Small local models are helped twice: a tool call printed as JSON text is recovered (and never
spoken), and llama.cpp's HTTP 500 for output that missed the tool-call format is taken as the
model's fault: the request is sent once more with `tool_choice: "none"`, so the raw text comes
back and the recovery can read the call from it (a reply that had begun in words goes on from
where it stopped: "To find the list and remove apple," and then the call).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from voiceagent.agent.http import HTTPChat, HTTPClient, ServerError, StreamCancelled
from voiceagent.agent.messages import Message, Reply, ToolCall, ToolChoice, ToolSpec, Usage
from voiceagent.agent.recover import TextGate, recover_calls
from voiceagent.errors import ChatError

log = logging.getLogger(__name__)

_FORMAT_FAULT = ("does not match the expected", "failed to parse input")


class OpenAIChat(HTTPChat):
    """One OpenAI-compatible server and model."""

    @staticmethod
    def auth_headers(api_key: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

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
            body.update(choice_fields(tool_choice, tools))
        gate = TextGate(on_text)
        try:
            return self._stream(body, tools, gate, on_text, cancel)
        except ServerError as exc:
            if not tools or not _is_format_fault(exc):
                raise
            log.warning("the model missed the tool-call format (%s); asking again", exc.detail)
            retry = {**body, "tool_choice": "none"}
            # what was said already is not said twice: the retry goes on from there
            return self._stream(retry, tools, TextGate(on_text, said=gate.said), on_text,
                                cancel)

    def request_body(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_wire(system, messages),
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in tools
            ]
        body.update(self.extra_body)
        return body

    def _stream(
        self,
        body: dict[str, Any],
        tools: Sequence[ToolSpec],
        gate: TextGate,
        on_text: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> Reply:
        reply_id = f"call_{next(self._replies)}_"
        text: list[str] = []
        parts = _CallParts(reply_id)
        usage = Usage()
        read: dict[str, Any] = {}
        finished = started = False
        try:
            with self._http.stream("/chat/completions", body, cancel) as events:
                for event in events:
                    if event.data.strip() == "[DONE]":
                        finished = True
                        break
                    chunk = decode_chunk(event.data, self._http.base_url)
                    if event.event == "error" or "error" in chunk:
                        raise _stream_error(chunk, self._http)
                    if isinstance(chunk.get("timings"), dict):  # llama.cpp: what it read
                        read = chunk["timings"]
                    if chunk.get("usage"):
                        usage = Usage(
                            chunk["usage"].get("prompt_tokens") or 0,
                            chunk["usage"].get("completion_tokens") or 0,
                        )
                    for choice in chunk.get("choices") or ():
                        delta = choice.get("delta") or {}
                        content = delta.get("content") or ""
                        if (content or delta.get("tool_calls")) and not started:
                            started = True
                            if on_text is not None:
                                on_text("")  # "something arrived": times the first token
                        if content:
                            text.append(content)
                            gate.feed(content)
                        for piece in delta.get("tool_calls") or ():
                            parts.add(piece)
                        finished = finished or bool(choice.get("finish_reason"))
        except StreamCancelled:  # held-back text is dropped: nothing more is said
            return Reply("".join(text), (), usage)
        if read:
            log.debug("the server read %s new prompt tokens (%s cached) in %s ms",
                      read.get("prompt_n"), read.get("cache_n"), read.get("prompt_ms"))
        if not finished:
            raise ChatError(
                f"the reply from {self._http.base_url} ended early (the stream was cut off)"
            )
        return _reply("".join(text), parts.calls(), usage, tools, gate, reply_id)


def choice_fields(choice: ToolChoice, tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """The request fields for a tool choice other than "auto". One of some tools (a tuple):
    `tool_choice` "required" (or the one function) and a `response_format` whose JSON schema
    admits only a call of those tools: llama.cpp did not enforce "required" with the bundled
    template (asked again with it, the 1.5B answered "read my list to me" with a page of
    prose), and it does enforce a schema, as do vLLM and Ollama. What comes back is the call
    as JSON text, which the recovery reads (agent/recover.py)."""
    if not isinstance(choice, tuple):
        return {"tool_choice": choice}
    chosen = [t for t in tools if t.name in choice] or list(tools)
    calls = [{"type": "object", "properties": {"name": {"const": t.name},
                                                "arguments": t.parameters},
              "required": ["name", "arguments"], "additionalProperties": False}
             for t in chosen]
    one = len(chosen) == 1
    return {
        "tool_choice": {"type": "function", "function": {"name": chosen[0].name}} if one
        else "required",
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "tool_call", "schema": calls[0] if one else {"oneOf": calls}}},
    }


def _reply(
    text: str,
    calls: tuple[ToolCall, ...],
    usage: Usage,
    tools: Sequence[ToolSpec],
    gate: TextGate,
    reply_id: str,
) -> Reply:
    if not calls and tools:
        before = gate.said_before  # said by the attempt the server failed: the calls follow
        went_on = bool(before) and text.startswith(before)
        recovered = recover_calls(text[len(before):] if went_on else text, tools, reply_id)
        if recovered:
            log.info("recovered %d tool call(s) the model wrote as text", len(recovered))
            gate.finish(recovered=True)
            return Reply(before if went_on else "", recovered, usage)
    gate.finish(recovered=False)
    return Reply(text, calls, usage)


class _CallParts:
    """Tool calls assembled from stream deltas: the first carries id and name, args follow."""

    def __init__(self, id_prefix: str) -> None:
        self._id_prefix = id_prefix
        self._parts: dict[int, dict[str, Any]] = {}

    def add(self, piece: dict[str, Any]) -> None:
        index = piece.get("index")
        if index is None:  # some servers leave it out: a new id starts a new call
            new = piece.get("id") and all(p["id"] != piece["id"] for p in self._parts.values())
            index = len(self._parts) if new or not self._parts else max(self._parts)
        part = self._parts.setdefault(index, {"id": "", "name": "", "args": []})
        function = piece.get("function") or {}
        part["id"] = piece.get("id") or part["id"]
        part["name"] = function.get("name") or part["name"]
        if function.get("arguments"):
            args = function["arguments"]
            part["args"].append(args if isinstance(args, str) else json.dumps(args))

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(
            parse_call(p["id"] or f"{self._id_prefix}{i}", p["name"], "".join(p["args"]))
            for i, p in sorted(self._parts.items())
        )


def parse_call(call_id: str, name: str, raw_args: str) -> ToolCall:
    """A ToolCall from the wire's argument string; bad JSON is kept for the error message."""
    if not raw_args.strip():
        return ToolCall(call_id, name, {})
    try:
        args = json.loads(raw_args)
        if isinstance(args, str):  # some models double-encode
            args = json.loads(args)
    except ValueError:
        return ToolCall(call_id, name, {}, bad_json=raw_args)
    if not isinstance(args, dict):
        return ToolCall(call_id, name, {}, bad_json=raw_args)
    return ToolCall(call_id, name, args)


def _result_text(m: Message) -> str:
    """The format has no error flag, so a failed call says so in its text (once)."""
    if m.is_error and not m.text.startswith("Error"):
        return f"Error: {m.text}"
    return m.text


def to_wire(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The internal conversation as OpenAI chat messages."""
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        if m.role == "tool":
            wire.append({"role": "tool", "tool_call_id": m.call_id, "content": _result_text(m)})
        elif m.role == "assistant" and m.calls:
            wire.append(
                {
                    "role": "assistant",
                    "content": m.text or None,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            # bad JSON is not sent back: servers re-parse it and fail
                            "function": {"name": c.name, "arguments": json.dumps(c.args)},
                        }
                        for c in m.calls
                    ],
                }
            )
        else:
            wire.append({"role": m.role, "content": m.text})
    return wire


def decode_chunk(data: str, url: str) -> dict[str, Any]:
    """One stream event's JSON; a ChatError naming the server when it is not JSON."""
    try:
        chunk = json.loads(data)
    except ValueError:
        raise ChatError(f"{url} sent a stream chunk that is not JSON: {data[:120]!r}") from None
    return chunk if isinstance(chunk, dict) else {"error": chunk}


def _stream_error(chunk: dict[str, Any], http: HTTPClient) -> ServerError:
    error = chunk.get("error", chunk)
    detail = str(error.get("message", error) if isinstance(error, dict) else error)
    status = error.get("code", 500) if isinstance(error, dict) else 500
    detail = http.scrub(detail)
    return ServerError(
        f"{http.base_url} reported an error mid-reply: {detail}",
        status=status if isinstance(status, int) else 500,
        detail=detail,
    )


def _is_format_fault(exc: ServerError) -> bool:
    return exc.status >= 500 and any(s in exc.detail.lower() for s in _FORMAT_FAULT)
