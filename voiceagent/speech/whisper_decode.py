"""Whisper decoding on CTranslate2, on the full 30 s window or on one cut to the clip.

faster-whisper pads every clip to Whisper's 30 s window (3000 mel frames) before encoding;
CTranslate2 also encodes shorter input, so a 3 s command can be encoded as its own frames plus
a margin: several times less work for the encoder and for every decoder step's attention.
Whisper was only trained on 30 s windows, though: on a short one the decoder can miss the end
and say the sentence again, or drift (CTranslate2 #2100, whisper.cpp's `audio_ctx`).
`Decoded.capped` and `Decoded.looping` say so, and the caller falls back to the full window.

The full window here is faster-whisper's own decoding of a clip up to 30 s (same features,
padding, prompt, suppressed tokens, temperature fallback and no-speech rule), done step by
step so that the encoder output is at hand for the word probabilities.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from voiceagent.speech.numbers import cardinal

FULL_FRAMES = 3000
"""Whisper's window: 30 s of 10 ms mel frames."""
SHORT_MARGIN_FRAMES = 100
"""Frames of padding after the clip's own in the short window (1 s): Whisper sees the end of
the speech, as on the full window, without paying for 30 s."""
TOKENS_PER_SECOND = 6.0
TOKENS_SLACK = 10
"""The short window stops after 6 tokens per second of audio + 10: more than anyone says
(~3-4 tokens per second), and a loop is cut early instead of running to 448 tokens."""
REPEAT_WORDS = 3
"""A run of this many words said twice (not overlapping) in one short decode is taken for the
decoder starting the sentence again: the full window decides instead."""
NO_SPEECH_CEILING = 0.6
LOGPROB_THRESHOLD = -1.0
COMPRESSION_THRESHOLD = 2.4
"""faster-whisper's defaults for its temperature fallback and no-speech rule."""


@dataclass(frozen=True)
class Decoded:
    """One decoding of one window, with Whisper's own scores (the shape doubt() reads)."""

    text: str
    tokens: tuple[int, ...]
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float
    temperature: float
    frames: int
    """The encoder window in mel frames (3000 = the full window)."""
    capped: bool
    """It stopped at the token cap, not at the end of text: the decoder did not find the end."""
    words: tuple[tuple[str, float], ...] = ()
    """Each word as written in `text` and the probability the decoder gave it."""

    @property
    def looping(self) -> bool:
        """The same run of REPEAT_WORDS words occurs twice: the sentence said again."""
        said = re.findall(r"[\w']+", self.text.lower())
        first: dict[tuple[str, ...], int] = {}
        for i in range(len(said) - REPEAT_WORDS + 1):
            run = tuple(said[i:i + REPEAT_WORDS])
            if run in first and i - first[run] >= REPEAT_WORDS:
                return True
            first.setdefault(run, i)
        return False


class WhisperDecoder:
    """Features, encoder and decoder of one loaded faster-whisper model, used piece by piece."""

    def __init__(self, model: Any, *, language: str, beam_size: int) -> None:
        from faster_whisper.tokenizer import Tokenizer
        from faster_whisper.transcribe import get_suppressed_tokens

        self._model = model  # faster_whisper.WhisperModel
        multilingual = bool(model.model.is_multilingual)
        self._tokenizer = Tokenizer(model.hf_tokenizer, multilingual, task="transcribe",
                                    language=(language or "en") if multilingual else None)
        self._suppress = list(get_suppressed_tokens(self._tokenizer, [-1]))
        self.beam_size = beam_size

    def speech(self, samples: np.ndarray) -> np.ndarray:
        """The parts Silero VAD hears as speech, joined (faster-whisper's `vad_filter`)."""
        from faster_whisper.vad import VadOptions, collect_chunks, get_speech_timestamps

        chunks = get_speech_timestamps(samples, VadOptions())
        if not chunks:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate(collect_chunks(samples, chunks)[0]).astype(np.float32)

    def features(self, speech: np.ndarray) -> np.ndarray:
        """Log-mel frames [n_mels, n] of the speech, as faster-whisper computes them."""
        return np.asarray(self._model.feature_extractor(speech)[:, :-1], dtype=np.float32)

    def prompt(self, text: str | None) -> list[int]:
        """The decoder's start: the initial prompt as previous text, then sot + no timestamps."""
        before = self._tokenizer.encode(" " + text.strip()) if text else []
        return list(self._model.get_prompt(self._tokenizer, before, without_timestamps=True))

    def encode(self, features: np.ndarray, frames: int) -> Any:
        """The encoder output for `features` in a window of `frames` (zero-padded or cut)."""
        import ctranslate2

        n_mels, n = features.shape
        window = np.zeros((1, n_mels, frames), dtype=np.float32)
        window[0, :, :min(n, frames)] = features[:, :frames]
        return self._model.model.encode(ctranslate2.StorageView.from_array(window))

    def short_frames(self, features: np.ndarray) -> int:
        """The short window for these features: their frames + the margin, even, ≤ 30 s."""
        frames = features.shape[1] + SHORT_MARGIN_FRAMES
        return min(FULL_FRAMES, frames + frames % 2)

    def decode(self, encoded: Any, frames: int, prompt: list[int], *,
               temperature: float = 0.0, max_new_tokens: int | None = None) -> Decoded:
        """One decoding at one temperature: beam search at 0, best of 5 samples above."""
        from faster_whisper.transcribe import get_compression_ratio

        limit = self._model.max_length
        if max_new_tokens is not None:
            limit = min(limit, len(prompt) + max_new_tokens)
        search: dict[str, Any] = (
            {"beam_size": self.beam_size, "patience": 1.0} if temperature == 0 else
            {"beam_size": 1, "num_hypotheses": 5, "sampling_topk": 0,
             "sampling_temperature": temperature})
        result = self._model.model.generate(
            encoded, [prompt], length_penalty=1.0, repetition_penalty=1.0,
            no_repeat_ngram_size=0, max_length=limit, return_scores=True,
            return_no_speech_prob=True, suppress_blank=True, suppress_tokens=self._suppress,
            max_initial_timestamp_index=50, **search)[0]
        tokens = tuple(result.sequences_ids[0])
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        text = self._tokenizer.decode(list(tokens))
        return Decoded(text=text, tokens=tokens, avg_logprob=avg_logprob,
                       compression_ratio=get_compression_ratio(text.strip()),
                       no_speech_prob=result.no_speech_prob, temperature=temperature,
                       frames=frames, capped=len(prompt) + len(tokens) >= limit)

    def short(self, features: np.ndarray, prompt: list[int]) -> tuple[Decoded, Any]:
        """The clip on the short window, greedy/beam only, capped at TOKENS_PER_SECOND."""
        frames = self.short_frames(features)
        encoded = self.encode(features, frames)
        seconds = features.shape[1] / 100
        cap = int(TOKENS_PER_SECOND * seconds) + TOKENS_SLACK
        return self.decode(encoded, frames, prompt, max_new_tokens=cap), encoded

    def full(self, features: np.ndarray, prompt: list[int],
             temperatures: Sequence[float]) -> tuple[Decoded | None, Any]:
        """The clip on the 30 s window with faster-whisper's fallback; None when it hears no
        speech (its no-speech rule)."""
        encoded = self.encode(features, FULL_FRAMES)
        tried: list[Decoded] = []
        for temperature in temperatures:
            decoded = self.decode(encoded, FULL_FRAMES, prompt, temperature=temperature)
            tried.append(decoded)
            low = decoded.avg_logprob < LOGPROB_THRESHOLD
            if decoded.no_speech_prob > NO_SPEECH_CEILING and low:
                break  # silence: no point sampling
            if decoded.compression_ratio <= COMPRESSION_THRESHOLD and not low:
                break
        else:
            sane = [d for d in tried if d.compression_ratio <= COMPRESSION_THRESHOLD]
            decoded = max(sane or tried, key=lambda d: d.avg_logprob)
        if decoded.no_speech_prob > NO_SPEECH_CEILING and decoded.avg_logprob <= LOGPROB_THRESHOLD:
            return None, encoded
        return decoded, encoded

    def with_words(self, decoded: Decoded, encoded: Any, prompt: list[int],
                   features: np.ndarray) -> Decoded:
        """`decoded` with each word's probability: the decoder's own, in the prompt's context,
        from one forward pass over the transcript (CTranslate2's `align`). A number's is that
        of the number however it is written: "10" at 0.54 beside "ten" at 0.44 is a sure ten,
        so the spelling Whisper did not choose is scored too (one more pass per number)."""
        tokens = [t for t in decoded.tokens if t < self._tokenizer.eot]
        if not tokens:
            return decoded
        frames = min(features.shape[1], decoded.frames)
        aligned = self._model.model.align(encoded, prompt, [tokens], frames)[0]
        pieces = self._subwords(tokens)
        also: dict[int, float] = {}
        for k, (text, start) in enumerate(word_starts(pieces)):
            other = spelled_otherwise(text)
            if other is None:
                continue
            alt = self._tokenizer.encode((" " if text.startswith(" ") else "") + other)
            scored = self._model.model.align(encoded, prompt, [tokens[:start] + alt], frames)[0]
            also[k] = float(np.prod(scored.text_token_probs[start:start + len(alt)]))
        words = group_words(pieces, list(aligned.text_token_probs), also)
        return Decoded(**{**decoded.__dict__, "words": words})

    def _subwords(self, tokens: list[int]) -> list[tuple[str, int]]:
        """(text, number of tokens) of each piece that decodes to whole characters."""
        pieces, piece_tokens = self._tokenizer.split_tokens_on_unicode(tokens)
        return [(p, len(t)) for p, t in zip(pieces, piece_tokens, strict=True)]


def _words(pieces: Sequence[tuple[str, int]]) -> list[tuple[str, list[tuple[str, int, int]]]]:
    """The text's words (split at spaces), each with its pieces and their token ranges."""
    words: list[tuple[str, list[tuple[str, int, int]]]] = []
    i = 0
    for text, count in pieces:
        part = (text, i, i + count)
        i += count
        if text.startswith(" ") or not words:
            words.append((text, [part]))
        else:
            words[-1] = (words[-1][0] + text, [*words[-1][1], part])
    return words


def word_starts(pieces: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """Each word with the index of its first token."""
    return [(text, parts[0][1]) for text, parts in _words(pieces)]


def group_words(pieces: Sequence[tuple[str, int]], probs: Sequence[float],
                also: dict[int, float] | None = None) -> tuple[tuple[str, float], ...]:
    """Words as the text splits them at spaces, each with the product of its tokens'
    probabilities (the probability of the word itself; punctuation-only tokens are left out,
    so "minutes." is as sure as "minutes"), plus `also[k]`: word k's other spellings."""
    out = []
    for k, (text, parts) in enumerate(_words(pieces)):
        p = 1.0
        for piece, a, b in parts:
            if re.search(r"\w", piece):
                for q in probs[a:b]:
                    p *= float(q)
        p = min(1.0, p + (also or {}).get(k, 0.0))
        if text.strip():
            out.append((text.strip(), round(p, 4)))
    return tuple(out)


_SPELLED = {cardinal(n): str(n) for n in range(100)}
"""Number words and digits for 0-99, the numbers a request says as one word."""
_SPELLED.update({v: k for k, v in _SPELLED.items()})


def spelled_otherwise(word: str) -> str | None:
    """The same number written the other way ("10" -> "ten", "Five" -> "5"); None if the word
    is not a number up to 99."""
    return _SPELLED.get(word.strip().rstrip(".,?!;:").lower())
