"""A Wyoming wake-word service for a satellite's `--wake-uri`: the satellite streams its
microphone here (`detect`, then `audio-chunk`s) and gets `detection` when microWakeWord's
"alexa" fires. It stands in for wyoming-openwakeword / wyoming-microwakeword (whose models
are downloads) with the same events; it runs in a thread of the test process.
"""

from __future__ import annotations

import asyncio
import threading
from functools import partial

import numpy as np
from wyoming.audio import AudioChunk
from wyoming.event import Event
from wyoming.server import AsyncEventHandler, AsyncServer
from wyoming.wake import Detection

from voiceagent.audio import STT_RATE, Reblocker, Resampler
from voiceagent.speech.vad import BLOCK
from voiceagent.wyoming.wire import chunk_audio


class _Handler(AsyncEventHandler):
    def __init__(self, word: str, service: WakeService, *args: object, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        from voiceagent.speech.wakeword import WakeWord

        self._wake = WakeWord(word)
        self._word = word
        self._service = service
        self._reblock = Reblocker(BLOCK)
        self._resample: Resampler | None = None

    async def handle_event(self, event: Event) -> bool:
        if AudioChunk.is_type(event.type):
            clip = chunk_audio(event)
            samples = clip.samples
            if clip.rate != STT_RATE:
                self._resample = self._resample or Resampler(clip.rate, STT_RATE)
                samples = self._resample(samples)
            for block in self._reblock(np.asarray(samples, dtype=np.float32)):
                if self._wake(block):
                    self._service.detections += 1
                    await self.write_event(Detection(name=self._word).event())
        return True


class WakeService:
    """Serves on tcp://127.0.0.1:`port` until stop()."""

    def __init__(self, port: int, word: str = "alexa") -> None:
        self.port, self.word = port, word
        self.detections = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wake-service", daemon=True)

    @property
    def uri(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def start(self) -> WakeService:
        self._thread.start()
        self._ready.wait(10)
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = AsyncServer.from_uri(self.uri)
        self._loop.run_until_complete(server.start(partial(_Handler, self.word, self)))
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(server.stop())
        tasks = asyncio.all_tasks(self._loop)
        for task in tasks:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        self._loop.close()

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
