"""Ending an utterance when its words sound finished (speech/drafts.py), on the recorder with
real Silero VAD on piper speech: scripted drafts for exact cases, real Whisper for the rest."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from tests.fixtures_audio import words
from voiceagent.audio import Audio, concat
from voiceagent.config import AudioConfig
from voiceagent.ports import Transcript
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.drafts import Drafts, sounds_finished
from voiceagent.speech.vad import BLOCK_MS
from voiceagent.testing import FakeBlockSource


@pytest.mark.parametrize("text, finished", [
    ("What time is it?", True), ("Turn it off.", True), ("Add milk to my list.", True),
    ("Set a timer for", False), ("Set a timer for...", False), ("Add eggs and", False),
    ("Add eggs and.", False), ("What's, um.", False), ("Remind me to", False), ("", False),
    ("What is 12 times", False), ("Thanks!", False), ("Thank you!", True),
    ("Picovoice.", False), ("Set a timer for it.", False), ("Cancel it.", True),
    ("Remind me too.", False), ("Set a timer for 20 minutes.", True),
])
def test_what_sounds_finished(text: str, finished: bool):
    assert sounds_finished(text) is finished


class Scripted:
    """A transcriber saying the given texts in turn (the last one again after that), after
    `seconds` each; counts its calls."""

    def __init__(self, *texts: str, seconds: float = 0.0, doubt: str = "") -> None:
        self.texts, self.seconds, self.doubt, self.calls = list(texts), seconds, doubt, 0

    def transcribe(self, audio: Audio) -> Transcript:
        self.calls += 1
        time.sleep(self.seconds)
        text = self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]
        return Transcript(text, doubt=self.doubt)


def listen(script: list[Audio], transcriber=None, command=None,
           **config) -> tuple[list[Audio], FakeBlockSource, list[int]]:
    """The utterances a kiosk recorder cuts from `script`, with drafts from `transcriber`
    (none: the fixed silence window) and `command` telling whole commands; also how many
    blocks had been read at each."""
    stop = threading.Event()
    source = FakeBlockSource(*script, done=stop)
    mic = MicRecorder(replace(AudioConfig(), **config), source=lambda paused: source)
    if transcriber is not None:
        mic.drafts = Drafts(transcriber, command)
    heard, read_at = [], []
    for audio in mic.utterances(stop):
        heard.append(audio)
        read_at.append(source.blocks_read)
    return heard, source, read_at


@pytest.mark.real
def test_finished_words_end_the_utterance_early_and_are_not_transcribed_again(speech):
    clip = speech("What time is it?", lead_s=0.5, tail_s=2.0)
    [fixed], _, [fixed_at] = listen([clip])
    stt = Scripted("What time is it?")
    [early], _, [early_at] = listen([clip], stt)
    # ended early_end_ms into the pause instead of silence_ms (450 and 700 ms by default)
    config = AudioConfig()
    assert fixed_at - early_at >= (config.silence_ms - config.early_end_ms) / BLOCK_MS - 1
    assert len(early.samples) == len(fixed.samples)  # the same words, the same short tail
    drafts = Drafts(stt)
    assert drafts.draft(early).text == "What time is it?" and stt.calls == 2
    assert drafts.transcribe(early) == "What time is it?" and stt.calls == 2  # reused
    assert drafts.transcribe(clip) == "What time is it?"
    assert stt.calls == 3  # other audio: transcribed


@pytest.mark.real
def test_words_that_trail_off_get_a_longer_pause(speech):
    first = speech("Set a timer for", lead_s=0.5, tail_s=0.0)
    rest = speech("ten minutes.", lead_s=0.0, tail_s=2.0)
    pause = Audio.silence(1.3)
    split, _, _ = listen([first, pause, rest])
    assert len(split) == 2  # the fixed window cuts the sentence in two
    held, _, _ = listen([first, pause, rest], Scripted("Set a timer for", "Set a timer for "
                                                                          "ten minutes."))
    assert len(held) == 1 and held[0].seconds > first.seconds + rest.seconds - 1.0


@pytest.mark.real
def test_speech_during_the_draft_keeps_the_utterance_going(speech):
    first = speech("What time is it", lead_s=0.5, tail_s=0.0)
    first = Audio(first.samples[: -int(0.2 * first.rate)], first.rate)  # piper's own pause
    rest = speech("in Tokyo?", lead_s=0.0, tail_s=2.0)
    # the speaker goes on before early_end_ms of silence, while the draft runs; how long the
    # draft takes on this machine (0.4 s here) changes nothing the listener decides
    slow = Scripted("What time is it?", seconds=0.4)
    heard, _, _ = listen([first, Audio.silence(0.35), rest], slow)
    assert len(heard) == 1 and slow.calls >= 1


@pytest.mark.real
def test_a_doubtful_draft_leaves_it_to_the_silence_window(speech):
    clip = speech("What time is it?", lead_s=0.5, tail_s=2.0)
    [_], _, [fixed_at] = listen([clip])
    [_], _, [doubt_at] = listen([clip], Scripted("What time is it?", doubt="avg_logprob -0.7"))
    assert doubt_at == fixed_at


@pytest.mark.real
def test_real_whisper_cuts_no_one_off_after_unfinished_words(speech, transcriber):
    """Pauses of 0.8-1.0 s after words a request cannot end on: one utterance each, with
    every word; a finished question still ends sooner than the fixed window."""
    cases = [("Set a timer for", "twenty minutes."), ("Add eggs and", "milk to my list."),
             ("Remind me to", "call the garage.")]
    for (head, tail), pause in zip(cases, (0.8, 0.9, 1.0), strict=True):
        clip = concat([speech(head, lead_s=0.5, tail_s=0.0), Audio.silence(pause),
                       speech(tail, lead_s=0.0, tail_s=2.0)])
        heard, _, _ = listen([clip], transcriber)
        assert len(heard) == 1, (head, pause)
        assert words(transcriber.transcribe(heard[0]))[-1] == words(tail)[-1]
    # a finished question: its transcript is ready when it is cut, not transcribed after
    clip = speech("What is the time in London?", lead_s=0.5, tail_s=2.0)
    counted = Counted(transcriber)
    stop = threading.Event()
    mic = MicRecorder(AudioConfig(), source=lambda paused: FakeBlockSource(clip, done=stop))
    mic.drafts = drafts = Drafts(counted)
    [early] = list(mic.utterances(stop))
    drafted = counted.calls
    assert words(drafts.transcribe(early))[-1] == "london" and counted.calls == drafted


class Counted:
    def __init__(self, transcriber) -> None:
        self.transcriber, self.calls = transcriber, 0

    def transcribe(self, audio: Audio) -> Transcript:
        self.calls += 1
        return self.transcriber.transcribe(audio)


@pytest.mark.real
def test_a_whole_command_ends_sooner_than_other_finished_words(speech):
    """command_end_ms (300) of silence after words the local templates know, early_end_ms
    (550) after other finished words; with speech in the pause, neither."""
    clip = speech("What time is it?", lead_s=0.5, tail_s=2.0)
    config = AudioConfig()
    [_], _, [finished_at] = listen([clip], Scripted("What time is it?"), lambda text: False)
    [_], _, [command_at] = listen([clip], Scripted("What time is it?"), lambda text: True)
    gap = (config.early_end_ms - config.command_end_ms) / BLOCK_MS
    assert gap - 2 <= finished_at - command_at <= gap + 2
    [_], _, [off_at] = listen([clip], Scripted("What time is it?"), lambda text: True,
                              command_end_ms=0)
    assert off_at == finished_at  # command_end_ms = 0: like other finished words
    first = speech("What time is it", lead_s=0.5, tail_s=0.0)
    first = Audio(first.samples[: -int(0.2 * first.rate)], first.rate)  # piper's own pause
    rest = speech("in Tokyo?", lead_s=0.0, tail_s=2.0)
    heard, _, _ = listen([first, Audio.silence(0.15), rest],
                         Scripted("What time is it?", "What time is it in Tokyo?"),
                         lambda text: True)
    assert len(heard) == 1  # a pause shorter than command_end_ms cuts nothing


@pytest.mark.real
def test_only_whole_local_commands_end_at_command_end(speech, transcriber, tmp_path):
    """Real Whisper and the real templates: "What time is it?" ends at command_end_ms, "Tell
    me a joke." (for the model) at early_end_ms, "Set a timer for" (a pause) not at all."""
    from voiceagent.config_file import config_from_dict
    from voiceagent.front_end import KIOSK
    from voiceagent.intents import LocalCommands
    from voiceagent.tools import ToolContext, build_tools

    box = build_tools(config_from_dict({"paths": {"data_dir": str(tmp_path)}}),
                      ToolContext(tmp_path, KIOSK))
    local = LocalCommands(box.registry)
    try:
        def is_command(text: str) -> bool:
            return local.match(text) is not None

        def end_of(text: str) -> int:
            """Blocks read after the last word when the utterance ended."""
            clip = speech(text, lead_s=0.5, tail_s=2.0)
            [_], _, [read] = listen([clip], transcriber, is_command)
            return read - round((clip.seconds - 2.0) * 1000 / BLOCK_MS)

        config = AudioConfig()
        command, other = end_of("What time is it?"), end_of("Tell me a joke.")
        gap = (config.early_end_ms - config.command_end_ms) / BLOCK_MS
        assert other - command >= gap - 2, (command, other)
        head = speech("Set a timer for", lead_s=0.5, tail_s=0.0)
        tail = speech("ten minutes.", lead_s=0.0, tail_s=2.0)
        heard, _, _ = listen([head, Audio.silence(0.45), tail], transcriber, is_command)
        assert len(heard) == 1
    finally:
        box.close()
