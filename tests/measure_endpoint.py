"""End-of-utterance figures on piper voices: how long after the last word the transcript is
ready, and how many people are cut off mid-sentence, with the fixed silence window and with
pauses judged by drafts and the turn model (speech/drafts.py). Real recordings:
tests/measure_real_endpoint.py. Not a test (no assertions); run:

    .venv/bin/python -m tests.measure_endpoint

Requests are piper's joe voice at several rates and pitches (tests/voices.py), some said in
one breath and some with a pause of 0.4-1.0 s mid-sentence: after a word a request cannot end
on ("set a timer for ... ten minutes") and after words that are a whole request on their own
("what time is it ... in Tokyo"). The microphone is the recorder's fake source fed as fast as
it reads, so "ready" counts audio time read plus the time transcription took.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from tests.voices import USERS, Speaker, say
from voiceagent.audio import Audio, concat
from voiceagent.config import AudioConfig, Config, config_from_dict
from voiceagent.intents import LocalCommands
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.drafts import Drafts
from voiceagent.speech.stt import WhisperTranscriber
from voiceagent.speech.turn import load_turn_model
from voiceagent.speech.vad import BLOCK_MS
from voiceagent.testing import FakeBlockSource
from voiceagent.tools import ToolContext, build_tools

ONE_BREATH = ["What time is it?", "Add milk to my shopping list.", "Tell me a joke.",
              "How many minutes are in three hours?", "Cancel the pasta timer.",
              "What's the date today?"]
UNFINISHED = [("Set a timer for", "ten minutes."), ("Remind me to", "water the plants."),
              ("Add eggs and", "bread to my list."), ("What is", "twelve times seven?"),
              ("Convert five miles to", "kilometers.")]
FINISHED_BEFORE = [("What time is it", "in Tokyo?"), ("Turn off the lights", "in the kitchen."),
                   ("Set a timer", "for twenty minutes."), ("Add apples", "to the shopping list.")]
PAUSES = (0.4, 0.7, 1.0)
TAIL_S = 2.5
SPEAKERS = [Speaker(), *USERS[:2]]


def clips() -> list[tuple[str, Audio, float]]:
    """(kind, audio, seconds of speech before the final silence)."""
    out = []
    for text, who in itertools.product(ONE_BREATH, SPEAKERS):
        out.append(("one breath", say(text, who, lead_s=0.5, tail_s=TAIL_S), 0.0))
    for (kind, pairs), pause, who in itertools.product(
            (("pause after an unfinished phrase", UNFINISHED),
             ("pause after a whole phrase", FINISHED_BEFORE)), PAUSES, SPEAKERS):
        for head, tail in pairs:
            out.append((kind, concat([say(head, who, lead_s=0.5, tail_s=0.0),
                                      Audio.silence(pause),
                                      say(tail, who, lead_s=0.0, tail_s=TAIL_S)]), pause))
    return out


def run(audio: Audio, config: AudioConfig, stt: WhisperTranscriber,
        drafts: Drafts | None) -> tuple[int, float]:
    """(utterances cut, seconds from the last word to the transcript being ready): audio read
    past the last word (a judgement's own time is in it: what arrived meanwhile was read),
    plus the transcription of the whole utterance after the recorder returned."""
    stop = threading.Event()
    source = FakeBlockSource(audio, done=stop)
    mic = MicRecorder(config, source=lambda paused: source)
    mic.drafts = drafts
    last_word = audio.seconds - TAIL_S
    cut, waited = 0, 0.0
    for heard in mic.utterances(stop):
        read_s = source.blocks_read * BLOCK_MS / 1000
        before = time.monotonic()
        stt.transcribe(heard)
        cut += 1
        waited = read_s - last_word + time.monotonic() - before
    return cut, waited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turn-end-ms", type=int, nargs="+", default=[200],
                        help="[audio] turn_end_ms values to compare with the fixed window")
    args = parser.parse_args()
    config = Config()
    stt = WhisperTranscriber(config.stt, config.models_dir)
    turn = load_turn_model(config.audio.turn_model, config.models_dir)
    with tempfile.TemporaryDirectory() as data:
        box = build_tools(config_from_dict({"paths": {"data_dir": data}}),
                          ToolContext(Path(data), "kiosk"))
        local = LocalCommands(box.registry)

        def is_command(text: str) -> bool:
            return local.match(text) is not None

        drafts = Drafts(stt, turn, threshold=config.audio.turn_threshold, command=is_command)
        variants: list[tuple[str, AudioConfig, Drafts | None]] = [
            (f"fixed {config.audio.silence_ms} ms window", config.audio, None)]
        for ms in args.turn_end_ms:
            variants.append((f"drafts + turn model, end at {ms} ms",
                             replace(config.audio, turn_end_ms=ms), drafts))
        rows: dict[tuple[str, str], list[tuple[int, float]]] = {}
        for kind, clip, pause in clips():
            label = f"{kind}, {pause:.1f} s" if pause else kind
            for how, audio, judge in variants:
                rows.setdefault((label, how), []).append(run(clip, audio, stt, judge))
        box.close()
    print("| requests | end of utterance | cut in two | transcript ready after the last "
          "word (median / p90) |")
    print("|---|---|---|---|")
    for (kind, how), results in rows.items():
        cut = sum(n > 1 for n, _ in results)
        waits = sorted(w for _, w in results)
        p90 = waits[min(len(waits) - 1, int(0.9 * len(waits)))]
        print(f"| {kind} ({len(results)}) | {how} | {cut} | "
              f"{statistics.median(waits):.2f} s / {p90:.2f} s |")


if __name__ == "__main__":
    main()
