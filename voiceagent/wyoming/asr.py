"""Speech to text over Wyoming: audio-start, audio-chunk..., audio-stop in; the transcript out.

Audio may come at any rate, width and channel count the protocol allows; it is mixed to mono
and resampled for Whisper. A clip longer than MAX_SECONDS is refused rather than buffered.
The reply uses the streaming transcript events (transcript-start, transcript-chunk) followed
by the plain `transcript` every client understands, then transcript-stop.
"""

from __future__ import annotations

import numpy as np
from wyoming.asr import Transcript, TranscriptChunk, TranscriptStart, TranscriptStop
from wyoming.event import Event

from voiceagent.audio import STT_RATE, Audio
from voiceagent.wyoming.wire import BadAudio, chunk_audio

MAX_SECONDS = 120.0
"""Longest utterance accepted in one request."""


class AudioStream:
    """The audio of one transcription request, mono at the rate of its first chunk (resampled
    once at the end: per-chunk resampling would click at every chunk edge)."""

    def __init__(self) -> None:
        self._parts: list[np.ndarray] = []
        self._samples = 0
        self._rate = 0
        self.language: str | None = None
        """From the `transcribe` event; Whisper keeps the configured language."""

    def add(self, event: Event) -> None:
        """Add one audio-chunk; `BadAudio` for a payload or format we cannot use."""
        clip = chunk_audio(event)
        if not self._rate:
            self._rate = clip.rate
        elif clip.rate != self._rate:  # the format changed mid-stream: follow the first
            clip = clip.resampled(self._rate)
        self._samples += len(clip.samples)
        if self._samples > MAX_SECONDS * self._rate:
            raise BadAudio(f"more than {MAX_SECONDS:g} s of audio in one request")
        self._parts.append(clip.samples)

    def take(self) -> Audio:
        """The whole clip at 16 kHz, and a fresh start for the next request."""
        samples = np.concatenate(self._parts) if self._parts else np.zeros(0, np.float32)
        clip = Audio(samples.astype(np.float32), self._rate or STT_RATE)
        self._parts, self._samples, self._rate = [], 0, 0
        return clip.resampled(STT_RATE)


def transcript_events(text: str, language: str | None) -> list[Event]:
    """The streaming transcript events around the plain one (old clients skip the others)."""
    events = [TranscriptStart(language=language).event()]
    if text:
        events.append(TranscriptChunk(text=text).event())
    events += [Transcript(text=text, language=language).event(), TranscriptStop().event()]
    return events
