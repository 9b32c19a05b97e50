"""A tool: a JSON Schema plus the function that does the work, and @tool, which makes one from
a plain function (the schema from its signature and type hints, the descriptions from its
docstring)."""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from voiceagent.agent.messages import ToolSpec
from voiceagent.agent.outcome import Outcome


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
    found: tuple[tuple[str, Callable[[str], str]], ...] = ()
    """(parameter, finder): the value the user named for an optional parameter the call
    left empty, found in their words ("list the items on my shopping list" -> read_list()
    reads "shopping", not every list's name)."""
    creates: tuple[tuple[str, str], ...] = ()
    """(parameter, lexicon word set): a value that names nothing that exists yet (`known`)
    makes a new thing, which only a request that speaks of one may do: a word of that set
    said, or the value one of them ("Add five more minutes to it." after a pasta timer made
    a "pasta" list)."""
    asked_by: tuple[tuple[str, str], ...] = ()
    """(parameter, lexicon word set): a parameter that changes what the call does (more time
    on a running timer instead of a new one) counts only when the user said a word of that
    set ("add", "more"); otherwise it is left out."""
    keeps: Callable[[str], bool] | None = None
    """Whether a request names a thing of the user's this tool keeps (a list "the favours",
    the "dumpling" timer): such a request is on the tool's topic without its words ("take
    him off the guests", "dumpling still how many minute")."""
    recalls: bool = False
    """The conversation's amounts count as said for its arguments (the user's earlier words
    and the last results), as they do for a follow-up: a sum on an earlier total ("now stick
    twenty percent vat on top") or distance ("took me an hour 38, what's my average")."""
    misfits: Callable[[str], str] | None = None
    """Why the tool does not serve a request the model called it for ("" when it does),
    told to the model: the clock read for "if it's seven in the evening in dublin what time
    is that in perth", which names a time of day to convert."""
    retried: bool = True
    """Among the tools a turn asks the model to use when it answered without them (a claim
    no result backs): the clock's time-zone converter is not, it is for a question that
    names two clocks, and "what time is it" asked again must get the time."""

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
    asked_by: Mapping[str, str] | None = None,
    creates: Mapping[str, str] | None = None,
    found: Mapping[str, Callable[[str], str]] | None = None,
    keeps: Callable[[str], bool] | None = None,
    recalls: bool = False,
    misfits: Callable[[str], str] | None = None,
    retried: bool = True,
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
            asked_by=tuple((asked_by or {}).items()),
            creates=tuple((creates or {}).items()),
            found=tuple((found or {}).items()),
            keeps=keeps,
            recalls=recalls,
            misfits=misfits,
            retried=retried,
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
