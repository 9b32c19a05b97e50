"""The built-in tools, the user's own tool modules and MCP servers, gathered into one registry.

    toolbox = build_tools(config, ToolContext(data_dir, mode, announce, reset_conversation))
    loop uses toolbox.registry; toolbox.vocabulary biases speech recognition;
    toolbox.close() at exit stops the timer thread and the MCP servers.

Problems that must not stop the assistant (a plugin that does not import, an MCP server that
does not start) are logged and collected in `toolbox.warnings` for the front end to show.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from voiceagent.agent.tools import Tool, ToolRegistry, tool
from voiceagent.config import Config
from voiceagent.ports import Clock
from voiceagent.tools import (
    calculator,
    clock,
    conversation,
    files,
    lists,
    mcp,
    plugins,
    shell,
    system,
    timers,
)
from voiceagent.tools.timer_store import Bell, Timers
from voiceagent.wallclock import SystemClock, clock_for

__all__ = ["FAMILIES", "ToolContext", "Toolbox", "build_tools", "tool", "workspace"]

log = logging.getLogger(__name__)

FAMILIES = ("clock", "timers", "lists", "calculator", "files", "shell", "system", "conversation")


def _quiet(_text: str) -> None:
    """Default announce for front ends without a speaker (e.g. `voiceagent ask`)."""


def _nothing() -> None:
    """Default reset for front ends without a conversation to reset."""


@dataclass
class ToolContext:
    """What the tools need from the running assistant."""

    data_dir: Path
    """Lists, notes and timers live here."""
    mode: str = "ask"
    """ptt, kiosk, daemon or ask: the shell tool is left out in kiosk mode."""
    announce: Callable[[str], None] = _quiet
    """Speak a text now, even while idle (a timer going off). Called from the timer thread."""
    fires_timers: bool = False
    """This process tells the user when a timer is due (it keeps running and can speak).
    False: timers are kept but not fired; the running assistant announces them."""
    reset_conversation: Callable[[], None] = _nothing
    """Forget the conversation (called from inside a turn, by the conversation tool)."""
    clock: Clock | None = None
    """Now, for timers, alarms, the clock and notes; None: the system clock in [tools]
    timezone."""
    room: str = ""
    """The room this assistant serves (`voiceagent hub`): its timers ring only there."""


@dataclass
class Toolbox:
    """The registry plus what must be stopped at exit."""

    registry: ToolRegistry
    warnings: list[str] = field(default_factory=list)
    """Non-fatal problems, one sentence each, for the user (not the model)."""
    vocabulary_sources: list[Callable[[], list[str]]] = field(default_factory=list)
    """Each gives words worth biasing speech recognition towards (read when asked)."""
    closers: list[Callable[[], None]] = field(default_factory=list)

    @property
    def vocabulary(self) -> list[str]:
        """Words for speech-recognition biasing, as they are now (list names, aliases)."""
        words: list[str] = []
        for source in self.vocabulary_sources:
            words += [w for w in source() if w not in words]
        return words

    def close(self) -> None:
        """Stop the timer thread and MCP servers; safe to call twice."""
        while self.closers:
            self.closers.pop()()

    def warn(self, text: str) -> None:
        log.warning("%s", text)
        self.warnings.append(text)


def build_tools(config: Config, ctx: ToolContext) -> Toolbox:
    """The tool families in config.tools.enabled, plugin modules and MCP tools."""
    tc = config.tools
    box = Toolbox(ToolRegistry(result_chars=config.agent.tool_result_chars))
    if ctx.clock is None:
        system, warning = clock_for(tc.timezone)
        if warning:
            box.warn(warning)
        ctx = replace(ctx, clock=system)
    unknown = [f for f in tc.enabled if f not in FAMILIES]
    if unknown:
        box.warn(f"unknown tool families in [tools] enabled: {', '.join(unknown)} "
                 f"(known: {', '.join(FAMILIES)})")
    for family in FAMILIES:
        if family in tc.enabled:
            for t in _family(family, config, ctx, box):
                _add(box, t)
    source = Path(config.source)
    config_dir = source.parent if source.is_file() else None
    for entry in tc.modules:
        try:
            found = plugins.load_tools(entry, config_dir)
        except plugins.PluginError as exc:
            box.warn(str(exc))
            continue
        for t in found:
            _add(box, t)
    servers, remote, problems = mcp.start_servers(tc.mcp, set(box.registry.names))
    box.closers += [s.close for s in servers]
    for problem in problems:
        box.warn(problem)
    for t in remote:
        _add(box, t)
    return box


def _family(name: str, config: Config, ctx: ToolContext, box: Toolbox) -> list[Tool]:
    tc = config.tools
    if name == "clock":
        return clock.make_tools(ctx.clock or SystemClock())
    if name == "timers":
        store = Timers(ctx.data_dir / "timers.json", ctx.clock or SystemClock(), room=ctx.room)
        if ctx.fires_timers:
            box.closers.append(Bell(store, ctx.announce).close)
        return timers.make_tools(store)
    if name == "lists":
        made, list_store = lists.make_tools(ctx.data_dir, tc.list_aliases,
                                            ctx.clock or SystemClock())
        box.vocabulary_sources.append(
            lambda: [*list_store.names(), *tc.list_aliases, *tc.list_aliases.values()])
        return made
    if name == "calculator":
        return calculator.make_tools()
    if name == "files":
        return files.make_tools(workspace(config))
    if name == "shell":
        if ctx.mode == "kiosk" and not tc.shell_in_kiosk:
            box.warn("the shell tool is left out in kiosk mode ([tools] shell_in_kiosk = false)")
            return []
        return shell.make_tools(workspace(config), tc.shell_timeout_s)
    if name == "system":
        return system.make_tools(system.SystemInfo(disk_path=_existing(ctx.data_dir)))
    return conversation.make_tools(ctx.reset_conversation)


def workspace(config: Config) -> Path:
    """The folder the file and shell tools work in."""
    ws = config.tools.workspace
    return Path(ws).expanduser() if ws else config.data_dir / "workspace"


def _existing(path: Path) -> Path:
    """The nearest existing folder (disk usage of a data dir not yet created)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _add(box: Toolbox, t: Tool) -> None:
    try:
        box.registry.add(t)
    except Exception as exc:  # a duplicate name or a bad schema skips that tool only
        box.warn(f"tool {t.name!r} skipped: {exc}")
