"""A satellite as the room's microphone and speaker.

`SatelliteMic` is the recorder's BlockSource: the satellite's `audio-chunk` events (any rate,
width and channel count; wyoming-satellite sends 16 kHz 16-bit mono) become 512-sample 16 kHz
float blocks in a queue, read by the room's listening thread, so the event loop never waits
on the cutter, the VAD or a draft. While the satellite is away the stream is simply silent.

`SatelliteSpeaker` is the Player: each clip goes out as audio-start, audio-chunk...,
audio-stop, paced at about real time plus LEAD_S, so a stop (barge-in, a new request) is
heard within that lead and `play` returns when the clip has been played, as a sound card's
would. wyoming-satellite 1.0.0 sends no `played` event, so the clip's length is the measure.
"""

from __future__ import annotations

import logging
import queue
import threading
import time

import numpy as np
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event

from voiceagent.audio import STT_RATE, Audio, Reblocker, Resampler
from voiceagent.errors import DeviceError
from voiceagent.hub.link import SatelliteLink
from voiceagent.speech.vad import BLOCK, BLOCK_MS
from voiceagent.wyoming.wire import audio_chunks, chunk_audio

log = logging.getLogger(__name__)

QUEUE_BLOCKS = int(60_000 / BLOCK_MS)
"""A minute of audio may wait unread (the room is answering); older blocks are dropped."""
LEAD_S = 0.3
"""How far ahead of real time the speaker sends audio."""
WAIT_FOR_SATELLITE_S = 30.0
"""A clip for a satellite that is away (a timer ringing while it reboots) waits this long."""

Block = tuple[np.ndarray, bool]


class SatelliteMic:
    """The BlockSource of one room (see the module docstring)."""

    def __init__(self, name: str, paused: threading.Event) -> None:
        self.name = name
        self._paused = paused
        self._queue: queue.Queue[Block] = queue.Queue(maxsize=QUEUE_BLOCKS)
        self._rate = 0
        self._resample: Resampler | None = None
        self._reblock = Reblocker(BLOCK)
        self.dropped = 0
        """Blocks lost because nobody read them for a minute."""

    def feed(self, event: Event) -> None:
        """One audio-chunk from the satellite (called in the event loop); BadAudio if its
        format is unusable."""
        clip = chunk_audio(event)
        if clip.rate != self._rate:  # a new stream, or a satellite that changed its format
            self._rate = clip.rate
            self._resample = Resampler(clip.rate, STT_RATE) if clip.rate != STT_RATE else None
        samples = clip.samples if self._resample is None else self._resample(clip.samples)
        paused = self._paused.is_set()
        for block in self._reblock(samples):
            try:
                self._queue.put_nowait((block, paused))
            except queue.Full:
                self._queue.get_nowait()
                self._queue.put_nowait((block, paused))
                self.dropped += 1

    def read(self, timeout: float = 0.1) -> Block | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def queued(self) -> int:
        return self._queue.qsize()

    def drain(self, keep: int = 0) -> list[Block]:
        blocks: list[Block] = []
        while True:
            try:
                blocks.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return blocks[-keep:] if keep else []

    def close(self) -> None:
        """Nothing to release: the link owns the connection."""


class SatelliteSpeaker:
    """The Player of one room (see the module docstring)."""

    def __init__(self, link: SatelliteLink) -> None:
        self._link = link
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one clip at a time (an answer, then a timer)

    def play(self, audio: Audio) -> None:
        """Send `audio` and wait until it has played (or `stop()`); DeviceError when the
        satellite is away for longer than WAIT_FOR_SATELLITE_S or goes away meanwhile."""
        self._stop.clear()
        with self._lock:
            if not self._link.connected.wait(WAIT_FOR_SATELLITE_S):
                raise DeviceError(f"the {self._link.place.room} satellite is not connected")
            self._send(audio)

    def _send(self, audio: Audio) -> None:
        self._link.send(AudioStart(rate=audio.rate, width=2, channels=1).event())
        start = time.monotonic()
        sent = 0.0
        try:
            for event in audio_chunks(audio):
                ahead = sent - (time.monotonic() - start)
                if ahead > LEAD_S and self._stop.wait(ahead - LEAD_S):
                    return
                if self._stop.is_set():
                    return
                self._link.send(event)
                sent += AudioChunk.from_event(event).seconds
        finally:
            self._link.post(AudioStop().event())
        self._stop.wait(max(0.0, sent - (time.monotonic() - start)))

    def stop(self) -> None:
        """Stop at once (what was sent ahead, up to LEAD_S, still plays)."""
        self._stop.set()
