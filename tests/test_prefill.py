"""The model reads ahead while the user pauses (agent/warmer.py, Assistant.prefill): a draft
heard as a finished turn has the server read the request its words would make. With the
scripted model: what that request carries, that nothing of it is spoken or kept, that a final
transcript saying other words changes nothing the user hears, and that local commands (which
never reach the model) are never prefilled."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

from voiceagent.agent.events import Events, Recording
from voiceagent.agent.history import for_model
from voiceagent.agent.loop import Agent, warm_turn
from voiceagent.agent.messages import Message
from voiceagent.agent.session import SessionStore
from voiceagent.agent.tools import ToolRegistry, tool
from voiceagent.assistant import Assistant
from voiceagent.audio import Audio
from voiceagent.config import AgentConfig
from voiceagent.config_file import config_from_dict
from voiceagent.intents import LocalCommands
from voiceagent.speech.drafts import Drafts
from voiceagent.testing import (
    FakeSynthesizer,
    FakeTranscriber,
    RecordingPlayer,
    ScriptedChatModel,
)

SETTLE_S = 30.0
"""Only an upper bound for the worker thread to finish (never a timing under test)."""
EARLIER = [Message("user", "Hello there."), Message("assistant", "Hello! How can I help?")]
QUESTION = "Tell me a fun fact about the moon."
KEPT_WARM = "Hello."
"""The reply to the keep-warm request after a model turn (history shown as answers)."""


@tool
def get_time() -> str:
    """Tell the current time."""
    return "It is 7:30 in the evening."


@dataclasses.dataclass
class Kiosk:
    assistant: Assistant
    model: ScriptedChatModel
    synthesizer: FakeSynthesizer
    player: RecordingPlayer
    session: SessionStore
    recording: Recording


def kiosk(tmp_path: Path, final: str, *, local: bool = False) -> Kiosk:
    """An assistant as a long-running front end on a local server builds it (keep_warm), with
    one earlier exchange, whose transcriber will hear `final`."""
    model = ScriptedChatModel()
    events = Events()
    recording = Recording()
    events.subscribe(recording)
    synthesizer, player = FakeSynthesizer(), RecordingPlayer()
    session = SessionStore(tmp_path / "s.jsonl", max_turns=5)
    session.save(EARLIER)
    registry = ToolRegistry([get_time])
    agent = Agent(model, registry, AgentConfig(), events,
                  prefix=[Message("user", "an example"), Message("assistant", "its answer")],
                  local=LocalCommands(registry) if local else None)
    assistant = Assistant(agent=agent, session=session, synthesizer=synthesizer, player=player,
                          events=events, transcriber=FakeTranscriber(final))
    assistant.keep_warm = True
    return Kiosk(assistant, model, synthesizer, player, session, recording)


def pause(k: Kiosk, words: str) -> None:
    """The request's transcript was ready at a pause (speech/read_ahead.py) with `words`,
    passed on as modes.early_end wires it; returns once the server has read them."""
    k.assistant.prefill(words)
    assert k.assistant.warmer.settled(SETTLE_S)


def test_a_finished_draft_has_the_server_read_the_request_and_nothing_is_said_or_kept(
        tmp_path: Path) -> None:
    k = kiosk(tmp_path, QUESTION)
    k.model.enqueue("The moon is drifting away from the Earth.",
                    deltas=["The moon ", "is drifting away ", "from the Earth."])
    pause(k, QUESTION)
    [read] = k.model.requests
    config = k.assistant.agent.config
    assert read.system == config.system_prompt
    assert list(read.messages) == [*k.assistant.agent.prefix, *for_model(EARLIER),
                                   Message("user", QUESTION)]
    # nothing spoken, nothing kept, no turn: the user heard nothing
    assert k.synthesizer.texts == [] and k.player.played == []
    assert k.session.load() == EARLIER and k.assistant.history == EARLIER
    assert k.recording.events == []
    # the turn itself then sends its own request, the same one (the server's cache has it)
    k.model.enqueue("The moon is slowly drifting away from the Earth.").enqueue(KEPT_WARM)
    outcome = k.assistant.answer_audio(Audio.silence(1.0))
    assert k.assistant.warmer.settled(SETTLE_S)
    assert outcome.answer == "The moon is slowly drifting away from the Earth."
    assert k.model.requests[1].messages == read.messages
    assert k.model.requests[1].tools == read.tools
    assert k.synthesizer.texts == ["The moon is slowly drifting away from the Earth."]


def test_a_draft_the_final_transcript_does_not_say_changes_nothing_the_user_hears(
        tmp_path: Path) -> None:
    """The draft heard "...the moon." but the user went on: the request is the final words,
    and the turn is exactly the turn without any prefill."""
    final = "Tell me a fun fact about the moon landing."
    answer = "Apollo 11 landed in 1969."

    def turn(k: Kiosk) -> tuple[list[str], list[Message], str]:
        k.model.enqueue(answer).enqueue(KEPT_WARM)
        outcome = k.assistant.answer_audio(Audio.silence(1.0))
        assert k.assistant.warmer.settled(SETTLE_S)
        return k.synthesizer.texts, k.session.load(), outcome.answer

    plain = kiosk(tmp_path / "plain", final)
    without = turn(plain)
    prefilled = kiosk(tmp_path / "prefilled", final)
    prefilled.model.enqueue("Sure! The moon has moonquakes.")  # the read-ahead's own reply
    pause(prefilled, QUESTION)
    assert prefilled.model.requests[0].messages[-1] == Message("user", QUESTION)
    assert turn(prefilled) == without
    assert prefilled.model.requests[1:] == plain.model.requests  # the turn's, then keep-warm
    assert prefilled.model.requests[1].messages[-1] == Message("user", final)
    assert "moonquakes" not in " ".join(prefilled.synthesizer.texts)
    prefilled.model.assert_consumed()


def test_local_commands_are_never_prefilled(tmp_path: Path) -> None:
    """The templates answer "What time is it?" without the model: no request, then or after."""
    k = kiosk(tmp_path, "What time is it?", local=True)
    pause(k, "What time is it?")
    k.assistant.warmer.prefill(k.assistant.history, "what time is it")
    assert k.assistant.warmer.settled(SETTLE_S)
    assert k.model.requests == [] and k.assistant.warmer.sent == []
    # a question for the model is, on the same assistant
    k.model.enqueue("Hi.")
    pause(k, QUESTION)
    assert [r.messages[-1].text for r in k.model.requests] == [QUESTION]


def test_no_prefill_without_keep_warm_nor_during_a_turn(tmp_path: Path) -> None:
    """A paid API or a one-shot ask never gets a request the user did not make; while a turn
    runs its history is not final."""
    k = kiosk(tmp_path, QUESTION)
    k.assistant.keep_warm = False
    pause(k, QUESTION)
    assert k.model.requests == []
    k.assistant.keep_warm = True
    k.model.enqueue("Sure.", during=lambda: k.assistant.prefill(QUESTION))
    k.model.enqueue(KEPT_WARM)
    k.assistant.answer_text("Hi again.")
    assert k.assistant.warmer.settled(SETTLE_S)
    assert [r.messages[-1].text for r in k.model.requests] == ["Hi again.", warm_turn()]


def test_the_wake_phrase_is_left_out_and_words_without_it_are_not_prefilled(
        tmp_path: Path) -> None:
    """The kiosk answers only what follows its wake phrase; the prefill reads the same."""
    from voiceagent.modes import early_end

    k = kiosk(tmp_path, QUESTION)
    recorder = SimpleNamespace(drafts=None)
    config = config_from_dict({"audio": {"turn_model": ""},
                               "trigger": {"wake_phrase": "computer"}})
    early_end(config, k.assistant, recorder, wake_phrase="computer")
    assert isinstance(recorder.drafts, Drafts)
    k.model.enqueue("Hi.")
    ahead = k.assistant.transcriber  # the read-ahead passes on each transcript ready
    ahead.on_ready(f"Computer, {QUESTION}")
    ahead.on_ready("Tell the others we are late.")
    assert k.assistant.warmer.settled(SETTLE_S)
    assert [r.messages[-1].text for r in k.model.requests] == [QUESTION]


def test_a_failing_read_ahead_costs_nothing_but_the_head_start(tmp_path: Path) -> None:
    from voiceagent.errors import ChatError

    k = kiosk(tmp_path, QUESTION)
    k.model.enqueue(ChatError("the server is busy"))
    pause(k, QUESTION)
    k.model.enqueue("The moon has no air.").enqueue(KEPT_WARM)
    assert k.assistant.answer_audio(Audio.silence(1.0)).answer == "The moon has no air."
    assert k.assistant.warmer.settled(SETTLE_S)
    k.model.assert_consumed()


def test_the_transcript_ready_at_the_pause_is_prefilled_and_is_the_request(
        tmp_path: Path) -> None:
    """As modes.early_end wires it: the request's own transcriber starts on the pause's audio
    (speech/read_ahead.py), the server reads the request those words make, and the utterance
    that ends there is answered with exactly that request, transcribed once."""
    import time

    from voiceagent.modes import early_end

    k = kiosk(tmp_path, QUESTION)
    transcriber = k.assistant.transcriber
    early_end(config_from_dict({"audio": {"turn_model": ""}}), k.assistant,
              SimpleNamespace(drafts=None))
    k.model.enqueue("Read.")
    audio = Audio.silence(1.0)
    k.assistant.transcriber.start(audio)
    deadline = time.monotonic() + SETTLE_S  # an upper bound only
    while not k.model.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert k.assistant.warmer.settled(SETTLE_S)
    [read] = k.model.requests
    k.model.enqueue("The moon is moving away.").enqueue(KEPT_WARM)
    assert k.assistant.answer_audio(audio).answer == "The moon is moving away."
    assert k.model.requests[1].messages == read.messages
    assert k.assistant.transcriber.used == 1 and len(transcriber.heard) == 1
