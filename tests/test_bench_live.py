"""`bench --live`: where the words end in real recordings, the clips and their labels, slot
recall and the verdicts, the report; and one short real run on the PulseAudio test devices
through the kiosk exactly as `run --mode kiosk` builds it (0.5B; a real request, a bench
question, the wake word glued before a real request, false wakes offline). No timings are
asserted anywhere: only their order and the bookkeeping."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.fixtures_audio import words
from tests.pulse import PulseServer
from voiceagent.agent.events import Final, SttDone, ToolCallStart, ToolResult, TurnEnd, TurnStart
from voiceagent.audio import STT_RATE, Audio, load_audio
from voiceagent.bench.clips import LEAD_S, TAIL_S, Clip, glue, load_clips, make_clip, sample
from voiceagent.bench.false_wakes import count_false_wakes
from voiceagent.bench.live import LiveOptions, run_live
from voiceagent.bench.live_report import peer_ratios, render_live, summarize_live
from voiceagent.bench.live_turn import EventClock
from voiceagent.bench.onset import FRAME_S, first_sound, reply_onset, speech_span
from voiceagent.bench.scoring import slot_recall, verdict
from voiceagent.bench.spoken_questions import QUESTIONS_DIR
from voiceagent.bench.words import align, words_span
from voiceagent.config_file import config_from_dict
from voiceagent.errors import VoiceAgentError

REAL = Path(__file__).parent / "data" / "real"
RATE = STT_RATE
ALIGN_S = 0.05
"""How closely onsets found in a PulseAudio recording line up with the turn's event times."""


def _clip(*parts: tuple[float, float]) -> np.ndarray:
    """Concatenated (seconds, amplitude) pieces of a 440 Hz tone (amplitude 0: silence)."""
    out = []
    for seconds, amplitude in parts:
        t = np.arange(int(seconds * RATE)) / RATE
        out.append((amplitude * np.sin(2 * np.pi * 440 * t)).astype(np.float32))
    return np.concatenate(out)


def _real(name: str) -> np.ndarray:
    return load_audio(next(REAL.glob(f"*/{name}*"))).samples


# --- sounds at the speaker ----------------------------------------------------------------------


def test_first_sound_is_where_the_level_is_first_crossed() -> None:
    samples = _clip((0.5, 0.0), (0.2, 0.001), (0.3, 0.3))  # silence, hum below LOUD, sound
    assert first_sound(samples, RATE) == pytest.approx(0.7, abs=FRAME_S)
    assert first_sound(_clip((1.0, 0.001)), RATE) is None


def test_speech_span_leaves_out_lead_and_tail_silence() -> None:
    samples = _clip((0.6, 0.0), (1.2, 0.5), (0.1, 0.02), (0.8, 0.0))
    start, end = speech_span(samples, RATE)
    assert start == pytest.approx(0.6, abs=FRAME_S)
    assert end == pytest.approx(1.8, abs=FRAME_S)  # the faint -28 dB tail is not words


def test_reply_onset_skips_a_chime_and_clicks_but_not_a_plosive_gap() -> None:
    samples = _clip((0.5, 0.0), (0.16, 0.3), (0.1, 0.0), (0.03, 0.3), (0.2, 0.0),
                    (0.12, 0.3), (0.03, 0.0), (0.2, 0.3), (0.5, 0.0))
    # chime 0.50-0.66, click 0.76, the reply from 0.99 with a 30 ms closure inside
    assert reply_onset(samples, RATE) == pytest.approx(0.99, abs=FRAME_S)
    assert reply_onset(_clip((0.5, 0.0), (0.16, 0.3), (1.0, 0.0)), RATE) is None


def test_reply_onset_is_the_first_word_even_a_short_one() -> None:
    """piper's "I can't order or buy things:": "I" 0.09 s, a 0.06 s gap, "can't" 0.2 s, a
    0.07 s gap, "order ...": the reply is heard from the "I" (the rule with 50 ms gaps said
    "order", 0.42 s later)."""
    samples = _clip((0.18, 0.0), (0.09, 0.3), (0.06, 0.0), (0.2, 0.3), (0.07, 0.0),
                    (0.31, 0.3), (0.5, 0.0))
    assert reply_onset(samples, RATE) == pytest.approx(0.18, abs=FRAME_S)
    # a chime and a click, 0.19 s of sound in all, are still no reply
    assert reply_onset(_clip((0.5, 0.0), (0.16, 0.3), (0.1, 0.0), (0.03, 0.3), (1.0, 0.0)),
                       RATE) is None


# --- where the words are in real recordings -----------------------------------------------------


@pytest.mark.parametrize("name", ["stp_set_a_timer", "stp_add_apples", "pv_picovoice",
                                  "05ae073e", "0075d273", "0.flac", "10.flac"])
@pytest.mark.real
def test_the_words_found_hold_every_word_whisper_hears(name: str, transcriber: Any) -> None:
    samples = _real(name)
    start, end = words_span(samples, RATE)
    pad = np.zeros(RATE // 2, np.float32)

    def heard(x: np.ndarray) -> list[str]:
        result = transcriber.transcribe(Audio(np.concatenate([pad, x, pad]), RATE))
        return words(str(getattr(result, "text", result)))

    inside = heard(samples[int(max(0.0, start - 0.05) * RATE):int((end + 0.05) * RATE)])
    # the last words are inside: the last words Whisper hears in the whole file, or (where
    # the name says what was said) the speaker's own; on one CPU here Whisper heard the
    # whole of "add apples to my shopping list" as "... my chocolate list", the words
    # found as "... my shopping list"
    said = next(REAL.glob(f"*/{name}*")).stem.split("_")[1:] if name.startswith("stp_") else []
    assert inside and inside[-2:] in (heard(samples)[-2:], said[-2:])


def test_a_steady_noisy_tail_and_a_loud_click_are_not_words() -> None:
    apples = _real("stp_add_apples")  # room noise at -31 dB to the end of the file
    assert words_span(apples, RATE)[1] < len(apples) / RATE - 0.5
    assert speech_span(apples, RATE)[1] > len(apples) / RATE - 0.1  # where a level rule ends
    timer = _real("stp_set_a_timer")  # a -5 dB bump before "set", a soft "minutes" at the end
    assert words_span(timer, RATE)[1] - speech_span(timer, RATE)[1] > 0.3


def test_the_pause_after_an_address_is_inside_the_request() -> None:
    coffee = _real("pv_picovoice")  # "Picovoice, ... make me a large coffee"
    start, end = words_span(coffee, RATE)
    assert start < 1.2 and end > 3.5


def test_words_move_with_the_recording_and_survive_steady_noise() -> None:
    clip = _real("0075d273")
    start, end = words_span(clip, RATE)
    shifted = np.concatenate([np.zeros(RATE, np.float32), clip, np.zeros(RATE, np.float32)])
    assert words_span(shifted, RATE) == pytest.approx((start + 1.0, end + 1.0), abs=0.02)
    a, b = int(start * RATE), int(end * RATE)
    fan = np.random.default_rng(1).standard_normal(len(clip)).astype(np.float32)
    fan *= np.sqrt(np.mean(clip[a:b] ** 2) / 10 ** (20 / 10) / np.mean(fan ** 2))  # 20 dB SNR
    assert words_span(clip + fan, RATE) == pytest.approx((start, end), abs=0.15)
    assert words_span(np.zeros(RATE, np.float32), RATE) == (0.0, 0.0)


def test_align_finds_a_clip_inside_a_recording_of_it() -> None:
    clip = _real("05ae073e")
    recording = np.concatenate([np.zeros(5000, np.float32), 0.8 * clip,
                                np.zeros(3000, np.float32)])
    assert align(recording, clip, RATE) == pytest.approx(5000 / RATE, abs=1e-3)
    assert align(np.zeros(RATE * 3, np.float32), clip, RATE) is None


# --- clips, labels, glue ------------------------------------------------------------------------


def test_clips_take_labels_groups_and_transcripts(tmp_path: Path) -> None:
    orders = load_clips(f"unanswerable={REAL / 'commands'}")
    assert [c.group for c in orders] == ["unanswerable", "unanswerable"]
    twelve = next(c for c in orders if c.name.startswith("commands/0075"))
    assert sorted(twelve.slots) == ["coffee", "light roast", "twelve ounce"]
    repro = {c.name: c for c in load_clips(str(REAL / "repro"))}
    timer = repro["repro/stp_set_a_timer_for_5_minutes"]
    assert timer.group == "command" and timer.expect["tool"] == "set_timer"
    assert repro["repro/pv_picovoice_make_me_a_large_coffee"].group == "unanswerable"
    questions = load_clips(str(QUESTIONS_DIR), limit=3)
    assert [c.name for c in questions] == ["questions/q02", "questions/q05", "questions/q07"]
    assert questions[0].text == "What is seventeen plus twenty five?"
    for clip in [*orders, *repro.values()]:  # trimmed around the words, never into them
        assert 0 < clip.words[0] <= LEAD_S + 0.01
        assert clip.audio.seconds - clip.words[1] <= TAIL_S + 0.01
    with pytest.raises(VoiceAgentError, match="group must be one of"):
        load_clips(f"coffee={REAL / 'commands'}")
    with pytest.raises(VoiceAgentError, match="no .wav or .flac"):
        load_clips(str(tmp_path))
    assert sample(list(range(10)), 4) == [1, 3, 6, 8] and sample([1, 2], 5) == [1, 2]


def test_glue_puts_the_gap_between_the_wake_word_and_the_request() -> None:
    wake = load_clips(str(REAL / "alexa"))[0]
    request = load_clips(str(REAL / "repro"))[-1]
    for gap in (0.0, 0.3):
        glued = glue(wake, request, gap)
        wake_end = wake.words[1] - max(0.0, wake.words[0] - 0.3)
        assert glued.words[0] - wake_end == pytest.approx(gap, abs=0.002)
        assert glued.words[1] - glued.words[0] == pytest.approx(
            request.words[1] - request.words[0], abs=0.002)
        assert glued.gap_s == gap and glued.wake and glued.slots == request.slots
    found = words_span(glue(wake, request, 0.3).audio.samples, RATE)
    assert found[0] < wake_end + 0.05  # the words begin with the wake word now


# --- what a turn did ----------------------------------------------------------------------------


def _clip_of(group: str, **expect: Any) -> Clip:
    return make_clip("t/x", Audio(_real("05ae073e"), RATE),
                     {"group": group, "slots": ["twelve ounce", "light roast"], **expect})


def test_slot_recall_forgives_case_punctuation_and_numbers() -> None:
    assert slot_recall(["twelve ounce", "light roast"], "A Light-Roast, 12-ounce coffee!") == \
        (2, [])
    assert slot_recall(["soy milk", "large"], "a larger latte with soya milk") == \
        (0, ["soy milk", "large"])


def test_verdicts_want_an_honest_refusal_or_a_real_answer() -> None:
    order = _clip_of("unanswerable")
    refusal = [Final("Sorry, I can't make coffee.", "done"), TurnEnd("done")]
    assert verdict(order, "make me a coffee", refusal)["answered"] is True
    acted = [ToolCallStart("1", "add_to_list", {"items": ["coffee"]}),
             ToolResult("1", "add_to_list", "Added coffee.", False, 0.01),
             Final("Added coffee to your list.", "done"), TurnEnd("done")]
    judged = verdict(order, "make me a coffee", acted)
    assert judged["answered"] is False and judged["right"] is False
    timer = _clip_of("command", tool="set_timer", args={"duration": 300})
    asked = [Final("For how long?", "done"), TurnEnd("done")]
    assert verdict(timer, "set a timer", asked)["answered"] is False
    two_hours = [ToolCallStart("1", "set_timer", {"duration": "2 hours"}),
                 ToolResult("1", "set_timer", "Timer set.", False, 0.01),
                 Final("Timer set for 2 hours.", "done"), TurnEnd("done")]
    judged = verdict(timer, "set a timer for two hours", two_hours)
    assert judged["answered"] is True and judged["right"] is False
    assert judged["slots_heard"] == 0 and judged["tools"] == ["set_timer"]
    question = _clip_of("question")
    assert verdict(question, "hi", [Final("Hello!", "done"), TurnEnd("done")])["right"] is None


def test_a_call_is_judged_as_it_ran_not_as_the_model_wrote_it() -> None:
    """Live, the model wrote set_timer(label="break") for "set a timer for five"; the call
    policy left the label out, and the timer was right: the verdict must say so."""
    timer = _clip_of("command", tool="set_timer", args={"duration": 300})
    events = [ToolCallStart("1", "set_timer", {"duration": "5 minutes", "label": "break"}),
              ToolResult("1", "set_timer", "Timer set for 5 minutes.", False, 0.01,
                         ran={"duration": "5 minutes"}),
              Final("Timer set for 5 minutes.", "done"), TurnEnd("done")]
    judged = verdict(timer, "Set a timer for five minutes.", events)
    assert judged["right"] is True and not judged["problems"]
    as_written = [events[0], ToolResult("1", "set_timer", "Timer set.", False, 0.01), *events[2:]]
    assert verdict(timer, "Set a timer for five minutes.", as_written)["right"] is False


def test_event_clock_groups_events_into_the_turns_that_started_after_a_time() -> None:
    import time

    clock = EventClock()
    clock(TurnStart("audio", t=0.0))
    clock(TurnEnd("done", t=0.1))
    mark = time.monotonic()
    clock.turn_ended.clear()
    clock(TurnStart("audio", t=0.0))
    clock(SttDone("hello", 1.0, t=0.4))
    assert not clock.turn_ended.is_set() and clock.busy()
    turns = clock.turns_after(mark)
    assert len(turns) == 1 and [e.type for e in turns[0][1]] == ["turn_start", "stt_done"]
    clock(TurnEnd("done", t=0.9))
    assert clock.turn_ended.is_set() and not clock.busy()


# --- the report ---------------------------------------------------------------------------------


def _record(system: str, clip: str, group: str, onset: float | None, role: str = "",
            **more: Any) -> dict[str, Any]:
    timings = {"endpoint": 0.5, "reply_onset": onset} if onset is not None else {}
    return {"system": system, "variant": "local on" if system == "voiceagent" else system,
            "clip": clip, "group": group, "role": role, "heard": True, "answered": True,
            "right": None, "slots": 2, "slots_heard": 2, "timings": timings, "turns": 1,
            "transcript": "x", "path": "local", "gap_s": None, **more}


def test_report_groups_clips_and_compares_the_same_clips_with_the_peer() -> None:
    records = [
        _record("voiceagent", "a", "command", 9.0, role="warmup", first_after_start=True),
        _record("voiceagent", "a", "command", 0.6), _record("voiceagent", "b", "command", 0.8),
        _record("voiceagent", "c", "question", 3.0), _record("voiceagent", "d", "question", None),
        _record("pipecat", "a", "command", 2.0, role="warmup"),
        _record("pipecat", "a", "command", 2.0), _record("pipecat", "b", "command", 2.4),
        _record("pipecat", "c", "question", 2.5), _record("pipecat", "d", "question", 2.6),
        _record("voiceagent", "w/a", "command", 1.0, gap_s=0.0, variant="wake alexa"),
        _record("voiceagent", "w/b", "command", None, gap_s=0.3, variant="wake alexa",
                answered=False, heard=False),
    ]
    ratios = peer_ratios(records)
    assert ratios["command"] == {"ratio": pytest.approx(0.7 / 2.2, abs=1e-3),
                                 "voiceagent": 0.7, "pipecat": 2.2, "n": 2}
    assert ratios["question"]["n"] == 1  # d has no voiceagent reply: left out of both
    assert ratios["everything"]["n"] == 3
    report = summarize_live(records, setup={"clips": 4, "folders": ["f"], "llm": "m",
                                            "stt": "s", "tts": "t"})
    assert report["groups"]["local on | command"]["n"] == 2  # the warm-up is not counted
    assert report["groups"]["local on | everything"]["n"] == 4
    assert report["groups"]["pipecat | command"]["times"]["reply_onset"]["median"] == 2.2
    assert report["wake"]["wake alexa | gap 0.3 s"]["answered"] == 0
    assert report["ratios"]["first_vs_warm_onset"] == pytest.approx(9.0 / 0.6)
    text = render_live(report)
    assert "local on | question" in text and "wake alexa | gap 0 s" in text
    assert "voiceagent / pipecat" in text and "warm-up" in text


def test_false_wakes_feed_every_block_through_the_processors_in_order() -> None:
    seen = {"first": 0, "second": 0, "wakes": 0}

    def first(block: np.ndarray) -> np.ndarray | None:
        seen["first"] += 1
        return None if seen["first"] % 2 else block  # withheld: the next never sees it

    def second(block: np.ndarray) -> np.ndarray:
        seen["second"] += 1
        seen["wakes"] += seen["second"] == 10
        return block

    out = count_false_wakes([first, second], lambda: seen["wakes"], [REAL / "commands"])
    files = sorted((REAL / "commands").glob("*.flac"))
    blocks = sum(len(load_audio(p).samples) // 512 for p in files)
    assert seen["first"] == blocks and seen["second"] == blocks // 2
    assert out["wakes"] == 1 and out["folders"]["commands"]["woke_on"] == [files[0].name]
    assert out["per_hour"] == pytest.approx(1 / out["hours"], rel=0.01)


# --- one short real run -------------------------------------------------------------------------


@pytest.mark.real
@pytest.mark.audio
def test_live_bench_plays_real_clips_through_the_kiosk(pulse: PulseServer,
                                                       tmp_path: Path) -> None:
    clips = tmp_path / "clips"
    clips.mkdir()
    shutil.copy(REAL / "repro" / "stp_set_a_timer_for_5_minutes.flac", clips)
    (clips / "labels.json").write_text(json.dumps({"stp_set_a_timer_for_5_minutes.flac": json.loads(
        (REAL / "repro" / "labels.json").read_text())["stp_set_a_timer_for_5_minutes.flac"]}))
    question = tmp_path / "questions"
    question.mkdir()
    for suffix in (".wav", ".txt"):
        shutil.copy(QUESTIONS_DIR / f"q06{suffix}", question / f"q06{suffix}")  # the moon
    config = config_from_dict({"paths": {"data_dir": str(tmp_path / "data")}})
    out, png = tmp_path / "live.json", tmp_path / "live.png"
    options = LiveOptions(feed_sink="micfeed", mic_source="mic",
                          speaker_source="speaker.monitor", model="qwen2.5-coder-0.5b",
                          clips=(str(clips), f"question={question}"),
                          wake_clips=str(REAL / "alexa"), wake_word="alexa", wake_gaps=(0.3,),
                          wake_limit=1, not_wake=(str(REAL / "commands"),),
                          peer=str(tmp_path / "no-venv"))

    assert run_live(config, options, json_path=str(out), plot_path=str(png)) == 0

    report = json.loads(out.read_text())
    records = report["clips"]
    assert [(r["variant"], r["clip"], r["role"]) for r in records[:3]] == [
        ("local on", "clips/stp_set_a_timer_for_5_minutes", "warmup"),
        ("local on", "clips/stp_set_a_timer_for_5_minutes", ""),
        ("local on", "questions/q06", "")]
    # one request, sampled from the clips, glued behind one real "alexa" (and its warm-up)
    glued = [(r["variant"], r["clip"], r["role"]) for r in records[3:]]
    assert [(v, role) for v, _c, role in glued] == [("wake alexa", "warmup"), ("wake alexa", "")]
    assert glued[0][1] == glued[1][1] and glued[0][1].startswith("alexa/")
    assert "+0.3s/" in glued[0][1] and glued[0][1].split("+0.3s/")[1] in (
        "clips/stp_set_a_timer_for_5_minutes", "questions/q06")
    assert records[0]["first_after_start"] and report["setup"]["prefix_restore"] == "restored"
    for r in records[:3]:
        t = r["timings"]
        assert r["heard"] and r["aligned"] and r["stop"] == "done" and r["transcript"], r
        # the words end, the utterance is cut, transcribed, and the reply heard after the
        # player said it started; the chime is heard first
        assert 0 < t["endpoint"] <= t["stt_done"] < t["reply_onset"] + ALIGN_S, r
        assert t["first_sound"] <= t["reply_onset"] + ALIGN_S <= t["total"] + ALIGN_S, r
        assert r["slots"] == len(r["slots_missing"]) + r["slots_heard"]
    assert records[1]["group"] == "command" and records[2]["group"] == "question"
    assert records[2]["llm_first_token_s"] > 0 and "first_token" in records[2]["timings"]
    assert records[4]["gap_s"] == 0.3 and records[4]["wake"] == "alexa"
    assert set(report["groups"]) == {"local on | command", "local on | question",
                                     "local on | everything"}
    assert set(report["wake"]) == {"wake alexa | gap 0.3 s"}
    fw = report["false_wakes"]
    assert fw["folders"]["commands"]["files"] == 2 and fw["hours"] > 0
    assert report["setup"]["peer"].startswith("skipped: no pipecat venv")
    assert report["peer_ratios"] == {}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
