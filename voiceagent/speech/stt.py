"""Speech to text with faster-whisper, loaded once and kept warm.

Audio is resampled to 16 kHz and padded with a little silence at both ends: Whisper mishears
speech that starts at sample 0 ("set a timer" -> "at a time or"). Silero VAD (the filter
faster-whisper applies) keeps only the speech, so silence and noise transcribe to "".

`[stt] window = "short"` encodes only the speech plus a second instead of Whisper's 30 s
window (voiceagent/speech/whisper_decode.py): about a quarter of the cost per command. A short
decoding that ran to its token cap, said the same words twice, holds a word Whisper hardly
believes, or that Whisper's own scores doubt is thrown away and the clip decoded again on the
full window. It still heard fewer real commands whole than the full window, so the default is
"full" (docs/stt.md has the measurements).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.audio import STT_RATE, Audio
from voiceagent.config import STTConfig
from voiceagent.errors import ModelError
from voiceagent.ports import Transcriber, Transcript
from voiceagent.speech.whisper_decode import FULL_FRAMES, Decoded, WhisperDecoder

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
        self._decoder: WhisperDecoder | None = None
        if config.language or not self._model.model.is_multilingual:  # else: detect, below
            self._decoder = WhisperDecoder(self._model, language=config.language,
                                           beam_size=config.beam_size)
        self._temperatures = FALLBACK_TEMPERATURES if config.temperature_fallback else (0.0,)
        self._lock = threading.Lock()  # one transcription at a time on a shared model
        self.last_window = ""
        """Which step gave the last transcript (vad: no speech; short; full; faster-whisper), for
        logs and measurements."""

    def drafting(self) -> Transcriber:
        """The same model, decoding on the short window (no fall back to the full one): for
        the drafts the listener makes at every short pause, whose words are thrown away
        unless the whole utterance's own transcript agrees (speech/drafts.py)."""
        return _Drafting(self)

    def transcribe(self, audio: Audio, vocabulary: Sequence[str] = (), *,
                   window: str = "") -> Transcript:
        """The words in `audio`; "" for silence, noise or empty audio. `window` overrides
        [stt] window for this call ("short" without falling back)."""
        if len(audio.samples) == 0:
            return Transcript("")
        samples = audio.resampled(STT_RATE).samples
        pad = np.zeros(int(PAD_S * STT_RATE), dtype=np.float32)
        samples = np.concatenate([pad, samples.astype(np.float32), pad])
        words = _unique([*self._config.hotwords, *self.vocabulary, *vocabulary])
        prompt = _prompt(self._config.prompt, words)
        with self._lock:
            if self._decoder is None:
                return self._by_faster_whisper(samples, prompt)
            speech = self._decoder.speech(samples)
            if len(speech) == 0:
                self.last_window = "vad"
                return Transcript("")
            features = self._decoder.features(speech)
            if features.shape[1] > FULL_FRAMES:  # more than one window: faster-whisper's loop
                return self._by_faster_whisper(samples, prompt)
            return self._decode(features, self._decoder.prompt(prompt), window)

    def _decode(self, features: np.ndarray, prompt: list[int], window: str = "") -> Transcript:
        assert self._decoder is not None
        decoded: Decoded | None = None
        if (window or self._config.window) == "short":
            decoded, encoded = self._decoder.short(features, prompt)
            decoded = self._decoder.with_words(decoded, encoded, prompt, features)
            self.last_window = "short"
            why = "" if window == "short" else distrust(decoded)
            if why:
                log.debug("short window %s (%r): decoding the full window", why, decoded.text)
                decoded = None
        if decoded is None:
            decoded, encoded = self._decoder.full(features, prompt, self._temperatures)
            self.last_window = "full"
            if decoded is None:  # Whisper's no-speech rule
                return Transcript("")
            decoded = self._decoder.with_words(decoded, encoded, prompt, features)
        text = _clean(decoded.text)
        reason = doubt([decoded]) if text else ""
        heard = tuple((w, p) for w, p in decoded.words if _clean(w))
        return Transcript(text, doubt=reason, garbled=reason.startswith(GARBLED),
                          words=heard if text else ())

    def _by_faster_whisper(self, samples: np.ndarray, prompt: str | None) -> Transcript:
        """faster-whisper's own loop: speech longer than one window, or a language to detect
        (no per-word probabilities: its word timestamps decode the tail again)."""
        segments, _info = self._model.transcribe(
            samples,
            language=self._config.language or None,
            beam_size=self._config.beam_size,
            vad_filter=True,
            condition_on_previous_text=False,
            without_timestamps=True,
            initial_prompt=prompt,
            temperature=list(self._temperatures),
        )
        segments = list(segments)
        self.last_window = "faster-whisper"
        text = _clean(" ".join(s.text.strip() for s in segments))
        reason = doubt(segments) if text else ""
        return Transcript(text, doubt=reason, garbled=reason.startswith(GARBLED))


WORD_FLOOR = 0.2
"""A short decoding with a word below this probability is decoded again on the full window:
on real commands such a word was usually one the short window got wrong ("A down's" for
"eight ounce"), where the full window was right (docs/stt.md)."""


def distrust(decoded: Decoded) -> str:
    """Why a short-window decoding must not be used ("" when it may): it found no words in
    what the VAD calls speech, ran to its token cap, said the same words twice, Whisper's own
    scores doubt it, or it holds a word Whisper gives less than WORD_FLOOR."""
    if not _clean(decoded.text):
        return "heard no words"
    if decoded.capped:
        return "ran to the token cap"
    if decoded.looping:
        return "said the same words twice"
    unsure = [w for w, p in decoded.words if p < WORD_FLOOR and _clean(w)]
    return doubt([decoded]) or (f"unsure of {unsure[0]!r}" if unsure else "")


LOGPROB_FLOOR = -0.5
"""Below this mean token log-probability the transcript is doubtful: answer questions, but
run nothing that changes anything."""
GARBLED_FLOOR = -1.0
"""Below this Whisper is guessing (its own fallback threshold): answer nothing."""
GARBLED = "garbled"
NO_SPEECH_CEILING = 0.6
"""Above this, Whisper thinks the clip holds no speech (its own default)."""
COMPRESSION_CEILING = 2.4
"""Above this the text repeats itself: a hallucination loop (Whisper's own default)."""


def doubt(segments: Sequence[Any]) -> str:
    """Which of Whisper's own scores says the transcript is a guess; "" when it is sure.

    The log-probability is averaged over segments weighted by their length in tokens.
    """
    tokens = [max(1, len(getattr(s, "tokens", ()) or ())) for s in segments]
    total = sum(tokens) or 1
    logprob = sum(s.avg_logprob * n for s, n in zip(segments, tokens, strict=True)) / total
    if logprob < GARBLED_FLOOR:
        return f"{GARBLED}: avg_logprob {logprob:.2f}"
    if max(s.compression_ratio for s in segments) > COMPRESSION_CEILING:
        return f"{GARBLED}: compression_ratio"
    if min(s.no_speech_prob for s in segments) > NO_SPEECH_CEILING and logprob < -0.5:
        return f"{GARBLED}: no_speech_prob"
    if logprob < LOGPROB_FLOOR:
        return f"avg_logprob {logprob:.2f}"
    return ""


FALLBACK_TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
"""Whisper's own schedule: greedy/beam first, sampling only when that result looks garbled."""


def _prompt(prompt: str, words: list[str]) -> str | None:
    """The configured prompt, then the words; Whisper copies spellings it has just "seen"."""
    parts = [prompt.strip()] if prompt.strip() else []
    if words:
        parts.append("Words: " + ", ".join(words) + ".")
    return " ".join(parts) or None


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


class _Drafting:
    """A WhisperTranscriber seen as the short-window transcriber drafts use."""

    def __init__(self, whisper: WhisperTranscriber) -> None:
        self._whisper = whisper

    def transcribe(self, audio: Audio) -> Transcript:
        return self._whisper.transcribe(audio, window="short")
