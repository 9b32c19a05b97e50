"""The wake word detector on real synthetic speech (no devices): it fires once on "Hey Jarvis"
in several voices, at the end of the wake word, and never on other speech."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.voices import ASSISTANT, USERS, Speaker, news, say
from voiceagent.audio import Audio, concat
from voiceagent.errors import ConfigError
from voiceagent.speech.wakeword import WakeWord, builtin_names

pytestmark = pytest.mark.real


def detections(wake: WakeWord, audio: Audio, block: int = 512) -> list[float]:
    """Seconds into `audio` at which the wake word fired."""
    hits = []
    for i in range(0, len(audio.samples), block):
        if wake(audio.samples[i:i + block]):
            hits.append((wake.samples) / audio.rate)
    return hits


@pytest.fixture(scope="module")
def wake() -> WakeWord:
    return WakeWord("hey_jarvis")


@pytest.mark.parametrize("speaker", [ASSISTANT, *USERS], ids=str)
def test_fires_once_at_the_end_of_the_wake_word(wake: WakeWord, speaker: Speaker) -> None:
    wake.reset()
    alone = say("Hey Jarvis.", speaker, lead_s=0.5, tail_s=0)
    request = say("Hey Jarvis, what time is it?", speaker, lead_s=0.5)
    hits = detections(wake, request)
    assert len(hits) == 1, hits
    # At the end of "Hey Jarvis" (within 0.35 s of it), so the request after it is intact.
    assert abs(hits[0] - alone.seconds) < 0.35, (hits[0], alone.seconds)


def test_any_block_size_gives_the_same_detection(wake: WakeWord) -> None:
    audio = say("Hey Jarvis, set a timer.", USERS[0])
    wake.reset()
    by_512 = detections(wake, audio, 512)
    wake.reset()
    by_160 = detections(wake, audio, 160)
    assert len(by_512) == len(by_160) == 1
    assert abs(by_512[0] - by_160[0]) < 0.04


def test_quiet_on_news_and_near_misses(wake: WakeWord) -> None:
    wake.reset()
    near_misses = [say(t) for t in ("Hey Travis, how are you?", "Jarvis, what time is it?",
                                    "Hey, what time is it?", "Harvest this service.")]
    audio = news(8)
    for clip in [audio, *near_misses]:
        assert detections(wake, clip) == []
    assert audio.seconds > 25  # a real amount of speech was heard


def test_refractory_time_gives_one_wake_up_per_wake_word(wake: WakeWord) -> None:
    once = say("Hey Jarvis.", USERS[1], lead_s=0.5, tail_s=2.0)
    twice = concat([once, once])  # 3 s apart
    wake.reset()
    assert len(detections(wake, twice)) == 2
    patient = WakeWord("hey_jarvis", refractory_s=10)
    assert len(detections(patient, twice)) == 1


def test_cutoff_is_the_models_own_unless_given() -> None:
    assert WakeWord("hey_jarvis").cutoff == pytest.approx(0.97)
    strict = WakeWord("hey_jarvis", cutoff=0.9999)
    assert strict.cutoff == 0.9999
    assert detections(strict, say("Hey Jarvis, what time is it?")) == []


def test_names_and_paths() -> None:
    assert {"hey_jarvis", "okay_nabu", "alexa", "hey_mycroft"} <= set(builtin_names())
    assert WakeWord("Hey Jarvis").name == "Hey Jarvis"
    import pymicro_wakeword

    config = Path(pymicro_wakeword.__file__).parent / "models" / "okay_nabu.json"
    assert WakeWord(str(config)).name == json.loads(config.read_text())["wake_word"]
    assert WakeWord(str(config.with_suffix(".tflite"))).name == "Okay Nabu"
    with pytest.raises(ConfigError, match="hey_siri.*okay_nabu, hey_jarvis"):
        WakeWord("hey_siri")


def test_silence_and_noise_never_fire(wake: WakeWord) -> None:
    rng = np.random.default_rng(3)
    wake.reset()
    noise = Audio((rng.standard_normal(16000 * 20) * 0.05).astype(np.float32), 16000)
    assert detections(wake, noise) == []
    assert detections(wake, Audio.silence(5)) == []
