"""Word error rate and seconds per utterance of the Whisper choices on the live path.

    .venv/bin/python -m tests.measure_live_stt [--quick] [--out results.json]

Every request of tests/live_speech.py, said by each synthetic speaker (one in three with a
soft start, one in three from the first sample), is played into the virtual PulseAudio mic
(tests/pulse.py) and cut by MicRecorder.utterances() exactly as the kiosk does. The captured
utterances are then transcribed with each model / beam / prompt choice, and so are the
files themselves (the file path), so the two can be compared. Times are wall-clock seconds
per utterance on this machine at this moment: compare them only within one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.fixtures_audio import words
from tests.live_speech import REQUESTS, SPEAKERS, request, wer
from tests.pulse import PulseServer
from voiceagent.audio import Audio, concat
from voiceagent.config import AudioConfig, Config

PROMPT = Config().stt.prompt
"""The default prompt (example requests whose words differ from the ones measured: Whisper
drops the start of a request that repeats the prompt's last sentence)."""
VOCABULARY = ["shopping", "to-do", "groceries", "Picovoice"]
"""What build_transcriber passes today: list names (+ the wake phrase)."""

CHOICES = [
    # (label, model, beam, prompt, vocabulary, temperature fallback)
    ("tiny.en beam 1", "tiny.en", 1, "", False, True),
    ("tiny.en beam 1 + vocabulary", "tiny.en", 1, "", True, True),
    ("tiny.en beam 1 + prompt + vocabulary", "tiny.en", 1, PROMPT, True, True),
    ("tiny.en beam 5 + vocabulary", "tiny.en", 5, "", True, True),
    ("tiny.en beam 5 + prompt + vocabulary", "tiny.en", 5, PROMPT, True, True),
    ("base beam 1", "base", 1, "", False, True),
    ("base beam 1 + vocabulary", "base", 1, "", True, True),
    ("base beam 1 + prompt + vocabulary", "base", 1, PROMPT, True, True),
    ("base beam 5 + vocabulary", "base", 5, "", True, True),
    ("base beam 5 + prompt + vocabulary", "base", 5, PROMPT, True, True),
    ("base beam 5 + vocabulary, no fallback", "base", 5, "", True, False),
]


def clips() -> list[tuple[str, str, Audio]]:
    """(speaker, text, audio): every request by every speaker, with the hard starts."""
    out = []
    for s, speaker in enumerate(SPEAKERS):
        for r, text in enumerate(REQUESTS):
            kind = (r + s) % 3
            audio = request(text, speaker, lead_s=0.0 if kind == 2 else 0.8,
                            fade_s=0.35 if kind == 1 else 0.0)
            out.append((speaker.name, text, audio))
    return out


def capture(pulse: PulseServer, items: list[tuple[str, str, Audio]]) -> list[list[Audio]]:
    """Each clip played into the mic; the utterances the kiosk's listener cut from it."""
    from voiceagent.sound.recorder import MicRecorder

    mic = MicRecorder(AudioConfig())
    heard: queue.Queue[Audio] = queue.Queue()
    stop = threading.Event()
    mic.open()
    thread = threading.Thread(target=lambda: [heard.put(u) for u in mic.utterances(stop)])
    thread.start()
    out: list[list[Audio]] = []
    try:
        for n, (speaker, text, audio) in enumerate(items):
            pulse.play_into_mic(concat([audio, Audio.silence(0.3)]))
            got: list[Audio] = []
            deadline = time.monotonic() + 8.0  # a busy machine reads the mic late
            while time.monotonic() < deadline:
                try:
                    got.append(heard.get(timeout=0.2))
                    deadline = time.monotonic() + 1.5
                except queue.Empty:
                    continue
            out.append(got)
            print(f"  {n + 1}/{len(items)} {speaker}: {text!r} -> {len(got)} utterance(s)",
                  file=sys.stderr)
    finally:
        stop.set()
        thread.join(timeout=10)
        mic.close()
    return out


def measure(items, live: list[list[Audio]], choices) -> list[dict]:
    from voiceagent.speech.stt import WhisperTranscriber

    base = Config()
    rows = []
    for label, model, beam, prompt, vocab, fallback in choices:
        stt = dataclasses.replace(base.stt, model=model, beam_size=beam, prompt=prompt,
                                  temperature_fallback=fallback)
        transcriber = WhisperTranscriber(stt, base.models_dir,
                                         vocabulary=VOCABULARY if vocab else [])
        transcriber.transcribe(items[0][2])  # warm up
        row = {"choice": label, "live_errors": 0, "file_errors": 0, "words": 0,
               "live_s": [], "mismatch": 0, "examples": []}
        for (speaker, text, audio), parts in zip(items, live, strict=True):
            ref = words(text)
            started = time.perf_counter()
            said = " ".join(str(transcriber.transcribe(p)) for p in parts)
            row["live_s"].append((time.perf_counter() - started) / max(1, len(parts)))
            from_file = str(transcriber.transcribe(audio))
            row["live_errors"] += wer(ref, words(said))[0]
            row["file_errors"] += wer(ref, words(from_file))[0]
            row["words"] += len(ref)
            row["mismatch"] += words(said) != words(from_file)
            if words(said) != ref:
                row["examples"].append(f"{speaker}: {text!r} -> {said!r}")
        rows.append(row)
        print(summary(row), file=sys.stderr)
    return rows


def summary(row: dict) -> str:
    n = row["words"]
    return (f"| {row['choice']} | {100 * row['live_errors'] / n:.1f} % | "
            f"{100 * row['file_errors'] / n:.1f} % | {statistics.median(row['live_s']):.2f} | "
            f"{statistics.mean(row['live_s']):.2f} | {row['mismatch']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one speaker, three choices")
    parser.add_argument("--choice", action="append", default=[],
                        help="only the choices with this label (repeatable)")
    parser.add_argument("--out", type=Path, help="write every row (with misheard examples)")
    args = parser.parse_args()
    items = clips()
    choices = CHOICES
    if args.choice:
        choices = [c for c in CHOICES if c[0] in args.choice]
    if args.quick:
        items, choices = items[: len(REQUESTS)], [CHOICES[0], CHOICES[2], CHOICES[7]]
    root = Path(tempfile.mkdtemp(prefix="voiceagent-measure-"))
    pulse = PulseServer(root)
    pulse.start()
    os.environ.update(pulse.env)  # before sounddevice is imported
    try:
        print(f"capturing {len(items)} requests on the live path", file=sys.stderr)
        live = capture(pulse, items)
    finally:
        pulse.stop()
    splits = sum(len(p) > 1 for p in live)
    missed = sum(not p for p in live)
    print(f"captured: {missed} missed, {splits} split in two or more", file=sys.stderr)
    rows = measure(items, live, choices)
    print(f"\n{len(items)} requests ({len(SPEAKERS) if not args.quick else 1} speakers), "
          f"{missed} missed and {splits} split at capture\n")
    print("| choice | WER live | WER file | s/utt median | s/utt mean | live != file |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(summary(row))
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
