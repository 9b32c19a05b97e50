"""The remote adapters' failure policy (retry once, one log line, the local stand-in, recovery)
and the server's safety rules, on loopback sockets with the scripted fakes."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from wyoming.asr import Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import Event

from tests.wyoming_servers import describe, free_port
from voiceagent.assistant import TurnOutcome
from voiceagent.audio import Audio
from voiceagent.config import Config
from voiceagent.config_file import config_from_dict
from voiceagent.errors import ConfigError, VoiceAgentError
from voiceagent.testing import FakeSynthesizer, FakeTranscriber
from voiceagent.wyoming.client import RemoteSynthesizer, RemoteTranscriber, check_remotes
from voiceagent.wyoming.handle import IntentHandler, never, wyoming_config
from voiceagent.wyoming.info import build_info
from voiceagent.wyoming.server import Services, check_uri, serve_async

CLIP = Audio.silence(0.5)


@contextmanager
def wyoming_server(port: int, transcriber: FakeTranscriber,
                   intents: IntentHandler | None = None) -> Iterator[str]:
    """Our Wyoming server with fake models, in a thread with its own event loop."""
    services = Services(build_info(Config(), handle=False), transcriber, FakeSynthesizer(),
                        intents)
    loop = asyncio.new_event_loop()
    task = loop.create_task(serve_async(services, f"tcp://127.0.0.1:{port}"))
    thread = threading.Thread(target=lambda: loop.run_until_complete(
        asyncio.gather(task, return_exceptions=True)))
    thread.start()
    try:
        for _ in range(100):
            try:
                describe(port, timeout=1)
                break
            except OSError:
                threading.Event().wait(0.05)
        yield f"tcp://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(task.cancel)
        thread.join(10)
        loop.close()


@contextmanager
def hang_up_server() -> Iterator[tuple[str, list[int]]]:
    """Accepts connections and closes them at once, counting them (a broken remote)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    count: list[int] = []
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            count.append(1)
            conn.close()

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}", count
    finally:
        done.set()
        thread.join(5)
        listener.close()


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_a_broken_remote_is_retried_once_reported_once_and_the_local_model_answers(
        caplog: pytest.LogCaptureFixture) -> None:
    local = FakeTranscriber("first local", "second local", "third local")
    with hang_up_server() as (uri, connections):
        remote = RemoteTranscriber(uri, "en", fallback=lambda: local)
        assert remote.transcribe(CLIP) == "first local"
        assert len(connections) == 2  # tried, then once more
        assert remote.transcribe(CLIP) == "second local"
        assert len(connections) == 2  # down: not asked again until the recheck time
        remote.remote.recheck_s = 0
        assert remote.transcribe(CLIP) == "third local"
        assert len(connections) == 3  # rechecked once, no retry while down
    [line] = warnings(caplog)
    assert line.startswith(f"speech to text at {uri} failed (") and "local model answers" in line


def test_without_fallback_a_dead_remote_fails_the_turn_naming_the_fix(
        caplog: pytest.LogCaptureFixture) -> None:
    uri = f"tcp://127.0.0.1:{free_port()}"
    remote = RemoteTranscriber(uri, "en", fallback=None)
    for _ in range(2):
        with pytest.raises(VoiceAgentError) as failure:
            remote.transcribe(CLIP)
        assert "connection refused" in str(failure.value)
        assert '[stt] fallback = "local"' in str(failure.value) and uri in str(failure.value)
    assert len(warnings(caplog)) == 1


def test_a_remote_that_comes_back_is_used_again_and_that_is_one_more_line(
        caplog: pytest.LogCaptureFixture) -> None:
    port = free_port()
    local = FakeTranscriber("local")
    remote = RemoteTranscriber(f"tcp://127.0.0.1:{port}", "en", fallback=lambda: local)
    assert remote.transcribe(CLIP) == "local"
    remote.remote.recheck_s = 0
    with wyoming_server(port, FakeTranscriber("from the remote")) as uri:
        assert remote.transcribe(CLIP) == "from the remote"
        assert check_remotes(config_from_dict({"stt": {"engine": "wyoming", "uri": uri}})) == (
            f"stt {uri} (voiceagent)")
    lines = warnings(caplog)
    assert len(lines) == 2 and lines[1].endswith("answers again")


def test_a_synthesizer_whose_remote_is_down_speaks_with_the_local_voice() -> None:
    local = FakeSynthesizer()
    remote = RemoteSynthesizer(f"tcp://127.0.0.1:{free_port()}", fallback=lambda: local)
    clips = list(remote.synthesize("It is 12:30."))
    assert len(clips) == 1 and local.texts == ["It is 12:30."]


def test_a_wrong_uri_is_a_config_error_at_start() -> None:
    with pytest.raises(ConfigError, match=r"\[stt\] uri = 'localhost:10300'"):
        RemoteTranscriber("localhost:10300", "en", fallback=None)
    with pytest.raises(ConfigError, match="tcp://HOST:PORT"):
        check_uri("tcp://0.0.0.0")
    with pytest.raises(VoiceAgentError, match="tcp://HOST:PORT"):
        check_remotes(config_from_dict({"tts": {"engine": "wyoming"}}))


def test_over_wyoming_no_shell_tool_and_nothing_is_approved() -> None:
    config = config_from_dict({"tools": {"enabled": ["clock", "shell", "files"]}})
    safe = wyoming_config(config)
    assert safe.tools.enabled == ["clock", "files"]
    assert safe.session.name == "wyoming" != config.session.name
    assert never("write_file", {"path": "x"}) is False


class BrokenAssistant:
    """An assistant whose turn raises (a bug, a dead model nobody could restart)."""

    def answer_text(self, text: str) -> TurnOutcome:
        raise RuntimeError("the model is gone")


def test_a_failing_turn_is_not_handled_and_the_connection_stays_usable(
        caplog: pytest.LogCaptureFixture) -> None:
    async def ask_twice(port: int) -> list[Event]:
        async with AsyncTcpClient("127.0.0.1", port, read_timeout=10) as client:
            replies = []
            for _ in range(2):
                await client.write_event(Transcript(text="What time is it?").event())
                event = await client.read_event()
                assert event is not None
                replies.append(event)
            return replies

    port = free_port()
    with wyoming_server(port, FakeTranscriber(), IntentHandler(BrokenAssistant())):
        replies = asyncio.run(ask_twice(port))
    assert [e.type for e in replies] == ["not-handled", "not-handled"]
    assert [m for m in warnings(caplog) if "the model is gone" in m][0].endswith(
        "the assistant failed on 'What time is it?': RuntimeError: the model is gone")


def test_a_model_failing_on_one_request_is_an_error_event_and_one_line(
        caplog: pytest.LogCaptureFixture) -> None:
    async def transcribe(port: int) -> list[Event]:
        async with AsyncTcpClient("127.0.0.1", port, read_timeout=10) as client:
            for event in (AudioStart(16000, 2, 1).event(),
                          AudioChunk(16000, 2, 1, CLIP.int16_bytes()).event(),
                          AudioStop().event()):
                await client.write_event(event)
            received = []
            while (event := await client.read_event()) is not None:
                received.append(event)
                if event.type == "transcript-stop":
                    break
            return received

    port = free_port()
    with wyoming_server(port, FakeTranscriber("after the failure")):  # one answer, then empty
        assert [e.type for e in asyncio.run(transcribe(port))][-2:] == [
            "transcript", "transcript-stop"]
        [error] = asyncio.run(transcribe(port))  # then the connection is closed
    assert error.type == "error" and error.data["code"] == "failed"
    assert error.data["text"].startswith("speech to text failed: IndexError")
    assert len([m for m in warnings(caplog) if "speech to text failed" in m]) == 1
