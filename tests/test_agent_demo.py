"""Demo mode: with no language model the real tools still run through the normal loop."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from voiceagent.agent.demo import MARK, DemoChat
from voiceagent.agent.events import Events
from voiceagent.agent.loop import Agent
from voiceagent.agent.tools import ToolRegistry
from voiceagent.config_file import config_from_dict
from voiceagent.tools import ToolContext, build_tools


@pytest.fixture
def registry(tmp_path) -> Iterator[ToolRegistry]:
    config = config_from_dict({"paths": {"data_dir": str(tmp_path)}})
    box = build_tools(config, ToolContext(data_dir=tmp_path))
    try:
        yield box.registry
    finally:
        box.close()


@pytest.mark.parametrize(
    ("question", "tool", "args", "answer"),
    [
        ("What time is it?", "get_time", {}, "It is "),
        ("What is 12 times 7?", "calculate", {"expression": "12 times 7"}, "12 times 7 is 84."),
        ("Set a timer for 5 minutes", "set_timer", {"duration": "5 minutes"}, "Timer set for"),
        ("Add milk to the shopping list", "add_to_list",
         {"list_name": "shopping", "items": "milk"}, "Added milk to your new shopping list"),
    ],
)
def test_a_question_runs_the_matching_tool_for_real(registry, question, tool, args, answer):
    agent = Agent(DemoChat(), registry, config_from_dict({}).agent, Events())
    spoken: list[str] = []
    result = agent.run_turn([], question, on_text=spoken.append)
    assert result.stop == "done"
    (call, text, is_error, _refs, _ran), = result.tool_calls
    assert (call.name, call.args, is_error) == (tool, args, False)
    assert result.answer.startswith(MARK) and answer in result.answer
    assert " ".join(spoken) == result.answer


def test_anything_else_says_the_model_is_absent_and_names_the_tools(registry):
    agent = Agent(DemoChat(), registry, config_from_dict({}).agent, Events())
    result = agent.run_turn([], "Tell me a joke about penguins")
    assert result.tool_calls == [] and result.stop == "done"
    assert result.answer.startswith(MARK) and "get time" in result.answer
