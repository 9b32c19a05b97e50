"""End-of-speech decisions: the Endpointer on scripted scores, SileroVAD on real speech."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fixtures_audio import noise
from voiceagent.audio import STT_RATE, Audio, concat
from voiceagent.speech.vad import BLOCK, BLOCK_MS, RESUME_MS, Endpointer, Event, SileroVAD


def push_all(endpointer: Endpointer, scores: list[float]) -> list[tuple[int, Event]]:
    """(block index, event) for every block that changed something."""
    events = [(i, endpointer.push(p)) for i, p in enumerate(scores)]
    return [(i, e) for i, e in events if e is not Event.NONE]


def blocks(ms: float) -> int:
    return round(ms / BLOCK_MS)


def test_speech_then_silence_starts_then_ends():
    ep = Endpointer(threshold=0.5, silence_ms=700, min_speech_ms=250)
    speech = blocks(1000)
    events = push_all(ep, [0.0] * 10 + [0.9] * speech + [0.05] * blocks(1000))
    assert events == [(10 + blocks(250) - 1, Event.STARTED),
                      (10 + speech + blocks(700) - 1, Event.ENDED)]


def test_pauses_shorter_than_the_window_do_not_end_it():
    ep = Endpointer(silence_ms=700)
    scores = [0.9] * 20 + [0.1] * blocks(500) + [0.9] * 20 + [0.1] * blocks(800)
    assert [e for _, e in push_all(ep, scores)] == [Event.STARTED, Event.ENDED]


def test_a_short_sound_is_discarded_not_started():
    ep = Endpointer(min_speech_ms=250)
    assert [e for _, e in push_all(ep, [0.9] * 3 + [0.0] * 40)] == [Event.DISCARDED]
    assert not ep.hearing


def test_scores_just_under_threshold_keep_speech_going():
    """Hysteresis: once speaking, a dip to threshold - 0.15 still counts as speech."""
    ep = Endpointer(threshold=0.5, silence_ms=200, min_speech_ms=0)
    push_all(ep, [0.9] * 5)
    assert push_all(ep, [0.4] * 30) == []
    assert ep.silent_ms == 0


def test_blips_in_a_pause_are_part_of_the_pause():
    """Room noise after the words (a clatter, a breath) scores over the threshold for a block
    or two: the pause goes on and ends on time, counted from its start."""
    ep = Endpointer(silence_ms=700, min_speech_ms=250)
    blip = blocks(RESUME_MS) - 1
    scores = [0.9] * 20 + ([0.1] * 4 + [0.9] * blip) * 3 + [0.1] * blocks(1000)
    [(_, started), (end, ended)] = push_all(ep, scores)
    assert (started, ended) == (Event.STARTED, Event.ENDED)
    assert end == 20 + blocks(700) - 1


def test_resume_ms_of_speech_in_a_row_starts_the_pause_again():
    ep = Endpointer(silence_ms=700, min_speech_ms=250)
    scores = [0.9] * 20 + [0.1] * 15 + [0.9] * blocks(RESUME_MS) + [0.1] * blocks(1000)
    [_, (end, ended)] = push_all(ep, scores)
    speech_end = 20 + 15 + blocks(RESUME_MS)
    assert ended is Event.ENDED and end == speech_end + blocks(700) - 1
    assert ep.speech_ms == 0  # reset after the end; the resumed speech was counted as speech


def test_the_end_waits_until_a_possible_resumption_is_told():
    """A run of speech blocks that began before the window ran out may be the next word:
    the utterance does not end in the middle of it."""
    ep = Endpointer(silence_ms=200, min_speech_ms=0)
    push_all(ep, [0.9] * 10 + [0.1] * (blocks(200) - 1))
    assert push_all(ep, [0.9] * (blocks(RESUME_MS) - 1)) == []  # not over, not resumed
    assert push_all(ep, [0.9]) == [] and ep.silent_ms == 0  # it was the next word


def test_a_pause_window_can_be_shortened_or_held_until_speech_comes():
    ep = Endpointer(silence_ms=700, min_speech_ms=0)
    push_all(ep, [0.9] * 20 + [0.1] * 3)
    ep.end_ms = 200
    assert push_all(ep, [0.1] * 4)[-1] == (3, Event.ENDED)  # 7 blocks = 224 ms of silence
    push_all(ep, [0.9] * 20 + [0.1] * 3)
    ep.held_ms = 700
    assert push_all(ep, [0.1] * blocks(1000)) == []  # 1.4 s now
    push_all(ep, [0.9] * blocks(RESUME_MS))  # speech: the next pause is judged anew
    assert (ep.held_ms, ep.end_ms) == (0.0, None)


@pytest.mark.real
def test_silero_scores_speech_high_and_silence_or_noise_low(speech):
    vad = SileroVAD()
    clip = concat([speech("Please read me my new messages.", lead_s=1.0, tail_s=1.0),
                   noise(2.0, level=0.03)])
    n = len(clip.samples) // BLOCK
    scores = np.array([vad(b) for b in clip.samples[: n * BLOCK].reshape(n, BLOCK)])
    lead, noise_start = blocks(1000), n - blocks(2000)
    assert scores[: lead - 3].max() < 0.2
    assert np.median(scores[lead + 5: noise_start - blocks(1500)]) > 0.8
    assert scores[noise_start + 3:].max() < 0.5


@pytest.mark.real
def test_silero_rejects_wrong_block_sizes():
    with pytest.raises(ValueError, match="512 samples"):
        SileroVAD()(Audio.silence(0.1, STT_RATE).samples)


def test_a_minute_of_digital_silence_does_not_make_it_deaf() -> None:
    """A wake gate hands the cutter exact zeros while it waits; Silero's state drifted on them
    until a real request scored below the threshold throughout (0 of 38 blocks after 60 s)."""
    from pathlib import Path

    from voiceagent.audio import load_audio

    request = load_audio(Path(__file__).parent / "data" / "real" /
                         "add_apples_to_my_shopping_list.flac").samples
    vad = SileroVAD()
    for _ in range(int(60 * 16000 / BLOCK)):
        vad(np.zeros(BLOCK, dtype=np.float32))
    scores = [vad(request[i:i + BLOCK]) for i in range(0, len(request) - BLOCK, BLOCK)]
    assert sum(p >= 0.5 for p in scores) >= 10


def test_minutes_of_room_noise_do_not_make_it_deaf() -> None:
    """Silero's state drifted on steady noise too: after 2 min of a fan-like hiss 34 dB below
    nothing, a real request scored below the threshold on every block (0 of 98), and the
    kiosk (one VAD for the whole stream) no longer heard anyone. The state is cleared after
    `STALE_S` without speech, so the request is heard and cut whole."""
    from pathlib import Path

    from voiceagent.audio import load_audio
    from voiceagent.speech.cutter import UtteranceCutter

    request = load_audio(Path(__file__).parent / "data" / "real" /
                         "add_apples_to_my_shopping_list.flac").samples
    room = noise(121.0, level=0.01, seed=3).samples
    stream = room.copy()
    start = len(room) - len(request) - STT_RATE
    stream[start: start + len(request)] += request
    cutter = UtteranceCutter(SileroVAD())
    cuts = []
    for i in range(len(stream) // BLOCK):
        utterance = cutter.push(stream[i * BLOCK:(i + 1) * BLOCK])
        if utterance is not None:
            cuts.append(((i + 1) * BLOCK, len(utterance.audio.samples)))
    heard = [(end, length) for end, length in cuts if end > start]
    assert heard, f"the request after 2 min of noise was not heard (cuts: {cuts})"
    end, length = heard[0]
    assert length >= 1.0 * STT_RATE, "only part of the request was cut"
