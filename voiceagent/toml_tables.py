"""Frozen dataclasses read from TOML tables and written back as documented TOML.

Each key is checked against its field: the type hint, and the field's metadata ("choices",
"min"; "doc" for the documentation). A wrong key, type or value is one ConfigError line naming
the file, the key, what was expected and what was found.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from voiceagent.errors import ConfigError


def from_table(cls: Any, data: Any, source: str, where: str) -> Any:
    """An instance of the dataclass `cls` from the TOML table `data` (at `where`, from
    `source`); keys missing from it keep their defaults."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: {where or 'top level'}: expected a table, "
                          f"found {_found(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "source"}
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for key, raw in data.items():
        label = f"{where}.{key}" if where else key
        if key not in fields:
            known = ", ".join(fields)
            what = f"[{where}]" if where else "top level"
            raise ConfigError(f"{source}: unknown key {label!r} in {what}; known keys: {known}")
        values[key] = _convert(hints[key], raw, fields[key], source, label)
    return cls(**values)


def _convert(hint: Any, raw: Any, f: dataclasses.Field, source: str, label: str) -> Any:
    if dataclasses.is_dataclass(hint):
        return from_table(hint, raw, source, label)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is list:
        if not isinstance(raw, list):
            _type_error(source, label, "a list", raw)
        item = args[0]
        if dataclasses.is_dataclass(item):
            return [from_table(item, r, source, f"{label}[{i}]") for i, r in enumerate(raw)]
        if not all(isinstance(r, str) for r in raw):
            _type_error(source, label, "a list of strings", raw)
        return list(raw)
    if origin is dict:
        if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
            _type_error(source, label, "a table of strings", raw)
        return dict(raw)
    if origin in (typing.Union, types.UnionType):
        if not any(isinstance(raw, a) and not isinstance(raw, bool) for a in args):
            _type_error(source, label, " or ".join(_type_name(a) for a in args), raw)
        return raw
    if hint is float and isinstance(raw, int) and not isinstance(raw, bool):
        raw = float(raw)
    if not isinstance(raw, hint) or (hint is not bool and isinstance(raw, bool)):
        _type_error(source, label, _type_name(hint), raw)
    choices, minimum = f.metadata.get("choices"), f.metadata.get("min")
    if choices and raw not in choices:
        raise ConfigError(f"{source}: {label}: expected one of {', '.join(map(str, choices))}, "
                          f"found {raw!r}")
    if minimum is not None and raw < minimum:
        raise ConfigError(f"{source}: {label}: expected a number >= {minimum:g}, found {raw!r}")
    return raw


def _type_name(t: Any) -> str:
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(
        t, getattr(t, "__name__", str(t))
    )


def _found(raw: Any) -> str:
    kind = {str: "string", int: "integer", float: "number", bool: "boolean", list: "list",
            dict: "table"}.get(type(raw), type(raw).__name__)
    return f"{raw!r} ({kind})"


def _type_error(source: str, label: str, expected: str, raw: Any) -> typing.NoReturn:
    raise ConfigError(f"{source}: {label}: expected {expected}, found {_found(raw)}")


def documented_toml(defaults: Any, header: Iterable[str],
                    examples: Mapping[str, Iterable[str]] | None = None) -> str:
    """The TOML of `defaults` (a dataclass of table dataclasses): every key at its value with
    its doc above it; a key in `examples` is shown as those lines, commented out."""
    lines = [f"# {line}" for line in header]
    for table in dataclasses.fields(defaults):
        if table.name == "source":
            continue
        section = getattr(defaults, table.name)
        about = (type(section).__doc__ or "").strip().split(": ", 1)[-1]
        lines += ["", f"[{table.name}]", f"# {about}"]
        for f in dataclasses.fields(section):
            lines.append(f"# {f.metadata['doc']}")
            if examples and f.name in examples:
                lines += [f"# {line}" for line in examples[f.name]]
                continue
            lines.append(f"{f.name} = {toml_value(getattr(section, f.name))}")
    return "\n".join(lines) + "\n"


def toml_value(value: Any) -> str:
    """`value` as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")
