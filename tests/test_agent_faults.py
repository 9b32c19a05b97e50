"""The faults that come from the HTTP layer (error status, timeout, a dropped stream, nothing
listening, a reply that never comes, a key echoed back), end to end over a real loopback HTTP
server for both wire formats: each ends in a sensible answer or a clear message, and a valid
session file. Faults the loop handles on its own (bad calls, caps, cancelling, the retry and
apology policy) are tested once, in test_agent_loop.py, against the scripted model."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from voiceagent.agent.events import Cap, Error, Events, Recording, Request, TraceFile
from voiceagent.agent.loop import Agent, TurnResult
from voiceagent.agent.session import SessionStore
from voiceagent.agent.tools import ToolRegistry, tool
from voiceagent.agent.wire_anthropic import AnthropicChat
from voiceagent.agent.wire_openai import OpenAIChat
from voiceagent.config import AgentConfig
from voiceagent.language import say
from voiceagent.testing import (
    FakeLLMServer,
    Response,
    anthropic_stream,
    error_response,
    openai_stream,
    unused_url,
)

CANCEL = threading.Event()
KEY = "sk-test-DO-NOT-LEAK-7f3a9c"


@tool
def get_time() -> str:
    """The current time."""
    return "12:30"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@dataclasses.dataclass
class Wire:
    name: str
    stream: Callable[..., Response]
    make: Callable[..., object]


WIRES = [
    Wire("openai", openai_stream, OpenAIChat),
    Wire("anthropic", anthropic_stream, AnthropicChat),
]


@pytest.fixture(params=WIRES, ids=lambda w: w.name)
def wire(request) -> Wire:
    return request.param


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    CANCEL.clear()
    with FakeLLMServer() as s:
        yield s


def turn(wire: Wire, url: str, tmp_path: Path, text: str = "hi", *, timeout_s: float = 5.0,
         max_steps: int = 6, max_seconds: float = 60.0) -> tuple[TurnResult, Recording]:
    """One turn through the real adapter; the session is saved and read back as valid."""
    model = wire.make(url, "fake-model", api_key=KEY, timeout_s=timeout_s)
    events = Events()
    rec = Recording()
    events.subscribe(rec)
    trace = TraceFile(tmp_path / "trace.jsonl")
    events.subscribe(trace)
    config = dataclasses.replace(AgentConfig(), max_steps=max_steps, max_seconds=max_seconds)
    agent = Agent(model, ToolRegistry([get_time, add]), config, events)
    try:
        result = agent.run_turn([], text, on_text=lambda t: None, cancel=CANCEL)
    finally:
        trace.close()
        model.close()
    store = SessionStore(tmp_path / "session.jsonl", max_turns=10)
    store.save(result.messages)
    assert store.load() == result.messages
    return result, rec


def test_http_500_is_retried_then_answered(wire, server, tmp_path):
    server.script(error_response(500, "out of memory"), wire.stream("Hello."))
    result, rec = turn(wire, server.url, tmp_path)
    assert result.answer == "Hello."
    assert "HTTP 500: out of memory" in rec.first(Error).fields["message"]
    assert [e.fields["attempt"] for e in rec.of_type(Request)] == [1, 2]


def test_a_timeout_is_a_clear_error(wire, server, tmp_path):
    server.script(Response(stall_s=30), Response(stall_s=30))
    result, _ = turn(wire, server.url, tmp_path, timeout_s=0.3)
    assert result.stop == "error" and "did not answer within 0.3 s" in str(result.error)


def test_a_dropped_stream_before_any_text_is_retried(wire, server, tmp_path):
    broken = wire.stream(calls=[("id1", "get_time", "{}")])
    server.script(dataclasses.replace(broken, drop_after=3), wire.stream("Hi."))
    result, rec = turn(wire, server.url, tmp_path)
    assert result.answer == "Hi."
    assert "dropped" in rec.first(Error).fields["message"]


def test_a_dropped_stream_after_text_ends_with_an_apology(wire, server, tmp_path):
    broken = wire.stream("It is twelve thirty. In the afternoon it is sunny and warm outside",
                         piece=8)
    server.script(dataclasses.replace(broken, drop_after=7))
    result, _ = turn(wire, server.url, tmp_path)
    assert result.stop == "error"
    assert result.answer == "It is twelve thirty. Sorry, the language model failed to answer."
    server.assert_consumed()


def test_nothing_listening_is_server_down(wire, tmp_path):
    url = unused_url()
    result, _ = turn(wire, url, tmp_path)
    assert result.stop == "error" and type(result.error).__name__ == "ServerDown"
    assert url in str(result.error)


def test_the_time_cap_cuts_a_reply_that_does_not_come(wire, server, tmp_path):
    server.script(Response(stall_s=60))
    result, rec = turn(wire, server.url, tmp_path, timeout_s=30, max_seconds=0.5)
    assert result.stop == "cap" and result.answer == say("cap_seconds")
    assert rec.first(Cap).fields == {"which": "seconds", "limit": 0.5}


def test_the_api_key_never_reaches_a_file(wire, server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    log_file = logging.FileHandler(tmp_path / "debug.log")
    logging.getLogger().addHandler(log_file)
    try:
        server.script(
            wire.stream(calls=[("id1", "get_time", "{}")]),
            error_response(401, f"invalid key {KEY}"),  # a server echoing the key back
            error_response(401, f"invalid key {KEY}"),
        )
        result, _ = turn(wire, server.url, tmp_path)
    finally:
        logging.getLogger().removeHandler(log_file)
        log_file.close()
    assert result.stop == "error" and "invalid key ***" in str(result.error)
    headers = server.requests[0].headers
    assert KEY in (headers.get("authorization", "") + headers.get("x-api-key", ""))
    files = list(tmp_path.iterdir())
    assert {f.name for f in files} >= {"trace.jsonl", "session.jsonl", "debug.log"}
    for f in files:
        assert KEY not in f.read_text(), f.name
    assert KEY not in caplog.text
