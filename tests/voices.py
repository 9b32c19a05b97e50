"""Many speakers from one piper voice, and news-like speech, for the wake word and echo tests.

Only one piper voice ships (joe-medium), so other "speakers" are made from it: speaking
rate (length_scale), piper's own variation (noise_scale, noise_w: random on every call, so only
the measurement script uses it; tests stay repeatable without it), and pitch
(the clip resampled as if recorded at another rate: higher and faster, or lower and
slower, like a different throat).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from voiceagent.audio import STT_RATE, Audio, concat
from voiceagent.config import Config


@dataclass(frozen=True)
class Speaker:
    """One synthetic speaker."""

    length_scale: float = 1.0
    noise_scale: float = 0.0
    noise_w: float = 0.0
    pitch: float = 1.0
    """Above 1: higher and faster; below 1: lower and slower."""

    def __str__(self) -> str:
        return f"rate{self.length_scale}-noise{self.noise_scale}-pitch{self.pitch}"


ASSISTANT = Speaker()
"""The assistant's own voice (steady piper, as the speech fixture makes it)."""
USERS = [
    Speaker(pitch=1.18, length_scale=0.9),
    Speaker(pitch=0.85, length_scale=1.1),
    Speaker(pitch=1.08),
    Speaker(pitch=0.93, length_scale=1.25),
]
"""Other people: several rates and pitches (repeatable: no piper noise)."""

NEWS = [
    "Good evening. Here is the news at six.",
    "The city council met on Tuesday to discuss the new bridge across the river.",
    "Engineers say the work could begin in the spring if the budget is approved.",
    "In the north, heavy rain has flooded several roads and closed two schools.",
    "The weather service expects the storm to move east by Thursday morning.",
    "Shares in technology companies rose sharply after strong quarterly results.",
    "A spokesman for the harbour said the ferries will run as usual this weekend.",
    "Hey there, said the mayor, as she opened the new public library on Main Street.",
    "Travis Jenkins, the local baker, won first prize for his apple pie at the fair.",
    "Scientists have found a new species of frog in the hills above the valley.",
    "The museum will keep its doors open late on Fridays throughout the summer.",
    "Police are asking drivers to avoid the motorway after a lorry lost its load.",
    "In sport, the home team won their third match in a row after a late goal.",
    "Tickets for the harvest festival go on sale at the town hall next Monday.",
    "The price of petrol fell for the second month running, to the relief of drivers.",
    "Hey, that's not fair, shouted a fan, as the referee waved play on.",
    "The orchestra will play music by Jarre and Ravel at the cathedral on Sunday.",
    "A service of remembrance will be held for the former harbour master.",
    "The hospital has opened a new ward for children, paid for by local charities.",
    "And finally, a cat that went missing three years ago has found its way home.",
]
"""News-like sentences without the wake word, a few close to it ("Hey there", "Travis",
"Jarre", "service", "harvest")."""


@functools.lru_cache(maxsize=1)
def _voice():  # -> PiperVoice
    from piper import PiperVoice

    from voiceagent.models import piper_voice

    config = Config()
    return PiperVoice.load(piper_voice(config.tts.voice, config.models_dir))


@functools.lru_cache(maxsize=256)
def say(text: str, speaker: Speaker = ASSISTANT, *, lead_s: float = 0.6,
        tail_s: float = 1.0, volume: float = 0.7) -> Audio:
    """`text` spoken by `speaker`, 16 kHz, with silence around it (the same in every run
    unless the speaker has noise)."""
    from piper import SynthesisConfig

    voice = _voice()
    config = SynthesisConfig(length_scale=speaker.length_scale, noise_scale=speaker.noise_scale,
                             noise_w_scale=speaker.noise_w, volume=volume)
    chunks = list(voice.synthesize(text, syn_config=config))
    rate = chunks[0].sample_rate
    spoken = Audio(np.concatenate([c.audio_float_array for c in chunks]),
                   round(rate * speaker.pitch))
    return concat([Audio.silence(lead_s), spoken.resampled(STT_RATE), Audio.silence(tail_s)])


def news(n: int = len(NEWS), speaker: Speaker = ASSISTANT) -> Audio:
    """The first `n` news sentences by `speaker`, one after another."""
    return concat([say(s, speaker, lead_s=0.2, tail_s=0.3) for s in NEWS[:n]])
