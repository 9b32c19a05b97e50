"""`bench --live`: sound onsets, the turn bookkeeping and ratios, and one real short run on
the PulseAudio test devices through the kiosk front end (0.5B, two questions)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.pulse import PulseServer
from voiceagent.agent.events import SttDone, TurnEnd, TurnStart
from voiceagent.bench.live import EventClock, LiveOptions, run_live
from voiceagent.bench.live_report import ratios, typical_turns
from voiceagent.bench.onset import FRAME_S, first_sound, speech_span
from voiceagent.bench.run import QUESTIONS_DIR
from voiceagent.config_file import config_from_dict

RATE = 16000
ALIGN_S = 0.05
"""How closely onsets found in a PulseAudio recording line up with the turn's event times."""


def _clip(*parts: tuple[float, float]) -> np.ndarray:
    """Concatenated (seconds, amplitude) pieces of a 440 Hz tone (amplitude 0: silence)."""
    out = []
    for seconds, amplitude in parts:
        t = np.arange(int(seconds * RATE)) / RATE
        out.append((amplitude * np.sin(2 * np.pi * 440 * t)).astype(np.float32))
    return np.concatenate(out)


def test_first_sound_is_where_the_level_is_first_crossed() -> None:
    samples = _clip((0.5, 0.0), (0.2, 0.001), (0.3, 0.3))  # silence, hum below LOUD, sound
    assert first_sound(samples, RATE) == pytest.approx(0.7, abs=FRAME_S)
    assert first_sound(_clip((1.0, 0.001)), RATE) is None


def test_speech_span_leaves_out_lead_and_tail_silence() -> None:
    samples = _clip((0.6, 0.0), (1.2, 0.5), (0.1, 0.02), (0.8, 0.0))
    start, end = speech_span(samples, RATE)
    assert start == pytest.approx(0.6, abs=FRAME_S)
    assert end == pytest.approx(1.8, abs=FRAME_S)  # the faint -28 dB tail is not words


def test_event_clock_groups_events_into_the_turns_that_started_after_a_time() -> None:
    clock = EventClock()
    clock(TurnStart("audio", t=0.0))
    clock(TurnEnd("done", t=0.1))
    mark = time.monotonic()
    clock.turn_ended.clear()
    clock(TurnStart("audio", t=0.0))
    clock(SttDone("hello", 1.0, t=0.4))
    assert not clock.turn_ended.is_set()
    turns = clock.turns_after(mark)
    assert len(turns) == 1 and [e.type for e in turns[0][1]] == ["turn_start", "stt_done"]
    clock(TurnEnd("done", t=0.9))
    assert [e.type for e in clock.turns_after(mark)[0][1]][-1] == "turn_end"
    assert clock.turn_ended.is_set()


def _turn(variant: str, question: str, path: str, onset: float, role: str = "",
          wait: float | None = None) -> dict[str, Any]:
    return {"variant": variant, "question": question, "path": path, "role": role,
            "stop": "done", "timings": {"reply_onset": onset}, "llm_first_token_s": wait}


def test_ratios_compare_local_commands_with_the_same_questions_through_the_llm() -> None:
    turns = [
        _turn("local off", "q01", "llm", 8.0, "first", 4.0),
        _turn("local off", "q02", "llm", 6.0, "", 1.0),
        _turn("local off", "q05", "llm", 7.0, "", 1.0),
        _turn("local off", "q01", "llm", 5.0, "repeat", 1.0),
        _turn("local on", "q02", "local", 1.5),
        _turn("local on", "q05", "llm", 7.5, "", 1.0),
        _turn("local on", "q01", "local", 1.0),
    ]
    r = ratios(turns)
    # local: q02 1.5 and q01 1.0 (median 1.25); the same questions via the LLM, warm: q02 6.0
    # and q01's repeat 5.0 (median 5.5); the first question after start is left out
    assert r["local_vs_llm_onset"] == pytest.approx(1.25 / 5.5, abs=1e-3)
    assert r["first_vs_warm_reply_onset"] == pytest.approx(8.0 / 5.0)
    assert r["first_vs_warm_llm_first_token"] == pytest.approx(4.0)
    picked = typical_turns(turns)
    assert picked["LLM"]["question"] in ("q02", "q05") and picked["local command"]["path"] == \
        "local"


@pytest.mark.real
@pytest.mark.audio
def test_live_bench_measures_mouth_to_ear_through_the_kiosk(pulse: PulseServer,
                                                           tmp_path: Path) -> None:
    wavs = tmp_path / "questions"
    wavs.mkdir()
    for name in ("q02", "q06"):  # a sum (a local command) and a fun fact (always the LLM)
        for suffix in (".wav", ".txt"):
            shutil.copy(QUESTIONS_DIR / f"{name}{suffix}", wavs / f"{name}{suffix}")
    config = config_from_dict({"paths": {"data_dir": str(tmp_path / "data")},
                               "llm": {"model": "qwen2.5-coder-0.5b"}})
    out, png = tmp_path / "live.json", tmp_path / "live.png"
    options = LiveOptions(feed_sink="micfeed", mic_source="mic",
                          speaker_source="speaker.monitor")

    assert run_live(config, options, wav_dir=wavs, json_path=str(out), plot_path=str(png)) == 0

    report = json.loads(out.read_text())
    turns = report["turns"]
    assert [(t["variant"], t["question"], t["role"]) for t in turns] == [
        ("local off", "q02", "first"), ("local off", "q06", ""), ("local off", "q02", "repeat"),
        ("local on", "q02", ""), ("local on", "q06", "")]
    assert [t["path"] for t in turns] == ["llm", "llm", "llm", "local", "llm"]
    for t in turns:
        timings = t["timings"]
        assert t["stop"] == "done" and t["turns"] == 1, t
        # the words end, the utterance is cut, then transcribed (at once when its draft
        # transcript sounded finished: speech/drafts.py);
        # the reply is heard in the speaker recording after the player said it started
        # (a local command's reply starts the moment the transcript is ready: the speaker
        # recording and the event clock agree to within ALIGN_S)
        assert 0 < timings["endpoint"] <= timings["stt_done"] < timings["reply_onset"] + ALIGN_S, t
        # the end-of-speech chime is heard first (with a local command, at the same moment)
        assert timings["first_sound"] <= timings["reply_onset"] + ALIGN_S, t
        assert timings["reply_onset"] <= timings["total"], t
        assert timings["reply_onset"] >= timings["first_audio"] - 0.15, t
        assert t["stages"]["playback"], t
    for t in turns[:3] + turns[4:]:
        assert t["llm_first_token_s"] > 0
    assert report["setup"]["prefix_restore"] == "restored"
    assert report["ratios"]["local_vs_llm_onset"] > 0
    assert report["ratios"]["first_vs_warm_reply_onset"] > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
