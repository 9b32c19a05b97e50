"""Real piper (joe-medium): clips per sentence, volume, speakable input, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fixtures_audio import words
from voiceagent.audio import concat
from voiceagent.config import TTSConfig
from voiceagent.errors import ModelError

pytestmark = pytest.mark.real


def test_one_clip_per_sentence_at_the_voice_rate(synthesizer):
    clips = list(synthesizer.synthesize("Sure. Your timer is set. It rings at noon."))
    assert len(clips) == 3
    assert {c.rate for c in clips} == {synthesizer.rate} == {22050}
    assert all(c.samples.dtype == np.float32 and c.seconds > 0.3 for c in clips)


def test_volume_keeps_peaks_below_full_scale(synthesizer):
    clip = concat(list(synthesizer.synthesize("The kitchen light is now off.")))
    peak = float(np.abs(clip.samples).max())
    assert 0.3 < peak <= 0.71  # [tts] volume = 0.7; piper normalises to full scale


def speak(synthesizer, text: str) -> list:
    """The clips for `text` as every caller makes them: through the one speakable pass."""
    from voiceagent.speaking import speech_sentences

    return [c for s in speech_sentences(text) for c in synthesizer.synthesize(s)]


def test_markdown_and_numbers_are_spoken_not_spelled(synthesizer, transcriber):
    clip = concat(speak(synthesizer, "**Done!** It's 7:30 and your battery is at 45%."))
    heard = words(transcriber.transcribe(clip))
    assert "asterisk" not in heard and "star" not in heard
    assert heard[0] == "done" and heard[-3:] == ["forty", "five", "percent"]


@pytest.mark.parametrize("text", ["", "   ", "```\nprint('hi')\n```", "**"])
def test_nothing_to_say_gives_no_clips(synthesizer, text):
    assert speak(synthesizer, text) == []


def test_missing_voice_names_the_path(tmp_path):
    from voiceagent.speech.tts import PiperSynthesizer

    missing = tmp_path / "en_GB-alan-low.onnx"
    with pytest.raises(ModelError, match=str(missing)):
        PiperSynthesizer(TTSConfig(voice=str(missing)), tmp_path)


def test_broken_voice_is_a_model_error(tmp_path):
    from voiceagent.speech.tts import PiperSynthesizer

    voice = tmp_path / "broken.onnx"
    voice.write_bytes(b"not onnx")
    voice.with_name("broken.onnx.json").write_text("{}")
    with pytest.raises(ModelError, match=f"cannot load voice {voice}"):
        PiperSynthesizer(TTSConfig(voice=str(voice)), tmp_path)
