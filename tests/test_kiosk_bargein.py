"""The hands-free kiosk as users run it (`voiceagent run --mode kiosk`), in a room that echoes:
the PulseAudio test devices with a loopback from the speaker back into the microphone
(delayed, quieter, over a little hiss), the real models and the real llama.cpp server.

It must answer only after the wake word, keep the words said right after it, never wake itself
or answer itself, and stop talking at once when someone says the wake word over it. ("Stop"
without the wake word is not tested here: on this echo path it was not recognised over the
answer; see the README.)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from tests.fixtures_audio import noise, words
from tests.test_e2e import Running, write_config
from tests.voices import USERS, news, say
from voiceagent.audio import STT_RATE, read_wav
from voiceagent.testing import FakeLLMServer, openai_stream

pytestmark = [pytest.mark.audio, pytest.mark.real]

ECHO_DB = -10
"""The speaker as loud at the microphone as a person 10 dB louder than it: a kiosk speaker
turned low, a person close by. (Louder echoes mask the person: see the README's figures.)"""
KIOSK = """[trigger]
mode = "kiosk"
wake_word = "hey_jarvis"
"""
STORY = ("Once upon a time, a small dragon lived in a cave above a quiet village. Every morning "
         "it flew over the river to watch the fishermen. The people were afraid of it at first. "
         "But one cold winter the dragon lit their fires when the wood was wet. After that the "
         "children brought it apples and bread. The dragon grew old and happy among them. It "
         "taught the children to read the clouds and the wind. And when the river flooded, it "
         "carried the old miller to safety on its back. The village still tells the story every "
         "spring. And the cave above the village is never empty of apples.")
"""A long spoken answer to talk over, scripted: the language model is not what is tested
here, and the small real one is slow and unpredictable about length."""
AUDIO = "echo_cancel = true\n"


@contextmanager
def echo_path(pulse, *, gain_db: float = ECHO_DB, latency_ms: int = 60) -> Iterator[None]:
    """What the speaker plays comes back into the microphone, as in a room; plus hiss."""
    env = {**os.environ, **pulse.env}

    def pactl(*args: str) -> str:
        return subprocess.run(["pactl", *args], env=env, capture_output=True, text=True,
                              check=True, timeout=10).stdout

    module = pactl("load-module", "module-loopback", "source=speaker.monitor", "sink=micfeed",
                   f"latency_msec={latency_ms}", "source_dont_move=true",
                   "sink_dont_move=true").strip()
    inputs = pactl("list", "sink-inputs")
    found = re.search(rf"Sink Input #(\d+)\n(?:\t.*\n)*?\tOwner Module: {module}\n", inputs)
    assert found, inputs
    pactl("set-sink-input-volume", found.group(1), f"{gain_db}dB")
    hiss = pulse.start_playing_into_mic(noise(240, level=0.003))
    try:
        yield
    finally:
        hiss.terminate()
        hiss.wait(timeout=10)
        pactl("unload-module", module)


class Kiosk(Running):
    """`voiceagent -v run --mode kiosk`: every event logged, so the test sees speech start."""

    def __init__(self, config: Path, env: dict[str, str]) -> None:
        super().__init__(config, "--mode", "kiosk", verbose=True,
                         env={**env, "PYTHONFAULTHANDLER": "1"})


@pytest.fixture
def kiosks(pulse) -> Iterator[list[Kiosk]]:
    """Kiosks started by a test, killed if it failed before stopping them."""
    started: list[Kiosk] = []
    yield started
    for app in started:
        if app.proc.poll() is None:  # a test failed with it running: where was each thread?
            app.proc.send_signal(signal.SIGABRT)
            time.sleep(2)
            print("\n".join(app.lines[-80:]))
        if app.proc.poll() is None:
            app.proc.kill()
        app.proc.wait()
        app.reader.join(timeout=10)
        for pipe in (app.proc.stdin, app.proc.stdout):
            if pipe is not None:
                pipe.close()


@contextmanager
def recording_mic(pulse, path: Path) -> Iterator[Path]:
    """Record what the microphone hears (the person and the room's echo) into `path`."""
    proc = subprocess.Popen(
        ["parecord", "--device=micfeed.monitor", "--channels=1", "--rate=16000",
         "--format=s16le", "--latency-msec=20", "--file-format=wav", str(path)],
        env={**os.environ, **pulse.env})
    time.sleep(0.3)  # parecord connects asynchronously
    try:
        yield path
    finally:
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)  # parecord finalises the WAV header on SIGINT
        proc.wait(timeout=10)


def silenced_after(heard: np.ndarray, said: np.ndarray, loopback_s: float) -> float:
    """Seconds from the end of `said` (found in `heard`) until the echo of the answer stops:
    the start of the first 0.6 s (longer than the pause between sentences) in which the
    microphone hears only the hiss."""
    corr = np.correlate(heard, said[-8000:], mode="valid")  # the clip's last half second
    said_end = int(np.argmax(corr)) + 8000
    rms = np.sqrt(np.convolve(heard[said_end:] ** 2, np.ones(160) / 160, mode="valid"))
    quiet = rms < 0.01
    run = int(0.6 * STT_RATE)
    for i in range(0, len(quiet) - run, 160):
        if quiet[i:i + run].all():
            return i / STT_RATE - loopback_s
    return float("inf")


def test_hands_free_and_interruptible_in_an_echoing_room(
    tmp_path: Path, pulse, kiosks
) -> None:
    llm = FakeLLMServer().script(*[openai_stream(STORY, piece=12) for _ in range(4)])
    config = write_config(tmp_path, llm.url, AUDIO + KIOSK)
    with llm, echo_path(pulse):
        app = Kiosk(config, env=pulse.env)
        kiosks.append(app)
        app.wait_for("kiosk mode ready")
        app.wait_for("waiting for the wake word")

        # Talk without the wake word: nothing is transcribed.
        pulse.play_into_mic(news(3, USERS[1]))
        # The wake word and the request in one breath, in another voice.
        pulse.play_into_mic(say("Hey Jarvis, tell me a story about a dragon.", USERS[0]))
        heard = app.wait_for("heard: ", timeout=180)
        assert "dragon" in words(heard)
        assert "jarvis" not in words(heard)  # the wake word itself is not part of the request
        app.wait_for('"audio_start"', timeout=360)
        time.sleep(4)  # its own story echoes into the mic: it must not wake it

        # The wake word over its own speech stops it and takes the new request.
        wake = say("Hey Jarvis.", USERS[2], lead_s=0.2, tail_s=0.0)
        with recording_mic(pulse, tmp_path / "mic.wav") as mic:
            pulse.play_into_mic(wake)
            time.sleep(1.5)
        pulse.play_into_mic(say("What time is it?", USERS[2], lead_s=0.2))
        app.wait_for("turn over", timeout=90)  # the story, cut short
        second = app.wait_for("heard: ", timeout=180)
        app.wait_for("turn over", timeout=180)
        assert words(second)[-4:] == ["what", "time", "is", "it"]
        wake_to_silence = silenced_after(read_wav(mic).samples, wake.samples, 0.06)

        time.sleep(2)
        assert app.stop() == 0

    lines = app.lines
    wakes = [line for line in lines if "wake word heard" in line]
    assert len(wakes) == 2, wakes  # its own speech never woke it
    assert sum(" voiceagent: heard: " in line for line in lines) == 2, lines  # nothing else
    own = [line.split(": heard ", 1)[1] for line in lines if "over the answer: not a stop" in line]
    print(f"end of the wake word -> the answer silenced: {wake_to_silence:.2f} s; its own "
          f"voice went to the stop-word check {len(own)} time(s): {own}")
    assert not any("over the answer: stopping" in line for line in lines)  # never by itself
    assert wake_to_silence < 1.0
