"""PortAudio calls that may never return, given a deadline.

When the sound server goes away in the middle of a call, PortAudio can wait for ever inside
it: in CI `Pa_StartStream` never returned after ALSA's start failed under a vanished
PulseAudio, and the kiosk, blocked in C on its main thread, ignored SIGTERM. `bounded` runs
such a call on its own thread: past the deadline the caller gets a DeviceError (the kiosk
says so once and retries every second) and stays free to answer signals; the call is left
to finish by itself, and what it opens then is closed. While one is stuck, no other starts
(they would pile up, one a second), and PortAudio is not terminated at exit, where it would
wait on the stuck thread.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from voiceagent.errors import DeviceError

log = logging.getLogger(__name__)

T = TypeVar("T")

CALL_S = 5.0
"""How long opening or starting a stream may take; a working device takes milliseconds."""

_stuck: list[threading.Thread] = []
"""Calls left behind that have not returned yet."""


def bounded(call: Callable[[], T], doing: str, *, seconds: float = CALL_S,
            discard: Callable[[T], None] | None = None) -> T:
    """`call()`'s result or exception, if it comes within `seconds`; else a DeviceError
    naming what was being done. `discard` gets the result of a call that returns too late."""
    _stuck[:] = [t for t in _stuck if t.is_alive()]
    if _stuck:
        raise DeviceError(f"{doing}: an earlier audio call is still stuck "
                          "(is the sound server hanging?)")
    lock = threading.Lock()
    done = threading.Event()
    outcome: list[tuple[T | None, BaseException | None]] = []
    abandoned = False

    def run() -> None:
        try:
            result: tuple[T | None, BaseException | None] = (call(), None)
        except BaseException as exc:  # handed to the caller, or dropped once abandoned
            result = (None, exc)
        with lock:
            if not abandoned:
                outcome.append(result)
                done.set()
                return
        value, error = result
        if error is None and discard is not None:
            discard(value)  # type: ignore[arg-type]
        log.info("%s returned after all, %.0f s late or more", doing, seconds)

    thread = threading.Thread(target=run, name="audio-call", daemon=True)
    thread.start()
    done.wait(seconds)
    with lock:
        if not done.is_set():
            abandoned = True
            _stuck.append(thread)
            forget_portaudio_at_exit()
            raise DeviceError(f"{doing} did not return within {seconds:.0f} s "
                              "(is the sound server hanging?)")
    value, error = outcome[0]
    if error is not None:
        raise error
    return value  # type: ignore[return-value]


def forget_portaudio_at_exit() -> None:
    """Exit without terminating PortAudio: with a call of it stuck on another thread,
    sounddevice's exit handler would wait on that thread for ever."""
    try:
        import sounddevice as sd
    except OSError:
        return
    atexit.unregister(sd._exit_handler)
