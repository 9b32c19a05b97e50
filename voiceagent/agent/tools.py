"""The tool registry: the tools the model may call, and the one place a call is validated and
run (a tool itself, and @tool that makes one from a plain function, are in tool_def.py; both
are importable from here, as plugins do).

A tool's failures never raise into the loop: unknown names, bad JSON, schema violations and
exceptions all come back as a short text written for the model, naming the parameter and the
valid values, so the model can fix its call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import jsonschema

from voiceagent.agent.messages import ToolCall, ToolSpec
from voiceagent.agent.outcome import Outcome
from voiceagent.agent.tool_def import Tool, tool
from voiceagent.errors import ToolError

__all__ = ["DEFAULT_RESULT_CHARS", "Tool", "ToolRegistry", "tool", "truncate"]

DEFAULT_RESULT_CHARS = 1500
"""Results are re-sent on every later step, so they are kept short."""


def truncate(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters with a marker the model understands."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    return text[:limit] + f"\n[... {cut} more characters cut]"


class ToolRegistry:
    """The tools the model may call, and the one place a call is validated and run."""

    def __init__(self, tools: Iterable[Tool] = (), *, result_chars: int = DEFAULT_RESULT_CHARS):
        self._tools: dict[str, Tool] = {}
        self.result_chars = result_chars
        for t in tools:
            self.add(t)

    def add(self, t: Tool) -> None:
        if t.name in self._tools:
            raise ValueError(f"two tools are named {t.name!r}")
        jsonschema.Draft202012Validator.check_schema(t.parameters)
        self._tools[t.name] = t

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self._tools.values()]

    def validation_error(self, call: ToolCall) -> str | None:
        """Why `call` cannot run, written for the model; None when it can."""
        t = self._tools.get(call.name)
        if t is None:
            return (
                f"Error: there is no tool named {call.name!r}. "
                f"Available tools: {', '.join(self._tools) or 'none'}."
            )
        if call.bad_json is not None:
            return (
                f"Error: the arguments for {call.name} were not valid JSON "
                f"({call.bad_json[:200]!r}). Send a JSON object matching the tool's schema."
            )
        errors = sorted(
            jsonschema.Draft202012Validator(t.parameters).iter_errors(call.args),
            key=lambda e: list(e.path),
        )
        if errors:
            return "Error: " + " ".join(_describe(e, t.parameters) for e in errors[:3])
        return None

    def runnable(self, call: ToolCall) -> ToolCall | None:
        """`call` as `run` would run it (numbers written as strings read, unknown parameters
        left out), or None when it cannot run: the guards must see what will run."""
        fixed, _ignored = self._without_unknown(self._with_numbers(call))
        return None if self.validation_error(fixed) else fixed

    def run(self, call: ToolCall) -> Outcome:
        """Run a validated call; its outcome, failed (`error`) or not. Never raises.

        Small models often add a parameter the tool does not have; when the call is valid
        without it, it runs and the outcome's note says what was ignored.
        """
        call, ignored = self._without_unknown(self._with_numbers(call))
        problem = self.validation_error(call)
        if problem:
            return Outcome(problem, error=True)
        t = self._tools[call.name]
        try:
            result = t.func(**call.args)
        except ToolError as exc:
            return Outcome(f"Error: {exc}", error=True)
        except Exception as exc:  # a tool bug must not kill the turn; the model hears it
            return Outcome(f"Error: {call.name} failed: {type(exc).__name__}: {exc}", error=True)
        outcome = result if isinstance(result, Outcome) else Outcome(
            result if isinstance(result, str) else _to_text(result))
        outcome = Outcome(truncate(outcome.say, self.result_chars), outcome.refs, outcome.note)
        if ignored:
            outcome = outcome.noted(f"(Ignored unknown parameter(s): {', '.join(ignored)}.)")
        return outcome

    def _with_numbers(self, call: ToolCall) -> ToolCall:
        """Numbers the model wrote as strings ("5") become numbers where the schema wants
        one: small models do it often, and the call is otherwise right."""
        t = self._tools.get(call.name)
        if t is None:
            return call
        props = t.parameters.get("properties", {})
        args = dict(call.args)
        for key, value in call.args.items():
            kind = props.get(key, {}).get("type")
            if kind in ("number", "integer") and isinstance(value, str):
                try:
                    number = float(value.strip())
                except ValueError:
                    continue
                if kind == "number":
                    args[key] = number
                elif number.is_integer():
                    args[key] = int(number)
        return call if args == call.args else ToolCall(call.id, call.name, args, call.bad_json)

    def _without_unknown(self, call: ToolCall) -> tuple[ToolCall, list[str]]:
        t = self._tools.get(call.name)
        if t is None or t.parameters.get("additionalProperties", True) is not False:
            return call, []
        known = t.parameters.get("properties", {})
        ignored = [k for k in call.args if k not in known]
        if not ignored:
            return call, []
        args = {k: v for k, v in call.args.items() if k in known}
        return ToolCall(call.id, call.name, args, call.bad_json), ignored


def _to_text(result: Any) -> str:
    if result is None:
        return "done"
    import json

    return json.dumps(result, ensure_ascii=False, default=str)


def _describe(error: jsonschema.ValidationError, schema: dict[str, Any]) -> str:
    """One sentence naming the parameter, what was wrong and the valid values."""
    props = schema.get("properties", {})
    if error.validator == "required":
        missing = re.findall(r"'([^']+)' is a required property", error.message)
        name = missing[0] if missing else "?"
        return f"missing required parameter {name!r}{_hint(props.get(name, {}))}."
    if error.validator == "additionalProperties":
        return (
            f"unexpected parameter(s): {error.message.split('(')[-1].rstrip(')')}; "
            f"valid parameters are {', '.join(props) or 'none'}."
        )
    param = ".".join(str(p) for p in error.path) or "arguments"
    top = str(error.path[0]) if error.path else ""
    return f"parameter {param!r}: {error.message}{_hint(props.get(top, {}))}."


def _hint(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return f" (valid values: {', '.join(map(str, prop['enum']))})"
    if "type" in prop:
        return f" (expected {prop['type']})"
    return ""
