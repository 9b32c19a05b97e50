"""Real faster-whisper (tiny.en) and piper (joe-medium): the speech round trip and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_audio import noise, words
from voiceagent.audio import Audio, concat, load_audio
from voiceagent.config import STTConfig
from voiceagent.errors import ModelError, VoiceAgentError

pytestmark = pytest.mark.real

ROUND_TRIP = [
    "Set a timer for ten minutes.",
    "How much battery do I have left?",
    "Remind me to call the dentist tomorrow morning.",
    "What time is it in Tokyo right now?",
    "Turn the volume down a little, please.",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip_piper_to_whisper(text, speech, transcriber):
    assert words(transcriber.transcribe(speech(text))) == words(text)


def test_speech_at_sample_zero_is_padded(synthesizer, transcriber):
    """Whisper mishears speech starting at sample 0 unless silence is added in front."""
    clip = concat(list(synthesizer.synthesize("Set a timer for ten minutes.")))
    assert clip.samples[:200].any()
    assert words(transcriber.transcribe(clip)) == words("Set a timer for ten minutes.")


def test_any_rate_is_resampled(synthesizer, transcriber):
    clip = concat(list(synthesizer.synthesize("What's on my shopping list?")))
    assert clip.rate == 22050
    assert words(transcriber.transcribe(clip.resampled(44100))) == words(
        "What's on my shopping list?")


@pytest.mark.parametrize("audio", [
    Audio.silence(3.0),
    noise(3.0, level=0.02),
    noise(3.0, level=0.3, seed=3),
    Audio.silence(0),
], ids=["silence", "quiet-noise", "loud-noise", "empty"])
def test_silence_and_noise_give_no_words(audio, transcriber):
    assert transcriber.transcribe(audio) == ""


@pytest.mark.parametrize("content", [
    b"",
    b"this is not audio at all, just text " * 20,
    b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00",
    b"RIFF\x10\x00\x00\x00WAVEjunkjunkjunk",
], ids=["empty", "text", "cut-header", "bad-chunk"])
def test_corrupt_wav_is_a_clear_error(tmp_path, content):
    bad = tmp_path / "request.wav"
    bad.write_bytes(content)
    with pytest.raises(VoiceAgentError, match="request.wav"):
        load_audio(bad)


def test_missing_model_path_names_it(tmp_path):
    from voiceagent.speech.stt import WhisperTranscriber

    missing = tmp_path / "whisper-small"
    with pytest.raises(ModelError, match=str(missing)):
        WhisperTranscriber(STTConfig(model=str(missing)), tmp_path)


def test_corrupt_model_is_a_model_error(tmp_path):
    from voiceagent.speech.stt import WhisperTranscriber

    (tmp_path / "model.bin").write_bytes(b"\x00not a ctranslate2 model" * 40)
    with pytest.raises(ModelError, match=f"cannot load speech model {tmp_path}"):
        WhisperTranscriber(STTConfig(model=str(tmp_path)), Path("/nonexistent"))


def test_vocabulary_biases_without_leaking_into_the_transcript(speech, transcriber):
    vocabulary = ["shopping", "to-do", "groceries", "hardware store"]
    heard = transcriber.transcribe(speech("What's on my shopping list?"), vocabulary)
    assert words(heard) == words("What's on my shopping list?")
    assert transcriber.transcribe(Audio.silence(2.0), vocabulary) == ""
