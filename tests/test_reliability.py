"""Fail fast and never silently degrade (issue 16, part 6): devices checked before models, a
busy LLM server waited for, an unreachable configured model an error (ask) or a standby that
keeps trying (run modes), and the demo only for a machine with no model at all."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from contextlib import ExitStack
from pathlib import Path

import pytest

from voiceagent.agent.demo import MARK
from voiceagent.agent.messages import Message, Reply
from voiceagent.agent.standby import StandbyChat
from voiceagent.build import build_chat
from voiceagent.config import Config, LLMConfig, PathsConfig
from voiceagent.errors import ChatError, ModelError, ServerDown
from voiceagent.llm_server import ensure_server, probe
from voiceagent.testing import FakeLLMServer, ScriptedChatModel, openai_stream, unused_url

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
    result = ask(tmp_path, f'[llm]\nmodel = "{tmp_path / "nope.gguf"}"', "hello")
    assert result.returncode == 1
    assert "nope.gguf" in result.stderr and "Traceback" not in result.stderr
    assert MARK not in result.stdout


def test_ask_with_a_server_that_is_down_fails_non_zero(tmp_path: Path) -> None:
    result = ask(tmp_path, f'[llm]\nprovider = "llamacpp"\nbase_url = "{unused_url()}"',
                 "hello")
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
        assert not setup.demo and isinstance(setup.model, StandbyChat)
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

    chat = StandbyChat(connect, reason="connection refused", retry_s=(0.01,))
    try:
        with pytest.raises(ServerDown, match="unavailable .connection refused"):
            chat.complete("", [Message("user", "hi")], [])
        allowed.set()
        assert connected.wait(10)
        assert chat.complete("", [Message("user", "hi")], []).text == "back again"
        assert attempts and chat.recover() is False
    finally:
        chat.close()


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
    assert "no input device" in result.stderr and "is PulseAudio/PipeWire running" in result.stderr
    assert "mode ready" not in result.stderr + result.stdout
    assert not (tmp_path / "data" / "llm-server.log").exists()  # no LLM server was started
