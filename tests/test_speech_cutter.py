"""The utterance cutter without devices: scripted VAD scores for exact timing, and real
Silero VAD on piper speech made soft, started at the first sample, or paused mid-sentence."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.fixtures_audio import noise, words
from voiceagent.audio import STT_RATE, Audio, concat
from voiceagent.config import AudioConfig
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.cutter import TAIL_MS, Utterance, UtteranceCutter
from voiceagent.speech.vad import BLOCK, BLOCK_MS, SileroVAD
from voiceagent.testing import FakeBlockSource


def scored(*runs: tuple[float, float]) -> np.ndarray:
    """Blocks whose every sample is the VAD score to give them: (score, milliseconds) runs."""
    return np.concatenate([np.full(round(ms / BLOCK_MS) * BLOCK, score, dtype=np.float32)
                           for score, ms in runs])


def cut(samples: np.ndarray, cutter: UtteranceCutter) -> list[Utterance]:
    n = len(samples) // BLOCK
    out = [cutter.push(b) for b in samples[: n * BLOCK].reshape(n, BLOCK)]
    return [u for u in out if u is not None]


def by_score(**kw) -> UtteranceCutter:
    """A cutter whose 'VAD' reads the score written into the block."""
    return UtteranceCutter(lambda block: float(block[0]), **kw)


# --- exact timing on scripted scores --------------------------------------------------------


def test_keeps_preroll_speech_and_a_short_tail():
    samples = scored((0.0, 2000), (0.9, 1000), (0.0, 1500))
    [u] = cut(samples, by_score(preroll_ms=600, silence_ms=700, pause_grace_ms=0))
    kept = u.audio.samples
    assert np.isclose(len(kept) / STT_RATE * 1000, 600 + 1000 + TAIL_MS, atol=2 * BLOCK_MS)
    assert u.cut == "silence" and not u.while_paused


def test_a_soft_start_is_followed_back_before_the_preroll():
    """Blocks scoring 0.2-0.4 before the first 0.5 are the soft start, kept with pre-roll."""
    samples = scored((0.0, 2000), (0.3, 400), (0.9, 1000), (0.0, 1500))
    [u] = cut(samples, by_score(preroll_ms=300, pause_grace_ms=0))
    soft = np.isclose(u.audio.samples, 0.3).sum() / STT_RATE * 1000
    assert soft == pytest.approx(400, abs=BLOCK_MS)
    leading_silence = np.argmax(u.audio.samples > 0) / STT_RATE * 1000
    assert leading_silence == pytest.approx(300, abs=BLOCK_MS)


def test_a_pause_after_a_short_first_phrase_gets_the_grace():
    """"Picovoice, <900 ms> make me a large coffee": one utterance, not two."""
    samples = scored((0.0, 500), (0.9, 700), (0.0, 900), (0.9, 1800), (0.0, 1500))
    [u] = cut(samples, by_score(silence_ms=700, pause_grace_ms=500))
    assert u.audio.seconds > 0.7 + 0.9 + 1.8
    # Without the grace the same pause ends it after the name.
    first, second = cut(samples, by_score(silence_ms=700, pause_grace_ms=0))
    assert first.audio.seconds < 1.8


def test_after_a_long_phrase_the_normal_window_ends_it():
    samples = scored((0.0, 500), (0.9, 2000), (0.0, 800), (0.9, 1000), (0.0, 1500))
    assert len(cut(samples, by_score(silence_ms=700, pause_grace_ms=500))) == 2


def test_speech_resuming_in_the_window_starts_it_again():
    samples = scored((0.9, 2000), *[(0.0, 600), (0.9, 200)] * 4, (0.0, 1000))
    [u] = cut(samples, by_score(silence_ms=700))
    assert u.audio.seconds > 2.0 + 4 * 0.8


def test_a_judged_pause_ends_at_its_own_window():
    """Once per pause, `turn_ms` less the judgement's lead into it, the listener may judge it:
    end_after() shortens this pause's window, hold() lengthens it, speech starts a new one."""
    cutter = by_score(silence_ms=700, pause_grace_ms=0, turn_ms=200)
    cutter.draft_lead_ms = 50  # due at 150 ms of silence
    cut(scored((0.0, 500), (0.9, 1500), (0.0, 128)), cutter)
    assert not cutter.draft_due
    cut(scored((0.0, 32)), cutter)
    assert cutter.draft_due and not cutter.short_phrase
    heard = cutter.peek()
    assert not cutter.draft_due  # this pause is judged
    cutter.end_after(200)
    [u] = cut(scored((0.0, 100)), cutter)
    assert u.cut == "turn" and len(u.audio.samples) >= len(heard.samples)
    # held: the same pause lasts 700 + 700 ms; speech in it makes a new pause to judge
    cutter = by_score(silence_ms=700, pause_grace_ms=0, turn_ms=200)
    cut(scored((0.0, 500), (0.9, 1500), (0.0, 200)), cutter)
    cutter.peek()
    cutter.hold(700)
    assert cut(scored((0.0, 1000)), cutter) == []
    assert cut(scored((0.9, 300), (0.0, 200)), cutter) == [] and cutter.draft_due
    [u] = cut(scored((0.0, 700)), cutter)
    assert u.cut == "silence"


def test_an_utterance_ends_as_read_ahead_when_no_speech_comes():
    """Cut early at a pause judged finished: the audio judged, sample for sample; by the
    silence window: what `settled()` gave once the pause had lasted TAIL_MS (a transcript
    may be started on either: speech/read_ahead.py); speech after either: longer."""
    cutter = by_score(silence_ms=700, pause_grace_ms=0, turn_ms=200)
    cut(scored((0.0, 500), (0.9, 1500), (0.0, 200)), cutter)
    heard = cutter.peek()
    cutter.end_after(200)
    [u] = cut(scored((0.0, 1000)), cutter)
    assert u.cut == "turn" and np.array_equal(u.audio.samples, heard.samples)
    cutter = by_score(silence_ms=700, pause_grace_ms=0, turn_ms=200)
    cut(scored((0.0, 500), (0.9, 1500), (0.0, 200)), cutter)
    cutter.peek()
    assert not cutter.settled_due
    cut(scored((0.0, 100)), cutter)
    assert cutter.settled_due
    settled = cutter.settled()
    assert not cutter.settled_due  # once per pause
    [u] = cut(scored((0.0, 1000)), cutter)
    assert u.cut == "silence" and np.array_equal(u.audio.samples, settled.samples)
    cutter = by_score(silence_ms=700, pause_grace_ms=0, turn_ms=200)
    cut(scored((0.0, 500), (0.9, 1500), (0.0, 200)), cutter)
    heard = cutter.peek()
    [u] = cut(scored((0.0, 100), (0.9, 500), (0.0, 1000)), cutter)
    assert len(u.audio.samples) > len(heard.samples) + 500 * STT_RATE // 1000


def test_no_judgements_without_turn_ms_or_while_keeping_all():
    for cutter in (by_score(turn_ms=0), by_score(turn_ms=200, keep_all=True)):
        cut(scored((0.0, 500), (0.9, 1500), (0.0, 300)), cutter)
        assert not cutter.draft_due


def test_short_sounds_are_dropped():
    samples = scored((0.0, 500), (0.9, 128), (0.0, 2000))
    assert cut(samples, by_score(min_speech_ms=250)) == []


def test_max_utterance_cuts_a_monologue():
    samples = scored((0.9, 5000), (0.0, 1000))
    first, *_ = cut(samples, by_score(max_utterance_s=2))
    assert first.cut == "max" and first.audio.seconds == pytest.approx(2.0, abs=0.05)


def test_finish_keeps_speech_and_drops_noise():
    cutter = by_score()
    cut(scored((0.0, 300), (0.9, 600)), cutter)
    u = cutter.finish()
    assert u is not None and u.cut == "stop"
    cutter = by_score()
    cut(scored((0.0, 300), (0.9, 100)), cutter)
    assert cutter.finish() is None


def test_keep_all_keeps_pauses_and_the_primed_blocks():
    cutter = by_score(keep_all=True)
    cutter.prime([np.zeros(BLOCK, np.float32)] * 5)
    samples = scored((0.0, 300), (0.9, 500), (0.0, 3000), (0.9, 500), (0.0, 300))
    assert cut(samples, cutter) == []
    u = cutter.finish()
    assert u is not None
    assert len(u.audio.samples) == len(samples) // BLOCK * BLOCK + 5 * BLOCK


def test_keep_all_without_speech_is_nothing():
    cutter = by_score(keep_all=True)
    cut(scored((0.0, 2000)), cutter)
    assert cutter.finish() is None


def test_speech_that_began_while_paused_is_marked():
    cutter = by_score()
    block = np.full(BLOCK, 0.9, np.float32)
    for _ in range(20):
        assert cutter.push(block, paused=True) is None
    [u] = [u for _ in range(40) if (u := cutter.push(np.zeros(BLOCK, np.float32)))]
    assert u.while_paused


# --- real Silero VAD on synthesised speech ---------------------------------------------------


@pytest.fixture(scope="module")
def vad():
    return SileroVAD()


def silero_cut(vad, audio: Audio, **kw) -> list[Utterance]:
    vad.reset()
    return cut(audio.samples, UtteranceCutter(vad, **kw))


def soft(audio: Audio, gain: float, fade_s: float) -> Audio:
    """Quieter, with the first `fade_s` of the voice fading in (a soft consonant, a mumble)."""
    samples = audio.samples.copy() * gain
    start = int(np.argmax(np.abs(samples) > 1e-4))
    n = int(fade_s * STT_RATE)
    samples[start:start + n] *= np.linspace(0.0, 1.0, n) ** 2
    return Audio(samples, STT_RATE)


def start_in(clip: Audio, part: Audio) -> float:
    """Where `part` (cut from `clip`) starts in it, in seconds."""
    blocks = clip.samples[: len(clip.samples) // BLOCK * BLOCK].reshape(-1, BLOCK)
    [index] = np.flatnonzero((blocks == part.samples[:BLOCK]).all(axis=1))
    return index * BLOCK / STT_RATE


@pytest.mark.real
@pytest.mark.parametrize("gain,fade_s", [(0.3, 0.3), (0.1, 0.5), (0.05, 0.6)])
def test_a_soft_start_is_kept_whole(vad, speech, transcriber, gain, fade_s):
    """Down to -26 dB with a 0.6 s fade-in, the cut starts >= 150 ms before the first
    audible sample (where Silero reached 0.5 up to 450 ms late)."""
    text = "Add apples to my shopping list."
    clip = soft(speech(text, lead_s=1.5, tail_s=1.5), gain, fade_s)
    clip = Audio(clip.samples + noise(clip.seconds, level=0.002).samples[: len(clip.samples)],
                 STT_RATE)
    [u] = silero_cut(vad, clip)
    voice = soft(speech(text, lead_s=1.5, tail_s=1.5), gain, fade_s).samples
    audible = np.flatnonzero(np.abs(voice) > 0.002)
    start = start_in(clip, u.audio)
    assert start <= audible[0] / STT_RATE - 0.15
    assert start + u.audio.seconds >= audible[-1] / STT_RATE + 0.2
    if gain >= 0.3:  # the cut hears what the whole file says
        assert words(transcriber.transcribe(u.audio)) == words(transcriber.transcribe(clip))


@pytest.mark.real
def test_speech_from_the_first_sample(vad, speech, transcriber):
    text = "Set kitchen lights to green."
    clip = speech(text, lead_s=0.0, tail_s=1.5)
    [u] = silero_cut(vad, clip)
    assert np.array_equal(u.audio.samples[:BLOCK], clip.samples[:BLOCK])
    assert words(transcriber.transcribe(u.audio)) == words(text)


@pytest.mark.real
def test_a_pause_mid_sentence_stays_one_utterance(vad, speech, transcriber):
    name, rest = speech("Picovoice,", lead_s=0.5, tail_s=0.0), speech(
        "make me a large coffee.", lead_s=0.0, tail_s=1.5)
    clip = concat([name, Audio.silence(0.9), rest])
    [u] = silero_cut(vad, clip)
    assert u.audio.seconds > name.seconds - 0.5 + 0.9 + rest.seconds - 1.5
    heard = words(transcriber.transcribe(u.audio))
    assert heard == words(transcriber.transcribe(clip)) and heard[-1] == "coffee"


@pytest.mark.real
def test_noise_alone_is_no_utterance(vad):
    assert silero_cut(vad, noise(3.0, level=0.03)) == []


# --- the recorder around the cutter, on the fake block source -------------------------------


def fake_mic(*script, **kw) -> tuple[MicRecorder, threading.Event]:
    """A MicRecorder on the fake source; callables in the script get the recorder."""
    stop = threading.Event()
    mic = MicRecorder(AudioConfig(), source=lambda paused: FakeBlockSource(
        *[s(mic) if callable(s) and not isinstance(s, Audio) else s for s in script],
        paused=paused, done=stop), **kw)
    return mic, stop


@pytest.mark.real
def test_speech_while_paused_is_reported_not_answered(speech, transcriber):
    ignored: list[Utterance] = []
    first = speech("Your timer is set.", lead_s=0.5, tail_s=1.5)
    second = speech("Stop the music.", lead_s=0.5, tail_s=1.5)
    mic, stop = fake_mic(lambda m: m.pause, first, lambda m: m.resume, second,
                         on_ignored=ignored.append)
    heard = list(mic.utterances(stop))
    assert [words(transcriber.transcribe(a)) for a in heard] == [words("Stop the music.")]
    assert [words(transcriber.transcribe(u.audio)) for u in ignored] == [
        words("Your timer is set.")]


@pytest.mark.real
def test_processors_see_every_block_and_can_withhold_them(speech):
    seen: list[int] = []

    def count(block: np.ndarray) -> np.ndarray:
        seen.append(len(block))
        return block

    def gate(block: np.ndarray) -> None:  # e.g. a wake-word gate that never opens
        return None

    clip = speech("Turn on the kitchen lights.", lead_s=0.5, tail_s=1.5)
    mic, stop = fake_mic(clip, processors=[count, gate])
    assert list(mic.utterances(stop)) == []
    assert len(seen) == len(clip.samples) // BLOCK and set(seen) == {BLOCK}
    mic, stop = fake_mic(clip, processors=[count])
    assert len(list(mic.utterances(stop))) == 1


@pytest.mark.real
def test_record_keyed_and_level_meter_on_the_fake_source(speech):
    levels: list[float] = []
    clip = concat([speech("Good morning.", lead_s=0.5, tail_s=2.5), speech("Anything?")])
    mic, stop = fake_mic(clip, on_level=levels.append)
    audio = mic.record(threading.Event())
    assert 1.0 < audio.seconds < 3.0  # ended at the silence, not at the next sentence
    assert min(levels) < 0.005 < 0.05 < max(levels)
    mic, stop = fake_mic(clip)
    whole = mic.record(stop, end_on_silence=False)
    assert whole.seconds == pytest.approx(clip.seconds, abs=0.05)
