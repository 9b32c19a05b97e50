"""Text to speech over Wyoming, whole (`synthesize`) or streamed (synthesize-start/chunk/stop).

Audio goes out sentence by sentence as piper finishes each one, so the client can start
playing the first sentence while the rest is being made. A streamed request is cut into
sentences as its text arrives; each sentence is sent as its own audio-start..audio-stop and
`synthesize-stopped` ends the stream, as wyoming-piper does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from wyoming.audio import AudioStart, AudioStop
from wyoming.event import Event

from voiceagent.ports import Synthesizer
from voiceagent.speaking import speech_sentences
from voiceagent.speech.sentences import SentenceSplitter
from voiceagent.wyoming.wire import audio_chunks

Write = Callable[[Event], Awaitable[None]]


async def send_speech(synthesizer: Synthesizer, text: str, write: Write) -> None:
    """audio-start, audio-chunk..., audio-stop for `text` (start and stop even for no audio,
    so the client is never left waiting)."""
    clips = (clip for sentence in speech_sentences(text)
             for clip in synthesizer.synthesize(sentence))
    rate = 0
    while (clip := await asyncio.to_thread(next, clips, None)) is not None:
        if not rate:
            rate = clip.rate
            await write(AudioStart(rate=rate, width=2, channels=1).event())
        for event in audio_chunks(clip.resampled(rate)):
            await write(event)
    if not rate:
        await write(AudioStart(rate=getattr(synthesizer, "rate", 22050), width=2,
                               channels=1).event())
    await write(AudioStop().event())


class TextStream:
    """One synthesize-start ... synthesize-stop request: text in pieces, sentences out."""

    def __init__(self) -> None:
        self._splitter = SentenceSplitter()

    def feed(self, text: str) -> list[str]:
        """The sentences completed by this piece of text."""
        return self._splitter.feed(text)

    def finish(self) -> list[str]:
        """Whatever is left at synthesize-stop."""
        return [s for s in self._splitter.flush() if s.strip()]
