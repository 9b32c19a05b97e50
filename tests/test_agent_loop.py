"""The capped tool loop, against a scripted chat model and real tools."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from voiceagent.agent.events import Cancelled, Cap, Error, Events, Recording
from voiceagent.agent.loop import Agent, TurnResult
from voiceagent.agent.messages import Message, Price, Reply, ToolCall, Usage
from voiceagent.agent.session import unpaired
from voiceagent.agent.tools import ToolRegistry, tool
from voiceagent.config import AgentConfig
from voiceagent.errors import ChatError, ServerDown
from voiceagent.language import say, tell_model
from voiceagent.testing import ScriptedChatModel, calls

CANCEL = threading.Event()
RAN: list[str] = []


@tool
def get_time() -> str:
    """The current time."""
    RAN.append("get_time")
    return "12:30"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    RAN.append(f"add {a} {b}")
    return a + b


@tool
def stop_here() -> str:
    """A tool during which the user cancels the turn."""
    RAN.append("stop_here")
    CANCEL.set()
    return "stopped"


@tool
def broken() -> str:
    """A tool with a bug."""
    raise RuntimeError("disk on fire")


@tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(f"delete {path}")
    return f"deleted {path}"


@pytest.fixture(autouse=True)
def _reset() -> None:
    CANCEL.clear()
    RAN.clear()


def make(model: ScriptedChatModel, **kwargs) -> tuple[Agent, Recording]:
    config = dataclasses.replace(AgentConfig(), **kwargs.pop("config", {}))
    events = Events()
    rec = Recording()
    events.subscribe(rec)
    registry = ToolRegistry([get_time, add, stop_here, broken, delete_file])
    return Agent(model, registry, config, events, **kwargs), rec


def run(agent: Agent, text: str = "hi, what time is it, and what's 2 plus 3?",
        **kwargs) -> tuple[TurnResult, list[str]]:
    spoken: list[str] = []
    result = agent.run_turn([], text, on_text=spoken.append, **kwargs)
    assert unpaired(result.messages) is None
    assert result.messages[0] == Message("user", text)
    last = result.messages[-1]
    assert last.role == "assistant" and not last.calls
    return result, spoken


def test_plain_answer_streams_and_emits_events_in_order():
    model = ScriptedChatModel().enqueue("Hello there. How are you?",
                                        deltas=["Hello ", "there. ", "How are", " you?"])
    agent, rec = make(model)
    result, spoken = run(agent)
    # each sentence goes to speech the moment it is complete
    assert (result.stop, result.answer) == ("done", "Hello there. How are you?")
    assert spoken == ["Hello there.", "How are you?"]
    assert [e.type for e in rec.events] == ["user_text", "request", "first_token", "reply",
                                            "final"]
    model.assert_consumed()


def test_several_calls_in_one_reply_all_run_in_order_paired_to_ids():
    model = ScriptedChatModel()
    model.enqueue(calls(("get_time", {}), ("add", {"a": 2, "b": 3})))
    model.enqueue("It is 12:30 and the sum is 5.")
    agent, rec = make(model)
    result, _ = run(agent)
    assert RAN == ["get_time", "add 2 3"]
    sent = model.requests[1].messages
    assert [(m.role, m.call_id, m.text) for m in sent[2:]] == [
        ("tool", "c1", "12:30"), ("tool", "c2", "5")]
    assert [r[1:3] for r in result.tool_calls] == [("12:30", False), ("5", False)]
    types = [e.type for e in rec.events]
    assert types.index("tool_call") < types.index("tool_result") < types.index("final")
    model.assert_consumed()


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (ToolCall("c1", "get_weather", {}), "no tool named 'get_weather'"),
        (ToolCall("c1", "add", {}, bad_json='{"a": 1,'), "not valid JSON"),
        (ToolCall("c1", "add", {"a": "two", "b": 3}), "parameter 'a'"),
        (ToolCall("c1", "add", {"a": 1}), "missing required parameter 'b'"),
        (ToolCall("c1", "broken", {}), "RuntimeError: disk on fire"),
    ],
)
def test_tool_faults_become_results_for_the_model_and_the_loop_goes_on(call, expected):
    model = ScriptedChatModel().enqueue(Reply("", (call,))).enqueue("Sorry, that failed.")
    agent, _ = make(model)
    result, _ = run(agent)
    assert result.stop == "done"
    (_, text, is_error, _refs, _ran), = result.tool_calls
    assert is_error and expected in text
    assert model.requests[1].messages[-1].text == text
    model.assert_consumed()


def test_step_cap_ends_with_a_spoken_sentence_and_a_cap_event():
    model = ScriptedChatModel()
    for i in range(3):
        model.enqueue(calls(("add", {"a": i, "b": 1})))
    agent, rec = make(model, config={"max_steps": 3})
    result, spoken = run(agent)
    assert result.stop == "cap"
    assert result.answer == say("cap_steps") == spoken[-1]
    assert rec.first(Cap).fields == {"which": "steps", "limit": 3}
    assert len(model.requests) == 3 and len(result.tool_calls) == 3
    model.assert_consumed()


def test_token_cap_and_money_cap():
    model = ScriptedChatModel().enqueue(Reply("", calls(("get_time", {})).calls, Usage(900, 200)))
    agent, rec = make(model, config={"max_tokens": 1000})
    assert run(agent)[0].stop == "cap" and rec.first(Cap).fields["which"] == "tokens"

    model = ScriptedChatModel().enqueue(Reply("", calls(("get_time", {})).calls, Usage(900, 200)))
    agent, rec = make(model, price=Price(10.0, 30.0), config={"max_cost_usd": 0.01})
    assert run(agent)[0].stop == "cap" and rec.first(Cap).fields["which"] == "cost"


def test_no_money_cap_without_a_price():
    model = ScriptedChatModel()
    model.enqueue(Reply("", calls(("get_time", {})).calls, Usage(900, 200))).enqueue("12:30.")
    agent, _ = make(model, config={"max_cost_usd": 0.01})
    assert run(agent)[0].stop == "done"


def test_time_cap_never_sends_a_request_past_the_deadline():
    model = ScriptedChatModel()
    agent, rec = make(model, config={"max_seconds": 0.0})
    result, _ = run(agent)
    assert result.stop == "cap" and rec.first(Cap).fields["which"] == "seconds"
    assert model.requests == []


def test_a_repeated_call_is_answered_with_a_warning_then_the_turn_ends():
    model = ScriptedChatModel()
    for _ in range(3):
        model.enqueue(calls(("get_time", {})))
    agent, _ = make(model)
    result, spoken = run(agent)
    assert result.stop == "loop"
    assert RAN == ["get_time"]
    warning = model.requests[2].messages[-1].text
    assert "already called get_time" in warning and "12:30" in warning
    assert spoken[-1].strip() == result.answer
    model.assert_consumed()


def test_identical_calls_within_one_reply_both_run():
    model = ScriptedChatModel()
    model.enqueue(calls(("add", {"a": 1, "b": 1}), ("add", {"a": 1, "b": 1}))).enqueue("Two.")
    agent, _ = make(model)
    assert run(agent)[0].stop == "done"
    assert RAN == ["add 1 1", "add 1 1"]


def test_approval_declined_without_an_approver_and_asked_with_one():
    model = ScriptedChatModel().enqueue(calls(("delete_file", {"path": "a.txt"}))).enqueue("No.")
    agent, _ = make(model)
    result, _ = run(agent, "hi, please delete a.txt")
    assert result.tool_calls[0][1] == tell_model("declined") and RAN == []

    asked = []
    model = ScriptedChatModel().enqueue(calls(("delete_file", {"path": "a.txt"}))).enqueue("Done.")
    agent, _ = make(model, approve=lambda name, args: asked.append((name, args)) or True)
    result, _ = run(agent, "hi, please delete a.txt")
    assert asked == [("delete_file", {"path": "a.txt"})]
    assert RAN == ["delete a.txt"] and result.tool_calls[0][1] == "deleted a.txt"


def test_an_invalid_call_is_not_put_to_the_user_for_approval():
    asked = []
    model = ScriptedChatModel().enqueue(calls(("delete_file", {}))).enqueue("Hm.")
    agent, _ = make(model, approve=lambda name, args: asked.append(name) or True)
    result, _ = run(agent)
    assert asked == [] and "missing required parameter 'path'" in result.tool_calls[0][1]


def test_a_second_failure_is_a_spoken_apology_carrying_the_error_kind():
    down = ServerDown("nothing answers at http://127.0.0.1:9/v1")
    model = ScriptedChatModel().enqueue(down).enqueue(down)
    agent, rec = make(model)
    result, spoken = run(agent)
    assert result.stop == "error" and isinstance(result.error, ServerDown)
    assert spoken == [result.answer] and result.answer.startswith("Sorry")
    assert rec.first(Error).fields["kind"] == "ServerDown"
    model.assert_consumed()


def test_a_half_sentence_before_a_failure_is_dropped_and_the_request_retried():
    model = ScriptedChatModel().enqueue(ChatError("dropped"), deltas=["The answer"])
    model.enqueue("The answer is 42.")
    agent, _ = make(model)
    result, spoken = run(agent, "what's the answer to everything?")
    assert (result.stop, result.answer) == ("done", "The answer is 42.")
    model.assert_consumed()
    model.assert_consumed()


def test_cancel_mid_tool_fills_every_remaining_call_with_a_result():
    model = ScriptedChatModel().enqueue(calls(("stop_here", {}), ("get_time", {})))
    agent, rec = make(model)
    result, _ = run(agent, cancel=CANCEL)
    assert result.stop == "cancelled"
    assert RAN == ["stop_here"]
    assert [r[1] for r in result.tool_calls] == ["stopped", tell_model("cancelled")]
    assert rec.first(Cancelled).fields == {"where": "tools"}
    model.assert_consumed()


def test_cancel_mid_stream_keeps_what_was_said():
    model = ScriptedChatModel()
    model.enqueue("It is twelve thirty.", deltas=["It is ", "twelve ", "thirty."],
                  during=CANCEL.set)
    agent, _ = make(model)
    result, spoken = run(agent, cancel=CANCEL)
    # speech only ever gets whole sentences: the unfinished one is dropped, not spoken
    assert (result.stop, spoken, result.answer) == ("cancelled", [], "")
    assert result.messages[-1] == Message("assistant", "(cancelled by the user)")


def test_cancel_before_anything_was_said_still_closes_the_turn():
    CANCEL.set()
    model = ScriptedChatModel()
    agent, _ = make(model)
    result, spoken = run(agent, cancel=CANCEL)
    assert result.stop == "cancelled" and spoken == [] and model.requests == []


def test_text_of_several_steps_is_spoken_with_a_space_between():
    model = ScriptedChatModel()
    model.enqueue(calls(("get_time", {}), text="Let me check."))
    model.enqueue("It is 12:30.")
    agent, _ = make(model)
    result, spoken = run(agent)
    assert " ".join(spoken).strip() == "Let me check. It is 12:30."
    assert result.answer == "Let me check. It is 12:30."


def test_prefix_is_sent_first_but_never_returned():
    example = [Message("user", "example question"), Message("assistant", "example answer")]
    history = [Message("user", "earlier"), Message("assistant", "ok")]
    model = ScriptedChatModel().enqueue("Now.")
    agent, _ = make(model, prefix=example)
    result = agent.run_turn(history, "now?")
    assert list(model.requests[0].messages) == [*example, *history, Message("user", "now?")]
    assert result.messages == [Message("user", "now?"), Message("assistant", "Now.")]
    assert model.requests[0].system == AgentConfig().system_prompt


def test_warm_up_sends_the_fixed_prefix_once_outside_any_turn():
    example = [Message("user", "example question"), Message("assistant", "example answer")]
    model = ScriptedChatModel().enqueue("Hello, how can I help?", deltas=["Hello", ", how"])
    agent, rec = make(model, prefix=example)
    agent.warm_up()
    (request,) = model.requests
    assert list(request.messages[:2]) == example and request.tools == tuple(agent.tools.specs())
    assert rec.events == []  # not a turn: nothing in the trace
    model.assert_consumed()


def test_an_error_after_the_user_cancelled_is_a_cancel_not_an_apology():
    model = ScriptedChatModel().enqueue(ChatError("connection closed"), during=CANCEL.set)
    agent, _ = make(model)
    result, spoken = run(agent, cancel=CANCEL)
    assert (result.stop, spoken) == ("cancelled", [])
