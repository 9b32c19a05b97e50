"""The internal conversation shape that hides both wire formats from the loop and the tools."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from voiceagent.agent.outcome import Ref

Role = Literal["user", "assistant", "tool"]
ToolChoice = Literal["auto", "none", "required"] | tuple[str, ...]
"""Whether the model may call a tool (auto), must not (none), must (required), or must call
one of the tools named (a tuple). Sent as the wire format's own fields: every tool stays in
the prompt, so its cached prefix still holds."""


@dataclass(frozen=True)
class ToolCall:
    """A call the model asked for."""

    id: str
    """The call id; its result is paired to it."""
    name: str
    """The tool's name as the model wrote it (may be unknown)."""
    args: dict[str, Any]
    """Parsed arguments; empty when `bad_json` is set."""
    bad_json: str | None = None
    """The raw argument text when it was not valid JSON (reported back to the model)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "name": self.name, "args": self.args}
        if self.bad_json is not None:
            data["bad_json"] = self.bad_json
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        return cls(data["id"], data["name"], dict(data.get("args") or {}), data.get("bad_json"))


@dataclass(frozen=True)
class Message:
    """One entry of the conversation (the system prompt is not a message)."""

    role: Role
    """Who speaks: the user, the assistant, or a tool result."""
    text: str = ""
    """Spoken/written text, or the tool result for role "tool"."""
    calls: tuple[ToolCall, ...] = ()
    """Tool calls of an assistant message."""
    call_id: str | None = None
    """For role "tool": the id of the call this result answers."""
    name: str | None = None
    """For role "tool": the tool's name (some wire formats want it)."""
    is_error: bool = False
    """For role "tool": the call failed (set by the tool run, never guessed from the text)."""
    refs: tuple[Ref, ...] = ()
    """For role "tool": what the call made, changed or read (agent/outcome.py)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "text": self.text}
        if self.calls:
            data["calls"] = [c.to_dict() for c in self.calls]
        if self.call_id is not None:
            data["call_id"] = self.call_id
        if self.name is not None:
            data["name"] = self.name
        if self.is_error:
            data["is_error"] = True
        if self.refs:
            data["refs"] = [r.to_dict() for r in self.refs]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        role = data["role"]
        if role not in ("user", "assistant", "tool"):
            raise ValueError(f"unknown role {role!r}")
        return cls(
            role=role,
            text=str(data.get("text", "")),
            calls=tuple(ToolCall.from_dict(c) for c in data.get("calls", ())),
            call_id=data.get("call_id"),
            name=data.get("name"),
            is_error=bool(data.get("is_error", False)),
            refs=tuple(Ref.from_dict(r) for r in data.get("refs", ())),
        )


@dataclass(frozen=True)
class Usage:
    """Tokens a request used, for the token and cost caps."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class Price:
    """What a model costs, in US dollars per million tokens (for the cost cap)."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, usage: Usage) -> float:
        return (usage.input_tokens * self.input_per_mtok
                + usage.output_tokens * self.output_per_mtok) / 1e6


@dataclass(frozen=True)
class Reply:
    """What the model answered to one request."""

    text: str
    """The reply's text (may be empty when it only calls tools)."""
    calls: tuple[ToolCall, ...] = ()
    """Tool calls, in the order the model wrote them."""
    usage: Usage = field(default_factory=Usage)
    """Token counts, when the server reports them."""


@dataclass(frozen=True)
class ToolSpec:
    """What the model is told about a tool."""

    name: str
    description: str
    parameters: dict[str, Any]
    """JSON Schema of the arguments object."""
