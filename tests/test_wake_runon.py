"""The wake word and the request in one breath, on real recordings (tests/data/real/wake): the
kiosk's listening side as `run --mode kiosk` wires it (modes.wake_gate: the real
pymicro-wakeword and Silero VAD; MicRecorder fed the file by FakeBlockSource), then the real
Whisper on what the gate let through."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.fixtures_audio import words
from tests.real_speech import COPIED, Clip, glue, load
from voiceagent.audio import Audio, concat
from voiceagent.config_file import config_from_dict
from voiceagent.modes import wake_gate
from voiceagent.ports import Transcriber
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.wake_confirm import heard_by
from voiceagent.speech.wakeword import WakeWord
from voiceagent.testing import FakeBlockSource

pytestmark = pytest.mark.real
HERE = COPIED / "wake"
REQUESTS = {  # the recording, its first word, and the words that must all be heard
    "0c6a26aa-bc20-4c64-960a-9162b5f81925.flac": ("can", ["drip coffee", "a lot of milk",
                                                          "a little bit of sugar"]),
    "stp_set_a_timer_for_5_minutes.flac": ("set", ["timer", "five minutes"]),
}


def clip(name: str) -> Clip:
    return load(str(HERE / name))


class Listening:
    """What the kiosk's recorder delivers from one recording, and what the gate passed."""

    def __init__(self, wake_word: str = "alexa", transcriber: Transcriber | None = None) -> None:
        self.config = config_from_dict({"trigger": {"mode": "kiosk", "wake_word": wake_word}})
        self.transcriber = transcriber
        """What the kiosk asks about a doubtful run-on wake word (its own speech to text)."""

    def hear(self, audio: Audio) -> tuple[list[Audio], np.ndarray, int]:
        """(utterances, the gate's output sample by sample, wake-ups)."""
        stop = threading.Event()
        source = FakeBlockSource(audio, Audio.silence(3.0), done=stop)
        mic = MicRecorder(self.config.audio, source=lambda paused: source)
        gate = wake_gate(self.config, mic, transcriber=self.transcriber)
        passed: list[np.ndarray] = []

        def tap(block: np.ndarray) -> np.ndarray:
            passed.append(block.copy())
            return block

        mic.processors += [gate, tap]
        heard = []
        for utterance in mic.utterances(stop):
            gate.close()  # as the kiosk does
            heard.append(utterance)
        return heard, np.concatenate(passed), gate.wakes


def where_from(passed: np.ndarray, heard: np.ndarray) -> int:
    """Where in the recording the audio the gate passed begins: it passes the recording's
    own samples, from some point on, a fixed number of samples late."""
    first = int(np.flatnonzero(passed)[0])
    probe = passed[first + 200: first + 1200]  # past the 5 ms fade-in
    for late in range(0, first + 1):
        start = first - late
        if np.array_equal(heard[start + 200: start + 1200], probe):
            return start
    raise AssertionError("the gate passed audio that is not the recording's")


@pytest.mark.parametrize("gap", [0.0, 0.15])
@pytest.mark.parametrize("wake", ["0.flac", "108.flac"])
@pytest.mark.parametrize("request_name", sorted(REQUESTS))
def test_a_request_run_on_from_the_wake_word_is_heard_whole_without_it(
        gap: float, wake: str, request_name: str, transcriber) -> None:
    """Glued with no pause or 0.15 s (with no pause the old gate missed the wake word in 3 of
    these 4)."""
    first, phrases = REQUESTS[request_name]
    audio, wake_end, onset = glue(clip(wake), clip(request_name), gap)
    heard, passed, wakes = Listening(transcriber=transcriber).hear(audio)
    assert wakes == 1 and len(heard) == 1
    said = words(transcriber.transcribe(heard[0]).text)
    assert said[:1] == [first], said
    text = " ".join(said)
    assert all(" ".join(words(p)) in text for p in phrases), said
    assert "alexa" not in said
    # what passed the gate starts within 50 ms of where the words meet: never the body of
    # the wake word, and its first word was heard (above)
    start = where_from(passed, audio.samples)
    assert wake_end - 800 <= start <= onset + 800, (wake_end, start, onset)


def test_a_request_without_the_wake_word_is_not_heard() -> None:
    for name in REQUESTS:
        heard, passed, wakes = Listening().hear(concat([clip(name).audio]))
        assert heard == [] and wakes == 0 and not passed.any()


def test_jarvis_alone_does_not_wake_hey_jarvis_and_computer_wakes_none() -> None:
    """Two of the "computer" recordings bring okay_nabu close (0.78 and 0.84 against its
    0.85): the second look runs on them and must not wake it either."""
    jarvis = sorted((HERE / "jarvis").glob("*.flac"))
    computer = sorted((HERE / "computer").glob("*.flac"))
    assert len(jarvis) >= 3 and len(computer) >= 3
    for name, files in (("hey_jarvis", jarvis + computer), ("alexa", jarvis + computer),
                        ("okay_nabu", computer)):
        detector = WakeWord(name)
        for path in files:
            detector.reset()
            samples = concat([load(str(path)).audio, Audio.silence(1.0)]).samples
            fired = [detector(samples[i:i + 512]) for i in range(0, len(samples), 512)]
            assert not any(fired), (name, path.name)


def test_the_real_wake_word_alone_wakes_it_once() -> None:
    for wake in ("0.flac", "108.flac"):
        heard, passed, wakes = Listening().hear(concat([clip(wake).audio, Audio.silence(1.0)]))
        assert wakes == 1 and heard == []  # nothing said after it


def test_a_doubtful_run_on_wake_word_wakes_it_when_speech_to_text_hears_the_name(
        transcriber) -> None:
    """This "alexa" run into a coffee order scores 0.96 on the second look, where 0.975 is
    needed: the model alone stays asleep; Whisper hears "Alexa." and it wakes, and the
    order is heard from its first word."""
    audio, _end, _onset = glue(clip("84.flac"), clip("627b8b3a-c132-47f3-9924-28b47f9d44e2.flac"),
                               0.0)
    _heard, _passed, wakes = Listening().hear(audio)
    assert wakes == 0
    heard, _passed, wakes = Listening(transcriber=transcriber).hear(audio)
    assert wakes == 1 and len(heard) == 1
    said = words(transcriber.transcribe(heard[0]).text)
    assert "espresso" in said and "alexa" not in said, said


def test_a_near_miss_is_asked_about_and_stays_asleep(transcriber) -> None:
    """"I'd like a" in this real coffee order brings alexa's second look to 0.95: speech to
    text is asked, hears "I like...", and the kiosk stays asleep."""
    asked: list[bool] = []
    detector = WakeWord("alexa")
    confirm = heard_by(transcriber, detector.name)
    detector.confirm = lambda samples: asked.append(confirm(samples)) or asked[-1]
    samples = concat([clip("b30b89a8-2fc1-4adb-9e6e-74eac5c446e8.flac").audio,
                      Audio.silence(1.0)]).samples
    fired = [detector(samples[i:i + 512]) for i in range(0, len(samples), 512)]
    assert asked == [False] and not any(fired)


def test_a_model_that_wakes_on_speech_is_checked_on_every_wake(transcriber) -> None:
    """hey_mycroft's own rule wakes on this real coffee order (as sure as of its real word;
    6 times in the shared 77 min of speech): with every wake checked by speech to text, as
    `wake_check = "auto"` does for it, it stays asleep; piper's "Hey Mycroft." said alone
    and run into a real request still wakes it."""
    from tests.voices import USERS, say

    order = concat([clip("1a8dc4dc-edd7-4629-9eb3-c30c74881930.flac").audio,
                    Audio.silence(1.0)]).samples
    plain, checked = WakeWord("hey_mycroft"), WakeWord("hey_mycroft", check_every=True)
    checked.confirm = heard_by(transcriber, checked.name)
    assert sum(plain(order[i:i + 512]) for i in range(0, len(order), 512)) == 1
    assert sum(checked(order[i:i + 512]) for i in range(0, len(order), 512)) == 0
    name = say("Hey Mycroft.", USERS[0], lead_s=0.5, tail_s=0.3)
    for after in (Audio.silence(1.0), clip("0c6a26aa-bc20-4c64-960a-9162b5f81925.flac").audio):
        checked.reset()
        samples = concat([name, after]).samples
        assert sum(checked(samples[i:i + 512]) for i in range(0, len(samples), 512)) == 1


def test_wake_check_auto_checks_every_wake_only_for_speech_like_models() -> None:
    from voiceagent.modes import wake_detector

    def detector(name: str, check: str) -> WakeWord:
        config = config_from_dict({"trigger": {"mode": "kiosk", "wake_word": name,
                                               "wake_check": check}})
        return wake_detector(name, config, transcriber=object())  # type: ignore[no-any-return]

    assert detector("hey_mycroft", "auto").check_every
    assert not detector("alexa", "auto").check_every
    assert detector("alexa", "always").check_every
    assert not detector("hey_mycroft", "doubtful").check_every
