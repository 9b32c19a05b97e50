"""The Anthropic messages adapter against the scripted loopback server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from voiceagent.agent.http import ServerError
from voiceagent.agent.messages import Message, ToolCall, ToolSpec, Usage
from voiceagent.agent.wire_anthropic import AnthropicChat, to_wire
from voiceagent.testing import FakeLLMServer, Response, anthropic_stream

ADD = ToolSpec("add", "Add two numbers.", {
    "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"]})


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as s:
        yield s


def ask(server: FakeLLMServer, messages=None, **kwargs):
    chat = AnthropicChat(server.url, "claude-test", **kwargs)
    spoken: list[str] = []
    try:
        return chat.complete("Be brief.", messages or [Message("user", "hi")], [ADD],
                             on_text=spoken.append), [s for s in spoken if s]
    finally:
        chat.close()


def test_text_streams_and_the_request_has_the_anthropic_shape(server):
    server.script(anthropic_stream("Hello from Claude.", usage=(33, 9)))
    reply, spoken = ask(server, api_key="sk-ant-x", max_tokens=99)
    assert reply.text == "Hello from Claude." and "".join(spoken) == reply.text
    assert reply.usage == Usage(33, 9)
    req = server.requests[0]
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == "sk-ant-x"
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req.headers
    assert req.body["system"] == "Be brief."
    assert req.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert req.body["tools"] == [{"name": "add", "description": "Add two numbers.",
                                  "input_schema": ADD.parameters}]
    assert (req.body["max_tokens"], req.body["stream"]) == (99, True)


def test_tool_use_blocks_are_assembled_from_input_json_deltas(server):
    server.script(anthropic_stream("Adding.", calls=[("toolu_1", "add", '{"a": 2, "b": 3}'),
                                                     ("toolu_2", "add", "")], piece=3))
    reply, spoken = ask(server)
    assert reply.text == "Adding." and "".join(spoken) == "Adding."
    assert reply.calls == (ToolCall("toolu_1", "add", {"a": 2, "b": 3}),
                           ToolCall("toolu_2", "add", {}))


@pytest.mark.parametrize("choice, sent", [
    ("required", {"type": "any"}), ("none", {"type": "none"}),
    (("add",), {"type": "tool", "name": "add"}), (("add", "sub"), {"type": "any"})])
def test_the_tool_choice_in_anthropic_terms(server, choice, sent):
    server.script(anthropic_stream(calls=[("toolu_1", "add", '{"a": 2, "b": 3}')]))
    chat = AnthropicChat(server.url, "claude-test")
    try:
        chat.complete("Be brief.", [Message("user", "2+3")], [ADD], tool_choice=choice)
    finally:
        chat.close()
    assert server.requests[0].body["tool_choice"] == sent


def test_arguments_that_are_not_json_are_kept_for_the_model(server):
    server.script(anthropic_stream(calls=[("toolu_1", "add", '{"a": 2,')]))
    reply, _ = ask(server)
    assert reply.calls == (ToolCall("toolu_1", "add", {}, bad_json='{"a": 2,'),)


def test_an_error_event_mid_stream_is_a_chat_error(server):
    events = [("message_start", json.dumps({"type": "message_start", "message": {"usage": {}}})),
              ("error", json.dumps({"type": "error", "error": {
                  "type": "overloaded_error", "message": "Overloaded"}}))]
    server.script(Response(events=events))
    with pytest.raises(ServerError, match="Overloaded") as info:
        ask(server)
    assert info.value.status == 529


def test_history_goes_out_with_tool_results_inside_user_messages():
    history = [
        Message("user", "add twice"),
        Message("assistant", "", (ToolCall("t1", "add", {"a": 1, "b": 2}),
                                  ToolCall("t2", "add", {"a": 1}))),
        Message("tool", "3", call_id="t1", name="add"),
        Message("tool", "missing b", call_id="t2", name="add", is_error=True),
        Message("assistant", "Three."),
        Message("user", "thanks"),
    ]
    assert to_wire(history) == [
        {"role": "user", "content": [{"type": "text", "text": "add twice"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1, "b": 2}},
            {"type": "tool_use", "id": "t2", "name": "add", "input": {"a": 1}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "3"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "missing b",
             "is_error": True}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Three."}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
    ]


def test_the_error_flag_comes_from_the_tool_run_not_from_the_text():
    history = [Message("user", "a"), Message("assistant", "", (ToolCall("t1", "f", {}),
                                                               ToolCall("t2", "f", {}))),
               Message("tool", "Error codes: none", call_id="t1", name="f"),
               Message("tool", "cancelled by the user", call_id="t2", name="f", is_error=True)]
    results = to_wire(history)[2]["content"]
    assert [r.get("is_error", False) for r in results] == [False, True]


def test_an_empty_assistant_message_is_left_out_so_roles_still_alternate():
    history = [Message("user", "a"), Message("assistant", ""), Message("user", "b")]
    assert to_wire(history) == [{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
