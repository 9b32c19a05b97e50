"""The shell tool: one command in the workspace, approved every time, with a time limit.

Off unless "shell" is in [tools] enabled, and left out in kiosk mode (anyone in the room could
ask) unless [tools] shell_in_kiosk is set. The command runs in its own process group so a
time-out kills everything it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from voiceagent.agent.tools import Tool, tool
from voiceagent.errors import ToolError

OUTPUT_CHARS = 1000
"""The tail of the output that is kept (errors are usually at the end)."""


def run(command: str, cwd: Path, timeout_s: float) -> str:
    """Exit status and the (tail of the) combined output."""
    cwd.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command], cwd=cwd, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise ToolError(f"the command did not finish within {timeout_s:g} seconds and was "
                        "stopped.") from None
    text = out.decode("utf-8", errors="replace").strip()
    if len(text) > OUTPUT_CHARS:
        text = f"[... {len(text) - OUTPUT_CHARS} characters cut]\n" + text[-OUTPUT_CHARS:]
    return f"exit code {proc.returncode}\n{text or '(no output)'}"


def make_tools(workspace: Path, timeout_s: float) -> list[Tool]:
    """run_command, confined to `workspace` as its working folder."""

    @tool(needs_approval=True)
    def run_command(command: str) -> str:
        """Use only when the user explicitly asks to run a shell command on this computer.

        Args:
            command: the shell command line, e.g. "ls -l".
        """
        if not command.strip():
            raise ToolError("give the command to run.")
        return run(command, workspace, timeout_s)

    return [run_command]
