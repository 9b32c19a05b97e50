"""The config file: where it is found, how it is loaded into a Config, and config.toml as
the code documents it (a test keeps the repository's config.toml equal to default_toml()).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from pathlib import Path
from typing import Any

from voiceagent.config import Config
from voiceagent.errors import ConfigError
from voiceagent.toml_tables import documented_toml, from_table


def find_config(explicit: str | None) -> Path | None:
    """--config PATH, $VOICEAGENT_CONFIG, ./config.toml, $XDG_CONFIG_HOME/voiceagent/config.toml."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("VOICEAGENT_CONFIG")
    if env:
        return Path(env)
    local = Path("config.toml")
    if local.is_file():
        return local
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    user = Path(xdg) / "voiceagent" / "config.toml"
    return user if user.is_file() else None


def load_config(path: str | Path | None = None) -> Config:
    """Read and check a config file; None means built-in defaults."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return config_from_dict(data, str(path))


def config_from_dict(data: dict[str, Any], source: str = "<dict>") -> Config:
    """Build a Config from parsed TOML, naming `source` in every error."""
    config = from_table(Config, {k: v for k, v in data.items()}, source, "")
    return dataclasses.replace(config, source=source)


def default_toml() -> str:
    """config.toml with every key at its default and its documentation (kept in sync by a
    test, so a new key cannot go undocumented)."""
    return documented_toml(Config(), HEADER, examples={"mcp": MCP_EXAMPLE})


HEADER = (
    "voiceagent configuration: every key, at its default, with what it does.",
    "Found in this order: --config PATH, $VOICEAGENT_CONFIG, ./config.toml,",
    "$XDG_CONFIG_HOME/voiceagent/config.toml, else built-in defaults.",
    "A wrong key, type or value stops voiceagent with one line naming it.",
)
MCP_EXAMPLE = (
    "[[tools.mcp]]",
    'name = "files"',
    'command = "npx"',
    'args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/pi"]',
)
"""Shown commented out in place of [tools] mcp (a list of tables has no one-line default)."""
