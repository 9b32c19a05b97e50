"""Fail fast and never silently degrade (issue 16, part 6): devices checked before models, a
busy LLM server waited for, an unreachable configured model an error (ask) or a standby that
keeps trying (run modes), and the demo only for a machine with no model at all."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from voiceagent.agent.deferred import DeferredChat
from voiceagent.agent.demo import MARK
from voiceagent.agent.messages import Message, Reply
from voiceagent.agent.session import SessionStore
from voiceagent.config import Config, LLMConfig, PathsConfig
from voiceagent.connect import build_chat
from voiceagent.errors import ChatError, ModelError, ServerDown
from voiceagent.llm.discovery import ensure_server
from voiceagent.llm.health import probe
from voiceagent.testing import (
    FakeClock,
    FakeLLMServer,
    ScriptedChatModel,
    openai_stream,
    unused_url,
)
from voiceagent.tools.lists import Lists
from voiceagent.tools.timer_store import Entry, Timers

REPO = Path(__file__).resolve().parent.parent


def ask(tmp_path: Path, llm: str, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    """`voiceagent ask --no-speak` with an [llm] table, private data dir, no audio needed."""
    config = tmp_path / "config.toml"
    config.write_text(f'{llm}\n[paths]\ndata_dir = "{tmp_path / "data"}"\n'
                      f'models_dir = "{tmp_path / "models"}"\n')
    return subprocess.run(
        [sys.executable, "-m", "voiceagent", "--config", str(config), "ask", "--no-speak", *args],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env={**os.environ, **(env or {})},
    )


def test_probe_tells_a_busy_server_from_a_missing_one() -> None:
    with FakeLLMServer() as up:
        assert probe(up.url) == "ok"
    with FakeLLMServer(busy_s=30) as busy:
        assert probe(busy.url, timeout_s=0.3) == "busy"
    assert probe(unused_url()) == "absent"


def test_a_busy_server_is_waited_for_not_replaced(tmp_path: Path) -> None:
    with FakeLLMServer(busy_s=3) as busy:
        config = Config(llm=LLMConfig(base_url=busy.url, timeout_s=30),
                        paths=PathsConfig(data_dir=str(tmp_path)))
        url, started = ensure_server(config)
    assert (url, started) == (busy.url, None)
    assert not (tmp_path / "llm-server.log").exists()  # no embedded server was started


def test_ask_waits_for_a_busy_server_and_answers_from_it(tmp_path: Path) -> None:
    with FakeLLMServer(busy_s=4) as busy:
        busy.script(openai_stream("Paris is the capital of France."))
        result = ask(tmp_path, f'[llm]\nbase_url = "{busy.url}"\ntimeout_s = 60',
                     "What is the capital of France?")
    assert result.returncode == 0, result.stderr
    assert "Paris is the capital of France." in result.stdout
    assert MARK not in result.stdout


def test_ask_with_a_configured_model_that_is_missing_fails_and_says_why(tmp_path: Path) -> None:
    result = ask(tmp_path, f'[llm]\nmodel = "{tmp_path / "nope.gguf"}"', "Who wrote Hamlet?")
    assert result.returncode == 1
    assert "nope.gguf" in result.stderr and "Traceback" not in result.stderr
    assert MARK not in result.stdout


def test_ask_with_a_server_that_is_down_fails_non_zero(tmp_path: Path) -> None:
    result = ask(tmp_path, f'[llm]\nprovider = "llamacpp"\nbase_url = "{unused_url()}"',
                 "Who wrote Hamlet?")  # "hello" is a greeting template: no model needed
    assert result.returncode == 1
    assert "can't reach the language model" in result.stdout
    assert MARK not in result.stdout


def test_the_demo_stands_in_only_when_no_model_is_configured_or_installed(
        tmp_path: Path) -> None:
    result = ask(tmp_path, "[llm]", "why is the sky blue")
    assert result.returncode == 0, result.stderr
    assert MARK in result.stdout


def test_run_modes_get_a_standby_model_that_keeps_trying(tmp_path: Path) -> None:
    config = Config(llm=LLMConfig(model=str(tmp_path / "later.gguf")),
                    paths=PathsConfig(data_dir=str(tmp_path)))
    with ExitStack() as stack:
        with pytest.raises(ModelError):
            build_chat(config, stack)  # ask: an error, never the demo
        setup = build_chat(config, stack, standby=True)
        assert not setup.demo and isinstance(setup.model, DeferredChat)
        with pytest.raises(ServerDown, match="later.gguf"):
            setup.model.complete("", [Message("user", "hi")], [])


def test_standby_connects_when_the_model_comes_back() -> None:
    attempts: list[int] = []
    model = ScriptedChatModel().enqueue(Reply("back again"))
    allowed, connected = threading.Event(), threading.Event()

    def connect(_stack: ExitStack) -> tuple[ScriptedChatModel, None]:
        attempts.append(1)
        if not allowed.is_set():
            raise ChatError("connection refused")
        connected.set()
        return model, None

    chat = DeferredChat(connect, background_retry=True, reason="connection refused",
                        retry_s=(0.01,))
    try:
        with pytest.raises(ServerDown, match="unavailable .connection refused"):
            chat.complete("", [Message("user", "hi")], [])
        allowed.set()
        assert connected.wait(10)
        assert chat.complete("", [Message("user", "hi")], []).text == "back again"
        assert attempts and chat.recover() is False
    finally:
        chat.close()


def test_ask_connects_on_the_first_request_only_and_a_failed_connect_is_that_requests_error(
        ) -> None:
    model = ScriptedChatModel().enqueue(Reply("one")).enqueue(Reply("two"))
    attempts: list[ExitStack] = []
    stopped: list[str] = []

    def connect(stack: ExitStack) -> tuple[ScriptedChatModel, Callable[[], bool]]:
        attempts.append(stack)
        if len(attempts) == 1:
            raise ChatError("the server did not start")
        stack.callback(stopped.append, "server")
        return model, lambda: True

    chat = DeferredChat(connect, background_retry=False)
    assert not chat.connected and not attempts and chat.recover() is False  # nothing started
    with pytest.raises(ChatError, match="did not start"):
        chat.complete("", [Message("user", "hi")], [])
    replies: list[str] = []
    askers = [threading.Thread(target=lambda: replies.append(
        chat.complete("", [Message("user", "hi")], []).text)) for _ in range(2)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(10)
    assert sorted(replies) == ["one", "two"] and len(attempts) == 2  # connected once
    assert chat.connected and chat.recover() is True
    chat.close()
    assert stopped == ["server"]


def test_a_mode_without_audio_devices_says_so_before_loading_anything(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\ndata_dir = "{tmp_path / "data"}"\n'
                      '[llm]\nmodel = "qwen2.5-coder-0.5b"\n')
    env = {**os.environ, "PULSE_SERVER": f"unix:{tmp_path}/no-such-socket"}
    env.pop("VOICEAGENT_CONFIG", None)
    result = subprocess.run(
        [sys.executable, "-m", "voiceagent", "--config", str(config), "run", "--mode", "kiosk"],
        capture_output=True, text=True, timeout=60, cwd=REPO, env=env,
    )
    assert result.returncode == 1
    assert "voiceagent: " in result.stderr and "device" in result.stderr  # names the devices
    assert "Traceback" not in result.stderr
    assert "mode ready" not in result.stderr + result.stdout
    assert not (tmp_path / "data" / "llm-server.log").exists()  # no LLM server was started


# --- files on disk: damaged at start, disk full while saving, the wall clock jumping ---------


def full_disk(tmp_path: Path, name: str) -> Iterator[Path]:
    """A 64 KB tmpfs at tmp_path/name (we are root in CI and here)."""
    disk = tmp_path / name
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> None:
    """Write a filler file until the file system is full."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    yield from full_disk(tmp_path, "disk")


def test_session_save_on_a_full_disk_keeps_the_old_file_and_says_so_once(
        disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = SessionStore(disk / "default.jsonl", 20)
    store.save([Message("user", "hi"), Message("assistant", "hello")])
    before = (disk / "default.jsonl").read_bytes()
    fill(disk)
    with caplog.at_level(logging.DEBUG, logger="voiceagent.agent.session"):
        for n in range(3):
            store.save([Message("user", "hi"), Message("assistant", f"hello {n}" * 5000)])
    assert (disk / "default.jsonl").read_bytes() == before
    assert not list(disk.glob(".default.jsonl.*"))  # no temporary file left behind
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "No space left on device" in errors[0].getMessage()
    (disk / "filler").unlink()
    store.save([Message("user", "hi"), Message("assistant", "back")])
    assert store.load()[-1].text == "back"


@pytest.mark.parametrize("content", [b"", b'{"voiceagent_session": 1}\n{"role": "us',
                                     b"\xff\xfe\x00garbage", b"[1, 2, 3]\n"])
def test_a_damaged_session_file_is_moved_aside(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "default.jsonl"
    path.write_bytes(content)
    store = SessionStore(path, 20)
    assert store.load() == [] or content == b""
    if content:
        assert [p.read_bytes() for p in tmp_path.glob("default.jsonl.corrupt-*")] == [content]


@pytest.mark.parametrize("content", [b"", b'[{"kind": "timer", "lab', b"\xff\x00", b'{"a": 1}'])
def test_a_damaged_timers_file_is_moved_aside(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "timers.json"
    path.write_bytes(content)
    timers = Timers(path)
    assert timers.pending() == []
    assert (tmp_path / "timers.corrupt").read_bytes() == content


def test_a_list_file_that_is_not_text_is_moved_aside(tmp_path: Path) -> None:
    lists = Lists(tmp_path, {})
    (tmp_path / "shopping.txt").write_bytes(b"\xff\xfe milk\x00\x81\n")
    assert lists.read("shopping") == []
    assert len(list(tmp_path.glob("shopping.txt.corrupt-*"))) == 1


def test_the_wall_clock_jumping_past_a_timer_announces_it_once(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    said: list[str] = []
    timers = Timers(tmp_path / "timers.json", clock)
    timers.add(Entry("timer", "tea", clock.time() + 600, 600))
    timers.ring(said.append)
    clock.advance(3600)  # NTP steps the clock an hour forward
    timers.ring(said.append)
    timers.ring(said.append)  # the bell's next look: rung once, not twice
    assert said == ["Your 10 minute tea timer is done."]
    assert timers.pending() == []


def test_timers_firing_on_a_full_disk_announce_once_and_keep_running(
        disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock(1_000_000.0)
    said: list[str] = []
    timers = Timers(disk / "timers.json", clock)
    timers.add(Entry("timer", "tea", clock.time() + 60, 60))
    timers.add(Entry("timer", "eggs", clock.time() + 120, 120))
    timers.ring(said.append)
    fill(disk)
    clock.advance(90)
    timers.ring(said.append)  # announced, though the file cannot be saved
    timers.ring(said.append)  # the entry is still in the file: it must not ring again
    (disk / "filler").unlink()
    clock.advance(60)
    timers.ring(said.append)
    timers.ring(said.append)
    assert said == ["Your 1 minute tea timer is done.", "Your 2 minute eggs timer is done."]
    assert timers.pending() == []
    assert sum(r.levelno >= logging.ERROR for r in caplog.records) == 1


def test_history_is_bounded_by_size_so_requests_fit_the_context_window() -> None:
    from voiceagent.agent.messages import ToolCall
    from voiceagent.agent.session import bound, unpaired

    turns: list[Message] = []
    for n in range(60):  # the soak's failure: ~50 turns outgrew a 4096-token window
        turns += [Message("user", f"question {n}"),
                  Message("assistant", "", calls=(ToolCall(f"c{n}", "get_time", {}),)),
                  Message("tool", "It is noon. " * 5, call_id=f"c{n}"),
                  Message("assistant", "It is noon, " + "and a long answer " * 10)]
    kept = bound(turns, 1000, max_chars=3000)
    size = sum(len(m.text) + sum(len(str(c.to_dict())) for c in m.calls) for m in kept)
    assert kept[0].role == "user" and unpaired(kept) is None
    assert size <= 3000 and kept[-1] == turns[-1] and kept[0].text.startswith("question ")
    assert bound(turns, 1000, max_chars=10) == turns[-4:]  # the newest turn always stays
    assert bound(turns, 2) == turns[-4:]  # over the cap: cut to half of it at once
