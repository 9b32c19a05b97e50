"""Wake word figures for the README: recall over many synthetic speakers, false wakes per hour
of news-like speech, recall with the assistant talking over the person (echo cancelled), and
the CPU each per-block stage costs. Not a test (no assertions); run:

    .venv/bin/python -m tests.measure_wakeword [--minutes 8]

Speakers are piper's joe voice at several rates and pitches, with and without piper's own
random variation (so figures move a little from run to run). Only one voice ships; a real
room with real people will differ.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from tests.test_echo import cancel, kiosk_wakes, room
from tests.voices import NEWS, Speaker, say
from voiceagent.audio import STT_RATE, concat
from voiceagent.sound.echo import EchoCanceller, Reference
from voiceagent.speech.vad import SileroVAD
from voiceagent.speech.wakeword import WakeWord

CUTOFFS = (0.97, 0.9, 0.8)
PHRASES = {
    "pause": ["Hey Jarvis.", "Hey Jarvis, what time is it?", "Hey Jarvis, set a timer for "
              "five minutes."],
    "one breath": ["Hey Jarvis what time is it?", "Hey Jarvis turn it off."],
}
SPEAKERS = [Speaker(length_scale=r, pitch=p, noise_scale=n, noise_w=n * 1.2)
            for r, p, n in itertools.product((0.8, 1.0, 1.25), (0.85, 1.0, 1.15), (0.0, 0.667))]


def fires(audio: np.ndarray, cutoff: float) -> int:
    wake = WakeWord("hey_jarvis", cutoff=cutoff)
    return sum(wake(audio[i:i + 512]) for i in range(0, len(audio), 512))


def recall() -> None:
    print("## Recall (wake word said once per clip)\n")
    print("| phrasing | clips | " + " | ".join(f"cut-off {c}" for c in CUTOFFS) + " |")
    print("|---|---|" + "---|" * len(CUTOFFS))
    for kind, phrases in PHRASES.items():
        clips = [say(p, s).samples for p, s in itertools.product(phrases, SPEAKERS)]
        hits = [sum(fires(c, cut) >= 1 for c in clips) for cut in CUTOFFS]
        print(f"| {kind} | {len(clips)} | "
              + " | ".join(f"{h / len(clips):.0%}" for h in hits) + " |")


def false_wakes(minutes: float) -> None:
    speakers = SPEAKERS[:: max(1, len(SPEAKERS) // 8)]
    parts, seconds = [], 0.0
    for speaker in itertools.cycle(speakers):
        for sentence in NEWS:
            clip = say(sentence, speaker, lead_s=0.2, tail_s=0.3)
            parts.append(clip)
            seconds += clip.seconds
        if seconds >= minutes * 60:
            break
    audio = concat(parts).samples
    hours = len(audio) / STT_RATE / 3600
    print(f"\n## False wakes ({len(audio) / STT_RATE / 60:.1f} min of news-like speech, "
          f"{len(speakers)} speakers, sentences with 'Hey there', 'Travis', 'Jarre', "
          "'service', 'harvest')\n")
    print("| cut-off | wakes | per hour |")
    print("|---|---|---|")
    for cut in CUTOFFS:
        n = fires(audio, cut)
        print(f"| {cut} | {n} | {n / hours:.1f} |")
    cpu(audio)


def over_echo() -> None:
    """The person says the wake word while the assistant talks; echo cancelled first."""
    far = concat([say(s, lead_s=0.1, tail_s=0.2) for s in NEWS[:6]]).samples
    own = concat([say(s, lead_s=0.1, tail_s=0.2) for s in
                  (NEWS[0], "You can wake me by saying: Hey Jarvis!", NEWS[1])]).samples
    person = [say("Hey Jarvis, stop.", s, lead_s=0, tail_s=0.3).samples
              for s in SPEAKERS[1::3]]
    print("\n## Barge-in: the wake word over the assistant's own speech\n")
    print("| echo at the mic vs the person | tries | woke: alone in quiet | echo cancelled only "
          "| kiosk (cancelled or raw) | woke by its own 'Hey Jarvis' |")
    print("|---|---|---|---|---|---|")
    for gain_db in (-20, -10, -6, 0):
        gain = 10 ** (gain_db / 20)  # both spoken at the same volume
        alone = aec = kiosk = 0
        for k, clip in enumerate(person):
            near = room(far, gain=gain, delay_ms=60, seed=k)
            at = int((4 + 3 * (k % 5)) * STT_RATE)
            near[at:at + len(clip)] += clip
            alone += fires(clip, 0.97) >= 1
            aec += fires(cancel(far, near), 0.97) >= 1
            kiosk += kiosk_wakes(far, near) >= 1
        itself = kiosk_wakes(own, room(own, gain=gain, delay_ms=60))
        n = len(person)
        print(f"| {gain_db} dB | {n} | {alone / n:.0%} | {aec / n:.0%} | {kiosk / n:.0%} "
              f"| {itself} |")


def cpu(audio: np.ndarray) -> None:
    seconds = len(audio) / STT_RATE
    blocks = [audio[i:i + 512] for i in range(0, len(audio) - 511, 512)]
    print(f"\n## CPU per stage ({seconds / 60:.1f} min of audio, 512-sample blocks; "
          "process time, all threads)\n")
    print("| stage | % of one core |")
    print("|---|---|")
    stages = [("wake word (pymicro-wakeword)", WakeWord("hey_jarvis")),
              ("echo canceller (WebRTC AEC3 + NS)", EchoCanceller(Reference())),
              ("Silero VAD (for comparison)", SileroVAD())]
    for name, stage in stages:
        start = time.process_time()
        for block in blocks:
            stage(block)  # type: ignore[operator]
        used = time.process_time() - start
        print(f"| {name} | {100 * used / seconds:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=8.0,
                        help="minutes of news-like speech for the false wakes")
    parser.add_argument("--only", choices=("recall", "false-wakes", "over-echo"))
    args = parser.parse_args()
    start = time.monotonic()
    if args.only in (None, "recall"):
        recall()
    if args.only in (None, "false-wakes"):
        false_wakes(args.minutes)
    if args.only in (None, "over-echo"):
        over_echo()
    print(f"\n(measured in {time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
