"""The user's own tools: modules named in [tools] modules whose @tool functions become tools.

An entry is an importable module name ("my_tools") or a path to a .py file (relative paths
are tried from the working folder, then from the config file's folder). A module that fails
to import is reported and skipped; the assistant still starts.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

from voiceagent.agent.tools import Tool
from voiceagent.errors import PluginError


def _find_file(entry: str, config_dir: Path | None) -> Path:
    path = Path(entry).expanduser()
    candidates = [path] if path.is_absolute() or config_dir is None else [path, config_dir / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise PluginError(f"file not found (looked at {', '.join(map(str, candidates))})")


def import_module(entry: str, config_dir: Path | None = None) -> ModuleType:
    """Import a module by name or from a .py path."""
    if not (entry.endswith(".py") or "/" in entry or "\\" in entry):
        return importlib.import_module(entry)
    path = _find_file(entry, config_dir)
    name = "voiceagent_plugin_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_tools(entry: str, config_dir: Path | None = None) -> list[Tool]:
    """The @tool functions of one module; PluginError (one clear line) if it cannot load."""
    try:
        module = import_module(entry, config_dir)
    except PluginError as exc:
        raise PluginError(f"tool module {entry!r} skipped: {exc}") from None
    except (Exception, SystemExit) as exc:  # the user's code may raise anything on import
        raise PluginError(f"tool module {entry!r} skipped: it failed to import: "
                          f"{type(exc).__name__}: {exc}") from None
    found = [value for value in vars(module).values() if isinstance(value, Tool)]
    if not found:
        raise PluginError(f"tool module {entry!r} has no functions decorated with @tool "
                          "(from voiceagent.tools import tool)")
    return found
