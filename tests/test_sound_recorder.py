"""The microphone path for real: piper speech played into the virtual PulseAudio mic,
recorded by MicRecorder through sounddevice, cut by the VAD and transcribed."""

from __future__ import annotations

import dataclasses
import os
import queue
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from tests.fixtures_audio import noise, words
from tests.live_speech import SPEAKERS, request
from voiceagent.audio import STT_RATE, Audio, concat, read_wav
from voiceagent.config import AudioConfig
from voiceagent.errors import DeviceError
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.cutter import Utterance

pytestmark = [pytest.mark.audio, pytest.mark.real]

CONFIG = AudioConfig()


def recorder(**changes) -> MicRecorder:
    return MicRecorder(dataclasses.replace(CONFIG, **changes))


def test_records_one_utterance_and_stops_at_end_of_speech(pulse, speech, transcriber):
    text = "Put eggs and butter on the shopping list."
    clip = speech(text, lead_s=1.0, tail_s=4.0)
    player = pulse.start_playing_into_mic(clip)
    audio = recorder().record()
    still_playing = player.poll() is None
    player.wait()
    assert still_playing, "the VAD should end the utterance before the long tail of silence"
    assert 1.5 < audio.seconds < clip.seconds - 2.5
    assert words(transcriber.transcribe(audio)) == words(text)


def test_key_release_ends_the_recording(pulse, speech, transcriber):
    text = "What is on my calendar today?"
    stop = threading.Event()
    result: list[Audio] = []
    thread = threading.Thread(
        target=lambda: result.append(recorder(silence_ms=8000).record(stop)))
    thread.start()
    pulse.play_into_mic(speech(text, lead_s=1.0, tail_s=0.5))
    stop.set()  # the key is released once the user has finished speaking
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert words(transcriber.transcribe(result[0])) == words(text)


def test_an_open_stream_is_reused_across_recordings(pulse, speech, transcriber):
    """With the mic kept open, each record() starts from now, not from what queued before."""
    with recorder() as mic:
        pulse.play_into_mic(speech("This was said before the key was pressed."))
        player = pulse.start_playing_into_mic(speech("Play some relaxing music."))
        audio = mic.record()
        player.wait()
    assert words(transcriber.transcribe(audio)) == words("Play some relaxing music.")


def test_missing_microphone_lists_the_devices(pulse):
    with pytest.raises(DeviceError, match="no input device matches 'USB mic'.*input devices"):
        recorder(input_device="USB mic").record()


def test_released_before_speaking_gives_nothing(pulse):
    stop = threading.Event()
    stop.set()
    assert recorder().record(stop).seconds == 0


@pytest.mark.parametrize("sound", [
    Audio.silence(2.5),
    noise(2.5, level=0.03),
    concat([Audio.silence(0.8), Audio(0.5 * np.sin(np.linspace(0, 2 * np.pi * 80, 1600))
                                      .astype(np.float32), STT_RATE), Audio.silence(1.5)]),
], ids=["silence", "fan-noise", "click"])
def test_silence_and_noise_come_back_empty(pulse, sound):
    player = pulse.start_playing_into_mic(sound)
    audio = recorder(listen_timeout_s=2.0).record()
    player.wait()
    assert audio.seconds == 0


def test_level_meter_follows_the_voice(pulse, speech):
    levels: list[float] = []
    player = pulse.start_playing_into_mic(speech("Good morning, how are you?", lead_s=1.0))
    MicRecorder(CONFIG, on_level=levels.append).record()
    player.wait()
    assert len(levels) > 20
    assert min(levels) < 0.005 and max(levels) > 0.05


def test_continuous_listening_ignores_what_is_heard_while_paused(pulse, speech, transcriber):
    """Half duplex: what is said while paused is not answered, but it is reported."""
    ignored: list[Utterance] = []
    mic = MicRecorder(CONFIG, on_ignored=ignored.append)
    stop = threading.Event()
    heard: list[str] = []
    got_one = threading.Event()

    def listen() -> None:
        for utterance in mic.utterances(stop):
            heard.append(transcriber.transcribe(utterance))
            got_one.set()

    mic.open()
    thread = threading.Thread(target=listen)
    thread.start()
    try:
        with mic.paused():  # half duplex: the assistant is talking
            pulse.play_into_mic(speech("Your timer has been set for five minutes."))
        pulse.play_into_mic(speech("Stop the music."))
        pulse.play_into_mic(speech("Turn on the kitchen lights."))
        assert got_one.wait(timeout=10)
    finally:
        stop.set()
        thread.join(timeout=10)
    assert [words(h) for h in heard] == [words("Stop the music."),
                                        words("Turn on the kitchen lights.")]
    assert [words(transcriber.transcribe(u.audio)) for u in ignored] == [
        words("Your timer has been set for five minutes.")]


TEXTS = {
    "soft-start": "Add apples to my shopping list.",
    "first-sample": "Set kitchen lights to green.",
    "pause-mid-sentence": "Picovoice, make me a large coffee.",
}
LIVE_CASES = {
    "soft-start": lambda: request(TEXTS["soft-start"], SPEAKERS[1], fade_s=0.35),
    "first-sample": lambda: request(TEXTS["first-sample"], SPEAKERS[0], lead_s=0.0),
    "pause-mid-sentence": lambda: request(TEXTS["pause-mid-sentence"], SPEAKERS[2]),
}
VOCABULARY = ["Picovoice", "shopping"]
"""The wake word and a list name, as build_transcriber passes them."""


def test_the_kiosk_hears_what_the_file_says(pulse, transcriber):
    """Issue 17: played into the mic one after another, each recording comes out as one
    utterance with the transcript of the file itself (nothing lost at capture, no cut at a
    pause). The speakers are piper's voice shifted in pitch and speed, in a noisy room."""
    mic = recorder()
    stop = threading.Event()
    heard: queue.Queue[Audio] = queue.Queue()
    mic.open()
    thread = threading.Thread(target=lambda: [heard.put(u) for u in mic.utterances(stop)])
    thread.start()
    got: dict[str, list[Audio]] = {}
    try:
        for name, make in LIVE_CASES.items():
            pulse.play_into_mic(make())
            got[name] = [heard.get(timeout=10)]
            time.sleep(1.5)  # anything else cut from this recording arrives by now
            while not heard.empty():
                got[name].append(heard.get())
    finally:
        stop.set()
        thread.join(timeout=10)
        mic.close()
    for name, make in LIVE_CASES.items():
        assert len(got[name]) == 1, f"{name}: cut into {len(got[name])} utterances"
        live = transcriber.transcribe(got[name][0], VOCABULARY)
        from_file = transcriber.transcribe(make(), VOCABULARY)
        # nothing lost or added; one word may come out differently through the sound server
        # ("add" heard as "and"), which is recognition, not capture
        assert len(words(live)) == len(words(from_file)), (name, live, from_file)
        pairs = zip(words(live), words(from_file), strict=True)
        assert sum(a != b for a, b in pairs) <= 1, name
        assert len(words(live)) == len(words(TEXTS[name])), f"{name}: words lost: {live!r}"


KIOSK_CHILD = """
import sys, threading
from voiceagent.audio import write_wav
from voiceagent.config import AudioConfig
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.cutter import Utterance
mic = MicRecorder(AudioConfig())
mic.open()
print("open", flush=True)
for n, utterance in enumerate(mic.utterances(threading.Event())):
    path = f"{sys.argv[1]}/utterance{n}.wav"
    write_wav(path, utterance)
    print(path, flush=True)
"""


def test_continuous_listening_survives_the_sound_server_restarting(
    pulse, speech, transcriber, tmp_path
):
    """The device goes away mid-stream and comes back: the kiosk keeps listening.

    The listener runs in a child process: PortAudio's ALSA thread can spin on a vanished
    server, and that must not be able to hang or flood the test run (it is killed at the end).
    """
    child = subprocess.Popen(
        [sys.executable, "-c", KIOSK_CHILD, str(tmp_path)], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, env={**os.environ, **pulse.env},
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(
        target=lambda: [lines.put(line.strip()) for line in child.stdout or ()], daemon=True
    )
    reader.start()
    try:
        assert lines.get(timeout=60) == "open"
        pulse.stop()  # the microphone disappears under an open stream
        time.sleep(3.0)
        pulse.start()
        pulse.play_into_mic(speech("Are you still listening?"))
        heard = read_wav(lines.get(timeout=30))
    finally:
        child.kill()
        child.wait()
        reader.join(timeout=5)
        if child.stdout is not None:
            child.stdout.close()
    assert words(transcriber.transcribe(heard)) == words("Are you still listening?")
