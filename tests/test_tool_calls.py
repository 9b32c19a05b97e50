"""The worked example the tool-call prompt starts with (the evaluation is in test_evaluate.py)."""

from __future__ import annotations

from voiceagent.agent.example import worked_example


def test_the_example_uses_an_available_tool_and_is_a_whole_exchange() -> None:
    *plain, user, call, result, answer = worked_example({"get_time", "set_timer"})
    assert [m.role for m in plain] == ["user", "assistant"] * (len(plain) // 2)
    assert not any(m.calls for m in plain)
    assert (user.role, call.role, result.role, answer.role) == (
        "user", "assistant", "tool", "assistant")
    assert call.calls[0].name == "get_time" and result.call_id == call.calls[0].id
    assert answer.text and not answer.calls
    assert worked_example({"set_timer"}) == ()
    assert worked_example({"calculate", "get_time"})[-3].calls[0].name == "calculate"
