"""What a turn reports having done is the call as it ran, not as the model wrote it: a timer
label nobody said is left out before the timer is set (agent/grounding.py), and the outcome,
the trace and the measures must say so ("set an alarm for 7:45" set no "breakfast" alarm)."""

from __future__ import annotations

from pathlib import Path

from voiceagent.agent.events import Events, ToolResult
from voiceagent.agent.loop import Agent
from voiceagent.config import AgentConfig
from voiceagent.config_file import load_config
from voiceagent.testing import ScriptedChatModel, calls
from voiceagent.tools import ToolContext, build_tools


def test_a_label_nobody_said_is_not_what_ran(tmp_path: Path):
    box = build_tools(load_config(None), ToolContext(tmp_path))
    try:
        model = ScriptedChatModel().enqueue(
            calls(("set_timer", {"duration": "10 minutes", "label": "breakfast"})))
        model.enqueue("Timer set.")
        events = Events()
        seen: list[object] = []
        events.subscribe(seen.append)
        result = Agent(model, box.registry, AgentConfig(), events).run_turn(
            [], "could you time ten minutes for me")
        done = result.tool_calls[0]
        assert done.call.args["label"] == "breakfast"  # what the model asked, for the history
        assert done.args == {"duration": "10 minutes"}  # what was done
        ran = [e for e in seen if isinstance(e, ToolResult)]
        assert ran and ran[0].ran == {"duration": "10 minutes"}
        assert "breakfast" not in (tmp_path / "timers.json").read_text()
    finally:
        box.close()
