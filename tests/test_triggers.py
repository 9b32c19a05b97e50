"""Key sources: raw evdev records from a stand-in device, terminal keys on a pty, stdin lines."""

from __future__ import annotations

import ctypes
import io
import os
import pty
import termios
import time
from pathlib import Path

import pytest

from voiceagent.errors import DeviceError
from voiceagent.triggers import EVDEV_KEYS, EvdevKeys, KeyEvent, LineKeys, TerminalKeys

EV_KEY, EV_SYN = 1, 0  # linux/input-event-codes.h


class InputEvent(ctypes.Structure):
    """`struct input_event` as linux/input.h declares it, laid out by ctypes with the C ABI:

        struct input_event { struct timeval time; __u16 type; __u16 code; __s32 value; };
        struct timeval { long tv_sec; long tv_usec; };   (the kernel's __kernel_old_timeval)

    written here from the header, not from the code's own struct format."""

    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long),
                ("type", ctypes.c_uint16), ("code", ctypes.c_uint16), ("value", ctypes.c_int32)]


def record(etype: int, code: int, value: int) -> bytes:
    now = time.time()
    return bytes(InputEvent(int(now), int(now % 1 * 1e6), etype, code, value))


def test_the_record_layout_is_the_kernels() -> None:
    """24 bytes on 64-bit Linux (x86-64, aarch64), 16 on 32-bit: 2 longs, 2 u16, an s32."""
    assert ctypes.sizeof(InputEvent) == 2 * ctypes.sizeof(ctypes.c_long) + 8
    assert InputEvent.type.offset == 2 * ctypes.sizeof(ctypes.c_long)
    assert InputEvent.value.offset == InputEvent.type.offset + 4


def next_event(source, timeout: float = 5.0) -> KeyEvent:
    return source.events.get(timeout=timeout)


def test_evdev_sees_press_and_release_of_its_key_only(tmp_path: Path) -> None:
    device = tmp_path / "event0"
    os.mkfifo(device)
    keys = EvdevKeys("KEY_RIGHTCTRL", paths=[str(device)]).start()
    writer = os.open(device, os.O_WRONLY)
    try:
        ctrl = EVDEV_KEYS["KEY_RIGHTCTRL"]
        os.write(writer, record(EV_KEY, EVDEV_KEYS["KEY_SPACE"], 1)  # another key: ignored
                 + record(EV_KEY, ctrl, 1) + record(EV_SYN, 0, 0)
                 + record(EV_KEY, ctrl, 2)  # auto-repeat: ignored
                 + record(EV_KEY, ctrl, 0))
        assert next_event(keys) == KeyEvent("down")
        assert next_event(keys) == KeyEvent("up")
        assert keys.events.empty()
    finally:
        keys.close()
        os.close(writer)


def test_evdev_errors_say_what_is_missing() -> None:
    with pytest.raises(DeviceError, match="no input devices under /dev/input"):
        EvdevKeys("KEY_RIGHTCTRL", paths=[])
    with pytest.raises(DeviceError, match="unknown key 'KEY_NOPE'.*KEY_RIGHTCTRL"):
        EvdevKeys("KEY_NOPE", paths=[])


def test_terminal_keys_toggle_on_the_talk_key_and_quit_on_q() -> None:
    leader, follower = pty.openpty()
    with os.fdopen(follower, "r") as terminal:
        keys = TerminalKeys("space", stream=terminal).start()
        deadline = time.monotonic() + 10
        while termios.tcgetattr(follower)[3] & termios.ICANON:  # wait for cbreak mode
            assert time.monotonic() < deadline, "the terminal never left line mode"
            time.sleep(0.01)
        os.write(leader, b"x q")
        assert next_event(keys) == KeyEvent("down", " ")
        assert next_event(keys) == KeyEvent("quit")
        keys.close()  # joins the reader, which restores the terminal mode
        assert termios.tcgetattr(follower)[3] & termios.ICANON
    os.close(leader)


def test_stdin_lines_are_presses_and_end_of_input_quits() -> None:
    keys = LineKeys(io.StringIO("\n\nquit\n")).start()
    assert [next_event(keys).kind for _ in range(3)] == ["down", "down", "quit"]
