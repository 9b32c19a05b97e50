"""Turns under way on one model server, so reading ahead can wait for them.

Several conversations may share one server (the hub's rooms, each in its own slot). On a
small CPU two requests at once share its cores: a room's keep-warm or prefill
(agent/warmer.py) sent while another room's answer is being written made that answer come
1.5-1.7x later, and a room's next question queued in its slot behind its own keep-warm.
Reading ahead is a head start for a request that may come; an answer under way is one a user
is waiting for. So the warmer waits until no turn is under way, and a turn that begins stops
any reading ahead already sent (what the server has read by then stays in its cache).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Foreground:
    """Counts the turns under way on one model server."""

    def __init__(self) -> None:
        self._turns = 0
        self._idle = threading.Condition()
        self._reading: set[threading.Event] = set()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """A turn is under way while inside; reading ahead under way is stopped."""
        with self._idle:
            self._turns += 1
            for stop in self._reading:
                stop.set()
        try:
            yield
        finally:
            with self._idle:
                self._turns -= 1
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no turn is under way (True) or `timeout` passes (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._turns == 0, timeout)

    @contextmanager
    def reading_ahead(self) -> Iterator[threading.Event]:
        """Reading ahead under way while inside: the event is set when a turn begins."""
        stop = threading.Event()
        with self._idle:
            self._reading.add(stop)
            if self._turns:
                stop.set()
        try:
            yield stop
        finally:
            with self._idle:
                self._reading.discard(stop)
