"""Regenerates voiceagent/bench/questions/ (package data): spoken questions and transcripts.

Most are spoken by voiceagent's own piper synthesizer, three by espeak-ng (apt: espeak-ng) in
other accents, so the bench and the STT tests hear more than one voice. Every clip is 16 kHz
mono with 0.3 s of silence before the speech, as a microphone recording would have.

    .venv/bin/python tests/data/make_questions.py
"""

from __future__ import annotations

import dataclasses
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from voiceagent.audio import STT_RATE, Audio, concat, read_wav, write_wav
from voiceagent.build import build_synthesizer
from voiceagent.config import Config

OUT = Path(__file__).resolve().parent.parent.parent / "voiceagent" / "bench" / "questions"
LEAD_S = 0.3
TAIL_S = 0.2

QUESTIONS = [
    # (name, text, voice): voice "piper:<length_scale>" or "espeak:<espeak-ng voice>"
    ("q01", "What time is it?", "piper:1.0"),
    ("q02", "What is seventeen plus twenty five?", "espeak:en-us"),
    ("q03", "Set a timer for twenty minutes.", "piper:0.9"),
    ("q04", "Add milk and eggs to my shopping list.", "espeak:en-gb"),
    ("q05", "Good morning, how are you today?", "piper:1.1"),
    ("q06", "Tell me a fun fact about the moon.", "piper:1.0"),
    ("q07", "What day of the week is it?", "piper:1.0"),
    ("q08", "How many minutes are there in three hours?", "espeak:en-gb-x-rp"),
]


def piper(text: str, length_scale: float) -> Audio:
    config = Config()
    config = dataclasses.replace(
        config, tts=dataclasses.replace(config.tts, length_scale=length_scale,
                                        sentence_silence=0.0))
    return concat(list(build_synthesizer(config).synthesize(text)))


def espeak(text: str, voice: str) -> Audio:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "speech.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", "155", "-w", str(path), text],
                       check=True)
        audio = read_wav(path)
    peak = float(np.max(np.abs(audio.samples))) or 1.0
    return Audio(audio.samples * (0.7 / peak), audio.rate)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text, voice in QUESTIONS:
        engine, _, arg = voice.partition(":")
        speech = piper(text, float(arg)) if engine == "piper" else espeak(text, arg)
        clip = concat([Audio.silence(LEAD_S), speech.resampled(STT_RATE),
                       Audio.silence(TAIL_S)])
        write_wav(OUT / f"{name}.wav", clip)
        (OUT / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
        print(f"{name}.wav  {clip.seconds:4.1f} s  {voice:22} {text}")


if __name__ == "__main__":
    main()
