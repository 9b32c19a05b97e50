"""The composition root: each object is built after what it needs and handed it, and what
differs between front ends comes from their FrontEnd value (no model, server or speaker is
patched in afterwards)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

from voiceagent.agent.events import Events
from voiceagent.agent.wire_openai import OpenAIChat
from voiceagent.audio import Audio
from voiceagent.build import build_assistant, build_parts
from voiceagent.config import Config
from voiceagent.config_file import config_from_dict
from voiceagent.front_end import ASK, KIOSK, PTT
from voiceagent.testing import FakeClock, FakeSynthesizer, RecordingPlayer, unused_url
from voiceagent.tools.timer_store import Timers
from voiceagent.tools.timers import make_tools


def config(tmp_path: Path) -> Config:
    """A model server that is never asked (every turn here is a local command)."""
    return config_from_dict({
        "llm": {"provider": "llamacpp", "base_url": unused_url()},
        "paths": {"data_dir": str(tmp_path)},
        "tools": {"enabled": ["clock", "timers", "conversation", "shell"]},
    })


def overdue_timer(data_dir: Path) -> None:
    """A one-hour timer set two hours ago: due the moment anything rings timers."""
    past = Timers(data_dir / "timers.json", FakeClock(time.time() - 7200))
    [set_timer] = [t for t in make_tools(past) if t.name == "set_timer"]
    set_timer.func(duration="1 hour", label="soup")


class Heard(FakeSynthesizer):
    """A FakeSynthesizer that says when it was first asked to speak."""

    def __init__(self) -> None:
        super().__init__()
        self.said = threading.Event()

    def synthesize(self, text: str) -> Iterator[Audio]:
        self.said.set()
        return super().synthesize(text)


def test_the_model_is_connected_before_the_agent_and_timers_ring_through_its_assistant(
        tmp_path: Path) -> None:
    overdue_timer(tmp_path)
    synthesizer = Heard()
    with ExitStack() as stack:
        assistant = build_assistant(config(tmp_path), stack, front_end=PTT,
                                    player=RecordingPlayer(), events=Events(),
                                    synthesizer=synthesizer, with_transcriber=False)
        assert isinstance(assistant.agent.model, OpenAIChat)  # the real client, from the start
        assert assistant.keep_warm  # a front end that runs on, against a keyless server
        assert synthesizer.said.wait(10)
    [said] = synthesizer.texts  # what the speaker got: the timer's announcement, in words
    assert "soup timer went off while I was not running" in said


def test_a_one_shot_ask_fires_no_timers_and_connects_the_model_on_first_use(
        tmp_path: Path) -> None:
    overdue_timer(tmp_path)
    synthesizer = FakeSynthesizer()
    with ExitStack() as stack:
        assistant = build_assistant(config(tmp_path), stack, front_end=ASK,
                                    player=RecordingPlayer(), events=Events(),
                                    synthesizer=synthesizer, with_transcriber=False,
                                    lazy_model=True)
        outcome = assistant.answer_text("What time is it?")  # a local command: no model
        assert outcome.stop == "done" and not assistant.keep_warm
        assert not getattr(assistant.agent.model, "connected", True)
    [said] = synthesizer.texts  # the answer (in words), and no timer
    assert said.startswith("It is") and "timer" not in said


def test_the_conversation_tool_resets_the_assistant_built_from_the_same_parts(
        tmp_path: Path) -> None:
    with ExitStack() as stack:
        parts = build_parts(config(tmp_path), stack, front_end=ASK, with_transcriber=False)
        assistant = build_assistant(config(tmp_path), stack, front_end=ASK, parts=parts,
                                    player=RecordingPlayer(), events=Events(),
                                    synthesizer=FakeSynthesizer())
        assistant.answer_text("What time is it?")
        assert assistant.history
        assistant.answer_text("Forget this conversation.")
        assert assistant.history == []
        assert parts.session.load() == []


def test_a_hands_free_front_end_gets_no_shell_tool(tmp_path: Path) -> None:
    with ExitStack() as stack:
        kiosk = build_parts(config(tmp_path), stack, front_end=KIOSK, with_transcriber=False)
    with ExitStack() as stack:
        keyed = build_parts(config(tmp_path / "b"), stack, front_end=PTT,
                            with_transcriber=False)
    assert "run_command" not in kiosk.toolbox.registry
    assert "run_command" in keyed.toolbox.registry
