"""Tools: plain functions become tools (schema from signature, hints and docstring).

A tool's failures never raise into the loop: unknown names, bad JSON, schema violations and
exceptions all come back as a short text written for the model, naming the parameter and the
valid values, so the model can fix its call.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

import jsonschema

from voiceagent.agent.messages import ToolCall, ToolSpec
from voiceagent.agent.outcome import Outcome
from voiceagent.errors import ToolError

DEFAULT_RESULT_CHARS = 1500
"""Results are re-sent on every later step, so they are kept short."""


@dataclass(frozen=True)
class Tool:
    """A JSON Schema plus the function that does the work."""

    name: str
    description: str
    """Tells the model when to use the tool: the description is the routing."""
    parameters: dict[str, Any]
    """JSON Schema of the arguments object."""
    func: Callable[..., Any]
    needs_approval: bool = False
    """Irreversible tools ask the user first."""
    speaks_result: bool = False
    """The result is itself the spoken answer (a confirmation, the time): the turn ends
    with it, without a second model request."""
    answers: Callable[[str], bool] | None = None
    """With `speaks_result`, which requests (the user's words) the result answers whole;
    others get the second model pass: the time is not the answer to "How many days until
    Christmas?"."""
    writes: bool = False
    """It changes something (adds, removes, starts, forgets): never run on a doubtful
    transcript."""
    destroys: bool = False
    """It deletes or forgets (clear a list, cancel timers, forget the conversation): runs only
    when the user clearly asked for that."""
    grounded: tuple[str, ...] = ()
    """Free-text parameters that name what the user said (list items, labels, places):
    their words must occur in the user's utterance, or the call goes back to the model."""
    counted: tuple[str, ...] = ()
    """Parameters whose numbers the user must have said (a duration, a clock time): "start a
    stopwatch" became a 10-second timer, "add a reminder to buy milk" a 7:30 alarm."""
    asks: tuple[tuple[str, str], ...] = ()
    """(parameter, question): what to ask the user when a required `counted` parameter was
    not said at all ("Set an alarm." -> "For what time?"), instead of another model pass."""
    sentences: tuple[str, ...] = ()
    """Sentence templates (hassil syntax) that run this tool without the model."""
    known: tuple[tuple[str, Callable[[str], bool]], ...] = ()
    """(parameter, exists): a `grounded` value that names something that already exists (a
    list the user has) need not have been said; a new one must ("reserve the closest uber"
    made an "uber-reservations" list)."""
    carries: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(lexicon word set, parameters): words of that set the user said must be in one of
    those parameters ("days", ("time", "label")): the inverse of `grounded`."""

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters)

    def __call__(self, **kwargs: Any) -> Any:
        """Call the function directly: what it says, as a sentence (its Outcome's `say`);
        the registry's run() gives the whole outcome."""
        result = self.func(**kwargs)
        return result.say if isinstance(result, Outcome) else result


def tool(
    func: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    needs_approval: bool = False,
    speaks_result: bool = False,
    answers: Callable[[str], bool] | None = None,
    writes: bool = False,
    destroys: bool = False,
    grounded: Iterable[str] = (),
    counted: Iterable[str] = (),
    asks: Mapping[str, str] | None = None,
    sentences: Iterable[str] = (),
    carries: Mapping[str, Iterable[str]] | None = None,
    known: Mapping[str, Callable[[str], bool]] | None = None,
) -> Any:
    """Decorator: `@tool` or `@tool(needs_approval=True, ...)` turns a function into a Tool.
    Used bare on an existing function too: `tool(func, speaks_result=True)`.

    The description is the docstring's text before an `Args:` section; each parameter's
    description comes from that section; `Literal[...]` hints become enums. The keyword
    flags are the Tool fields of the same names.
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        description, param_docs = _parse_docstring(inspect.getdoc(f) or "")
        return Tool(
            name=name or f.__name__,
            description=description or f.__name__.replace("_", " "),
            parameters=schema_from_signature(f, param_docs),
            func=f,
            needs_approval=needs_approval,
            speaks_result=speaks_result,
            answers=answers,
            writes=writes or needs_approval or destroys,
            destroys=destroys,
            grounded=tuple(grounded),
            counted=tuple(counted),
            asks=tuple((asks or {}).items()),
            sentences=tuple(sentences),
            carries=tuple((k, tuple(v)) for k, v in (carries or {}).items()),
            known=tuple((known or {}).items()),
        )

    return wrap(func) if func is not None else wrap


def schema_from_signature(func: Callable[..., Any], docs: dict[str, str]) -> dict[str, Any]:
    """The JSON Schema of a function's keyword arguments."""
    hints = typing.get_type_hints(func)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for pname, param in inspect.signature(func).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        prop = _json_type(hints.get(pname, str))
        if pname in docs:
            prop["description"] = docs[pname]
        if param.default is inspect.Parameter.empty:
            required.append(pname)
        elif param.default is not None:
            prop["default"] = param.default
        properties[pname] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _json_type(hint: Any) -> dict[str, Any]:
    origin = get_origin(hint)
    if origin is Literal:
        values = list(get_args(hint))
        return {"type": _json_type(type(values[0]))["type"], "enum": values}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        return _json_type(options[0]) if len(options) == 1 else {}
    if origin in (list, tuple, set, frozenset, Iterable):
        (item,) = get_args(hint)[:1] or (str,)
        return {"type": "array", "items": _json_type(item)}
    if origin is dict or hint is dict:
        return {"type": "object"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    return {"type": simple.get(hint, "string")}


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    parts = re.split(r"^\s*(?:Args|Arguments|Parameters):\s*$", doc, maxsplit=1, flags=re.M)
    description = " ".join(parts[0].split())
    params: dict[str, str] = {}
    if len(parts) == 2:
        current = None
        for line in parts[1].splitlines():
            match = re.match(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$", line)
            if match:
                current = match.group(1)
                params[current] = match.group(2).strip()
            elif current and line.strip():
                params[current] += " " + line.strip()
    return description, params


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
