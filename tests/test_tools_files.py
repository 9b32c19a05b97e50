"""File tools stay inside the workspace; the shell tool is approved, time-limited and cut."""

import os
import time

import pytest

from voiceagent.agent.messages import ToolCall
from voiceagent.agent.tools import ToolRegistry
from voiceagent.errors import ToolError
from voiceagent.tools import files, shell


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "workspace"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "plan.txt").write_text("step one\nstep two\n")
    (tmp_path / "secret.txt").write_text("outside")
    return root


@pytest.fixture
def t(ws):
    return {tool.name: tool for tool in files.make_tools(ws)}


def test_read_write_edit_list(t, ws):
    assert t["read_file"](path="docs/plan.txt") == "step one\nstep two\n"
    assert t["write_file"](path="new/notes.md", content="hello") == (
        "Wrote 5 characters to new/notes.md.")
    assert (ws / "new" / "notes.md").read_text() == "hello"
    assert t["edit_file"](path="docs/plan.txt", old_text="step two", new_text="step 2") == (
        "Edited docs/plan.txt.")
    assert (ws / "docs" / "plan.txt").read_text() == "step one\nstep 2\n"
    assert t["list_dir"]() == ".: docs/, new/"
    assert t["list_dir"](path="docs") == "docs: plan.txt"


def test_writes_and_edits_need_approval(t):
    assert t["write_file"].needs_approval and t["edit_file"].needs_approval
    assert not t["read_file"].needs_approval and not t["list_dir"].needs_approval


def test_edit_needs_a_unique_exact_match(t):
    with pytest.raises(ToolError, match="not found.*copy the exact text"):
        t["edit_file"](path="docs/plan.txt", old_text="step three", new_text="x")
    with pytest.raises(ToolError, match="appears 2 times"):
        t["edit_file"](path="docs/plan.txt", old_text="step", new_text="x")


def test_missing_and_wrong_kinds_are_explained(t, ws):
    with pytest.raises(ToolError, match="no file 'nope.txt'; use list_dir"):
        t["read_file"](path="nope.txt")
    with pytest.raises(ToolError, match="is a folder"):
        t["read_file"](path="docs")
    (ws / "blob.bin").write_bytes(b"\xff\xfe\x00\x80")
    with pytest.raises(ToolError, match="not a text file"):
        t["read_file"](path="blob.bin")


@pytest.mark.parametrize("path, reason", [
    ("../secret.txt", "'..'"),
    ("docs/../../secret.txt", "'..'"),
    ("/etc/passwd", "absolute path"),
    ("~/secret.txt", "absolute path"),
])
def test_paths_outside_the_workspace_are_refused(t, path, reason):
    for name, args in [("read_file", {}), ("write_file", {"content": "x"}),
                       ("edit_file", {"old_text": "a", "new_text": "b"}), ("list_dir", {})]:
        with pytest.raises(ToolError, match=reason):
            t[name](path=path, **args)


def test_symlinks_leading_out_are_refused(t, ws, tmp_path):
    os.symlink(tmp_path / "secret.txt", ws / "link.txt")
    os.symlink(tmp_path, ws / "escape")
    os.symlink(tmp_path / "not-yet.txt", ws / "dangling.txt")
    with pytest.raises(ToolError, match="outside the workspace through a symbolic link"):
        t["read_file"](path="link.txt")
    with pytest.raises(ToolError, match="symbolic link"):
        t["write_file"](path="escape/new.txt", content="x")
    with pytest.raises(ToolError, match="symbolic link"):
        t["write_file"](path="dangling.txt", content="x")
    with pytest.raises(ToolError, match="symbolic link"):
        t["list_dir"](path="escape")
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "not-yet.txt").exists()
    assert (tmp_path / "secret.txt").read_text() == "outside"


def test_symlink_inside_the_workspace_is_fine(t, ws):
    os.symlink(ws / "docs" / "plan.txt", ws / "plan-link.txt")
    assert t["read_file"](path="plan-link.txt").startswith("step one")


def test_shell_runs_in_the_workspace_with_approval(ws):
    (run_command,) = shell.make_tools(ws, timeout_s=5)
    assert run_command.needs_approval
    assert run_command(command="echo hi; pwd") == f"exit code 0\nhi\n{ws.resolve()}"
    assert run_command(command="echo oops >&2; exit 3") == "exit code 3\noops"


def test_shell_output_is_cut_to_its_tail(ws):
    (run_command,) = shell.make_tools(ws, timeout_s=5)
    text = run_command(command="seq 1 2000")
    assert text.startswith("exit code 0\n[... ") and text.endswith("\n2000")
    assert len(text) < shell.OUTPUT_CHARS + 100


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_shell_timeout_kills_the_whole_command(ws):
    (run_command,) = shell.make_tools(ws, timeout_s=1)
    registry = ToolRegistry([run_command])
    call = ToolCall("1", "run_command", {"command": "sleep 30 & echo $! > sleep.pid; wait"})
    text, is_error = registry.run(call).pair
    assert is_error and "did not finish within 1 seconds" in text
    started = ws / "sleep.pid"  # on a loaded machine the shell may be stopped before it wrote
    if started.exists():  # killed with its group: the kernel ends a killed process after its
        pid = int(started.read_text())  # pipe closes, so it may still show for a moment
        gone = _gone_within(pid, seconds=10)  # (CI, loaded: seen running right after)
        assert gone, f"sleep {pid} outlived the timeout"


def _gone_within(pid: int, seconds: float) -> bool:
    """`pid` ends within `seconds` (a bound on an asynchronous exit, not a speed check: it
    returns as soon as the process is gone; the sleep it waits on runs 30 s)."""
    deadline = time.monotonic() + seconds
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
