"""The OpenAI-compatible adapter against the scripted loopback server (llama.cpp, Ollama shapes)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from voiceagent.agent.http import ServerError
from voiceagent.agent.messages import Message, ToolCall, ToolSpec, Usage
from voiceagent.agent.wire_openai import OpenAIChat, to_wire
from voiceagent.errors import ChatError
from voiceagent.testing import FakeLLMServer, Response, error_response, openai_stream

TIME = ToolSpec("get_time", "The current time.", {"type": "object", "properties": {}})
ADD = ToolSpec("add", "Add two numbers.", {
    "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"], "additionalProperties": False})
FORMAT_FAULT = ("The model produced output that does not match the expected tool call format: "
                "Failed to parse input at pos 0")


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as s:
        yield s


def ask(server: FakeLLMServer, text: str = "hi", *, tools=(TIME, ADD), cancel=None, **kwargs):
    chat = OpenAIChat(server.url, "qwen", **kwargs)
    spoken: list[str] = []
    try:
        reply = chat.complete("Be brief.", [Message("user", text)], tools,
                              on_text=spoken.append, cancel=cancel)
    finally:
        chat.close()
    return reply, [s for s in spoken if s]


def test_text_streams_in_deltas_and_the_request_has_the_openai_shape(server):
    server.script(openai_stream("It is half past twelve.", usage=(120, 7)))
    reply, spoken = ask(server, api_key="sk-x", temperature=0.1, max_tokens=64,
                        extra_body={"cache_prompt": True})
    assert reply.text == "It is half past twelve." and reply.calls == ()
    assert len(spoken) > 1 and "".join(spoken) == reply.text
    assert reply.usage == Usage(120, 7)
    req = server.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-x"
    body = req.body
    assert body["messages"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "hi"}]
    assert (body["model"], body["stream"], body["temperature"], body["max_tokens"]) == (
        "qwen", True, 0.1, 64)
    assert body["cache_prompt"] is True
    assert body["tools"][1] == {"type": "function", "function": {
        "name": "add", "description": "Add two numbers.", "parameters": ADD.parameters}}


def test_tool_calls_are_assembled_from_deltas(server):
    server.script(openai_stream(calls=[("a1", "get_time", ""), ("a2", "add", '{"a": 2, "b": 3}')],
                                piece=3))
    reply, spoken = ask(server)
    assert reply.calls == (ToolCall("a1", "get_time", {}), ToolCall("a2", "add", {"a": 2, "b": 3}))
    assert spoken == []


def test_malformed_arguments_are_kept_for_the_error_message(server):
    server.script(openai_stream(calls=[("a1", "add", '{"a": 2,')]))
    reply, _ = ask(server)
    assert reply.calls == (ToolCall("a1", "add", {}, bad_json='{"a": 2,'),)


@pytest.mark.parametrize("text", [
    '{"name": "add", "arguments": {"a": 2, "b": 3}}',
    '```json\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n```',
    '  {"name": "add", "parameters": "{\\"a\\": 2, \\"b\\": 3}"}',
    '{"name": "add", "arguments": {"a": 2, "b": 3}}\n\nThe sum is 5.',  # made-up follow-on
])
def test_a_call_printed_as_json_text_is_recovered_and_not_spoken(server, text):
    server.script(openai_stream(text))
    reply, spoken = ask(server)
    assert reply.text == "" and spoken == []
    (call,) = reply.calls
    assert (call.name, call.args) == ("add", {"a": 2, "b": 3})


@pytest.mark.parametrize("text", [
    '{"name": "get_weather", "arguments": {}}',  # not a declared tool
    '{"name": "add", "arguments": {"a": "two"}}',  # arguments do not validate
    '{"answer": 42}',
])
def test_json_text_that_is_not_a_valid_call_stays_text_and_is_spoken(server, text):
    server.script(openai_stream(text))
    reply, spoken = ask(server)
    assert reply.calls == () and reply.text == text and "".join(spoken) == text


def test_no_recovery_without_tools(server):
    text = '{"name": "add", "arguments": {"a": 2, "b": 3}}'
    server.script(openai_stream(text))
    reply, spoken = ask(server, tools=())
    assert reply.calls == () and "".join(spoken) == text


def test_a_tool_call_format_fault_is_asked_again_and_recovered(server):
    server.script(error_response(500, FORMAT_FAULT),
                  openai_stream('{"name": "get_time", "arguments": {}}'))
    reply, _ = ask(server)
    assert [c.name for c in reply.calls] == ["get_time"]
    assert server.requests[1].body["tool_choice"] == "none"
    assert "tool_choice" not in server.requests[0].body


def test_one_of_some_tools_is_enforced_by_a_schema_and_the_call_read_from_its_json(server):
    """tool_choice "required" alone did not stop llama.cpp's 1.5B from writing prose; a JSON
    schema admitting only calls of the chosen tools does, and the call comes back as text."""
    server.script(openai_stream('{"name": "add", "arguments": {"a": 2, "b": 3, "c": 1}}'))
    chat = OpenAIChat(server.url, "qwen")
    try:
        reply = chat.complete("Be brief.", [Message("user", "two plus three")], (TIME, ADD),
                              tool_choice=("add",))
    finally:
        chat.close()
    assert [(c.name, c.args) for c in reply.calls] == [("add", {"a": 2, "b": 3})]  # c: undeclared
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "add"}}
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["name"] == {"const": "add"}
    assert schema["properties"]["arguments"] == ADD.parameters
    assert [t["function"]["name"] for t in body["tools"]] == ["get_time", "add"]  # the prefix


def test_several_chosen_tools_are_one_of_in_the_schema(server):
    server.script(openai_stream('{"name": "get_time", "arguments": {}}'))
    chat = OpenAIChat(server.url, "qwen")
    try:
        reply = chat.complete("Be brief.", [Message("user", "time?")], (TIME, ADD),
                              tool_choice=("get_time", "add"))
    finally:
        chat.close()
    assert [c.name for c in reply.calls] == ["get_time"]
    body = server.requests[0].body
    assert body["tool_choice"] == "required"
    names = [c["properties"]["name"]["const"]
             for c in body["response_format"]["json_schema"]["schema"]["oneOf"]]
    assert names == ["get_time", "add"]


def test_other_server_errors_are_chat_errors_with_the_server_message(server):
    server.script(error_response(400, "the request exceeds the available context size"))
    with pytest.raises(ServerError, match="HTTP 400: the request exceeds") as info:
        ask(server)
    assert info.value.status == 400
    server.assert_consumed()


def test_an_error_inside_the_stream_is_a_chat_error(server):
    events = [("", json.dumps({"error": {"code": 500, "message": "slot crashed"}}))]
    server.script(Response(events=events))
    with pytest.raises(ServerError, match="slot crashed"):
        ask(server)


def test_a_stream_that_ends_without_finishing_is_an_error(server):
    stream = openai_stream("Half a", done=False)
    cut = Response(events=[e for e in stream.events if "finish_reason\": \"stop" not in e[1]])
    server.script(cut)
    with pytest.raises(ChatError, match="ended early"):
        ask(server)


def test_cancel_mid_stream_returns_what_was_said(server):
    cancel = threading.Event()
    server.script(openai_stream("one two three four five six", piece=4))
    chat = OpenAIChat(server.url, "qwen")
    spoken: list[str] = []

    def on_text(delta: str) -> None:
        spoken.append(delta)
        if delta:
            cancel.set()

    reply = chat.complete("", [Message("user", "count")], (), on_text=on_text, cancel=cancel)
    chat.close()
    assert reply.text == "one " and reply.calls == ()


def test_ollama_shapes(server):
    """Ollama's /v1: the whole call in one delta, no usage unless asked, a [DONE] line."""
    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "qwen2.5-coder:1.5b",
             "system_fingerprint": "fp_ollama", "choices": [{"index": 0, "delta": {
                 "role": "assistant", "content": "", "tool_calls": [{
                     "id": "call_x1", "index": 0, "type": "function",
                     "function": {"name": "add", "arguments": '{"a":1,"b":2}'}}]},
                 "finish_reason": None}]}
    done = {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                  "finish_reason": "tool_calls"}]}
    usage = {**chunk, "choices": [], "usage": {"prompt_tokens": 90, "completion_tokens": 12,
                                               "total_tokens": 102}}
    server.script(Response(events=[("", json.dumps(c)) for c in (chunk, done, usage)]
                  + [("", "[DONE]")]))
    reply, _ = ask(server)
    assert reply.calls == (ToolCall("call_x1", "add", {"a": 1, "b": 2}),)
    assert reply.usage == Usage(90, 12)


def test_calls_without_an_index_are_told_apart_by_id(server):
    def piece(**call) -> tuple[str, str]:
        return "", json.dumps({"choices": [{"delta": {"tool_calls": [call]}}]})

    events = [piece(id="x", function={"name": "get_time", "arguments": "{}"}),
              piece(id="y", function={"name": "add", "arguments": '{"a": 1,'}),
              piece(function={"arguments": ' "b": 2}'}),
              ("", json.dumps({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}))]
    server.script(Response(events=events))
    reply, _ = ask(server)
    assert reply.calls == (ToolCall("x", "get_time", {}), ToolCall("y", "add", {"a": 1, "b": 2}))


def test_history_goes_out_as_tool_calls_and_tool_messages():
    history = [
        Message("user", "add"),
        Message("assistant", "", (ToolCall("c1", "add", {"a": 1}),
                                  ToolCall("c2", "add", {}, bad_json="{oops"))),
        Message("tool", "Error: missing b", call_id="c1", name="add", is_error=True),
        Message("tool", "cancelled by the user", call_id="c2", name="add", is_error=True),
        Message("assistant", "Sorry."),
    ]
    wire = to_wire("sys", history)
    assert wire[2] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}},
        {"id": "c2", "type": "function", "function": {"name": "add", "arguments": "{}"}}]}
    assert wire[3] == {"role": "tool", "tool_call_id": "c1", "content": "Error: missing b"}
    # The format has no error flag: a failed call's text says so, once.
    assert wire[4]["content"] == "Error: cancelled by the user"
    assert wire[5] == {"role": "assistant", "content": "Sorry."}


def test_cancel_while_the_server_is_still_reading_the_prompt(server):
    """No token has arrived yet (a long prompt on a slow CPU): cancel still ends it at once."""
    cancel = threading.Event()
    server.script(Response(stall_s=60))
    chat = OpenAIChat(server.url, "qwen", timeout_s=30)
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    try:
        reply = chat.complete("", [Message("user", "hi")], (), cancel=cancel)
    finally:
        timer.join()
        chat.close()
    assert reply.text == "" and reply.calls == ()


def test_a_format_fault_reported_inside_the_stream_is_asked_again_too(server):
    fault = json.dumps({"error": {"code": 500, "message": FORMAT_FAULT, "type": "server_error"}})
    server.script(Response(events=[("", fault)]),
                  openai_stream(calls=[("b1", "add", '{"a": 1, "b": 2}')]))
    reply, _ = ask(server)
    assert reply.calls == (ToolCall("b1", "add", {"a": 1, "b": 2}),)
    server.assert_consumed()


def test_a_format_fault_after_words_goes_on_from_them_and_recovers_the_call(server):
    """SLURP's "find list and remove apple": the 1.5B said "To find the list and remove
    "apple"," and then missed the call format; the user heard "Sorry, the language model
    failed to answer." Asked again, the reply goes on from the words already said."""
    said = 'To find the list and remove "apple", '
    fault = json.dumps({"error": {"code": 500, "message": FORMAT_FAULT, "type": "server_error"}})
    begun = openai_stream(said, done=False).events[:-2]  # its words, then the fault
    server.script(Response(events=[*begun, ("", fault)]),
                  openai_stream(said + '{"name": "add", "arguments": {"a": 1, "b": 2}}'))
    reply, spoken = ask(server)
    assert "".join(spoken) == said  # said once, and no JSON aloud
    assert reply.calls and reply.calls[0].name == "add" and reply.calls[0].args == {"a": 1, "b": 2}
    assert reply.text == said
    assert server.requests[1].body["tool_choice"] == "none"


def test_a_retry_that_says_it_otherwise_goes_on_at_its_next_sentence(server):
    """What was said cannot be unsaid: a retry worded otherwise is spoken from its next
    sentence on, not from the middle of a word."""
    fault = json.dumps({"error": {"code": 500, "message": FORMAT_FAULT, "type": "server_error"}})
    begun = openai_stream("It is noon", done=False).events[:-2]
    server.script(Response(events=[*begun, ("", fault)]),
                  openai_stream("It is now noon. Lunch is at one."))
    reply, spoken = ask(server)
    assert "".join(spoken) == "It is noon. Lunch is at one."
    assert reply.text == "It is now noon. Lunch is at one."
