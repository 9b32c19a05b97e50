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
from voiceagent.speech.runon import Recent, isolated, word_end
from voiceagent.speech.wake_confirm import CONFIRM_FLOOR

log = logging.getLogger(__name__)

FAR_MEMORY_S = 3.0
"""How long the speaker's own wake word vetoes raw detections."""
OWN_VOICE_P = 0.5
"""A far-end probability above this means the speaker said (something like) the wake word."""
STEP = 160
"""Samples per feature step (10 ms at 16 kHz): what the model's front end consumes."""
CANDIDATE_RAW = 0.5
CANDIDATE_MEAN = 0.3
"""One output this sure, or the average this high, without firing: perhaps a wake word the
next word cut short (runon.py). Real speech that is not the wake word comes this close a few
times an hour (alexa: 2 in 77 min; hey_mycroft: 69)."""
CHECK_AFTER = 4
"""Outputs (30 ms each) after a candidate began before the second look, if it has not fired."""
RUN_ON_MARGIN = 4
"""The second look must leave this many times less doubt than the model's cut-off (alexa:
0.975 for 0.9): it is a second chance, and must not let more near misses through than the
first look does."""
RECENT_S = 2.5
CHECK_TAIL_S = 0.15
"""A sure wake checked by speech to text (`check_every`) is heard up to this long after the
model was first sure: it is sure before the word has ended ("Hey, micron." cut at the dip;
piper's "hey mycroft" alone was heard as the name in 12 of 18 clips cut at the dip, 17 of 18
cut here, 16 of 17 said in one breath with a request)."""
SPEECH_LIKE = frozenset({"hey_mycroft"})
"""Built-in models that wake on ordinary speech by their own rule: over 77 min of real
speech that is not the wake word (docs/wakeword.md) hey_mycroft fired 6 times ("make me a",
"can I have a" at the start of coffee orders, as sure as of the real word); the others 0-2.
`[trigger] wake_check = "auto"` has speech to text check every wake of these."""


def builtin_names() -> list[str]:
    from pymicro_wakeword import Model

    return [m.value for m in Model]


class WakeWord:
    """Streaming detector: feed consecutive 16 kHz blocks, get True once per wake word.

    It fires as the model's averaged probability passes the cut-off (the model's own rule),
    or, said in one breath with the request, when a second look at the word as if a pause
    followed passes the stricter `run_on_cutoff` (runon.py); `ended_ago` then tells how far
    back the word ended, so the request can start there. After a detection it stays quiet for
    `refractory_s` (one "Hey Jarvis" is one wake-up, not five in a row).
    """

    def __init__(self, name_or_path: str, *, cutoff: float = 0.0, refractory_s: float = 2.0,
                 run_on: bool = True, run_on_cutoff: float = 0.0,
                 check_every: bool = False) -> None:
        self._stream = _Stream(name_or_path)
        self._spec = name_or_path
        self.name = self._stream.model.wake_word
        """The phrase as the model names it ("Hey Jarvis")."""
        self.cutoff = cutoff or self._stream.cutoff
        """Averaged probability above which it fires; the model's own when 0 is given."""
        self.run_on_cutoff = (run_on_cutoff or 1 - (1 - self.cutoff) / RUN_ON_MARGIN
                              ) if run_on else 0.0
        """What the second look must reach (0: no second look)."""
        self.confirm: Callable[[np.ndarray], bool] | None = None
        """Asked about a second look the model leans towards but is not sure of: the word
        as if a pause followed, heard by speech to text (wake_confirm.py). None: not woken."""
        self.check_every = check_every
        """Ask `confirm` about every wake, the model's sure ones too (SPEECH_LIKE models):
        decided 120 ms after the probability rose, when the word has ended."""
        self._asked: int | None = None
        """The rise last asked about (`check_every`)."""
        self._sure: int | None = None
        """Stream position where the model was first sure of the word being checked."""
        self.refractory = int(refractory_s * STT_RATE)
        self._window: deque[float] = deque(maxlen=self._stream.window)
        self._checker: _Stream | None = None
        self._recent = Recent(RECENT_S)
        self.probability = self.peak = 0.0
        """The latest averaged probability, and the highest since the last detection."""
        self.samples = 0
        """Samples consumed since the last reset: the stream position."""
        self.fired_at: int | None = None
        """Stream position (samples) of the last detection."""
        self.ended_ago = 0
        """At the last detection: how many samples back from the end of the block that fired
        the wake word ended (what came after it may be the request)."""
        self._ended = 0
        self._rose: int | None = None
        """Stream position where the probability came close, while it stays close."""
        self._since = 0

    def __call__(self, block: np.ndarray) -> bool:
        """Feed float32 16 kHz samples (any length); True if the wake word ended in them."""
        block = np.asarray(block, dtype=np.float32).reshape(-1)
        fired = False
        for i in range(0, len(block), STEP):
            chunk = block[i:i + STEP]
            self._recent.add(chunk)
            self.samples += len(chunk)
            for p in self._stream.outputs(chunk):
                fired = self._output(p) or fired
        if fired:
            self.fired_at = self.samples
            self.ended_ago = self.samples - self._ended
            self.peak = 0.0
        return fired

    def _output(self, p: float) -> bool:
        """One raw model output at the stream's current end; True if the wake word fires."""
        self._window.append(p)
        full = len(self._window) == self._window.maxlen
        self.probability = sum(self._window) / len(self._window) if full else 0.0
        if self.probability < 0.1 <= self.peak < self.cutoff:  # a near miss: worth a line
            log.debug("wake word probability peaked at %.2f (cut-off %.2f)", self.peak,
                      self.cutoff)
            self.peak = 0.0
        self.peak = max(self.peak, self.probability)
        close = p >= CANDIDATE_RAW or self.probability >= CANDIDATE_MEAN
        if close and self._rose is None:
            self._rose, self._since = self.samples, 0
        rose = self._rose
        if not close:
            self._rose = None
        if rose is None or self._resting():
            return False
        self._since += 1
        if self.probability > self.cutoff and not self._checking():
            return self._found(rose)
        if self.probability > self.cutoff and self._sure is None and self._asked != rose:
            self._sure = self.samples
        if self._sure is not None and self._asked != rose:
            tail = self.samples - self._sure - int(CHECK_TAIL_S * STT_RATE)
            if tail >= 0 or not close:  # once per word: "make me a" is asked about once
                self._asked, self._sure = rose, None
                if self._heard(isolated(self._recent, max(0, tail))):
                    return self._found(rose)
            return False
        due = self._since == CHECK_AFTER or (not close and self._since < CHECK_AFTER)
        if due and self._second_look(rose):
            return self._found(rose)
        return False

    def _found(self, rose: int) -> bool:
        self._ended = self.samples - word_end(self._recent, self.samples - rose)
        self._rose = None
        self.fired_at = self.samples
        return True

    def _second_look(self, rose: int) -> bool:
        """The word up to its end, as if a pause followed: would the model fire? Scored
        twice, cut at the dip and where the probability rose (~40 ms earlier): the model
        stays sure of a real wake word either way, while a near miss ("I'd like a" for
        alexa) can look like it only when cut exactly at the dip."""
        if not self.run_on_cutoff:
            return False
        ago = self.samples - rose
        word = isolated(self._recent, word_end(self._recent, ago))
        sure = min(self._score(word), self._score(isolated(self._recent, ago)))
        log.debug("wake word run on? second look %.3f (needs %.3f)", sure, self.run_on_cutoff)
        if sure >= self.run_on_cutoff and not self._checking():
            return True
        return sure >= CONFIRM_FLOOR and self._heard(word)

    def _checking(self) -> bool:
        return self.check_every and self.confirm is not None

    def _heard(self, word: np.ndarray) -> bool:
        """Speech to text's opinion on `word` (samples up to its end, silence after)."""
        return self.confirm is not None and self.confirm(word)

    def _score(self, samples: np.ndarray) -> float:
        """The highest averaged probability a fresh copy of the model gives `samples`."""
        if self._checker is None:
            self._checker = _Stream(self._spec)
        checker = self._checker
        checker.reset()
        window: deque[float] = deque(maxlen=checker.window)
        best = 0.0
        for i in range(0, len(samples), STEP):
            for p in checker.outputs(samples[i:i + STEP]):
                window.append(p)
                if len(window) == window.maxlen:
                    best = max(best, sum(window) / len(window))
        return best

    def reset(self) -> None:
        """Forget all audio heard so far (the model's recurrent state too)."""
        self._stream.reset()
        self._window.clear()
        self._recent.clear()
        self.probability = self.peak = 0.0
        self.samples = self._ended = self._since = self.ended_ago = 0
        self.fired_at = self._rose = self._asked = self._sure = None

    def _resting(self) -> bool:
        return self.fired_at is not None and self.samples - self.fired_at < self.refractory


class _Stream:
    """One copy of the model and its front end, giving every raw output (not averaged)."""

    def __init__(self, name_or_path: str) -> None:
        from pymicro_wakeword import MicroWakeWordFeatures

        self.model, self.window, self.cutoff = _load(name_or_path)
        self._features = MicroWakeWordFeatures()
        self._steps = 0

    def outputs(self, chunk: np.ndarray) -> list[float]:
        """Raw outputs for the next samples: one per `stride` 10 ms feature steps."""
        pcm = (np.clip(chunk, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        out = []
        for feature in self._features.process_streaming(pcm):
            p = self.model.process_streaming_prob(feature)
            self._steps += 1
            if p is not None and self._steps % self.model.stride == 0:
                out.append(float(p))
        return out

    def reset(self) -> None:
        self._features.reset()
        self.model.reset()
        self._steps = 0


def _load(name_or_path: str) -> tuple[Any, int, float]:
    """A bundled model by name, or a microWakeWord JSON config (or its .tflite) by path,
    loaded to give every raw output (window 1); also its window and cut-off."""
    try:
        from pymicro_wakeword import MicroWakeWord, Model
    except ImportError as exc:  # the wheel bundles TensorFlow Lite; nothing else is needed
        raise ConfigError(f"wake word needs pymicro-wakeword ({exc}): "
                          ".venv/bin/pip install pymicro-wakeword") from None
    key = name_or_path.strip().lower().replace(" ", "_").replace("-", "_")
    if key in builtin_names():
        spec = MicroWakeWord.from_builtin(Model(key))
    else:
        path = Path(name_or_path).expanduser()
        if path.suffix == ".tflite":
            path = path.with_suffix(".json")
        if not path.is_file():
            raise ConfigError(f"[trigger] wake_word = {name_or_path!r}: not a bundled wake word "
                              f"({', '.join(builtin_names())}) and no microWakeWord .json "
                              f"config at {path}")
        try:
            spec = MicroWakeWord.from_config(path)
        except (KeyError, ValueError, OSError) as exc:
            raise ConfigError(f"[trigger] wake_word = {name_or_path!r}: not a usable "
                              f"microWakeWord model ({exc}); give the .json config with its "
                              ".tflite beside it") from None
    raw = MicroWakeWord(spec.id, wake_word=spec.wake_word, tflite_model=spec.tflite_model,
                        probability_cutoff=spec.probability_cutoff, sliding_window_size=1,
                        trained_languages=spec.trained_languages,
                        libtensorflowlite_c_path=spec.libtensorflowlite_c_path)
    window, cutoff = int(spec.sliding_window_size), float(spec.probability_cutoff)
    spec.close()
    return raw, window, cutoff


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
        self._far.confirm = None  # it only vetoes: no speech to text on what was played
        self._raw_block, self._far_block = raw, far
        self.name = self._clean.name
        self._far_peak: deque[float] = deque(maxlen=int(FAR_MEMORY_S * STT_RATE / 512))
        self._refractory = int(refractory_s * STT_RATE)
        self._quiet = self._refractory
        self.ended_ago = 0
        """As WakeWord.ended_ago, from the detector that fired."""

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
            self.ended_ago = (self._clean if clean else self._raw).ended_ago
            return True
        return False
