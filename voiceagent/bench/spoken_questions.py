"""The bench's spoken questions: WAV files, each with what is said in it beside it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from voiceagent.audio import Audio, load_audio
from voiceagent.errors import VoiceAgentError

QUESTIONS_DIR = Path(__file__).resolve().parent / "questions"
"""The bundled spoken questions (qNN.wav with the expected transcript in qNN.txt)."""


@dataclass(frozen=True)
class Question:
    """One spoken question and what was said in it."""

    name: str
    audio: Audio
    expected: str


def load_questions(directory: Path) -> list[Question]:
    """Every NAME.wav in `directory` with its transcript NAME.txt, in name order."""
    wavs = sorted(directory.glob("*.wav"))
    if not wavs:
        raise VoiceAgentError(f"{directory}: no .wav questions found; --wav-dir takes a folder "
                              "of WAV files, each with its expected transcript in NAME.txt")
    questions = []
    for wav in wavs:
        txt = wav.with_suffix(".txt")
        if not txt.is_file():
            raise VoiceAgentError(f"{txt}: missing; write what is said in {wav.name} into it")
        questions.append(Question(wav.stem, load_audio(wav), txt.read_text("utf-8").strip()))
    return questions
