"""Reading a language's YAML files, one way: a key written twice is an error naming both
lines. Plain YAML keeps the last one silently: a second `repeated:` note in say.yaml once
replaced the loop warning of the same name, and only a test noticed."""

from __future__ import annotations

from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

from voiceagent.errors import ConfigError

_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's loader when it is there: the lexicon is read at start."""


class _UniqueKeys(_BASE):  # type: ignore[misc, valid-type]
    """A safe loader that refuses a mapping with the same key twice."""


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _value in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise ConfigError(f"{key_node.start_mark.name}: line {line}: {key!r} is written "
                              f"twice (also on line {seen[key]}); keep one")
        seen[key] = line
    return loader.construct_mapping(node, deep=True)


_UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_data(path: Path | Traversable) -> dict[str, Any]:
    """The YAML mapping in `path` ({} for an empty file)."""
    with path.open(encoding="utf-8") as f:
        loader = _UniqueKeys(f)
        try:
            return loader.get_single_data() or {}
        finally:
            loader.dispose()
