"""The assistant's turn with fakes: streaming order, sessions, barge-in, silence, wake phrase."""

from __future__ import annotations

import threading
from pathlib import Path

from voiceagent.agent.events import Events, Recording
from voiceagent.agent.loop import Agent
from voiceagent.agent.session import SessionStore
from voiceagent.agent.tools import ToolRegistry, tool
from voiceagent.assistant import Assistant, strip_wake_phrase
from voiceagent.audio import Audio
from voiceagent.config import AgentConfig
from voiceagent.testing import (
    FakeSynthesizer,
    FakeTranscriber,
    RecordingPlayer,
    ScriptedChatModel,
    calls,
)


@tool
def get_time() -> str:
    """Tell the current time."""
    return "It is 7:30 in the evening."


def make(tmp_path: Path, model: ScriptedChatModel, transcriber: FakeTranscriber | None = None):
    events = Events()
    recording = Recording()
    events.subscribe(recording)
    synthesizer, player = FakeSynthesizer(), RecordingPlayer()
    session = SessionStore(tmp_path / "s.jsonl", max_turns=5)
    agent = Agent(model, ToolRegistry([get_time]), AgentConfig(), events)
    assistant = Assistant(agent=agent, session=session, synthesizer=synthesizer, player=player,
                          events=events, transcriber=transcriber)
    return assistant, recording, synthesizer, player, session


def test_first_sentence_plays_before_the_model_finishes(tmp_path: Path) -> None:
    model = ScriptedChatModel().enqueue(
        "Sure thing. The sky is blue because of scattering. That is all.",
        deltas=["Sure thing. ", "The sky is blue ", "because of scattering. ", "That is all."],
        pace=0.3,
    )
    assistant, recording, synthesizer, player, _ = make(tmp_path, model)
    outcome = assistant.answer_text("why is the sky blue")
    types = [e.type for e in recording.events]
    assert types.index("audio_start") < types.index("reply")  # spoke while the model wrote
    assert synthesizer.texts == ["Sure thing.", "The sky is blue because of scattering.",
                                 "That is all."]
    assert len(player.played) == 3
    assert outcome.stop == "done"
    assert outcome.timings["first_audio"] < outcome.timings["answer_done"]
    model.assert_consumed()


def test_text_before_a_tool_call_is_spoken_and_speech_resumes_after(tmp_path: Path) -> None:
    model = ScriptedChatModel()
    model.enqueue(calls(("get_time", {}), text="Let me check."))
    model.enqueue("It's half past seven.")
    assistant, _, synthesizer, _, session = make(tmp_path, model)
    outcome = assistant.answer_text("what time is it")
    assert synthesizer.texts == ["Let me check.", "It's half past seven."]
    assert outcome.tool_calls[0]["name"] == "get_time"
    assert [m.role for m in session.load()] == ["user", "assistant", "tool", "assistant"]


def test_history_carries_over_and_is_saved_each_turn(tmp_path: Path) -> None:
    model = ScriptedChatModel().enqueue("Hello!").enqueue("You said hi.")
    assistant, _, _, _, session = make(tmp_path, model)
    assistant.answer_text("hi")
    assert len(session.load()) == 2
    assistant.answer_text("what did I say")
    # (a request no tool serves carries a note before the user's words: say.yaml in_words)
    assert [m.text.split("\n\n")[-1] for m in model.requests[1].messages][-3:] == [
        "hi", "Hello!", "what did I say"]
    assert len(session.load()) == 4


def test_reset_request_forgets_the_conversation_at_the_end_of_the_turn(tmp_path: Path) -> None:
    model = ScriptedChatModel().enqueue("Hello!").enqueue("Done, I forgot it.")
    assistant, _, _, _, session = make(tmp_path, model)
    assistant.answer_text("hi")
    assistant.request_reset()
    assistant.answer_text("forget this conversation")
    assert session.load() == [] and assistant.history == []


def test_silence_never_reaches_the_model(tmp_path: Path) -> None:
    model = ScriptedChatModel()
    assistant, _, _, _, session = make(tmp_path, model, FakeTranscriber(""))
    outcome = assistant.answer_audio(Audio.silence(1.0))
    assert outcome.stop == "empty" and model.requests == []
    assert session.load() == []


def test_wake_phrase_filters_utterances(tmp_path: Path) -> None:
    model = ScriptedChatModel().enqueue("Mount Everest.")
    transcriber = FakeTranscriber("what a day", "Computer, what's the highest mountain?")
    assistant, _, _, _, _ = make(tmp_path, model, transcriber)
    ignored = assistant.answer_audio(Audio.silence(1.0), wake_phrase="computer")
    answered = assistant.answer_audio(Audio.silence(1.0), wake_phrase="computer")
    assert ignored.stop == "not_addressed"
    assert answered.answer == "Mount Everest."
    assert model.requests[0].messages[-1].text.split("\n\n")[-1] == "what's the highest mountain?"


def test_strip_wake_phrase_allows_a_leading_filler_word() -> None:
    assert strip_wake_phrase("Hey computer, set a timer.", "computer") == "set a timer."
    assert strip_wake_phrase("OK Jarvis what time is it", "ok jarvis") == "what time is it"
    assert strip_wake_phrase("what time is it computer", "computer") == ""


def test_barge_in_stops_speech_and_keeps_the_session_valid(tmp_path: Path) -> None:
    long_answer = " ".join(f"This is sentence number {i}." for i in range(20))
    pieces = [w + " " for w in long_answer.split(" ")]
    model = ScriptedChatModel().enqueue(long_answer, deltas=pieces, pace=0.02)
    assistant, recording, _, player, session = make(tmp_path, model)
    player_started = threading.Event()
    original_play = player.play

    def play(audio: Audio) -> None:
        player_started.set()
        original_play(audio)

    player.play = play  # type: ignore[method-assign]
    threading.Thread(target=lambda: (player_started.wait(5), assistant.interrupt()),
                     daemon=True).start()
    outcome = assistant.answer_text("tell me a long story")
    assert outcome.stop == "cancelled"
    assert len(player.played) < 20
    messages = session.load()
    assert messages[0].text == "tell me a long story" and messages[-1].role == "assistant"


def test_barge_in_after_the_model_finished_keeps_only_what_was_heard(tmp_path: Path) -> None:
    long_answer = " ".join(f"This is sentence number {i}." for i in range(10))
    model = ScriptedChatModel().enqueue(long_answer)  # all written before speech starts
    assistant, _, synthesizer, player, session = make(tmp_path, model)
    synthesizer.seconds = 0.3
    second = threading.Event()
    original_play = player.play

    def play(audio: Audio) -> None:
        if len(player.played) == 1:
            second.set()
        original_play(audio)

    player.play = play  # type: ignore[method-assign]
    threading.Thread(target=lambda: (second.wait(5), assistant.interrupt()),
                     daemon=True).start()
    outcome = assistant.answer_text("count for me")
    assert outcome.stop == "cancelled"
    assert outcome.answer.startswith("This is sentence number 0.")
    assert "number 9" not in outcome.answer
    stored = session.load()[-1]
    assert stored.role == "assistant" and "number 9" not in stored.text
    assert stored.text.endswith("(cancelled by the user)")


def test_a_missing_speaker_costs_one_log_line_not_the_answer(tmp_path: Path, caplog) -> None:
    """`ask` on a machine without a sound device: the answer is printed and stored; the
    playback thread logs one warning instead of a traceback per sentence."""
    from voiceagent.errors import DeviceError

    model = ScriptedChatModel().enqueue("Paris is the capital. It is lovely. Go in May.")
    assistant, _, _, player, session = make(tmp_path, model)
    tried: list[Audio] = []

    def play(audio: Audio) -> None:
        tried.append(audio)
        raise DeviceError("no output device found. Available output devices: none")

    player.play = play  # type: ignore[method-assign]
    with caplog.at_level("WARNING"):
        outcome = assistant.answer_text("tell me about Paris")
    assert outcome.answer == "Paris is the capital. It is lovely. Go in May."
    assert session.load()[-1].text == outcome.answer
    assert len(tried) == 1
    warnings = [r for r in caplog.records if "could not speak" in r.getMessage()]
    assert len(warnings) == 1 and "no output device" in warnings[0].getMessage()


def test_after_a_local_command_the_server_caches_the_conversation(tmp_path: Path) -> None:
    """Local commands never reach the model, so the next question to it had to prefill all
    of them first (4.0 s of first-token wait after four commands on the 1.5B; 0.3 s with this).
    A long-running front end sends the conversation in the background after such a turn."""
    from voiceagent.intents import LocalCommands

    model = ScriptedChatModel().enqueue("Hello.")  # the keep-warm request's reply
    assistant, _recording, _synth, _player, _session = make(tmp_path, model)
    assistant.agent.local = LocalCommands(assistant.agent.tools)
    assistant.keep_warm = True
    outcome = assistant.answer_text("What time is it?")
    assert outcome.answer == "It is 7:30 in the evening."
    assert assistant.warmer.settled(30)
    [warm] = model.requests
    assert [m.text for m in warm.messages[-3:-1]] == [  # as the next request will show it
        "What time is it?", "It is 7:30 in the evening."]
    assistant.keep_warm = False  # a one-shot ask: nothing in the background
    assistant.answer_text("What time is it?")
    assert assistant.warmer.settled(30)
    assert len(model.requests) == 1


def test_reading_ahead_waits_for_a_turn_under_way_in_another_conversation(
        tmp_path: Path) -> None:
    """Two rooms share one server: a room's keep-warm sent while another room's answer is
    being written shares the CPU with it (that answer came 1.5-1.7x later). It waits, and
    newer work that comes meanwhile replaces it."""
    from voiceagent.intents import LocalCommands

    model = ScriptedChatModel().enqueue("Hello.")
    assistant, _recording, _synth, _player, _session = make(tmp_path, model)
    assistant.agent.local = LocalCommands(assistant.agent.tools)
    assistant.keep_warm = True
    with assistant.warmer.foreground.turn():  # a turn under way elsewhere
        assistant.answer_text("What time is it?")
        assistant.answer_text("What time is it?")
        assert not assistant.warmer.settled(0.3)  # waiting, not sent
        assert model.requests == []
    assert assistant.warmer.settled(30)
    [warm] = model.requests  # only the newest
    assert [m.text for m in warm.messages if m.role == "user"][-3:-1] == [
        "What time is it?", "What time is it?"]


def test_a_turn_that_begins_stops_reading_ahead_already_sent() -> None:
    """A room's next question waited in its slot behind its own keep-warm (5-10 s when two
    rooms' keep-warms ran together): a turn stops it; what was read stays cached."""
    from voiceagent.agent.foreground import Foreground

    foreground = Foreground()
    with foreground.reading_ahead() as stop:
        assert not stop.is_set()
        with foreground.turn():
            assert stop.is_set()
            with foreground.reading_ahead() as late:  # begun while the turn is under way
                assert late.is_set()
    assert foreground.wait_idle(0)


def test_only_a_long_running_front_end_on_a_local_server_keeps_warm() -> None:
    from voiceagent.build import keeps_warm
    from voiceagent.config_file import config_from_dict
    from voiceagent.front_end import ASK, KIOSK, PTT, WYOMING

    local = config_from_dict({})
    assert keeps_warm(local, KIOSK) and keeps_warm(local, WYOMING)
    assert not keeps_warm(local, ASK)  # it exits at once
    assert not keeps_warm(config_from_dict({"llm": {"provider": "openai"}}), KIOSK)  # paid
    assert not keeps_warm(config_from_dict({"llm": {"provider": "ollama",
                                                    "api_key_env": "MY_KEY"}}), PTT)


def test_an_amount_heard_as_a_guess_is_never_acted_on(tmp_path: Path) -> None:
    """The real "set a timer for 5 minutes", cut after "for", was heard "Set a timer for two
    hours." with "two" at 0.18: nothing runs, the user is asked to say it again."""
    from voiceagent.language import say
    from voiceagent.ports import Transcript

    guess = Transcript("Set a timer for two hours.", words=(
        ("Set", 0.99), ("a", 0.99), ("timer", 0.98), ("for", 0.97), ("two", 0.18),
        ("hours.", 0.71)))
    sure = Transcript("What time is it?", words=(("What", 0.99), ("time", 0.99),
                                                 ("is", 0.99), ("it?", 0.99)))
    from voiceagent.agent.messages import ToolCall
    from voiceagent.config_file import load_config
    from voiceagent.tools import ToolContext, build_tools

    model = ScriptedChatModel().enqueue(calls(("set_timer", {"duration": "2 hours"})))
    model.enqueue(calls(("get_time", {})))
    box = build_tools(load_config(None), ToolContext(tmp_path))
    events = Events()
    assistant = Assistant(agent=Agent(model, box.registry, AgentConfig(), events),
                          session=SessionStore(tmp_path / "s.jsonl", max_turns=5),
                          synthesizer=FakeSynthesizer(), player=RecordingPlayer(), events=events,
                          transcriber=FakeTranscriber(guess, sure))
    outcome = assistant.answer_audio(Audio.silence(1.0))
    assert outcome.stop == "misheard" and outcome.answer == say("misheard")
    assert outcome.tool_calls[0]["error"]  # not run
    assert assistant.answer_audio(Audio.silence(1.0)).stop == "done"  # sure: answered
    assert box.registry.run(ToolCall("t", "list_timers", {})).say.startswith("You have no")
    box.close()
