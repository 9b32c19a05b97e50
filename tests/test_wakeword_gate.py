"""The wake gate between the microphone and the utterance cutter, with the real wake word
model, Silero VAD and Whisper, on synthetic speech (no devices)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.fixtures_audio import words
from tests.voices import ASSISTANT, USERS, Speaker, news, say
from voiceagent.audio import Audio, concat
from voiceagent.config import AudioConfig
from voiceagent.speech.cutter import UtteranceCutter
from voiceagent.speech.vad import SileroVAD
from voiceagent.speech.wakegate import WakeGate
from voiceagent.speech.wakeword import WakeWord

pytestmark = pytest.mark.real
CONFIG = AudioConfig()


class Rig:
    """Gate and cutter wired as the kiosk wires them; blocks in, what happened out."""

    def __init__(self, *, wake: bool = True, listen_s: float = 3.0) -> None:
        self.woken = 0
        self.short: list[Audio] = []
        self.deaf = False
        watch_vad = SileroVAD()

        def watch(**changes: object) -> UtteranceCutter:
            watch_vad.reset()
            return UtteranceCutter.from_config(watch_vad, dataclasses.replace(CONFIG, **changes))

        self.gate = WakeGate(WakeWord("hey_jarvis") if wake else None, watch,
                             listen_s=listen_s, on_wake=self._woke, on_short=self.short.append,
                             deaf=lambda: self.deaf)
        self.cutter = UtteranceCutter.from_config(SileroVAD(), CONFIG)
        self.passed = 0
        """Blocks that reached the cutter as something other than silence."""

    def _woke(self) -> None:
        self.woken += 1

    def feed(self, audio: Audio) -> list[Audio]:
        """Utterances the cutter cut; the kiosk closes the gate on each."""
        out = []
        for i in range(0, len(audio.samples) - 511, 512):
            block = self.gate(audio.samples[i:i + 512])
            self.passed += bool(block.any())
            utterance = self.cutter.push(block)
            if utterance is not None:
                self.gate.close()
                out.append(utterance.audio)
        return out


@pytest.mark.parametrize("speaker", [ASSISTANT, USERS[0]], ids=str)
def test_the_request_after_the_wake_word_is_kept_whole(speaker: Speaker, transcriber) -> None:
    """(The low, slow USERS[1] peaks at 0.95-0.98 here, around the 0.97 cut-off: a miss
    as often as not; the README's recall figures count such misses.)"""
    rig = Rig()
    heard = rig.feed(concat([news(1, USERS[0]),
                             say("Hey Jarvis, tell me a story about a dragon.", speaker)]))
    assert rig.woken == 1 and len(heard) == 1
    assert words(transcriber.transcribe(heard[0])) == words("tell me a story about a dragon")


def test_nothing_reaches_the_cutter_without_the_wake_word() -> None:
    rig = Rig()
    assert rig.feed(news(3, USERS[2])) == []
    assert rig.passed == 0 and rig.woken == 0


def test_after_the_wake_word_silence_closes_the_gate_again() -> None:
    rig = Rig(listen_s=2.0)
    rig.feed(say("Hey Jarvis.", USERS[1], tail_s=3.0))
    assert rig.woken == 1 and not rig.gate.is_open
    assert rig.feed(say("What time is it?", USERS[1])) == []


def test_a_follow_up_window_lets_an_answer_through_without_the_wake_word(transcriber) -> None:
    rig = Rig()
    rig.gate.open(3.0)
    heard = rig.feed(say("Yes, please.", USERS[3], lead_s=1.0, tail_s=2.0))
    assert len(heard) == 1 and words(transcriber.transcribe(heard[0])) == ["yes", "please"]
    rig.gate.open(1.0)
    assert rig.feed(say("And the milk.", USERS[3], lead_s=2.0)) == []  # too late


def test_while_busy_short_utterances_go_to_the_stop_check_not_the_cutter(transcriber) -> None:
    rig = Rig()
    rig.gate.busy = True
    assert rig.feed(concat([say("Stop!", USERS[0]), news(1, USERS[0])])) == []
    assert rig.passed == 0
    assert len(rig.short) == 1  # the long news sentence is not a stop command
    assert words(transcriber.transcribe(rig.short[0])) == ["stop"]


def test_the_wake_word_while_busy_wakes_it_and_takes_the_request(transcriber) -> None:
    rig = Rig()
    rig.gate.busy = True
    heard = rig.feed(say("Hey Jarvis, what time is it?", USERS[2], tail_s=2.0))
    assert rig.woken == 1 and rig.short == []
    assert words(transcriber.transcribe(heard[0])) == ["what", "time", "is", "it"]


def test_without_a_wake_word_every_utterance_passes_unless_busy() -> None:
    rig = Rig(wake=False)
    assert len(rig.feed(say("What time is it?"))) == 1
    rig.gate.busy = True
    assert rig.feed(say("What time is it?")) == []


def test_deaf_hears_nothing_not_even_the_wake_word() -> None:
    rig = Rig()
    rig.deaf = True
    assert rig.feed(say("Hey Jarvis, what time is it?", USERS[0])) == []
    assert rig.woken == 0 and rig.passed == 0
    assert np.all(rig.gate(np.ones(512, np.float32)) == 0)


def test_what_counts_as_stop_and_as_a_question_back() -> None:
    from voiceagent.frontends import asks_back, is_stop

    assert all(is_stop(t) for t in ("Stop.", "Cancel!", "Never mind.", "Okay, enough.",
                                    "Be quiet"))
    assert not any(is_stop(t) for t in ("Go on.", "What time is it?", ""))
    assert asks_back("Which list should I add it to?")
    assert asks_back('Did you mean "milk"?') and not asks_back("Added milk to shopping.")
