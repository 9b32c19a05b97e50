"""Fixtures for the real PulseAudio test devices and real speech models.

- `pulse`: a private PulseAudio daemon (tests/pulse.py) with a virtual "mic" (play into it
  with `pulse.play_into_mic(audio)`) and "speaker" (capture with `pulse.record_speaker()`).
  It is started before the first test of any session that holds `audio`-marked tests, because
  sounddevice lists devices once, at import, and must find it then.
- `transcriber`, `synthesizer`: the bundled tiny.en and en_US-joe-medium, loaded once.
- `speech`: `speech(text)` -> that text spoken by piper at 16 kHz, with silence around it,
  the same in every run.
- `words(text)`: a transcript normalised for comparison.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.pulse import PulseServer
from voiceagent.audio import STT_RATE, Audio, concat
from voiceagent.config import Config
from voiceagent.speech.numbers import cardinal


@pytest.fixture(scope="session")
def pulse() -> Iterator[PulseServer]:
    if "sounddevice" in sys.modules and "PULSE_SERVER" not in os.environ:
        pytest.fail("sounddevice was imported before the PulseAudio test server started, so it "
                    "will not see the test devices; import it only inside functions")
    root = Path(tempfile.mkdtemp(prefix="voiceagent-pulse-"))
    server = PulseServer(root)
    saved = {k: os.environ.get(k) for k in server.env}
    try:
        server.start()
        os.environ.update(server.env)
        yield server
    finally:
        server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _pulse_first(request: pytest.FixtureRequest) -> None:
    """Start `pulse` before any test when the session has audio tests (see module doc)."""
    if any(item.get_closest_marker("audio") for item in request.session.items):
        request.getfixturevalue("pulse")


@pytest.fixture(scope="session")
def transcriber():  # -> WhisperTranscriber
    from voiceagent.speech.stt import WhisperTranscriber

    config = Config()
    return WhisperTranscriber(config.stt, config.models_dir)


@pytest.fixture(scope="session")
def synthesizer():  # -> PiperSynthesizer
    from voiceagent.speech.tts import PiperSynthesizer

    config = Config()
    return PiperSynthesizer(config.tts, config.models_dir)


@pytest.fixture(scope="session")
def speech() -> Callable[..., Audio]:
    """`speech(text, lead_s=0.6, tail_s=1.2)`: piper saying `text`, 16 kHz, silence around.

    The voice's random noise is off here, so a clip is the same in every run and a test's
    outcome never depends on piper's dice (with it on, tiny.en mishears ~1 clip in 10).
    """
    from piper import PiperVoice, SynthesisConfig

    from voiceagent.models import piper_voice
    from voiceagent.speech.speakable import speakable

    config = Config()
    voice = PiperVoice.load(piper_voice(config.tts.voice, config.models_dir))
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, volume=config.tts.volume)

    @functools.lru_cache(maxsize=64)
    def make(text: str, lead_s: float = 0.6, tail_s: float = 1.2) -> Audio:
        chunks = list(voice.synthesize(speakable(text), syn_config=steady))
        spoken = Audio(np.concatenate([c.audio_float_array for c in chunks]),
                       chunks[0].sample_rate)
        return concat([Audio.silence(lead_s), spoken.resampled(STT_RATE),
                       Audio.silence(tail_s)])

    return make


def noise(seconds: float, level: float = 0.05, seed: int = 7) -> Audio:
    """Steady white noise (a fan, a hum): must never come out as words."""
    rng = np.random.default_rng(seed)
    return Audio((rng.standard_normal(int(seconds * STT_RATE)) * level).astype(np.float32),
                 STT_RATE)


def words(text: str) -> list[str]:
    """Lower-case words without punctuation, numbers as words: "Set 10 timers at 5%." ->
    ["set", "ten", "timers", "at", "five", "percent"]."""
    text = re.sub(r"\d+", lambda m: cardinal(int(m.group())), text.lower().replace("%", " percent"))
    return re.findall(r"[a-z']+", text.replace("-", " "))
