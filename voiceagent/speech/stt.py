"""Speech to text with faster-whisper, loaded once and kept warm.

Audio is resampled to 16 kHz and padded with a little silence at both ends: Whisper mishears
speech that starts at sample 0 ("set a timer" -> "at a time or"). The built-in Silero VAD
filter drops silence and noise, so they transcribe to "".
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from voiceagent.audio import STT_RATE, Audio
from voiceagent.config import STTConfig
from voiceagent.errors import ModelError

log = logging.getLogger(__name__)

PAD_S = 0.4
"""Silence added before and after the clip."""
_NOISE_TAGS = re.compile(r"\[[^\]]*\]|\([^)]*\)|♪+|\*[^*]*\*")
"""Whisper's sound annotations: [BLANK_AUDIO], (music), ♪, *cough*."""


class WhisperTranscriber:
    """The Transcriber port on faster-whisper (int8 on the CPU)."""

    def __init__(self, config: STTConfig, models_dir: Path, *,
                 vocabulary: Sequence[str] = ()) -> None:
        from voiceagent.models import whisper_dir

        self._config = config
        self.vocabulary = list(vocabulary)
        """Words to bias recognition towards besides [stt] hotwords (tool and list names)."""
        path = whisper_dir(config.model, models_dir)
        from faster_whisper import WhisperModel  # heavy: ctranslate2

        threads = config.threads or os.cpu_count() or 1
        try:
            self._model = WhisperModel(str(path), device="cpu", compute_type="int8",
                                       cpu_threads=threads, local_files_only=True)
        except (RuntimeError, ValueError, OSError) as exc:
            raise ModelError(f"cannot load speech model {path}: {exc}; reinstall it or set "
                             "[stt] model to another model") from None
        self._lock = threading.Lock()  # one transcription at a time on a shared model

    def transcribe(self, audio: Audio, vocabulary: Sequence[str] = ()) -> str:
        """The words in `audio`; "" for silence, noise or empty audio."""
        if len(audio.samples) == 0:
            return ""
        samples = audio.resampled(STT_RATE).samples
        pad = np.zeros(int(PAD_S * STT_RATE), dtype=np.float32)
        samples = np.concatenate([pad, samples.astype(np.float32), pad])
        words = _unique([*self._config.hotwords, *self.vocabulary, *vocabulary])
        with self._lock:
            segments, _info = self._model.transcribe(
                samples,
                language=self._config.language or None,
                beam_size=self._config.beam_size,
                vad_filter=True,
                condition_on_previous_text=False,
                without_timestamps=True,
                initial_prompt=_prompt(words),
            )
            text = " ".join(s.text.strip() for s in segments)
        return _clean(text)


def _prompt(words: list[str]) -> str | None:
    """A short prompt listing the words; Whisper copies spellings it has just "seen"."""
    if not words:
        return None
    return "Words: " + ", ".join(words) + "."


def _clean(text: str) -> str:
    text = _NOISE_TAGS.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text if re.search(r"\w", text) else ""


def _unique(words: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for w in words:
        if w.strip():
            seen.setdefault(w.strip(), None)
    return list(seen)
