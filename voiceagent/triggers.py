"""What starts and stops a turn: key presses from the terminal, from /dev/input, or stdin lines.

Every source puts `KeyEvent`s on one queue; the front end reads them. The evdev reader needs no
compiled package: it reads the kernel's `struct input_event` records directly.
"""

from __future__ import annotations

import glob
import os
import queue
import select
import struct
import sys
import threading
from dataclasses import dataclass
from typing import Literal, TextIO

from voiceagent.errors import DeviceError

# Linux input-event-codes.h key codes for keys people pick as a talk key.
EVDEV_KEYS = {
    "KEY_ESC": 1, "KEY_ENTER": 28, "KEY_LEFTCTRL": 29, "KEY_LEFTSHIFT": 42,
    "KEY_RIGHTSHIFT": 54, "KEY_LEFTALT": 56, "KEY_SPACE": 57, "KEY_CAPSLOCK": 58,
    "KEY_F1": 59, "KEY_F2": 60, "KEY_F3": 61, "KEY_F4": 62, "KEY_F5": 63, "KEY_F6": 64,
    "KEY_F7": 65, "KEY_F8": 66, "KEY_F9": 67, "KEY_F10": 68, "KEY_SCROLLLOCK": 70,
    "KEY_F11": 87, "KEY_F12": 88, "KEY_KPENTER": 96, "KEY_RIGHTCTRL": 97, "KEY_RIGHTALT": 100,
    "KEY_HOME": 102, "KEY_PAUSE": 119, "KEY_LEFTMETA": 125, "KEY_RIGHTMETA": 126,
    "KEY_COMPOSE": 127, "KEY_F13": 183, "KEY_F14": 184, "KEY_F15": 185, "KEY_MICMUTE": 248,
}
_EVENT = struct.Struct("llHHi")  # struct input_event: timeval, type, code, value
_EV_KEY = 1


@dataclass(frozen=True)
class KeyEvent:
    """A talk-key transition; `up` only comes from sources that can see key release."""

    kind: Literal["down", "up", "quit"]
    char: str = ""
    """The typed character, for terminal sources."""


class KeySource:
    """Base of the key readers: a daemon thread fills `events`; `close()` stops it."""

    holds: bool = False
    """True when key release is seen (hold-to-talk); otherwise press toggles."""

    def __init__(self) -> None:
        self.events: queue.Queue[KeyEvent] = queue.Queue()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)

    def start(self) -> KeySource:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop reading; waits briefly so a terminal gets its mode back before exit."""
        self._closed.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)  # a stdin line reader may block: do not wait on it

    def _run(self) -> None:
        raise NotImplementedError


class TerminalKeys(KeySource):
    """Single key presses in a terminal (cbreak mode): the talk key toggles, q quits."""

    def __init__(self, key: str, stream: TextIO | None = None) -> None:
        super().__init__()
        self._stream = stream or sys.stdin
        self._keys = {"space": " ", "enter": "\n"}[key] + ("\r" if key == "enter" else "")

    def _run(self) -> None:
        import termios
        import tty

        fd = self._stream.fileno()
        saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        try:
            while not self._closed.is_set():
                ready, _, _ = select.select([fd], [], [], 0.2)
                if not ready:
                    continue
                char = os.read(fd, 1).decode(errors="ignore")
                if char in ("q", "\x04"):
                    self.events.put(KeyEvent("quit"))
                elif char in self._keys:
                    self.events.put(KeyEvent("down", char))
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class LineKeys(KeySource):
    """Each line on stdin is a press (for SSH, tests, and daemons without /dev/input)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self._stream = stream or sys.stdin

    def _run(self) -> None:
        for line in self._stream:
            if self._closed.is_set():
                break
            word = line.strip().lower()
            if word in ("q", "quit", "exit"):
                self.events.put(KeyEvent("quit"))
                return
            self.events.put(KeyEvent("down", word[:1]))
        self.events.put(KeyEvent("quit"))


class EvdevKeys(KeySource):
    """A key on any keyboard under /dev/input, with press and release (hold-to-talk)."""

    holds = True

    def __init__(self, key_name: str, paths: list[str] | None = None) -> None:
        super().__init__()
        if key_name not in EVDEV_KEYS:
            raise DeviceError(
                f"unknown key {key_name!r} for [trigger] evdev_key; known: "
                + ", ".join(sorted(EVDEV_KEYS))
            )
        self._code = EVDEV_KEYS[key_name]
        self._files = self._open(paths if paths is not None else
                                 sorted(glob.glob("/dev/input/event*")))

    @staticmethod
    def _open(paths: list[str]) -> list[int]:
        if not paths:
            raise DeviceError("no input devices under /dev/input (is this a container or a "
                              "machine without a keyboard?); use the stdin trigger instead")
        fds, denied = [], []
        for path in paths:
            try:
                fds.append(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            except PermissionError:
                denied.append(path)
            except OSError:
                continue
        if not fds:
            raise DeviceError(
                f"cannot read {', '.join(denied) or 'any /dev/input/event*'}: permission "
                "denied. Add the user to the 'input' group (sudo usermod -aG input $USER, "
                "then log in again) or run the service with SupplementaryGroups=input."
            )
        return fds

    def _run(self) -> None:
        try:
            while not self._closed.is_set():
                ready, _, _ = select.select(self._files, [], [], 0.2)
                for fd in ready:
                    try:
                        data = os.read(fd, _EVENT.size * 64)
                    except OSError:
                        continue
                    for offset in range(0, len(data) - _EVENT.size + 1, _EVENT.size):
                        _, _, etype, code, value = _EVENT.unpack_from(data, offset)
                        if etype == _EV_KEY and code == self._code and value in (0, 1):
                            self.events.put(KeyEvent("down" if value == 1 else "up"))
        finally:
            for fd in self._files:
                os.close(fd)
