"""Our remote Transcriber and Synthesizer against the real Wyoming servers Home Assistant users
run (wyoming-faster-whisper, wyoming-piper), given the bundled model files so nothing is
downloaded."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures_audio import words
from tests.wyoming_servers import QUESTIONS, REPO, free_port, running
from voiceagent.audio import Audio, concat, read_wav
from voiceagent.build import build_synthesizer, build_transcriber
from voiceagent.config import Config
from voiceagent.config_file import config_from_dict
from voiceagent.models import piper_voice, whisper_dir
from voiceagent.wyoming.client import RemoteSynthesizer, RemoteTranscriber, check_remotes

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def faster_whisper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """wyoming-faster-whisper on the bundled tiny.en, never downloading."""
    root = tmp_path_factory.mktemp("faster-whisper")
    config, port = Config(), free_port()
    model = whisper_dir(config.stt.model, config.models_dir)
    with running(["-m", "wyoming_faster_whisper", "--uri", f"tcp://127.0.0.1:{port}",
                  "--model", str(model), "--data-dir", str(root), "--local-files-only",
                  "--language", "en", "--beam-size", "1", "--compute-type", "int8",
                  "--cpu-threads", "2"], port, root / "server.log"):
        yield f"tcp://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def wyoming_piper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """wyoming-piper with the bundled joe voice as its data directory, its random variation
    off (as in the speech fixture: with it on, tiny.en mishears about one clip in ten, and CI
    once heard "Add no can eggs")."""
    root = tmp_path_factory.mktemp("piper")
    config, port = Config(), free_port()
    voice = piper_voice(config.tts.voice, config.models_dir)
    with running(["-m", "wyoming_piper", "--uri", f"tcp://127.0.0.1:{port}",
                  "--voice", voice.name.removesuffix(".onnx"), "--data-dir", str(voice.parent),
                  "--noise-scale", "0", "--noise-w-scale", "0"],
                 port, root / "server.log"):
        yield f"tcp://127.0.0.1:{port}"


def overlap(said: str, heard: str) -> float:
    said_words, heard_words = words(said), set(words(heard))
    return sum(w in heard_words for w in said_words) / len(said_words)


def question(n: int) -> tuple[Audio, str]:
    return read_wav(QUESTIONS / f"q{n:02d}.wav"), (QUESTIONS / f"q{n:02d}.txt").read_text()


def test_our_transcriber_on_a_real_wyoming_faster_whisper(faster_whisper: str) -> None:
    remote = RemoteTranscriber(faster_whisper, "en", fallback=None)
    for n in (1, 6):
        audio, said = question(n)
        heard = remote.transcribe(audio)
        assert overlap(said, heard) >= 0.8
        assert getattr(heard, "text", None) == heard  # a Transcript, as the front ends expect


def test_engine_wyoming_in_config_builds_the_remote_transcriber(
        faster_whisper: str, tmp_path: Path) -> None:
    config = config_from_dict({"stt": {"engine": "wyoming", "uri": faster_whisper},
                               "paths": {"data_dir": str(tmp_path)}})
    transcriber = build_transcriber(config)
    assert isinstance(transcriber, RemoteTranscriber)
    audio, said = question(5)
    assert overlap(said, transcriber.transcribe(audio)) >= 0.8
    assert check_remotes(config) == f"stt {faster_whisper} (faster-whisper)"


def test_our_synthesizer_on_a_real_wyoming_piper_is_heard_back(
        wyoming_piper: str, transcriber, tmp_path: Path) -> None:
    config = config_from_dict({"tts": {"engine": "wyoming", "uri": wyoming_piper,
                                       "fallback": "none"},
                               "paths": {"data_dir": str(tmp_path)}})
    synthesizer = build_synthesizer(config)
    assert isinstance(synthesizer, RemoteSynthesizer)
    said = "Add milk and eggs to my shopping list."
    [clip] = list(synthesizer.synthesize(said))
    assert clip.rate == 22050 and 1.0 < clip.seconds < 8.0
    padded = concat([Audio.silence(0.5, clip.rate), clip, Audio.silence(0.5, clip.rate)])
    assert overlap(said, str(transcriber.transcribe(padded))) >= 0.8
    assert list(synthesizer.synthesize("  ")) == []


def test_a_kiosk_question_heard_by_the_remote_whisper_is_answered(
        faster_whisper: str, llm_base_url: str, tmp_path: Path) -> None:
    """The Raspberry Pi case end to end: `voiceagent ask --wav` with [stt] engine = "wyoming"."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[llm]\nmodel = "qwen2.5-coder-0.5b"\nbase_url = "{llm_base_url}"\n'
        f'[paths]\ndata_dir = "{tmp_path / "data"}"\n'
        f'[stt]\nengine = "wyoming"\nuri = "{faster_whisper}"\nfallback = "none"\n')
    done = subprocess.run(
        [sys.executable, "-m", "voiceagent", "--config", str(config), "ask", "--wav",
         str(QUESTIONS / "q01.wav"), "--no-speak", "--json"],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert words(answer["transcript"]) == ["what", "time", "is", "it"]
    assert re.search(r"\b\d{1,2}:\d{2}\b", answer["answer"]), answer
