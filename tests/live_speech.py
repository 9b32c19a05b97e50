"""Spoken requests for the live-path tests and the STT measurement: piper's joe voice made
into several speakers (pitch and speed shifted), in a room (reverberation, fan noise), with
the hard cases of issue 17: a soft start, speech from the first sample, a pause mid-sentence.

There are no real recordings in the project; these are the closest offline stand-in.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from voiceagent.audio import STT_RATE, Audio, concat

REQUESTS = [
    "Add apples to my shopping list.",
    "Picovoice, make me a large coffee.",
    "Set kitchen lights to green.",
    "Set a timer for ten minutes.",
    "What time is it in Tokyo?",
    "Remind me to call the dentist tomorrow morning.",
    "What's on my to-do list?",
    "Cancel the pasta timer.",
    "How much battery do I have left?",
    "Turn the volume down a little.",
    "Add milk and eggs to the groceries list.",
    "What is twelve times fifteen?",
    "Read me my notes.",
]
"""Thirteen things a user asks (as in issue 17); "Picovoice," is said before a pause."""


@dataclass(frozen=True)
class Speaker:
    """One synthetic speaker: joe-medium shifted in pitch and speed, in some room."""

    name: str
    pitch: float = 1.0
    """>1 higher and faster (the clip is played back faster), <1 lower and slower."""
    length_scale: float = 1.0
    """piper's speaking speed (1 = normal, >1 slower)."""
    reverb_s: float = 0.0
    """RT60 of the room's reverberation; 0 = dry."""
    noise_db: float = -60.0
    """Fan noise level relative to full scale."""
    gain: float = 1.0
    """Distance from the microphone."""


SPEAKERS = [
    Speaker("near", gain=1.0, noise_db=-60),
    Speaker("high-fast-room", pitch=1.12, length_scale=0.9, reverb_s=0.35, noise_db=-45,
            gain=0.6),
    Speaker("low-slow-far", pitch=0.9, length_scale=1.15, reverb_s=0.5, noise_db=-42,
            gain=0.3),
]


@functools.lru_cache(maxsize=1)
def _voice():  # -> PiperVoice
    from piper import PiperVoice

    from voiceagent.config import Config
    from voiceagent.models import piper_voice

    config = Config()
    return PiperVoice.load(piper_voice(config.tts.voice, config.models_dir))


@functools.lru_cache(maxsize=256)
def say(text: str, pitch: float = 1.0, length_scale: float = 1.0) -> Audio:
    """piper saying `text` at 16 kHz with no silence around it, the same in every run."""
    from piper import SynthesisConfig

    from voiceagent.speech.speakable import speakable

    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, volume=0.7,
                             length_scale=length_scale)
    chunks = list(_voice().synthesize(speakable(text), syn_config=steady))
    samples = np.concatenate([c.audio_float_array for c in chunks]).astype(np.float32)
    # Played back `pitch` times faster: a higher (or lower) voice, shorter (or longer).
    return Audio(samples, round(chunks[0].sample_rate * pitch)).resampled(STT_RATE)


def room(audio: Audio, speaker: Speaker, seed: int = 0) -> Audio:
    """The clip as the microphone hears it: quieter, reverberant, with fan noise."""
    rng = np.random.default_rng(seed)
    samples = audio.samples * speaker.gain
    if speaker.reverb_s > 0:
        n = int(speaker.reverb_s * STT_RATE)
        decay = np.exp(-6.9 * np.arange(n) / n)  # -60 dB at RT60
        response = rng.standard_normal(n) * decay * 0.08
        response[0] = 1.0
        samples = np.convolve(samples, response)[: len(samples)]
    fan = np.cumsum(rng.standard_normal(len(samples)))  # brown noise: a fan's rumble
    fan -= np.convolve(fan, np.ones(400) / 400, mode="same")  # no DC drift
    fan *= 10 ** (speaker.noise_db / 20) / (np.sqrt(np.mean(fan ** 2)) + 1e-12)
    return Audio(np.clip(samples + fan, -1, 1).astype(np.float32), STT_RATE)


def request(text: str, speaker: Speaker, *, lead_s: float = 0.8, tail_s: float = 1.5,
            pause_s: float = 0.9, fade_s: float = 0.0) -> Audio:
    """`text` said by `speaker`; a leading "Name," is followed by a `pause_s` pause;
    `fade_s` makes the first syllables fade in (a soft start); lead_s=0 starts at sample 0."""
    head, sep, rest = text.partition(", ")
    if sep and head.istitle() and " " not in head:
        parts = [say(head + ",", speaker.pitch, speaker.length_scale), Audio.silence(pause_s),
                 say(rest, speaker.pitch, speaker.length_scale)]
    else:
        parts = [say(text, speaker.pitch, speaker.length_scale)]
    voice = concat(parts)
    if fade_s > 0:
        samples = voice.samples.copy()
        n = min(len(samples), int(fade_s * STT_RATE))
        samples[:n] *= np.linspace(0.0, 1.0, n) ** 2
        voice = Audio(samples, STT_RATE)
    clip = concat([Audio.silence(lead_s), voice, Audio.silence(tail_s)])
    heard = room(clip, speaker, seed=len(text))
    if lead_s == 0:  # the first sample is speech, not fan noise alone
        heard = Audio(np.concatenate([clip.samples[:1] * speaker.gain, heard.samples[1:]]),
                      STT_RATE)
    return heard


def wer(reference: list[str], hypothesis: list[str]) -> tuple[int, int]:
    """(word errors, reference words): substitutions + deletions + insertions."""
    previous = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        current = [i]
        for j, hyp in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ref != hyp)))
        previous = current
    return previous[-1], len(reference)
