"""Players: the speaker (sounddevice), a WAV file (`--out`), and nowhere.

SoundPlayer feeds an OutputStream from a callback, so `stop()` from another thread (barge-in)
silences it within one buffer instead of waiting for a blocking write to return.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.audio import Audio, concat, write_wav
from voiceagent.config import AudioConfig
from voiceagent.errors import DeviceError
from voiceagent.sound import devices

STALL_S = 3.0
"""A clip not finished this long after its own length means the device has gone."""


class SoundPlayer:
    """The Player port on the configured output device."""

    def __init__(self, config: AudioConfig, *,
                 tap: Callable[[np.ndarray, int, float, bool], None] | None = None) -> None:
        self._device_spec = config.output_device
        self._stopping = threading.Event()
        self.tap = tap
        """Shown every buffer as it is played: (mono samples, rate, PortAudio time at which
        it reaches the speaker, whether it starts a clip). The echo canceller's reverse
        stream (sound/echo.py)."""

    def play(self, audio: Audio) -> None:
        """Play `audio`, returning when it has been heard or `stop()` was called."""
        self._stopping.clear()
        if len(audio.samples) == 0:
            return
        sd = devices.sounddevice()
        device = devices.resolve(self._device_spec, "output")
        done = threading.Event()
        try:
            stream, samples = self._open(sd, device, audio, done)
        except sd.PortAudioError:
            # The device refuses this rate or mono: use its own rate and channel count.
            audio = audio.resampled(int(device.default_rate))
            with devices.portaudio_errors(f"opening speaker {device.name!r}"):
                stream, samples = self._open(sd, device, audio, done,
                                             channels=min(2, device.outputs))
        deadline = time.monotonic() + audio.seconds + STALL_S
        stalled = False
        with devices.portaudio_errors(f"playing on {device.name!r}"):
            stream.start()
            while not done.wait(0.02):
                stalled = time.monotonic() > deadline
                if stalled or self._stopping.is_set():
                    stream.abort()
                    break
            stream.close()
        if stalled:
            raise DeviceError(f"speaker {device.name!r} stopped playing (unplugged, or the "
                              "sound server went away?)")

    def stop(self) -> None:
        """Silence the current clip at once; safe from any thread."""
        self._stopping.set()

    def _open(self, sd: Any, device: devices.Device, audio: Audio, done: threading.Event,
              channels: int = 1) -> tuple[Any, np.ndarray]:
        # Closing the stream drops what is still buffered downstream, so the clip is followed
        # by silence as long as the output latency: play() returns once the end was heard.
        pad = np.zeros(int((device_latency(device) + 0.05) * audio.rate), dtype=np.float32)
        samples = np.repeat(np.concatenate([audio.samples, pad])[:, None], channels, axis=1)
        position = 0

        def callback(outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
            nonlocal position
            chunk = samples[position:position + frames]
            outdata[:len(chunk)] = chunk
            outdata[len(chunk):] = 0
            position += frames
            if self.tap is not None:
                self.tap(outdata[:, 0], audio.rate, time_info.outputBufferDacTime,
                         position == frames)
            if self._stopping.is_set():
                raise sd.CallbackAbort
            if position >= len(samples):
                raise sd.CallbackStop

        stream = sd.OutputStream(samplerate=audio.rate, channels=channels, dtype="float32",
                                 device=device.index, callback=callback,
                                 finished_callback=done.set)
        return stream, samples


def device_latency(device: devices.Device) -> float:
    """PortAudio's default high output latency for the device, in seconds."""
    return float(devices.sounddevice().query_devices(device.index)["default_high_output_latency"])


class WavFilePlayer:
    """Collects everything played into one WAV file (rewritten after each clip)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.clips: list[Audio] = []

    def play(self, audio: Audio) -> None:
        self.clips.append(audio)
        write_wav(self.path, concat(self.clips))

    def stop(self) -> None:
        """Nothing is playing in real time, so there is nothing to interrupt."""

    def close(self) -> None:
        """Make sure the file exists, even when nothing was said."""
        if not self.clips:
            write_wav(self.path, concat(self.clips))


class NullPlayer:
    """Plays nothing (text-only runs, benchmarks)."""

    def play(self, audio: Audio) -> None:
        pass

    def stop(self) -> None:
        pass
