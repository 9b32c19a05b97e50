"""Text to speech with piper, loaded once; one clip per sentence, as soon as it is ready."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from voiceagent.audio import Audio
from voiceagent.config import TTSConfig
from voiceagent.errors import ModelError


class PiperSynthesizer:
    """The Synthesizer port on a piper voice (onnxruntime on the CPU)."""

    def __init__(self, config: TTSConfig, models_dir: Path) -> None:
        from voiceagent.models import piper_voice

        path = piper_voice(config.voice, models_dir)
        from piper import PiperVoice, SynthesisConfig  # heavy: onnxruntime

        try:
            self._voice = PiperVoice.load(path)
        except Exception as exc:  # onnxruntime and json raise many types for a bad file
            raise ModelError(f"cannot load voice {path}: {exc}; reinstall it or set [tts] "
                             "voice to another voice") from None
        self._syn_config = SynthesisConfig(volume=config.volume,
                                           length_scale=config.length_scale)
        self._gap = np.zeros(int(config.sentence_silence * self.rate), dtype=np.float32)
        self._lock = threading.Lock()  # one synthesis at a time on a shared voice

    @property
    def rate(self) -> int:
        """Sample rate of every clip this voice makes."""
        return int(self._voice.config.sample_rate)

    def synthesize(self, text: str) -> Iterator[Audio]:
        """One clip per sentence of `text` (speakable text: speaking.py made it so); nothing
        for empty text."""
        if not text.strip():
            return
        chunks = iter(self._voice.synthesize(text, syn_config=self._syn_config))
        while True:
            with self._lock:  # held per sentence, never across a yield
                chunk = next(chunks, None)
            if chunk is None:
                return
            samples = np.concatenate([chunk.audio_float_array.astype(np.float32), self._gap])
            yield Audio(samples, chunk.sample_rate)
