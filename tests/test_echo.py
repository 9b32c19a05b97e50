"""Echo cancellation on synthetic rooms (no devices): the far end placed on the clock, the
assistant's own voice removed from the microphone (even when it says the wake word), and a
person talking over it still heard."""

from __future__ import annotations

import numpy as np
import pytest

from tests.voices import USERS, news, say
from voiceagent.audio import STT_RATE, Audio, concat
from voiceagent.sound.echo import EchoCanceller, Reference
from voiceagent.speech.wakeword import WakeWord

T0 = 1_796_000_000.0
"""PortAudio's clock is the wall clock: times this large must keep sample precision."""


def room(far: np.ndarray, *, gain: float, delay_ms: float, noise: float = 0.003,
         seed: int = 0) -> np.ndarray:
    """What a microphone hears of `far` played in a room: delayed, quieter, a little hiss."""
    delay = int(delay_ms * STT_RATE / 1000)
    echo = np.concatenate([np.zeros(delay, np.float32), far])[:len(far)] * gain
    hiss = np.random.default_rng(seed).standard_normal(len(far)).astype(np.float32) * noise
    return (echo + hiss).astype(np.float32)


def cancel(far: np.ndarray, near: np.ndarray, *, played_rate: int = STT_RATE) -> np.ndarray:
    """Play `far` through the player's tap and cancel it from `near`, block by block, the way
    the kiosk does: the far end's chunks arrive with their speaker times, ahead of time as a
    player's callback runs ahead of its speaker, and the mic's blocks with their capture
    times."""
    reference = Reference()
    canceller = EchoCanceller(reference)
    played = Audio(far, STT_RATE).resampled(played_rate).samples
    step = played_rate * 512 // STT_RATE
    chunks = [(played[k:k + step], T0 + k / played_rate) for k in range(0, len(played), step)]
    ahead = 6  # ~0.2 s of output latency
    for chunk, at in chunks[:ahead]:
        reference.played(chunk, played_rate, at)
    out = []
    for k, i in enumerate(range(0, len(near) - 511, 512)):
        if k + ahead < len(chunks):
            reference.played(chunks[k + ahead][0], played_rate, chunks[k + ahead][1])
        out.append(canceller(near[i:i + 512], T0 + i / STT_RATE))
    return np.concatenate(out)


def fires(audio: np.ndarray) -> bool:
    wake = WakeWord("hey_jarvis")
    return any(wake(audio[i:i + 512]) for i in range(0, len(audio), 512))


def db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def test_reference_places_what_played_on_the_clock() -> None:
    reference = Reference()
    t = np.arange(22050) / 22050
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    for k in range(0, 22050, 1000):  # callback-sized chunks, their times a little jittery
        jitter = 0.001 if (k // 1000) % 2 else 0.0
        reference.played(tone[k:k + 1000], 22050, T0 + k / 22050 + jitter)
    before = reference.span(T0 - 0.5, 8000)
    during = reference.span(T0 + 0.25, 4000)
    after = reference.span(T0 + 1.2, 4000)
    assert not before.any() and not after.any()
    expected = (0.5 * np.sin(2 * np.pi * 440 * (0.25 + np.arange(4000) / STT_RATE)))
    assert np.abs(during - expected).max() < 0.05  # resampled and in place, not torn
    assert reference.playing(T0 + 0.9) and not reference.playing(T0 + 1.5)


pytestmark = pytest.mark.real


def test_its_own_voice_is_removed_even_when_it_says_the_wake_word() -> None:
    answer = concat([news(4), say("People call me Jarvis. Just say: Hey Jarvis!"),
                     news(2)]).samples
    near = room(answer, gain=0.5, delay_ms=60)
    assert fires(near), "without cancellation the echo of 'Hey Jarvis' wakes it"
    out = cancel(answer, near, played_rate=22050)
    assert not fires(out)
    settled = slice(len(out) // 3, None)  # after the first seconds of adaptation
    assert db(near[:len(out)][settled]) - db(out[settled]) > 20


@pytest.mark.parametrize("gain", [0.1, 0.3])
def test_a_person_talking_over_it_is_still_heard(gain: float) -> None:
    """Double talk: the echo at the mic 20 dB and 10 dB below the person's voice."""
    answer = news(5).samples
    person = say("Hey Jarvis, stop.", USERS[0], lead_s=0, tail_s=0.3).samples
    near = room(answer, gain=gain, delay_ms=60)
    at = 7 * STT_RATE  # after the canceller has adapted
    near[at:at + len(person)] += person
    out = cancel(answer, near)
    assert fires(out)
    assert not fires(cancel(answer, room(answer, gain=gain, delay_ms=60)))


def test_without_capture_times_a_late_first_burst_is_not_trusted() -> None:
    """A block source without timestamps whose first 2 s arrive in one late burst (an idle
    sound server starting up): the counted capture time is pulled back to the clock, so the
    far end still lines up and the echo is removed."""
    answer = news(3).samples
    near = room(answer, gain=0.5, delay_ms=60)
    reference = Reference()
    burst = 2.0
    now = [T0 + burst]  # the first block is read 2 s after it was captured
    canceller = EchoCanceller(reference, clock=lambda: now[0])
    played = 0
    out = []
    for i in range(0, len(near) - 511, 512):
        captured = T0 + i / STT_RATE
        now[0] = max(now[0], captured + 0.05)  # reading catches up, then keeps pace
        while played < len(answer) and T0 + played / STT_RATE < now[0] + 0.2:
            reference.played(answer[played:played + 512], STT_RATE, T0 + played / STT_RATE)
            played += 512
        out.append(canceller(near[i:i + 512]))
    out_all = np.concatenate(out)
    settled = slice(len(out_all) // 3, None)
    assert db(near[:len(out_all)][settled]) - db(out_all[settled]) > 20


def kiosk_wakes(far: np.ndarray, near: np.ndarray) -> int:
    """Wake-ups as the kiosk counts them while it plays `far` and hears `near`
    (WakeOverEcho over the echo canceller)."""
    from voiceagent.speech.wakeword import WakeOverEcho, WakeWord

    reference = Reference()
    canceller = EchoCanceller(reference)
    wake = WakeOverEcho(lambda: WakeWord("hey_jarvis"), lambda: canceller.last_raw,
                        lambda: canceller.last_far)
    for k in range(0, len(far), 512):
        reference.played(far[k:k + 512], STT_RATE, T0 + k / STT_RATE, k == 0)
    return sum(wake(canceller(near[i:i + 512], T0 + i / STT_RATE))
               for i in range(0, len(near) - 511, 512))


def test_over_an_answer_the_raw_mic_also_counts_unless_the_speaker_said_it() -> None:
    """WakeOverEcho: a person over the echo wakes it (raw or cancelled), the speaker's own
    'Hey Jarvis' does not, though the raw microphone hears it loud and clear."""
    answer = concat([news(2), say("Just say: Hey Jarvis!"), news(1)]).samples
    near = room(answer, gain=0.5, delay_ms=60)
    assert fires(near)  # the raw microphone alone would wake it
    assert kiosk_wakes(answer, near) == 0
    story = news(4).samples
    person = say("Hey Jarvis, stop.", USERS[0], lead_s=0, tail_s=0.3).samples
    near = room(story, gain=0.1, delay_ms=60)
    at = 7 * STT_RATE
    near[at:at + len(person)] += person
    assert kiosk_wakes(story, near) == 1
