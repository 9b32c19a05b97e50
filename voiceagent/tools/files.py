"""File tools confined to one workspace folder: read_file, write_file, edit_file, list_dir.

Every path is relative to the workspace; absolute paths, '..' and anything that resolves
outside it (a symbolic link pointing out) are refused. Writes and edits need approval.
"""

from __future__ import annotations

from pathlib import Path

from voiceagent.agent.tools import Tool, tool
from voiceagent.atomic import write_atomic
from voiceagent.errors import ToolError

READ_LIMIT = 200_000
"""Bytes read from one file; the registry cuts the result further for the model."""


class Workspace:
    """The folder the file tools may touch."""

    def __init__(self, root: Path):
        root.mkdir(parents=True, exist_ok=True)
        self.root = root.resolve()

    def path(self, relative: str) -> Path:
        """The real path for `relative`, or a ToolError if it would leave the workspace."""
        text = relative.strip() or "."
        rel = Path(text)
        if rel.is_absolute() or text.startswith("~"):
            raise ToolError(f"{text!r} is an absolute path; use a path relative to the "
                            "workspace, e.g. 'notes/todo.txt'.")
        if ".." in rel.parts:
            raise ToolError(f"{text!r} uses '..'; paths must stay inside the workspace.")
        full = (self.root / rel).resolve()
        if not full.is_relative_to(self.root):
            raise ToolError(f"{text!r} leads outside the workspace through a symbolic link; "
                            "refused.")
        return full

    def show(self, full: Path) -> str:
        return str(full.relative_to(self.root)) if full != self.root else "."


def _text(path: Path, shown: str) -> str:
    if path.is_dir():
        raise ToolError(f"{shown!r} is a folder; use list_dir to see what is in it.")
    if not path.exists():
        raise ToolError(f"there is no file {shown!r}; use list_dir to see the files.")
    with open(path, "rb") as f:
        data = f.read(READ_LIMIT)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown!r} is not a text file.") from None


def make_tools(workspace: Path) -> list[Tool]:
    """The four file tools over `workspace`."""
    ws = Workspace(workspace)

    @tool
    def read_file(path: str) -> str:
        """Use when the user asks to read or show a file in the workspace.

        Args:
            path: the file, relative to the workspace, e.g. "notes.txt".
        """
        full = ws.path(path)
        return _text(full, ws.show(full)) or "(the file is empty)"

    @tool(needs_approval=True)
    def write_file(path: str, content: str) -> str:
        """Use when the user asks to create a file or replace all of its text.

        Args:
            path: the file, relative to the workspace, e.g. "notes.txt".
            content: the complete new text of the file.
        """
        full = ws.path(path)
        if full.is_dir():
            raise ToolError(f"{ws.show(full)!r} is a folder, not a file.")
        write_atomic(full, content)
        return f"Wrote {len(content)} characters to {ws.show(full)}."

    @tool(needs_approval=True)
    def edit_file(path: str, old_text: str, new_text: str) -> str:
        """Use when the user asks to change part of a file: replaces old_text, which must
        appear exactly once, with new_text.

        Args:
            path: the file, relative to the workspace.
            old_text: the exact text to replace (copy it from read_file).
            new_text: the text to put in its place.
        """
        full = ws.path(path)
        shown = ws.show(full)
        text = _text(full, shown)
        count = text.count(old_text) if old_text else 0
        if count == 0:
            raise ToolError(f"old_text was not found in {shown}; read_file it and copy the "
                            "exact text, including spaces and line breaks.")
        if count > 1:
            raise ToolError(f"old_text appears {count} times in {shown}; include more of the "
                            "surrounding text so it appears once.")
        write_atomic(full, text.replace(old_text, new_text, 1))
        return f"Edited {shown}."

    @tool
    def list_dir(path: str = ".") -> str:
        """Use when the user asks which files or folders are in the workspace or a folder.

        Args:
            path: the folder, relative to the workspace; "." for the workspace itself.
        """
        full = ws.path(path)
        shown = ws.show(full)
        if not full.is_dir():
            raise ToolError(f"{shown!r} is not a folder in the workspace.")
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in full.iterdir())
        return f"{shown}: " + (", ".join(names) if names else "empty")

    return [read_file, write_file, edit_file, list_dir]
