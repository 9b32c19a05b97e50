"""Players: the real speaker path through PulseAudio, barge-in, the WAV file and null players."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from tests.fixtures_audio import words
from voiceagent.audio import Audio, concat, read_wav
from voiceagent.config import AudioConfig
from voiceagent.errors import DeviceError
from voiceagent.sound.chime import chime
from voiceagent.sound.player import NullPlayer, SoundPlayer, WavFilePlayer


def voiced_seconds(audio: Audio, level: float = 0.02) -> float:
    """Seconds of 20 ms frames louder than `level`."""
    frame = audio.rate // 50
    n = len(audio.samples) // frame
    rms = np.sqrt(np.mean(audio.samples[: n * frame].reshape(n, frame) ** 2, axis=1))
    return float((rms > level).sum()) / 50


@pytest.mark.audio
@pytest.mark.real
def test_speaker_plays_piper_speech(pulse, synthesizer, transcriber):
    text = "Your pizza timer is done. Enjoy your meal!"
    player = SoundPlayer(AudioConfig())
    with pulse.record_speaker() as wav:
        for clip in synthesizer.synthesize(text):
            player.play(clip)
    heard = read_wav(wav)
    assert words(transcriber.transcribe(heard)) == words(text)


@pytest.mark.audio
@pytest.mark.real
def test_stop_interrupts_playback_at_once(pulse, synthesizer):
    text = ("Here is the whole story of the three little pigs, told slowly. The first pig "
            "built a house of straw. The second built one of sticks. The third used bricks.")
    clip = concat(list(synthesizer.synthesize(text)))
    player = SoundPlayer(AudioConfig())
    started = threading.Event()
    with pulse.record_speaker() as wav:
        thread = threading.Thread(target=lambda: (started.set(), player.play(clip)))
        thread.start()
        started.wait()
        time.sleep(1.0)  # let some of it be heard
        player.stop()  # barge-in from another thread
        thread.join(timeout=5)
        assert not thread.is_alive()
    heard = voiced_seconds(read_wav(wav))
    assert 0.3 < heard < voiced_seconds(clip) / 3


@pytest.mark.audio
def test_a_short_clip_is_heard_to_its_end(pulse):
    """play() returns once the clip was heard, not when its last sample left the callback."""
    tone = Audio(0.3 * np.sin(np.arange(6615, dtype=np.float32) * 0.1), 22050)  # 0.3 s
    player = SoundPlayer(AudioConfig())
    with pulse.record_speaker() as wav:
        player.play(tone)
        player.play(chime("stop"))
        pulse.wait_played(wav)  # the recorder's own latency, however long; a cut tail stays missing
    assert voiced_seconds(read_wav(wav)) == pytest.approx(0.3 + 0.16, abs=0.04)


@pytest.mark.audio
def test_missing_output_device_is_a_device_error(pulse):
    player = SoundPlayer(AudioConfig(output_device="HDMI 3"))
    with pytest.raises(DeviceError, match="no output device matches 'HDMI 3'.*output devices"):
        player.play(chime("start"))


def test_wav_file_player_collects_everything(tmp_path):
    out = tmp_path / "answer.wav"
    player = WavFilePlayer(out)
    player.play(chime("start"))
    player.play(Audio.silence(0.5, rate=22050))
    player.play(chime("stop").resampled(16000))
    player.stop()
    written = read_wav(out)
    assert written.rate == 22050
    assert written.seconds == pytest.approx(0.16 + 0.5 + 0.16, abs=0.01)


def test_wav_file_player_writes_a_file_even_when_nothing_was_said(tmp_path):
    player = WavFilePlayer(tmp_path / "silent.wav")
    player.close()
    assert read_wav(tmp_path / "silent.wav").seconds == 0


@pytest.mark.audio
def test_null_player_plays_nothing(pulse):
    player = NullPlayer()
    with pulse.record_speaker() as wav:
        player.play(Audio(0.3 * np.sin(np.arange(22050, dtype=np.float32) * 0.1), 22050))
        player.stop()
        time.sleep(0.5)  # the recorder's own latency, as above
    heard = read_wav(wav)
    assert heard.seconds > 0.3 and voiced_seconds(heard) == 0


@pytest.mark.parametrize("kind", ["start", "stop"])
def test_chime_is_short_quiet_and_click_free(kind):
    tone = chime(kind)
    assert 0.1 < tone.seconds < 0.3
    assert 0.1 < np.abs(tone.samples).max() <= 0.25
    assert abs(tone.samples[0]) < 0.01 and abs(tone.samples[-1]) < 0.01


def test_chime_kinds_differ_and_unknown_is_refused():
    assert not np.array_equal(chime("start").samples, chime("stop").samples)
    with pytest.raises(ValueError, match="start, stop"):
        chime("ding")
