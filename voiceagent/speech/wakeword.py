"""The wake word: a small microWakeWord model listening to every microphone block.

It runs on 10 ms steps of 16 kHz audio at ~2 % of one core, so the kiosk can listen all
day without ever running Whisper on audio that was not addressed to it. The models ship
inside the `pymicro-wakeword` wheel (hey_jarvis, okay_nabu, hey_mycroft, alexa); a
custom one is its microWakeWord `.json` with the `.tflite` beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.audio import STT_RATE
from voiceagent.errors import ConfigError

STEP = 160
"""Samples per feature step (10 ms at 16 kHz): what the model's front end consumes."""


def builtin_names() -> list[str]:
    from pymicro_wakeword import Model

    return [m.value for m in Model]


class WakeWord:
    """Streaming detector: feed consecutive 16 kHz blocks, get True once per wake word.

    After a detection it stays quiet for `refractory_s` (one "Hey Jarvis" is one wake-up,
    not five in a row as the averaged probability stays high).
    """

    def __init__(self, name_or_path: str, *, cutoff: float = 0.0,
                 refractory_s: float = 2.0) -> None:
        self._model = _load(name_or_path)
        from pymicro_wakeword import MicroWakeWordFeatures

        self._features = MicroWakeWordFeatures()
        self.name = self._model.wake_word
        """The phrase as the model names it ("Hey Jarvis")."""
        self.cutoff = cutoff or float(self._model.probability_cutoff)
        """Averaged probability above which it fires; the model's own when 0 is given."""
        self.refractory = int(refractory_s * STT_RATE)
        self.probability = 0.0
        """The latest averaged probability (for logs and tuning)."""
        self.peak = 0.0
        """The highest probability since the last reset or detection (for tuning)."""
        self.samples = 0
        """Samples consumed since the last reset: the stream position."""
        self.fired_at: int | None = None
        """Stream position (samples) of the last detection."""

    def __call__(self, block: np.ndarray) -> bool:
        """Feed float32 16 kHz samples (any length); True if the wake word ended in them."""
        pcm = (np.clip(np.asarray(block, dtype=np.float32), -1.0, 1.0) * 32767)
        fired = False
        for features in self._features.process_streaming(pcm.astype("<i2").tobytes()):
            p = self._model.process_streaming_prob(features)
            if p is None:
                continue
            self.probability = float(p)
            self.peak = max(self.peak, self.probability)
            if self.probability > self.cutoff and not self._resting():
                fired = True
        self.samples += len(block)
        if fired:
            self.fired_at = self.samples
            self.peak = 0.0
        return fired

    def reset(self) -> None:
        """Forget all audio heard so far (the model's recurrent state too)."""
        self._features.reset()
        self._model.reset()
        self.probability = self.peak = 0.0
        self.samples = 0
        self.fired_at = None

    def _resting(self) -> bool:
        return self.fired_at is not None and self.samples - self.fired_at < self.refractory


def _load(name_or_path: str) -> Any:
    """A bundled model by name, or a microWakeWord JSON config (or its .tflite) by path."""
    try:
        from pymicro_wakeword import MicroWakeWord, Model
    except ImportError as exc:  # the wheel bundles TensorFlow Lite; nothing else is needed
        raise ConfigError(f"wake word needs pymicro-wakeword ({exc}): "
                          ".venv/bin/pip install pymicro-wakeword") from None
    key = name_or_path.strip().lower().replace(" ", "_").replace("-", "_")
    if key in builtin_names():
        return MicroWakeWord.from_builtin(Model(key))
    path = Path(name_or_path).expanduser()
    if path.suffix == ".tflite":
        path = path.with_suffix(".json")
    if not path.is_file():
        raise ConfigError(f"[trigger] wake_word = {name_or_path!r}: not a bundled wake word "
                          f"({', '.join(builtin_names())}) and no microWakeWord .json config "
                          f"at {path}")
    try:
        return MicroWakeWord.from_config(path)
    except (KeyError, ValueError, OSError) as exc:
        raise ConfigError(f"[trigger] wake_word = {name_or_path!r}: not a usable microWakeWord "
                          f"model ({exc}); give the .json config with its .tflite beside "
                          "it") from None
