"""MCP client over stdio: each [[tools.mcp]] server's tools appear as ordinary tools.

The stdio transport is newline-delimited JSON-RPC 2.0 on the child's stdin/stdout; stderr is
the server's log (its tail goes into error messages). Lifecycle: initialize ->
notifications/initialized -> tools/list (following nextCursor) -> tools/call per use ->
close stdin, then terminate, then kill.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import re
import subprocess
import threading
from typing import IO, Any

from voiceagent import __version__
from voiceagent.agent.tools import Tool
from voiceagent.config import MCPServerConfig
from voiceagent.errors import MCPError, ToolError

log = logging.getLogger(__name__)

PROTOCOL_VERSION = "2025-06-18"
MAX_PAGES = 20
DESCRIPTION_CHARS = 400
"""Long descriptions cost every request prompt tokens; small models read the start only."""


class MCPServer:
    """One running server process and its JSON-RPC conversation."""

    def __init__(self, config: MCPServerConfig):
        self.config = config
        self.name = config.name or config.command
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._replies: dict[int, dict[str, Any]] = {}
        self._write_lock = threading.Lock()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._proc: subprocess.Popen[bytes] | None = None
        self._threads: list[threading.Thread] = []

    def start(self, taken: set[str] | None = None) -> list[Tool]:
        """Start the process, shake hands and list its tools; MCPError on any failure.

        A tool whose name is in `taken` (a built-in's, another server's) is renamed
        <server>_<tool>; the names used are added to `taken`.
        """
        try:
            self._proc = subprocess.Popen(
                [self.config.command, *self.config.args], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise MCPError(f"MCP server {self.name!r} could not start "
                           f"{self.config.command!r}: {exc.strerror or exc}") from None
        assert self._proc.stdout is not None and self._proc.stderr is not None
        for target, stream in ((self._read_stdout, self._proc.stdout),
                               (self._read_stderr, self._proc.stderr)):
            thread = threading.Thread(target=target, args=(stream,), daemon=True,
                                      name=f"mcp-{self.name}")
            thread.start()
            self._threads.append(thread)
        self.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "voiceagent", "version": __version__},
        })
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        taken = set() if taken is None else taken
        return [self._tool(spec, taken) for spec in self._list_tools()]

    def _list_tools(self) -> list[dict[str, Any]]:
        specs: list[dict[str, Any]] = []
        cursor = None
        for _ in range(MAX_PAGES):
            result = self.request("tools/list", {"cursor": cursor} if cursor else {})
            specs += [s for s in result.get("tools", []) if isinstance(s, dict) and s.get("name")]
            cursor = result.get("nextCursor")
            if not cursor:
                break
        return specs

    def _tool(self, spec: dict[str, Any], taken: set[str]) -> Tool:
        remote = str(spec["name"])
        name = _safe_name(remote)
        if name in taken:
            name = _safe_name(f"{self.name}_{remote}")
        taken.add(name)
        schema = spec.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            schema = {"type": "object", "properties": {}}
        description = " ".join(str(spec.get("description") or remote).split())

        def call(**arguments: Any) -> str:
            return self.call(remote, arguments)

        return Tool(
            name=name,
            description=description[:DESCRIPTION_CHARS],
            parameters=schema,
            func=call,
            needs_approval=self.config.needs_approval,
        )

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        """Run a tool; its text content, or ToolError with the server's message."""
        try:
            result = self.request("tools/call", {"name": tool, "arguments": arguments})
        except MCPError as exc:
            raise ToolError(str(exc)) from None
        text = _content_text(result)
        if result.get("isError"):
            raise ToolError(text or f"{tool} reported an error")
        return text or "done"

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait for its reply (config.timeout_s)."""
        request_id = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        with self._cond:
            answered = self._cond.wait_for(
                lambda: request_id in self._replies or not self._alive(),
                timeout=self.config.timeout_s,
            )
            reply = self._replies.pop(request_id, None)
        if reply is None:
            if not answered:
                raise MCPError(f"MCP server {self.name!r} did not answer {method} within "
                               f"{self.config.timeout_s:g} s")
            raise MCPError(f"MCP server {self.name!r} exited (code {self._exit_code()}) "
                           f"during {method}{self._log_tail()}")
        if "error" in reply:
            error = reply["error"] if isinstance(reply["error"], dict) else {}
            raise MCPError(f"MCP server {self.name!r}: {method} failed: "
                           f"{error.get('message', reply['error'])}")
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def _send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        with self._write_lock:
            try:
                if self._proc is None or self._proc.stdin is None:
                    raise OSError("closed")
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
            except (ValueError, OSError):
                raise MCPError(f"MCP server {self.name!r} is not running "
                               f"(exit code {self._exit_code()}){self._log_tail()}") from None

    def _read_stdout(self, stream: IO[bytes]) -> None:
        for line in stream:
            try:
                message = json.loads(line)
            except ValueError:
                log.debug("MCP %s: not JSON on stdout: %r", self.name, line[:200])
                continue
            if not isinstance(message, dict):
                continue
            if "method" in message and "id" in message:
                self._answer_server_request(message)
            elif "id" in message:
                with self._cond:
                    self._replies[message["id"]] = message
                    self._cond.notify_all()
        with self._cond:  # end of output: wake waiters so they report the exit
            self._cond.notify_all()

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        """Servers may ping; other requests (sampling, roots) are not offered."""
        if message["method"] == "ping":
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "error": {"code": -32601, "message": "Method not found"}}
        try:
            self._send(reply)
        except MCPError:
            pass

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stderr.append(line.decode("utf-8", errors="replace").rstrip())

    def _alive(self) -> bool:
        return self._proc is not None and self._threads[0].is_alive()

    def _exit_code(self) -> int | None:
        if self._proc is None:
            return None
        try:
            return self._proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return None

    def _log_tail(self) -> str:
        for thread in self._threads[1:]:
            thread.join(timeout=1)
        tail = " | ".join(line for line in list(self._stderr)[-3:] if line)
        return f": {tail}" if tail else ""

    def close(self) -> None:
        """Close stdin (the spec's shutdown), then terminate, then kill."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin:
            try:
                proc.stdin.close()
            except OSError:
                pass
        for stop in (None, proc.terminate, proc.kill):
            if stop:
                stop()
            try:
                proc.wait(timeout=2)
                break
            except subprocess.TimeoutExpired:
                continue
        for thread in self._threads:
            thread.join(timeout=2)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


def _safe_name(name: str) -> str:
    """Tool names as the wire formats accept them."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]


def _content_text(result: dict[str, Any]) -> str:
    parts = []
    for item in result.get("content") or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "text":
            parts.append(str(item.get("text", "")))
        elif kind == "resource" and isinstance(item.get("resource"), dict):
            resource = item["resource"]
            parts.append(str(resource.get("text") or resource.get("uri", "")))
        else:
            parts.append(f"[{kind} content]")
    if not parts and result.get("structuredContent") is not None:
        parts.append(json.dumps(result["structuredContent"], ensure_ascii=False))
    return "\n".join(p for p in parts if p)


def start_servers(configs: list[MCPServerConfig], taken: set[str]) -> tuple[
        list[MCPServer], list[Tool], list[str]]:
    """Start every configured server: (running servers, their tools, warnings). Names in
    `taken` are not reused (see MCPServer.start)."""
    servers: list[MCPServer] = []
    tools: list[Tool] = []
    warnings: list[str] = []
    for config in configs:
        server = MCPServer(config)
        try:
            tools += server.start(taken)
        except MCPError as exc:
            warnings.append(f"{exc}; its tools are skipped.")
            server.close()
            continue
        servers.append(server)
    return servers, tools, warnings
