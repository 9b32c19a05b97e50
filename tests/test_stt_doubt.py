"""Whisper's own scores decide whether a transcript may be acted on (real faster-whisper)."""

from __future__ import annotations

from pathlib import Path

import pytest

import voiceagent
from voiceagent.audio import Audio, read_wav

QUESTIONS = sorted((Path(voiceagent.__file__).parent / "bench" / "questions").glob("q0[1-4].wav"))

pytestmark = pytest.mark.real


@pytest.mark.parametrize("path", QUESTIONS, ids=lambda p: p.stem)
def test_clear_speech_is_trusted_and_backwards_speech_is_not(transcriber, path: Path):
    clip = read_wav(path)
    clear = transcriber.transcribe(clip)
    assert clear and clear.doubt == "" and not clear.garbled
    backwards = transcriber.transcribe(Audio(clip.samples[::-1].copy(), clip.rate))
    assert backwards == "" or backwards.doubt  # words Whisper made up are marked doubtful
