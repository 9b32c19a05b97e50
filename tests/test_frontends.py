"""The keyed front end (push-to-talk and the daemon) with fakes: scripted keys, a scripted
listener, the scripted model, a fake transcriber, synthesizer and player; no device."""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from voiceagent.agent.events import AudioStart, Events, Recording, TurnEnd
from voiceagent.agent.loop import Agent
from voiceagent.agent.session import SessionStore
from voiceagent.agent.tools import ToolRegistry
from voiceagent.assistant import Assistant
from voiceagent.audio import Audio
from voiceagent.config import AgentConfig
from voiceagent.errors import VoiceAgentError
from voiceagent.frontends import KeyedFrontEnd
from voiceagent.testing import (
    FakeSynthesizer,
    FakeTranscriber,
    RecordingPlayer,
    ScriptedChatModel,
    ScriptedKeys,
    ScriptedListen,
)
from voiceagent.view import TerminalView

CLIP = Audio(np.full(8000, 0.1, dtype=np.float32), 16000)
WAIT = 10.0


@dataclass
class Rig:
    """A running KeyedFrontEnd and everything around it."""

    keys: ScriptedKeys
    listen: ScriptedListen
    model: ScriptedChatModel
    transcriber: FakeTranscriber
    synthesizer: FakeSynthesizer
    player: RecordingPlayer
    recording: Recording
    screen: io.StringIO
    chimes: list[str]
    stop: threading.Event
    thread: threading.Thread
    turn_ends: threading.Semaphore

    def states(self) -> list[str]:
        """The states the view showed, in order ("idle", "listening", ...)."""
        return re.findall(r"^\[(\w[\w ]*?)(?: - .*)?\]$", self.screen.getvalue(), re.M)

    def talk(self) -> None:
        """Press to start, and (once it listens) press again to stop."""
        self.keys.press()
        self.wait_listening()
        self.keys.press()

    def wait_listening(self) -> None:
        assert self.listen.listening.wait(WAIT), "the front end never started listening"

    def wait_turn_end(self) -> None:
        assert self.turn_ends.acquire(timeout=WAIT), "the turn never ended"

    def finish(self) -> None:
        self.thread.join(WAIT)
        assert not self.thread.is_alive(), "the front end did not return"


@pytest.fixture
def rig(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Rig]:
    """Parametrised indirectly with (holds, transcripts, replies, synth seconds)."""
    holds, transcripts, replies, seconds = request.param
    model = ScriptedChatModel()
    for reply in replies:
        model.enqueue(reply)
    transcriber = FakeTranscriber(*transcripts)
    rig = _start(tmp_path, ScriptedKeys(holds=holds), ScriptedListen(CLIP, CLIP), model,
                 transcriber, FakeSynthesizer(seconds=seconds))
    yield rig
    rig.stop.set()
    rig.thread.join(WAIT)


def _start(tmp_path: Path, keys: ScriptedKeys, listen: ScriptedListen, model: ScriptedChatModel,
           transcriber, synthesizer: FakeSynthesizer) -> Rig:
    events = Events()
    recording = Recording()
    events.subscribe(recording)
    turn_ends = threading.Semaphore(0)
    events.subscribe(lambda e: turn_ends.release() if isinstance(e, TurnEnd) else None)
    player = RecordingPlayer()
    agent = Agent(model, ToolRegistry([]), AgentConfig(), events)
    assistant = Assistant(agent=agent, session=SessionStore(tmp_path / "s.jsonl", 5),
                          synthesizer=synthesizer, player=player, events=events,
                          transcriber=transcriber)
    screen = io.StringIO()
    view = TerminalView(screen)
    events.subscribe(view)
    chimes: list[str] = []
    front = KeyedFrontEnd(assistant, listen, keys.start(), view=view, chime=chimes.append)
    stop = threading.Event()
    thread = threading.Thread(target=front.run, args=(stop,), daemon=True)
    thread.start()
    return Rig(keys, listen, model, transcriber, synthesizer, player, recording, screen, chimes,
               stop, thread, turn_ends)


@pytest.mark.parametrize("rig", [(False, ["what time is it"], ["It is noon."], 0.05)],
                         indirect=True)
def test_press_to_start_and_press_to_stop_answers_then_quit_ends_it(rig: Rig) -> None:
    rig.keys.press()
    rig.wait_listening()
    rig.keys.press()  # the second press ends the recording (a pause would not)
    rig.wait_turn_end()
    rig.keys.quit()
    rig.finish()
    assert rig.listen.calls == [False]
    assert rig.transcriber.heard == [CLIP]
    assert rig.synthesizer.texts == ["It is noon."] and len(rig.player.played) == 1
    assert rig.chimes == ["start", "stop"]
    assert rig.states()[:3] == ["idle", "listening", "thinking"]
    assert rig.states()[-1] == "idle" and "speaking" in rig.states()
    assert "you: what time is it" in rig.screen.getvalue()
    rig.model.assert_consumed()


@pytest.mark.parametrize("rig", [(True, ["hello"], ["Hi there."], 0.05)], indirect=True)
def test_hold_to_talk_ends_on_release(rig: Rig) -> None:
    rig.keys.press()
    rig.wait_listening()
    rig.keys.release()
    rig.wait_turn_end()
    rig.keys.quit()
    rig.finish()
    assert rig.listen.calls == [True]  # silence may end it too, while the key is held
    assert rig.synthesizer.texts == ["Hi there."]


@pytest.mark.parametrize("rig", [(False, ["tell me a story", "stop"],
                                  ["Once upon a time. There was a fox.", "Okay."], 5.0)],
                         indirect=True)
def test_a_press_while_it_speaks_interrupts_the_answer_and_listens_again(rig: Rig) -> None:
    rig.talk()
    assert _wait_for(lambda: rig.recording.of_type(AudioStart)), "the answer never started"
    rig.keys.press()  # barge-in: the 5 s sentence is cut, and a new recording starts
    rig.wait_turn_end()
    rig.wait_listening()
    assert len(rig.recording.of_type(TurnEnd)) == 1
    assert len(rig.player.played) == 1  # the 5 s first sentence was cut, the second never played
    rig.keys.quit()  # quitting while recording ends the front end without a turn
    rig.finish()
    assert len(rig.transcriber.heard) == 1


@pytest.mark.parametrize("rig", [(False, [""], [], 0.05)], indirect=True)
def test_nothing_heard_is_shown_and_asks_nothing_of_the_model(rig: Rig) -> None:
    rig.talk()
    rig.wait_turn_end()
    rig.keys.quit()
    rig.finish()
    assert "nothing heard" in rig.states()
    assert rig.model.requests == [] and rig.player.played == []


@pytest.mark.parametrize("rig", [(False, [], [], 0.05)], indirect=True)
def test_stop_ends_the_front_end_while_it_records(rig: Rig) -> None:
    rig.keys.press()
    rig.wait_listening()
    rig.stop.set()
    rig.finish()
    assert rig.transcriber.heard == [] and rig.chimes == ["start"]


class FailingOnce(FakeTranscriber):
    """Fails its first transcription, as a broken model or device would."""

    def transcribe(self, audio: Audio) -> str:
        if not self.heard:
            self.heard.append(audio)
            raise VoiceAgentError("speech model crashed")
        return super().transcribe(audio)


def test_a_failed_turn_is_logged_and_the_next_press_is_served(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedChatModel().enqueue("Still here.")
    rig = _start(tmp_path, ScriptedKeys(), ScriptedListen(CLIP, CLIP), model,
                 FailingOnce("are you there"), FakeSynthesizer())
    try:
        rig.talk()
        assert _wait_for(lambda: rig.states().count("idle") == 2), "no idle after the failure"
        rig.talk()
        rig.wait_turn_end()
        rig.keys.quit()
        rig.finish()
    finally:
        rig.stop.set()
    assert "turn failed: speech model crashed" in caplog.text
    assert rig.synthesizer.texts == ["Still here."]


def _wait_for(condition, timeout: float = WAIT) -> bool:
    pause = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if condition():
            return True
        pause.wait(0.01)
    return bool(condition())

