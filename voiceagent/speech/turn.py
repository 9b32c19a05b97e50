"""Has the speaker finished? smart-turn v3.2 tells from how the words so far sound.

smart-turn (pipecat's BSD-2 model: a Whisper-tiny encoder with a classifier, 8.7 MB ONNX,
taken out of the pipecat-ai 1.14.0 wheel at install time, see voiceagent/manifest.toml) reads
the last 8 s of 16 kHz audio and gives the probability that the turn is complete. It is fed
exactly as pipecat 1.14 feeds it (`LocalSmartTurnAnalyzerV3._predict_endpoint`): the audio up
to now, its last 8 s (zero-padded at the front when shorter), normalised to zero mean and unit
variance, as an 80 x 800 Whisper log-mel (`features`). The log-mel is faster-whisper's own
FeatureExtractor, the same transform as pipecat's vendored copy of the transformers one
(tests/test_speech_turn.py checks it against values from pipecat's extractor).

It hears prosody, not words: on real speech it called "Set a timer for" finished (0.98), so
speech/drafts.py never ends a turn on it alone.
"""

from __future__ import annotations

import logging
import threading
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.audio import STT_RATE, Audio
from voiceagent.errors import ModelError

log = logging.getLogger(__name__)

WINDOW_S = 8
"""The model hears this much of the end of the audio."""
_SAMPLES = WINDOW_S * STT_RATE
_NORM_EPS = 1e-7
"""transformers' variance floor in the waveform normalisation (pipecat's too)."""


@cache
def _extractor() -> Any:
    from faster_whisper.feature_extractor import FeatureExtractor

    return FeatureExtractor(feature_size=80, chunk_length=WINDOW_S)


def features(samples: np.ndarray) -> np.ndarray:
    """The model's input for 16 kHz `samples`: float32 [80, 800] log-mel of their last 8 s."""
    x = np.asarray(samples, dtype=np.float32).reshape(-1)[-_SAMPLES:]
    x = np.pad(x, (_SAMPLES - len(x), 0))
    x = (x - x.mean()) / np.sqrt(x.var() + _NORM_EPS)
    return np.asarray(_extractor()(x, padding=0), dtype=np.float32)


_SATURATING = ["QDQSelectorActionTransformer"]
"""onnxruntime's fusion of the model's int8 (QDQ) nodes into integer kernels: on x86 without
VNNI those kernels saturate their int16 sums, and on an AMD EPYC with AVX2 alone the model
said 0.70 where pipecat's reference says 0.96 for a finished "set a timer for..." (with the
fusion off it says 0.957). Off there, at ~1.8x the time of a decision."""


def _saturates(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """This CPU is x86 without VNNI (its int8 dot products saturate)."""
    try:
        flags = next((line.split(":", 1)[1].split() for line in cpuinfo.read_text().splitlines()
                      if line.startswith("flags")), [])
    except OSError:
        return False  # not Linux: the fused kernels, as onnxruntime chooses
    return bool(flags) and "avx2" in flags and not any("vnni" in f for f in flags)


class SmartTurn:
    """The TurnDetector port on smart-turn v3.x ONNX (one CPU thread: it runs beside the VAD
    and Whisper, 0.1 s a decision here)."""

    def __init__(self, path: Path, *, threads: int = 1) -> None:
        import onnxruntime as ort  # heavy

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        try:
            self._session = ort.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"],
                disabled_optimizers=_SATURATING if _saturates() else None)
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError(f"cannot load the turn model {path}: {exc}; run "
                             "`./install.sh` again or set [audio] turn_model = \"\"") from None
        self._lock = threading.Lock()

    def finished(self, audio: Audio) -> float:
        """The probability (0..1) that the speaker has finished the turn at the end of `audio`."""
        x = features(audio.resampled(STT_RATE).samples)[None]
        with self._lock:
            out = self._session.run(None, {"input_features": x})
        return float(np.ravel(out[0])[0])


def load_turn_model(name_or_path: str, models_dir: Path) -> SmartTurn | None:
    """The configured turn model ([audio] turn_model), None when it is off ("")."""
    if not name_or_path:
        return None
    from voiceagent.models import turn_model_path

    return SmartTurn(turn_model_path(name_or_path, models_dir))
