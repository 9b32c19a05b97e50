"""The worked example and the hit-rate evaluation's table and judging (no model needed)."""

from __future__ import annotations

from pathlib import Path

from voiceagent.agent.example import worked_example
from voiceagent.config import Config
from voiceagent.evaluate import Case, Outcome, load_cases, matches, summary
from voiceagent.tools import ToolContext, build_tools


def test_the_example_uses_an_available_tool_and_is_a_whole_exchange() -> None:
    *plain, user, call, result, answer = worked_example({"get_time", "set_timer"})
    assert [m.role for m in plain] == ["user", "assistant"] and not plain[1].calls
    assert (user.role, call.role, result.role, answer.role) == (
        "user", "assistant", "tool", "assistant")
    assert call.calls[0].name == "get_time" and result.call_id == call.calls[0].id
    assert answer.text and not answer.calls
    assert worked_example({"set_timer"}) == ()
    assert worked_example({"calculate", "get_time"})[-3].calls[0].name == "calculate"


def test_every_case_names_a_real_tool_and_real_arguments(tmp_path: Path) -> None:
    box = build_tools(Config(), ToolContext(tmp_path))
    try:
        specs = {s.name: s for s in box.registry.specs()}
        cases = load_cases()
        assert len(cases) >= 30
        assert any(c.tool is None for c in cases)
        for case in cases:
            if case.tool is not None:
                assert case.tool in specs, case.say
                assert set(case.args) <= set(specs[case.tool].parameters["properties"])
    finally:
        box.close()


def test_arguments_match_by_contained_text_or_any_alternative() -> None:
    assert matches({"place": "new york"}, {"place": "New  York City"})
    assert matches({"duration": ["5", "five"]}, {"duration": "five minutes"})
    assert not matches({"duration": ["5", "five"]}, {"duration": "30 seconds"})
    assert not matches({"label": "pasta"}, {})
    assert matches({}, {"anything": 1})


def test_summary_counts_tool_requests_and_plain_chat_apart() -> None:
    outcomes = [Outcome(Case("a", "get_time"), "get_time", {}, True, True, 0.1),
                Outcome(Case("b", "get_time"), "", {}, False, None, 0.1),
                Outcome(Case("c"), "", {}, True, None, 0.1)]
    result = summary(outcomes)
    assert result["tool requests"] == "1/2 (50 %)"
    assert result["plain chat (no tool)"] == "1/1 (100 %)"
    assert result["answer after the result"] == "1/1 (100 %)"
