"""The bench: word error rate, and one real short run of both pipelines (JSON and PNG)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from voiceagent.bench.report import word_errors
from voiceagent.bench.run import run_bench
from voiceagent.bench.spoken_questions import QUESTIONS_DIR, load_questions
from voiceagent.config_file import config_from_dict


def test_word_errors_count_substitutions_deletions_and_insertions() -> None:
    assert word_errors("set a timer for ten minutes", "set a timer for ten minutes") == (0, 6)
    assert word_errors("add milk and eggs", "and milk and then eggs") == (2, 4)
    assert word_errors("what time is it", "what time") == (2, 4)


def test_word_errors_ignore_case_punctuation_and_how_numbers_are_written() -> None:
    assert word_errors("What is seventeen plus twenty-five?", "what is 17 plus 25") == (0, 5)


def test_bundled_questions_all_have_transcripts() -> None:
    questions = load_questions(QUESTIONS_DIR)
    assert len(questions) >= 8
    assert all(q.expected and q.audio.seconds > 1 for q in questions)


@pytest.mark.real
def test_bench_runs_both_pipelines_and_writes_json_and_png(tmp_path: Path) -> None:
    wavs = tmp_path / "questions"
    wavs.mkdir()
    for name in ("q01", "q02"):
        for suffix in (".wav", ".txt"):
            shutil.copy(QUESTIONS_DIR / f"{name}{suffix}", wavs / f"{name}{suffix}")
    config = config_from_dict({"paths": {"data_dir": str(tmp_path / "data")}})
    out, png = tmp_path / "bench.json", tmp_path / "bench.png"

    assert run_bench(config, turns=2, wav_dir=wavs, json_path=str(out), plot_path=str(png)) == 0

    report = json.loads(out.read_text())
    assert report["setup"]["llm"] == "qwen2.5-coder-0.5b"
    turns = report["turns"]
    assert sorted((t["question"], t["pipeline"]) for t in turns) == [
        ("q01", "sequential"), ("q01", "streaming"), ("q02", "sequential"), ("q02", "streaming")]
    for t in turns:
        timings = t["timings"]
        assert 0 < timings["stt_done"] < timings["first_audio"] <= timings["total"]
        assert timings["request_sent"] < timings["first_token"] <= timings["answer_done"]
        assert t["answer"] and t["reply_audio_s"] > 0
    # Sequential speaks only after the whole reply; streaming may start before it is complete.
    for t in turns:
        if t["pipeline"] == "sequential":
            assert t["timings"]["answer_done"] <= t["timings"]["first_audio"]
    for pipeline in ("streaming", "sequential"):
        stats = report["summary"][pipeline]
        assert stats["first_audio"]["min"] <= stats["first_audio"]["median"]
        assert stats["first_audio"]["median"] <= stats["first_audio"]["max"]
        assert stats["tokens_per_s"]["median"] > 0
        assert stats["stt_rtf"]["median"] > 0 and stats["tts_rtf"]["median"] > 0
    assert report["ratio"]["first_audio"] > 0 and report["ratio"]["total"] > 0
    assert report["wer"]["words"] == 2 * (4 + 5) and report["wer"]["rate"] is not None
    assert report["peak_rss_mb"]["assistant"] > 50 and report["peak_rss_mb"]["llm_server"] > 50
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
