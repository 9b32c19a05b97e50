"""Events on the wire and the PCM audio they carry, checked so that bad input is refused.

The `wyoming` library's reader returns None for garbage as it does for a closed socket, so a
server could not tell a client what it did wrong; `read_event` raises `BadEvent` instead.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
from wyoming.audio import AudioChunk
from wyoming.event import Event

from voiceagent.audio import Audio

MAX_PAYLOAD = 16 << 20
"""Largest payload accepted in one event (a chunk of audio is a few KB)."""
CHUNK_SAMPLES = 2048
"""Samples per audio-chunk we send (~0.1 s at 22 kHz)."""
WIDTHS = {1: np.uint8, 2: np.int16, 4: np.int32}
"""Sample widths (bytes) we read; 8-bit PCM is unsigned, as in WAV."""


class BadEvent(ValueError):
    """The bytes received are not a Wyoming event; the stream cannot be trusted after it."""


class BadAudio(ValueError):
    """An audio event we cannot use (its format or payload); the message says what to send."""


async def read_event(reader: asyncio.StreamReader) -> Event | None:
    """The next event, None at a clean end of stream, `BadEvent` for anything malformed.

    A client that vanishes in the middle of an event raises asyncio.IncompleteReadError.
    """
    try:
        line = await reader.readline()
    except ValueError:  # asyncio's line-length limit (64 KiB)
        raise BadEvent("header line too long") from None
    if not line:
        return None
    header = _json_object(line, "header")
    kind = header.get("type")
    if not isinstance(kind, str) or not kind:
        raise BadEvent("header has no event type")
    data = header.get("data") or {}
    if not isinstance(data, dict):
        raise BadEvent("event data is not an object")
    data_length = _length(header, "data_length")
    if data_length:
        data = {**data, **_json_object(await reader.readexactly(data_length), "data")}
    payload_length = _length(header, "payload_length")
    payload = await reader.readexactly(payload_length) if payload_length else None
    return Event(type=kind, data=data, payload=payload)


def _json_object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadEvent(f"{what} is not JSON: {raw[:40]!r}") from None
    if not isinstance(value, dict):
        raise BadEvent(f"{what} is not a JSON object: {raw[:40]!r}")
    return value


def _length(header: dict[str, Any], key: str) -> int:
    value = header.get(key)
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_PAYLOAD:
        raise BadEvent(f"{key} must be a whole number of bytes up to {MAX_PAYLOAD}, "
                       f"not {value!r}")
    return value


def pcm_samples(payload: bytes, rate: Any, width: Any, channels: Any) -> np.ndarray:
    """float32 mono samples from interleaved PCM; `BadAudio` names what is wrong."""
    if not isinstance(rate, int) or not 1000 <= rate <= 192000:
        raise BadAudio(f"unsupported sample rate {rate!r}; send 16000 Hz")
    if width not in WIDTHS:
        raise BadAudio(f"unsupported sample width {width!r} bytes; send 2 (16-bit PCM)")
    if not isinstance(channels, int) or not 1 <= channels <= 8:
        raise BadAudio(f"unsupported channel count {channels!r}; send 1 (mono)")
    frame = width * channels
    if len(payload) % frame:
        raise BadAudio(f"payload of {len(payload)} bytes is not whole frames of {frame} "
                       f"bytes ({width}-byte samples, {channels} channel(s))")
    data = np.frombuffer(payload, dtype=np.dtype(WIDTHS[width]).newbyteorder("<"))
    samples = data.astype(np.float32)
    if width == 1:
        samples = (samples - 128.0) / 128.0
    else:
        samples /= float(2 ** (8 * width - 1))
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1)
    return samples.astype(np.float32)


def chunk_audio(event: Event) -> Audio:
    """The Audio in an audio-chunk event."""
    data = event.data
    samples = pcm_samples(event.payload or b"", data.get("rate"), data.get("width"),
                          data.get("channels"))
    return Audio(samples, int(data["rate"]))


def audio_chunks(clip: Audio) -> Iterator[Event]:
    """audio-chunk events (16-bit mono, at the clip's rate) carrying `clip`."""
    pcm = clip.int16_bytes()
    step = CHUNK_SAMPLES * 2
    for i in range(0, len(pcm), step):
        yield AudioChunk(rate=clip.rate, width=2, channels=1, audio=pcm[i:i + step]).event()
