"""A PortAudio call that never returns leaves the caller free (the kiosk must keep answering
SIGTERM and retrying): deterministic fault cases, with calls that block until released."""

from __future__ import annotations

import threading

import pytest

from voiceagent.errors import DeviceError
from voiceagent.sound import bounded as bounded_module
from voiceagent.sound.bounded import bounded


@pytest.fixture
def forgotten(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records instead of unregistering sounddevice's exit handler in the test process."""
    calls: list[bool] = []
    monkeypatch.setattr(bounded_module, "forget_portaudio_at_exit", lambda: calls.append(True))
    return calls


def test_a_call_that_returns_gives_its_value_or_its_error() -> None:
    assert bounded(lambda: 42, "answering") == 42
    with pytest.raises(DeviceError, match="no such device"):
        bounded(lambda: (_ for _ in ()).throw(DeviceError("no such device")), "opening")


def test_a_stuck_call_is_left_behind_and_what_it_opens_late_is_closed(
        forgotten: list[bool]) -> None:
    release = threading.Event()
    discarded: list[str] = []
    finished = threading.Event()

    def stuck() -> str:
        release.wait()
        return "stream"

    def discard(value: str) -> None:
        discarded.append(value)
        finished.set()

    with pytest.raises(DeviceError, match="starting microphone 'pulse' did not return"):
        bounded(stuck, "starting microphone 'pulse'", seconds=0.05, discard=discard)
    assert forgotten == [True]  # PortAudio is not terminated at exit, where it would hang
    with pytest.raises(DeviceError, match="still stuck"):  # no second call piles up
        bounded(lambda: 1, "re-reading audio devices")
    release.set()
    assert finished.wait(10)
    assert discarded == ["stream"]
    for thread in list(bounded_module._stuck):
        thread.join(10)
    assert bounded(lambda: 1, "re-reading audio devices") == 1  # usable again once it returned
