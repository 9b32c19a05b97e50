"""The real path: the OpenAI adapter against the embedded llama.cpp server with the small
bundled model (Qwen2.5-Coder-0.5B), calling a real tool and answering with its result."""

from __future__ import annotations

import dataclasses
import re

import pytest

from voiceagent.agent.events import Events, Recording, ReplyDone
from voiceagent.agent.example import worked_example
from voiceagent.agent.loop import Agent
from voiceagent.agent.messages import Message
from voiceagent.agent.session import SessionStore
from voiceagent.agent.tools import ToolRegistry
from voiceagent.agent.wire_openai import OpenAIChat
from voiceagent.config import AgentConfig
from voiceagent.tools import clock
from voiceagent.wallclock import SystemClock

pytestmark = pytest.mark.real


def test_a_real_model_calls_the_clock_tool_and_answers_with_its_result(llm_base_url, tmp_path):
    registry = ToolRegistry(clock.make_tools(SystemClock()))
    chat = OpenAIChat(llm_base_url, "qwen2.5-coder-0.5b", timeout_s=300, temperature=0.0)
    events = Events()
    rec = Recording()
    events.subscribe(rec)
    # the machine is shared and slow: the caps here guard against loops, not against time
    config = dataclasses.replace(AgentConfig(), max_seconds=600)
    agent = Agent(chat, registry, config, events, prefix=worked_example(registry))
    spoken: list[str] = []
    try:
        result = agent.run_turn([], "What time is it?", on_text=spoken.append)
    finally:
        chat.close()

    assert result.stop == "done", result.answer
    (call, output, is_error, _refs, _ran), = result.tool_calls
    assert call.name == "get_time" and not is_error and output.startswith("It is ")
    assert re.search(r"\d", result.answer), result.answer  # it read out the time it was given
    assert spoken and " ".join(spoken).strip() == result.answer  # the result is the answer
    types = [e.type for e in rec.events]
    assert types[:6] == ["user_text", "request", "first_token", "reply", "tool_call",
                         "tool_result"]
    assert types[-1] == "final" and types.count("request") == 1  # the time is the answer
    assert rec.of_type(ReplyDone)[0].fields["calls"][0]["name"] == "get_time"
    store = SessionStore(tmp_path / "s.jsonl", max_turns=5)
    store.save(result.messages)
    assert store.load() == result.messages


def test_the_format_fault_fallback_recovers_the_call_from_the_models_own_text(llm_base_url):
    """The retry after a tool-call format fault asks with tool_choice "none": llama.cpp then
    returns the model's raw text, and the call the model printed there is recovered."""
    registry = ToolRegistry(clock.make_tools(SystemClock()))
    chat = OpenAIChat(llm_base_url, "qwen2.5-coder-0.5b", timeout_s=300, temperature=0.0,
                      extra_body={"tool_choice": "none"})
    spoken: list[str] = []
    try:
        reply = chat.complete(AgentConfig().system_prompt,
                              [*worked_example(registry), Message("user", "What time is it?")],
                              registry.specs(), on_text=spoken.append)
    finally:
        chat.close()
    assert [c.name for c in reply.calls] == ["get_time"], reply
    assert reply.text == "" and " ".join(spoken) == ""  # the JSON was not spoken


def test_one_of_the_chosen_tools_is_what_the_real_model_must_write(llm_base_url, tmp_path):
    """The retry of a served request answered without its tool: llama.cpp did not hold the
    model to tool_choice "required" (asked "read my list to me", the 1.5B wrote prose); with
    the schema of the chosen tools' calls it can only write one of them, and the prompt's
    tools (its cached prefix) are unchanged."""
    from voiceagent.tools import lists

    tools, _store = lists.make_tools(tmp_path, {}, SystemClock())
    registry = ToolRegistry([*clock.make_tools(SystemClock()), *tools])
    chat = OpenAIChat(llm_base_url, "qwen2.5-coder-0.5b", timeout_s=300, temperature=0.0)
    chosen = ("read_list", "add_to_list", "remove_from_list", "clear_list")
    try:
        reply = chat.complete(AgentConfig().system_prompt,
                              [*worked_example(registry), Message("user", "What time is it?")],
                              registry.specs(), tool_choice=chosen)
    finally:
        chat.close()
    (call,) = reply.calls
    assert call.name in chosen and reply.text == "", reply  # not get_time, not prose
