"""build_tools: families from config, the user's tool modules, MCP servers over stdio."""

import sys
import threading
import time
from pathlib import Path

import pytest

from voiceagent.agent.messages import ToolCall
from voiceagent.config_file import config_from_dict
from voiceagent.front_end import ASK, KIOSK, PTT
from voiceagent.testing import FakeClock
from voiceagent.tools import FAMILIES, ToolContext, build_tools
from voiceagent.tools.timer_store import Timers
from voiceagent.tools.timers import make_tools

DATA = Path(__file__).parent / "data"
SERVER = str(DATA / "mcp_echo_server.py")


def build(tmp_path, front_end=PTT, **tools):
    config = config_from_dict({"paths": {"data_dir": str(tmp_path)}, "tools": tools})
    box = build_tools(config, ToolContext(tmp_path, front_end))
    return box


@pytest.fixture
def boxes():
    made = []
    yield made
    for box in made:
        box.close()


def test_every_family_builds_and_closes(tmp_path, boxes):
    box = build(tmp_path, enabled=list(FAMILIES))
    boxes.append(box)
    assert box.warnings == []
    for name in ("get_time", "set_timer", "add_to_list", "calculate", "convert_units",
                 "read_file", "run_command", "get_system_status", "forget_conversation"):
        assert name in box.registry
    box.close()
    box.close()  # twice is harmless


def test_only_enabled_families_and_unknown_ones_warned(tmp_path, boxes):
    box = build(tmp_path, enabled=["clock", "calculator", "weather"])
    boxes.append(box)
    assert box.registry.names == ["get_time", "convert_time", "calculate", "convert_units"]
    assert box.warnings == ["unknown tool families in [tools] enabled: weather (known: "
                            + ", ".join(FAMILIES) + ")"]


def test_shell_is_left_out_in_kiosk_mode_unless_configured(tmp_path, boxes):
    kiosk = build(tmp_path, KIOSK, enabled=["shell"])
    allowed = build(tmp_path / "b", KIOSK, enabled=["shell"], shell_in_kiosk=True)
    boxes += [kiosk, allowed]
    assert "run_command" not in kiosk.registry and "kiosk" in kiosk.warnings[0]
    assert "run_command" in allowed.registry


def test_list_names_and_aliases_feed_vocabulary(tmp_path, boxes):
    box = build(tmp_path, enabled=["lists"], list_aliases={"groceries": "shopping"})
    boxes.append(box)
    box.registry.run(ToolCall("1", "add_to_list", {"list_name": "hardware", "items": "nails"}))
    assert box.vocabulary == ["hardware", "groceries", "shopping"]


def test_only_a_toolbox_told_to_ring_timers_announces_them(tmp_path, boxes):
    past = Timers(tmp_path / "timers.json", FakeClock(time.time() - 7200))
    [set_timer] = [t for t in make_tools(past) if t.name == "set_timer"]
    set_timer.func(duration="1 hour", label="soup")  # its clock is 2 h behind: overdue now
    config = config_from_dict({"paths": {"data_dir": str(tmp_path)},
                               "tools": {"enabled": ["timers"]}})
    heard: list[str] = []
    said = threading.Event()

    def announce(text: str) -> None:
        heard.append(text)
        said.set()

    one_shot = build_tools(config, ToolContext(tmp_path, ASK))
    boxes.append(one_shot)
    assert one_shot.registry.run(ToolCall("1", "list_timers", {})).pair[0].startswith(
        "Your 1 hour soup timer has ")
    one_shot.close()
    assert heard == []
    running = build_tools(config, ToolContext(tmp_path, PTT))
    boxes.append(running)
    running.ring_timers(announce)
    assert said.wait(10)
    assert heard == ["Your 1 hour soup timer went off while I was not running."]


def test_two_turn_shopping_list_through_the_registry(tmp_path, boxes):
    box = build(tmp_path, enabled=["lists"])
    boxes.append(box)
    added = box.registry.run(ToolCall("1", "add_to_list",
                                      {"list_name": "shopping list", "items": "apples"})).pair
    read = box.registry.run(ToolCall("2", "read_list", {"list_name": "my shopping list"})).pair
    assert added == ("Added apples to your new shopping list.", False)
    assert read == ("Your shopping list has 1 item: apples.", False)


def test_plugin_module_from_a_file_path_adds_a_working_tool(tmp_path, boxes):
    box = build(tmp_path, enabled=[], modules=[str(DATA / "my_tools.py")])
    boxes.append(box)
    assert box.warnings == []
    assert box.registry.run(ToolCall("1", "spell_word", {"word": "cat"})).pair == (
        "cat is spelled C, A, T.", False)


def test_plugin_module_by_import_name(tmp_path, boxes, monkeypatch):
    monkeypatch.syspath_prepend(str(DATA))
    box = build(tmp_path, enabled=[], modules=["my_tools"])
    boxes.append(box)
    assert "spell_word" in box.registry
    sys.modules.pop("my_tools", None)


def test_broken_plugins_are_reported_and_skipped(tmp_path, boxes):
    (tmp_path / "broken.py").write_text("import does_not_exist_anywhere\n")
    (tmp_path / "empty.py").write_text("x = 1\n")
    box = build(tmp_path, enabled=["clock"], modules=[
        str(tmp_path / "broken.py"), str(tmp_path / "empty.py"), "no_such_module_xyz",
        "missing/file.py", str(DATA / "my_tools.py")])
    boxes.append(box)
    assert box.registry.names == ["get_time", "convert_time", "spell_word"]
    assert len(box.warnings) == 4
    assert "broken.py" in box.warnings[0] and "ModuleNotFoundError" in box.warnings[0]
    assert "no functions decorated with @tool" in box.warnings[1]
    assert "no_such_module_xyz" in box.warnings[2]
    assert "file not found" in box.warnings[3]


def test_mcp_server_tools_work(tmp_path, boxes):
    box = build(tmp_path, enabled=[], mcp=[
        {"name": "echo", "command": sys.executable, "args": [SERVER]}])
    boxes.append(box)
    assert box.warnings == []
    assert box.registry.names == ["echo", "add", "fail", "quit"]  # two pages of tools/list
    assert box.registry.get("echo").description == "Use when the user asks to echo a text back."
    assert box.registry.run(ToolCall("1", "echo", {"text": "hello"})).pair == ("echo: hello", False)
    assert box.registry.run(ToolCall("2", "add", {"a": 2, "b": 3})).pair == ("5", False)
    assert box.registry.run(ToolCall("3", "fail", {})).pair == (
        "Error: this tool always fails", True)
    text, is_error = box.registry.run(ToolCall("4", "add", {"a": "two", "b": 3})).pair
    assert is_error and "'a'" in text  # validated against the server's inputSchema


def test_failing_mcp_servers_are_reported_and_skipped(tmp_path, boxes):
    box = build(tmp_path, enabled=["clock"], mcp=[
        {"name": "ghost", "command": "/nonexistent/mcp-server"},
        {"name": "crash", "command": sys.executable, "args": [SERVER, "--crash"]},
        {"name": "hang", "command": sys.executable, "args": [SERVER, "--hang"], "timeout_s": 1},
        {"name": "echo", "command": sys.executable, "args": [SERVER]},
    ])
    boxes.append(box)
    assert "get_time" in box.registry and "echo" in box.registry
    ghost, crash, hang = box.warnings
    assert "'ghost' could not start '/nonexistent/mcp-server'" in ghost
    assert "'crash' exited (code 3)" in crash and "cannot open the database" in crash
    assert "'hang' did not answer initialize within 1 s" in hang
    assert all(w.endswith("its tools are skipped.") for w in box.warnings)


def test_mcp_server_dying_later_becomes_a_tool_error(tmp_path, boxes):
    box = build(tmp_path, enabled=[], mcp=[
        {"name": "echo", "command": sys.executable, "args": [SERVER]}])
    boxes.append(box)
    text, is_error = box.registry.run(ToolCall("1", "quit", {})).pair
    assert is_error and "'echo' exited (code 0) during tools/call: " in text
    assert "quitting" in text  # the tail of the server's log
    text, is_error = box.registry.run(ToolCall("2", "echo", {"text": "hi"})).pair
    assert is_error and "'echo' is not running (exit code 0)" in text
    box.close()
    text, is_error = box.registry.run(ToolCall("3", "echo", {"text": "hi"})).pair
    assert is_error and "'echo' is not running" in text


def test_mcp_names_taken_by_other_tools_get_the_server_prefix(tmp_path, boxes):
    box = build(tmp_path, enabled=[], modules=[str(DATA / "my_tools.py")], mcp=[
        {"name": "first", "command": sys.executable, "args": [SERVER]},
        {"name": "second", "command": sys.executable, "args": [SERVER]}])
    boxes.append(box)
    assert box.warnings == []
    assert box.registry.names == ["spell_word", "echo", "add", "fail", "quit", "second_echo",
                                  "second_add", "second_fail", "second_quit"]
    assert box.registry.run(ToolCall("1", "second_echo", {"text": "b"})).pair == ("echo: b", False)


def test_mcp_approval_follows_config(tmp_path, boxes):
    box = build(tmp_path, enabled=[], mcp=[
        {"name": "echo", "command": sys.executable, "args": [SERVER], "needs_approval": True}])
    boxes.append(box)
    assert box.registry.get("echo").needs_approval
