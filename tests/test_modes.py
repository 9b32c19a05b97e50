"""`voiceagent run`'s wiring: which key source each mode gets (and the fallbacks), the chime,
and the device check that must fail before any model loads."""

from __future__ import annotations

import dataclasses
import os
import pty
import threading

import pytest

from voiceagent import modes
from voiceagent.config import AudioConfig, Config, TriggerConfig
from voiceagent.errors import DeviceError
from voiceagent.front_end import DAEMON, PTT
from voiceagent.testing import RecordingPlayer
from voiceagent.triggers import LineKeys, TerminalKeys


def config(**trigger: str) -> Config:
    return Config(trigger=dataclasses.replace(TriggerConfig(), **trigger))


def test_the_daemon_without_a_usable_keyboard_falls_back_to_stdin_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    source = modes._key_source(config(evdev_key="KEY_NOPE"), DAEMON, None)
    assert type(source) is LineKeys
    assert "unknown key 'KEY_NOPE'" in caplog.text
    assert "falling back to key presses from stdin" in caplog.text


def test_push_to_talk_reads_the_terminal_only_when_stdin_is_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert type(modes._key_source(config(), PTT, None)) is LineKeys  # pytest's stdin: no tty
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "r") as terminal:
            monkeypatch.setattr("sys.stdin", terminal)
            assert type(modes._key_source(config(), PTT, None)) is TerminalKeys
            assert type(modes._key_source(config(), PTT, "lines")) is LineKeys
    finally:
        os.close(leader)


def test_the_chime_plays_on_the_player_unless_turned_off() -> None:
    player = RecordingPlayer()
    off = Config(audio=dataclasses.replace(AudioConfig(), chime=False))
    assert modes._chime(off, player) is None
    modes._chime(Config(), player)("start")
    assert len(player.played) == 1 and 0.1 < player.played[0].seconds < 0.3


class FakeMic:
    """Stands in for MicRecorder in the device check: counts opens and closes."""

    def __init__(self) -> None:
        self.opened = self.closed = 0

    def open(self) -> None:
        self.opened += 1

    def close(self) -> None:
        self.closed += 1


@pytest.mark.audio
def test_device_check_opens_the_mic_and_names_a_missing_speaker(pulse: object) -> None:
    kept, kiosk = FakeMic(), FakeMic()
    modes.check_devices(Config(), kept, keep_open=True)
    modes.check_devices(Config(), kiosk, keep_open=False)
    assert (kept.opened, kept.closed, kiosk.opened, kiosk.closed) == (1, 0, 1, 1)
    missing = Config(audio=dataclasses.replace(AudioConfig(), output_device="HDMI 7"))
    with pytest.raises(DeviceError, match="no output device matches 'HDMI 7'"):
        modes.check_devices(missing, FakeMic(), keep_open=True)


def test_stop_interrupts_the_running_answer() -> None:
    stop, interrupted = threading.Event(), threading.Event()
    watcher = threading.Thread(target=modes._interrupt_on_stop, args=(stop, interrupted.set))
    watcher.start()
    assert not interrupted.wait(0.05)
    stop.set()
    watcher.join(5)
    assert interrupted.is_set()




def test_every_run_mode_is_a_front_end_and_a_config_choice() -> None:
    """[trigger] mode and --mode name the FrontEnd values `run` builds, and only those."""
    from voiceagent.front_end import RUN_MODES

    choices = next(f for f in dataclasses.fields(TriggerConfig) if f.name == "mode")
    assert set(choices.metadata["choices"]) == set(RUN_MODES)
    assert [f.name for f in RUN_MODES.values() if f.hands_free] == ["kiosk"]
    assert {f.keys for f in RUN_MODES.values()} == {"terminal", "evdev", ""}
