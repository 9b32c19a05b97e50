"""Tool calls that small local models print as JSON text instead of sending as tool_calls.

The Qwen2.5-Coder models answer a tool question with `{"name": ..., "arguments": {...}}` in
the message text (sometimes inside a ```json fence). Such text is taken as a call only when it
names a declared tool and its arguments validate (parameters the tool does not declare left
out); anything else stays text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import jsonschema

from voiceagent.agent.messages import ToolCall, ToolSpec

_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?\s*```$", re.S)


def may_be_json_call(text: str) -> bool:
    """True while streamed text could still turn out to be a JSON tool call (hold it back)."""
    head = text.lstrip()
    return head == "" or head.startswith(("{", "[")) or "```".startswith(head[:3])


def recover_calls(text: str, tools: Sequence[ToolSpec], id_prefix: str) -> tuple[ToolCall, ...]:
    """The tool calls `text` starts with, or () when they are not all valid calls.

    Prose after the calls is dropped: it was written before any tool result, so it can only
    be made up ("{...} I have set a timer for you.").
    """
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body.startswith(("{", "[")):
        return ()
    objects = _json_values(body)
    if objects and len(objects) == 1 and isinstance(objects[0], list):
        objects = objects[0]
    specs = {t.name: t for t in tools}
    calls = []
    for i, obj in enumerate(objects or ()):
        call = _as_call(obj, specs, f"{id_prefix}{i}")
        if call is None:
            return ()
        calls.append(call)
    return tuple(calls)


def _json_values(body: str) -> list[Any] | None:
    """The JSON values `body` starts with (several may follow each other, then prose), or
    None if the first one is broken."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    pos = 0
    while pos < len(body):
        try:
            value, pos = decoder.raw_decode(body, pos)
        except ValueError:
            return values or None
        values.append(value)
        while pos < len(body) and body[pos] in " \t\r\n,;":
            pos += 1
    return values


def _as_call(obj: Any, specs: dict[str, ToolSpec], call_id: str) -> ToolCall | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None
    spec = specs.get(obj["name"])
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    if spec is None or not isinstance(args, dict):
        return None
    args = _declared(args, spec.parameters)
    if not jsonschema.Draft202012Validator(spec.parameters).is_valid(args):
        return None
    return ToolCall(call_id, spec.name, args)


def _declared(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`args` without the parameters the tool does not declare, which the call policy leaves
    out of a sent call too: asked "next alarm", the 1.5B wrote list_timers with a `which`
    that tool does not take, llama.cpp refused its output, and the turn ended "Sorry, I
    couldn't do that."."""
    declared = schema.get("properties")
    if not isinstance(declared, dict) or schema.get("additionalProperties", True) is not False:
        return args
    return {k: v for k, v in args.items() if k in declared}


_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


class TextGate:
    """Passes streamed text on, but holds it back while it may still be a JSON tool call."""

    def __init__(self, on_text: Callable[[str], None] | None, *, said: str = "") -> None:
        self._on_text = on_text
        self._held: list[str] = []
        self._open = False
        self._said: list[str] = []
        self._before = said
        """What an earlier attempt at this reply already said: a retry that says it again
        goes on from where it stopped."""
        self._before_said = ""
        self._seen = ""
        self.spoke = False
        """True once any text went out (a retry would repeat it)."""

    @property
    def said_before(self) -> str:
        """What an earlier attempt said, which this one went on from."""
        return self._before_said or self._before

    @property
    def said(self) -> str:
        """The text passed on so far (with what an earlier attempt said)."""
        return self._before_said + "".join(self._said)

    def feed(self, delta: str) -> None:
        if self._before:  # the retry of a reply already begun: only what is new goes on
            self._seen += delta
            if self._before.startswith(self._seen):
                return
            if not self._seen.startswith(self._before):
                # worded otherwise: what was said stands; go on at its next sentence
                end = _SENTENCE_END.search(self._seen, len(self._before))
                if end is None:
                    return
                self._before_said, self._before = self._before, ""
                # the sentence left unfinished ends there
                delta = (". " if self._before_said[-1:].isalnum() else " ") + self._seen[
                    end.end():]
            else:
                self._before_said, self._before = self._before, ""
                delta = self._seen[len(self._before_said):]
            if not delta:
                return
        if self._open:
            self._emit(delta)
            return
        self._held.append(delta)
        text = "".join(self._held)
        if not may_be_json_call(text):
            self._open = True
            self._held.clear()
            self._emit(text)

    def finish(self, recovered: bool) -> None:
        """End of the reply: speak what was held unless it turned out to be tool calls."""
        if self._held and not recovered:
            self._emit("".join(self._held))
        self._held.clear()

    def _emit(self, text: str) -> None:
        if text:
            self.spoke = True
            self._said.append(text)
            if self._on_text is not None:
                self._on_text(text)
