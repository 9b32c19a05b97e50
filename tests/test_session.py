"""Sessions: atomic JSONL at turn boundaries, bounded, corrupt files moved aside, one holder."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from voiceagent.agent.messages import Message, ToolCall
from voiceagent.agent.session import SessionStore, bound, unpaired
from voiceagent.errors import VoiceAgentError

ROOT = Path(__file__).resolve().parent.parent


def exchange(n: int) -> list[Message]:
    """One user turn with a tool call, its result and the answer."""
    return [
        Message("user", f"question {n}"),
        Message("assistant", "", (ToolCall(f"c{n}", "get_time", {}),)),
        Message("tool", "12:30", call_id=f"c{n}", name="get_time"),
        Message("assistant", f"answer {n}"),
    ]


def test_save_and_load_round_trip_with_a_header_line(tmp_path):
    store = SessionStore(tmp_path / "s" / "default.jsonl", max_turns=5)
    messages = exchange(1) + exchange(2)
    store.save(messages)
    assert store.load() == messages
    lines = store.path.read_text().splitlines()
    assert json.loads(lines[0])["voiceagent_session"] == 1 and len(lines) == 9
    assert store.path.stat().st_mode & 0o777 == 0o600


def test_a_failed_tool_call_keeps_its_error_flag_across_a_restart(tmp_path):
    store = SessionStore(tmp_path / "s.jsonl", max_turns=5)
    failed = [Message("user", "q"), Message("assistant", "", (ToolCall("c1", "f", {}),)),
              Message("tool", "cancelled by the user", call_id="c1", name="f", is_error=True)]
    store.save(failed + exchange(2))
    loaded = store.load()
    assert loaded[2].is_error and not loaded[6].is_error


def test_missing_file_is_an_empty_history(tmp_path):
    store = SessionStore(tmp_path / "s.jsonl", max_turns=5)
    assert store.load() == [] and not store.path.exists()


def test_history_is_bounded_by_turns_without_splitting_calls(tmp_path):
    store = SessionStore(tmp_path / "s.jsonl", max_turns=4)
    store.save(exchange(1) + exchange(2) + exchange(3) + exchange(4) + exchange(5))
    assert store.load() == exchange(4) + exchange(5)
    assert bound(exchange(1), 1) == exchange(1)


def test_a_long_conversation_is_cut_by_half_so_what_the_model_sees_starts_the_same():
    """Cut by one turn each time, the history shown to the model changed at its start on
    every turn past the cap, and the server prefilled all of it again: live, the kiosk's
    answers came 10-13 s later from its 21st turn on. Cut by half, the start stays the same
    for half the cap's turns."""
    history: list = []
    starts = []
    for n in range(1, 41):
        history = bound(history + exchange(n), 20)
        starts.append(history[0].text)
    changes = sum(a != b for a, b in zip(starts, starts[1:], strict=False))
    assert changes == 2  # at turns 21 and 31, not on each of the 20 turns past the cap
    assert 10 <= sum(m.role == "user" for m in history) <= 20


def test_a_history_with_a_call_but_no_result_is_never_saved(tmp_path):
    store = SessionStore(tmp_path / "s.jsonl", max_turns=5)
    with pytest.raises(ValueError, match="c1"):
        store.save(exchange(1)[:2])
    assert unpaired(exchange(1)[:3] + [Message("user", "x")]) is None
    assert "before the results" in unpaired([*exchange(1)[:2], Message("user", "x")])


@pytest.mark.parametrize("content", [
    "not json at all\n",
    '{"voiceagent_session": 1}\n{"role": "wizard", "text": "x"}\n',
    '{"voiceagent_session": 99}\n',
    '{"voiceagent_session": 1}\n' + json.dumps(exchange(1)[1].to_dict()) + "\n",
    '{"voiceagent_session": 1}\n{"role": "user", "te',
])
def test_a_corrupt_file_is_moved_aside_with_a_warning(tmp_path, caplog, content):
    path = tmp_path / "s.jsonl"
    path.write_text(content)
    with caplog.at_level(logging.WARNING):
        assert SessionStore(path, max_turns=5).load() == []
    (aside,) = tmp_path.glob("s.jsonl.corrupt-*")
    assert aside.read_text() == content and not path.exists()
    assert "moved it to" in caplog.text and str(aside) in caplog.text


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from voiceagent.agent.messages import Message
    from voiceagent.agent.session import SessionStore
    store = SessionStore(Path(sys.argv[1]), max_turns=10000)
    versions = [[Message("user", f"{v} " + "x" * 2000), Message("assistant", "y" * 2000)] * 300
                for v in ("a", "b")]
    store.save(versions[0])
    print("ready", flush=True)
    i = 0
    while True:
        i += 1
        store.save(versions[i % 2])
""")


def test_kill_9_mid_write_leaves_the_previous_valid_file(tmp_path):
    path = tmp_path / "s.jsonl"
    for _ in range(3):
        left = set(tmp_path.glob(".s.jsonl.*.tmp"))  # temp files of the writers killed before
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=ROOT,
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "ready\n"
        deadline = time.monotonic() + 30
        while not set(tmp_path.glob(".s.jsonl.*.tmp")) - left:  # a save is under way
            assert time.monotonic() < deadline, "no save in progress was ever seen"
            time.sleep(0.001)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        messages = SessionStore(path, max_turns=10000).load()
        assert len(messages) == 600 and messages[0].text[0] in "ab"
        assert not list(tmp_path.glob("*.corrupt-*"))


HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from voiceagent.agent.session import SessionStore
    with SessionStore(Path(sys.argv[1]), max_turns=5).lock():
        print("locked", flush=True)
        sys.stdin.readline()
""")


def test_a_second_voiceagent_is_refused_naming_the_first_ones_pid(tmp_path):
    path = tmp_path / "s.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        with pytest.raises(VoiceAgentError, match=f"pid {holder.pid}"):
            SessionStore(path, max_turns=5).acquire()
    finally:
        holder.stdin.close()
        holder.wait()
        holder.stdout.close()
    with SessionStore(path, max_turns=5).lock():
        pass
