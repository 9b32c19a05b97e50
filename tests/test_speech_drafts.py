"""Judging pauses (speech/drafts.py): the verdicts on scripted words and a scripted turn model,
the recorder around them with real Silero VAD on piper speech, and real Whisper with the real
smart-turn on real recordings (tests/data/real/repro, Apache-2.0: see SOURCES.md there).

Where an utterance ends is counted in blocks read from testing.FakeBlockSource: the audio's
own time, the same on any machine (a file source queues nothing while a judgement runs)."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.fixtures_audio import words
from voiceagent.audio import STT_RATE, Audio, concat, load_audio
from voiceagent.config import AudioConfig, Config
from voiceagent.ports import Transcript
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.drafts import Drafts, Verdict, only_an_address, sounds_finished
from voiceagent.speech.read_ahead import ReadAhead
from voiceagent.speech.vad import BLOCK_MS
from voiceagent.testing import FakeBlockSource

REPRO = Path(__file__).resolve().parent / "data" / "real" / "repro"


@pytest.mark.parametrize("text, finished", [
    ("What time is it?", True), ("Turn it off.", True), ("Add milk to my list.", True),
    ("Set a timer for", False), ("Set a timer for...", False), ("Add eggs and", False),
    ("Add eggs and.", False), ("What's, um.", False), ("Remind me to", False), ("", False),
    ("What is 12 times", False), ("Thanks!", False), ("Thank you!", True),
    ("Picovoice.", False), ("Set a timer for it.", False), ("Cancel it.", True),
    ("Remind me too.", False), ("Set a timer for 20 minutes.", True),
])
def test_what_sounds_finished(text: str, finished: bool):
    assert sounds_finished(text) is finished


@pytest.mark.parametrize("text, address", [
    ("Alexa.", True), ("Hey Jarvis, um...", True), ("Okay, Nabu.", True), ("Picovoice.", True),
    ("Hey, computer.", True), ("Okay.", False), ("Um.", False), ("Alexa, what time is it?", False),
    ("Pick a voice.", False), ("Hey Bob.", False),
])
def test_what_is_only_an_address(text: str, address: bool):
    assert only_an_address(text) is address
    assert only_an_address("Hey Bob, um.", names=["hey bob"])


class Scripted:
    """A transcriber saying the given texts in turn (the last one again after that)."""

    def __init__(self, *texts: str, doubt: str = "") -> None:
        self.texts, self.doubt, self.calls = list(texts), doubt, 0

    def transcribe(self, audio: Audio) -> Transcript:
        self.calls += 1
        text = self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]
        if isinstance(text, Transcript):
            return text
        return Transcript(text, doubt=self.doubt)


class Turn:
    """A turn model that always hears the same probability."""

    def __init__(self, probability: float) -> None:
        self.probability = probability

    def finished(self, audio: Audio) -> float:
        return self.probability


F, U, OPEN = Verdict.FINISHED, Verdict.UNFINISHED, Verdict.OPEN


@pytest.mark.parametrize("text, p, short, verdict", [
    ("What time is it?", 0.9, False, F),  # both agree
    ("Set a timer for", 0.98, False, U),  # the words trail off: the model is not asked
    ("Set a timer for two hours.", 0.3, False, OPEN),  # the model hears more: no sooner end
    ("Add eggs and", None, False, U),  # no model: the words still hold the pause
    ("What time is it?", None, False, OPEN),  # no model: nothing ends it sooner
    ("Alexa.", 0.95, True, U), ("Hey Jarvis, um.", 0.9, False, U),  # only an address
    ("Pick a voice.", 0.92, True, OPEN),  # a short first phrase may be a misheard name
    ("Stop.", 0.9, True, F),  # ...unless it is a whole command ("stop": see command below)
    ("Yes.", 0.9, True, F), ("Thanks.", 0.9, True, U),  # one word: an answer, or more to come
    ("", 0.2, False, U), ("", 0.9, False, OPEN),  # no words: the model alone never ends it
])
def test_the_verdicts(text: str, p: float | None, short: bool, verdict: Verdict):
    drafts = Drafts(Scripted(text), None if p is None else Turn(p),
                    command=lambda t: t.lower().startswith(("stop", "what time")))
    draft = drafts.judge(Audio.silence(1.0), short=short)
    assert draft.verdict is verdict and draft.text == text
    assert draft.probability in (p, None)  # None: the words settled it, the model was not asked


def test_words_whisper_made_up_hold_the_pause():
    """The real "set a timer for" + a pause: tiny.en wrote "Set a timer for two hours." with
    "two" and "hours" at 0.00-0.03 and smart-turn heard a finished turn (0.97)."""
    made_up = Transcript("Set a timer for two hours.", words=(
        ("Set", 0.12), ("a", 0.12), ("timer", 0.99), ("for", 0.83), ("two", 0.0),
        ("hours.", 0.02)))
    drafts = Drafts(Scripted(made_up), Turn(0.97))
    assert drafts.judge(Audio.silence(1.0)).verdict is U
    heard = Transcript("Set a timer for five minutes.", words=(
        ("Set", 0.12), ("a", 0.24), ("timer", 1.0), ("for", 1.0), ("five", 0.84),
        ("minutes.", 1.0)))
    assert Drafts(Scripted(heard), Turn(0.95)).judge(Audio.silence(1.0)).verdict is F


def test_an_amount_whisper_half_believes_at_the_end_holds_the_pause():
    """Cut at 1.55 s, the real "set a timer for 5 minutes" said "five hours." at 0.60 / 0.51;
    live it once ended there (a 5-hour timer). An amount ending the words so far is where
    more may come; other words as unsure end a finished turn as before."""
    guessed = Transcript("Set a timer for five hours.", words=(
        ("Set", 0.5), ("a", 0.8), ("timer", 1.0), ("for", 1.0), ("five", 0.60),
        ("hours.", 0.51)))
    assert Drafts(Scripted(guessed), Turn(0.97)).judge(Audio.silence(1.0)).verdict is U
    plain = Transcript("Add milk to my list.", words=(
        ("Add", 0.6), ("milk", 0.9), ("to", 1.0), ("my", 0.7), ("list.", 0.6)))
    assert Drafts(Scripted(plain), Turn(0.97)).judge(Audio.silence(1.0)).verdict is F


def test_doubtful_words_never_end_a_turn_sooner():
    drafts = Drafts(Scripted("What time is it?", doubt="avg_logprob -0.7"), Turn(0.99))
    assert drafts.judge(Audio.silence(1.0)).verdict is OPEN
    drafts = Drafts(Scripted("What time is it?", doubt="avg_logprob -0.7"), Turn(0.1))
    assert drafts.judge(Audio.silence(1.0)).verdict is U


def test_drafts_are_no_transcriber():
    """A draft is never the request's text: Drafts cannot stand in for the transcriber."""
    assert not hasattr(Drafts(Scripted("x")), "transcribe")


# --- the recorder with real Silero on piper speech -------------------------------------------


def listen(script: list[Audio], drafts: Drafts | None = None,
           **config) -> tuple[list[Audio], list[int]]:
    """The utterances a kiosk recorder cuts from `script` (judged by `drafts`; none: the
    fixed silence window), and how many blocks had been read at each."""
    stop = threading.Event()
    source = FakeBlockSource(*script, done=stop)
    mic = MicRecorder(replace(AudioConfig(), **config), source=lambda paused: source)
    mic.drafts = drafts
    heard, read_at = [], []
    for audio in mic.utterances(stop):
        heard.append(audio)
        read_at.append(source.blocks_read)
    return heard, read_at


@pytest.mark.real
def test_a_finished_turn_ends_at_turn_end_ms_with_the_same_words(speech):
    text = "Add milk to my shopping list."
    clip = speech(text, lead_s=0.5, tail_s=2.0)
    [fixed], [fixed_at] = listen([clip])
    [early], [early_at] = listen([clip], Drafts(Scripted(text), Turn(0.9)))
    config = AudioConfig()
    gap = (config.silence_ms - config.turn_end_ms) / BLOCK_MS
    assert gap - 2 <= fixed_at - early_at <= gap + 2
    # the same words: the cut keeps the whole speech and up to turn_end_ms after it
    assert len(fixed.samples) - len(early.samples) <= (300 - config.turn_end_ms) * 16 + 512
    assert np.array_equal(early.samples, fixed.samples[: len(early.samples)])
    [_], [off_at] = listen([clip], Drafts(Scripted(text), Turn(0.9)), turn_end_ms=0)
    assert off_at == fixed_at  # turn_end_ms = 0: no judgements, the fixed window


@pytest.mark.real
def test_a_short_first_phrase_ends_sooner_only_as_a_whole_command(speech):
    """"What time is it?" is under a second of speech, as long as a name ("Picovoice,
    ..."): finished words end it sooner only when they are a command the assistant knows;
    with no grace for short phrases (a wake word took the name) like any other."""
    clip = speech("What time is it?", lead_s=0.5, tail_s=2.0)
    [_], [fixed_at] = listen([clip])
    [_], [other_at] = listen([clip], Drafts(Scripted("What time is it?"), Turn(0.9)))
    [_], [command_at] = listen([clip], Drafts(Scripted("What time is it?"), Turn(0.9),
                                              command=lambda text: True))
    [_], [named_at] = listen([clip], Drafts(Scripted("What time is it?"), Turn(0.9)),
                             pause_grace_ms=0)
    assert other_at == fixed_at and command_at < fixed_at - 10 and named_at == command_at


@pytest.mark.real
def test_unfinished_words_hold_the_pause(speech):
    first = speech("Set a timer for", lead_s=0.5, tail_s=0.0)
    rest = speech("ten minutes.", lead_s=0.0, tail_s=2.0)
    pause = Audio.silence(1.1)
    split, _ = listen([first, pause, rest])
    assert len(split) == 2  # the fixed window cuts the sentence in two
    drafts = Drafts(Scripted("Set a timer for", "Set a timer for ten minutes."), Turn(0.97))
    held, _ = listen([first, pause, rest], drafts)
    assert len(held) == 1 and held[0].seconds > first.seconds + rest.seconds - 1.0


@pytest.mark.real
def test_the_listener_reads_ahead_only_the_pause_that_may_end_the_turn(speech):
    """read_ahead (the request's transcript is started on it) gets the pause heard as
    finished, not the one after "for": exactly the utterance handed over."""
    first = speech("Set a timer for", lead_s=0.5, tail_s=0.0)
    rest = speech("ten minutes.", lead_s=0.0, tail_s=2.0)
    seen: list[Audio] = []
    drafts = Drafts(Scripted("Set a timer for", "Set a timer for ten minutes."), Turn(0.97),
                    read_ahead=seen.append)
    [heard], _ = listen([first, Audio.silence(1.1), rest], drafts)
    assert len(seen) == 1 and np.array_equal(seen[0].samples, heard.samples)


@pytest.mark.real
def test_speech_during_the_judgement_keeps_the_utterance_going(speech):
    first = speech("What time is it", lead_s=0.5, tail_s=0.0)
    first = Audio(first.samples[: -int(0.2 * first.rate)], first.rate)  # piper's own pause
    rest = speech("in Tokyo?", lead_s=0.0, tail_s=2.0)
    drafts = Drafts(Scripted("What time is it?", "What time is it in Tokyo?"), Turn(0.95))
    heard, _ = listen([first, Audio.silence(0.18), rest], drafts)
    assert len(heard) == 1  # judged finished, but "in Tokyo" came before turn_end_ms


@pytest.mark.real
def test_a_doubtful_or_wordless_judgement_leaves_it_to_the_silence_window(speech):
    clip = speech("What time is it?", lead_s=0.5, tail_s=2.0)
    [_], [fixed_at] = listen([clip])
    doubtful = Drafts(Scripted("What time is it?", doubt="avg_logprob -0.7"), Turn(0.99))
    [_], [doubt_at] = listen([clip], doubtful)
    [_], [alone_at] = listen([clip], Drafts(Scripted(""), Turn(0.99)))
    assert doubt_at == fixed_at == alone_at


# --- real Whisper, real smart-turn, real recordings --------------------------------------


@pytest.fixture(scope="module")
def real_drafts(transcriber):
    """Drafts as the kiosk builds them: the bundled Whisper, smart-turn and local commands."""
    import tempfile

    from voiceagent.config_file import config_from_dict
    from voiceagent.front_end import KIOSK
    from voiceagent.intents import LocalCommands
    from voiceagent.speech.turn import load_turn_model
    from voiceagent.tools import ToolContext, build_tools

    config = Config()
    with tempfile.TemporaryDirectory() as data:
        box = build_tools(config_from_dict({"paths": {"data_dir": data}}),
                          ToolContext(Path(data), KIOSK))
        local = LocalCommands(box.registry)
        yield Drafts(transcriber, load_turn_model(config.audio.turn_model, config.models_dir),
                     threshold=config.audio.turn_threshold,
                     command=lambda text: local.match(text) is not None)
        box.close()


def real(name: str, tail_s: float = 2.0) -> Audio:
    """A real recording with `tail_s` of silence after it (the file's own room noise ends)."""
    return concat([load_audio(REPRO / f"{name}.flac"), Audio.silence(tail_s)])


@pytest.mark.real
def test_set_a_timer_for_5_minutes_is_one_utterance_that_says_five_minutes(
        real_drafts, transcriber):
    [heard], _ = listen([real("stp_set_a_timer_for_5_minutes")], real_drafts)
    assert words(transcriber.transcribe(heard))[-2:] == ["five", "minutes"]


@pytest.mark.real
def test_picovoice_is_not_cut_after_the_name(real_drafts, transcriber):
    """0.9 s of pause after "Picovoice" (heard as "Pick a voice."): one utterance."""
    [heard], _ = listen([real("pv_picovoice_make_me_a_large_coffee")], real_drafts)
    assert words(transcriber.transcribe(heard))[-3:] == ["a", "large", "coffee"]


@pytest.mark.real
def test_each_request_is_transcribed_at_the_pause_it_ends_with(real_drafts, transcriber):
    """As the kiosk wires it (modes.early_end): drafts on the short window, and each pause
    that may end the utterance has the request's own transcriber start on it
    (speech/read_ahead.py). Every real request's transcript was started before its cut, and
    is what that transcriber says of the whole utterance."""
    ahead = ReadAhead(transcriber)
    drafts = Drafts(transcriber.drafting(), real_drafts.turn, threshold=real_drafts.threshold,
                    command=real_drafts.command, read_ahead=ahead.start)
    names = sorted(p.stem for p in REPRO.glob("*.flac"))
    for done, name in enumerate(names, start=1):
        [heard], _ = listen([real(name)], drafts)
        text = ahead.transcribe(heard)
        assert ahead.used == done, name
        assert text == transcriber.transcribe(heard) and text.strip()


@pytest.mark.real
def test_a_finished_request_ends_sooner_than_an_unfinished_one(real_drafts, speech):
    """Blocks read after the last word until the cut: a whole request is cut sooner than the
    same speaker's words stopped after "for" (a real recording cut there: "set a timer
    for" + silence)."""
    timer = load_audio(REPRO / "stp_set_a_timer_for_5_minutes.flac")
    head = Audio(timer.samples[: int(1.34 * STT_RATE)], STT_RATE)  # "set a timer for"
    whole = Audio(timer.samples[: int(2.3 * STT_RATE)], STT_RATE)
    _, [finished_at] = listen([whole, Audio.silence(3.0)], real_drafts)
    _, [unfinished_at] = listen([head, Audio.silence(3.0)], real_drafts)
    finished = finished_at - whole.seconds * 1000 / BLOCK_MS
    unfinished = unfinished_at - head.seconds * 1000 / BLOCK_MS
    assert finished < unfinished


@pytest.mark.real
def test_noise_after_the_words_does_not_keep_the_utterance_open(real_drafts, transcriber):
    """The real "add apples to my shopping list" ends in loud room noise that Silero scores
    0.4-0.6 after the words; kitchen-like clatter blips follow: the cut still comes within
    the usual window of the words' end, with every word."""
    clip = load_audio(REPRO / "stp_add_apples_to_my_shopping_list.flac")
    room = clip.samples[int(2.4 * STT_RATE):]  # the room after the words, looped
    rng = np.random.default_rng(3)
    tail = np.tile(room, 6)[: 3 * STT_RATE].copy()
    for at in rng.integers(0, len(tail) - 800, 12):  # clicks: a spoon, a cup
        tail[at: at + 800] += rng.standard_normal(800).astype(np.float32) * 0.05
    [heard], [read] = listen([clip, Audio(tail, STT_RATE)], real_drafts)
    words_end = 2.25
    assert read * BLOCK_MS / 1000 - words_end <= AudioConfig().silence_ms / 1000 + 0.3
    assert words(transcriber.transcribe(heard))[:2] == ["add", "apples"]
