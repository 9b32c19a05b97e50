"""The wake word: a small microWakeWord model listening to every microphone block.

It runs on 10 ms steps of 16 kHz audio at ~2 % of one core, so the kiosk can listen all
day without ever running Whisper on audio that was not addressed to it. The models ship
inside the `pymicro-wakeword` wheel (hey_jarvis, okay_nabu, hey_mycroft, alexa); a
custom one is its microWakeWord `.json` with the `.tflite` beside it.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.audio import STT_RATE
from voiceagent.errors import ConfigError

log = logging.getLogger(__name__)

FAR_MEMORY_S = 3.0
"""How long the speaker's own wake word vetoes raw detections."""
OWN_VOICE_P = 0.5
"""A far-end probability above this means the speaker said (something like) the wake word."""
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
            if p < 0.1 <= self.peak < self.cutoff:  # a near miss: worth a line when tuning
                log.debug("wake word probability peaked at %.2f (cut-off %.2f)", self.peak,
                          self.cutoff)
                self.peak = 0.0
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


class WakeOverEcho:
    """The wake word while the assistant may be talking: heard in the echo-cancelled block,
    or in the raw microphone block unless the speaker itself just said it.

    WebRTC's echo canceller turns a person down while the far end talks (double talk), so
    over an answer the wake word is found more often in the raw signal (measured: 4 of 6
    against 2 of 6 with the echo 20 dB below the person). The raw signal also holds the
    assistant's own voice, so a raw detection counts only if a third detector listening to
    what was played has stayed low for the last seconds.
    """

    def __init__(self, make: Callable[[], WakeWord], raw: Callable[[], np.ndarray],
                 far: Callable[[], np.ndarray], *, refractory_s: float = 2.0) -> None:
        self._clean, self._raw, self._far = make(), make(), make()
        self._raw_block, self._far_block = raw, far
        self.name = self._clean.name
        self._far_peak: deque[float] = deque(maxlen=int(FAR_MEMORY_S * STT_RATE / 512))
        self._refractory = int(refractory_s * STT_RATE)
        self._quiet = self._refractory

    def __call__(self, block: np.ndarray) -> bool:
        clean = self._clean(block)
        raw = self._raw(self._raw_block())
        far = self._far_block()
        self._far(far if len(far) else np.zeros_like(block))
        self._far_peak.append(self._far.probability)
        self._quiet += len(block)
        if self._quiet < self._refractory:
            return False
        own = max(self._far_peak) > OWN_VOICE_P
        if raw and not clean and own:
            log.info("wake word in the raw microphone while the speaker said it: ignored")
        if clean or (raw and not own):
            self._quiet = 0
            return True
        return False
