"""First token after the end of the words, with and without the prefill (issue 25 item 3), on
real speech, the real 1.5B server, in one run:

    flock /work/heavy.lock .venv/bin/python -m tests.measure_prefill --json bench-out/prefill.json

Each recording is played at the speed of a microphone (a paced block source: one 32 ms block
every 32 ms, so the listener's drafts and the turn run in wall time, as live) into the kiosk's
own parts: MicRecorder with the drafts wired by `modes.early_end` (real Silero, tiny.en drafts,
smart-turn), the Assistant `build_assistant` makes for the kiosk (real Whisper for the final
transcript, the real embedded llama.cpp server with the default 1.5B, greedy), with a silent
synthesizer and player (the first token is measured; the turn is stopped at its first
sentence). Before every turn the conversation is the same short one, kept warm (as after any
turn), so the two variants differ only by the prefill. Both variants run on every recording,
in alternating order, in the same process: compare them as ratios within the run.

Recordings: voiceagent/bench/questions (the bench's own; with `[agent] local_commands` off, as
`bench --live` measures the LLM path) and every 67th of ../shared/speech/commands plus the
repro "Picovoice, make me a large coffee" (real voices; nothing can order coffee, the model
answers). Then one pass with local commands on counts the prefill requests (local commands
must have none). The end of the words comes from the clean recording (measure_real_endpoint).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import queue
import statistics
import sys
import threading
import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tests.measure_real_endpoint import ROOT, SHARED, references
from voiceagent.audio import STT_RATE, Audio, concat, load_audio
from voiceagent.config import Config
from voiceagent.config_file import load_config
from voiceagent.speech.vad import BLOCK

BLOCK_S = BLOCK / STT_RATE
LEAD_S, TAIL_S = 1.0, 3.0
"""Silence before each recording, and after it (the room goes on)."""
STRIDE = 67
"""Every STRIDE-th real command recording (a fixed spread, not chosen by result)."""


class PacedSource:
    """A BlockSource playing one clip at the speed of a microphone: block i is handed over
    at t0 + (i + 1) * 32 ms, and what the listener has not read yet is queued (as a device
    queues it while a draft is judged)."""

    name = "paced recording"

    def __init__(self, audio: Audio, paused: threading.Event) -> None:
        n = -(-len(audio.samples) // BLOCK)
        samples = np.zeros(n * BLOCK, np.float32)
        samples[: len(audio.samples)] = audio.samples
        self._blocks = samples.reshape(n, BLOCK)
        self._paused = paused
        self._queue: queue.Queue[tuple[np.ndarray, bool]] = queue.Queue()
        self._stop = threading.Event()
        self.t0 = time.monotonic()
        threading.Thread(target=self._run, name="paced-source", daemon=True).start()

    def _run(self) -> None:
        for i, block in enumerate(self._blocks):
            if self._stop.wait(max(0.0, self.t0 + (i + 1) * BLOCK_S - time.monotonic())):
                return
            self._queue.put((block, self._paused.is_set()))

    def read(self, timeout: float = 0.1) -> tuple[np.ndarray, bool] | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self, keep: int = 0) -> list[tuple[np.ndarray, bool]]:
        return []

    def queued(self) -> int:
        return self._queue.qsize()

    def close(self) -> None:
        self._stop.set()


@dataclass
class Run:
    clip: str
    variant: str
    """prefill, none, or local (local commands on, prefill on)."""
    round: int
    split: int = 0
    """Utterances cut before the words ended (not answered here)."""
    cut_s: float | None = None
    """From the end of the words to the cut."""
    first_token_s: float | None = None
    """From the end of the words to the model's first token (None: no model request)."""
    stt_s: float | None = None
    """From the cut to the final transcript."""
    drafts: list[str] = dataclasses.field(default_factory=list)
    """The words of each draft heard as finished."""
    prefilled: list[str | None] = dataclasses.field(default_factory=list)
    """What the read-ahead requests sent in this run (the words; None: keep-warm)."""
    final: str = ""
    stop: str = ""


def clips() -> list[tuple[str, Path]]:
    from voiceagent.bench.spoken_questions import QUESTIONS_DIR

    out = [(f"bench/{p.stem}", p) for p in sorted(QUESTIONS_DIR.glob("*.wav"))]
    labels = json.loads((SHARED / "commands" / "labels.json").read_text())
    out += [(f"commands/{n}", SHARED / "commands" / n) for n in sorted(labels)[::STRIDE]]
    out.append(("repro/pv_picovoice_make_me_a_large_coffee.flac",
                SHARED / "repro" / "pv_picovoice_make_me_a_large_coffee.flac"))
    return out


BASE = None  # the conversation before every turn, built in main()


def one(assistant: Any, drafts: Any, config: Config, name: str, audio: Audio, end_s: float,
        variant: str, rnd: int) -> Run:
    """Play one recording into the kiosk's listener and answer the utterance that holds the
    end of the words."""
    from voiceagent.sound.recorder import MicRecorder

    run = Run(name, variant, rnd)
    assistant.history = list(BASE or [])
    assistant.warmer.warm(assistant.history)
    assistant.warmer.settled(300)
    sent = len(assistant.warmer.sent)
    prefill = assistant.prefill
    ahead = assistant.transcriber  # the ReadAhead modes.early_end put in front of Whisper

    def finished(text: str) -> None:
        run.drafts.append(text)
        if variant != "none":
            prefill(text)

    ahead.on_ready = finished
    played = concat([Audio.silence(LEAD_S), audio, Audio.silence(TAIL_S)])
    sources: list[PacedSource] = []
    mic = MicRecorder(config.audio, source=lambda paused: sources.append(
        PacedSource(played, paused)) or sources[-1])
    mic.drafts = drafts
    stop = threading.Event()
    for utterance in mic.utterances(stop):
        now = time.monotonic()
        words_end = sources[0].t0 + LEAD_S + end_s
        if now < words_end:
            run.split += 1
            continue
        run.cut_s = round(now - words_end, 3)
        outcome = assistant.answer_audio(utterance, speech_end=now)
        run.final, run.stop = outcome.transcript or "", outcome.stop
        t = outcome.timings
        if "first_token" in t:
            run.first_token_s = round(run.cut_s + t["first_token"], 3)
        if "stt_done" in t:
            run.stt_s = t["stt_done"]
        stop.set()
    mic.close()
    assistant.warmer.settled(300)
    run.prefilled = list(assistant.warmer.sent[sent:])
    ahead.on_ready = None
    return run


def summary(runs: list[Run]) -> str:
    rows = ["| variant | turns | first token after the words, median / p90 | cut after the "
            "words, median | final transcript = the last finished draft | prefill requests |",
            "|---|---|---|---|---|---|"]
    for variant in ("none", "prefill", "local"):
        group = [r for r in runs if r.variant == variant]
        if not group:
            continue
        ft = sorted(r.first_token_s for r in group if r.first_token_s is not None)
        cuts = [r.cut_s for r in group if r.cut_s is not None]
        same = sum(bool(r.drafts) and r.drafts[-1].strip() == r.final.strip() for r in group)
        words = sum(1 for r in group for p in r.prefilled if p is not None)
        p90 = ft[min(len(ft) - 1, int(0.9 * len(ft)))] if ft else float("nan")
        rows.append(f"| {variant} | {len(group)} | "
                    f"{statistics.median(ft) if ft else float('nan'):.2f} s / {p90:.2f} s | "
                    f"{statistics.median(cuts) if cuts else float('nan'):.2f} s | "
                    f"{same} of {len(group)} | {words} |")
    pairs = {}
    for r in runs:
        if r.variant in ("none", "prefill") and r.first_token_s is not None:
            pairs.setdefault((r.clip, r.round), {})[r.variant] = r
    both = [p for p in pairs.values() if len(p) == 2]
    hits = [p for p in both if p["prefill"].drafts
            and p["prefill"].drafts[-1].strip() == p["prefill"].final.strip()]
    lines = ["\n".join(rows), ""]
    for label, group in (("all paired turns", both), ("the draft said the final words", hits)):
        if group:
            diff = [p["none"].first_token_s - p["prefill"].first_token_s for p in group]
            ratio = [p["prefill"].first_token_s / p["none"].first_token_s for p in group]
            lines.append(f"{label} ({len(group)}): first token sooner by "
                         f"{statistics.median(diff):.2f} s median (with / without "
                         f"{statistics.median(ratio):.2f} median)")
    return "\n".join(lines)


def main() -> None:
    global BASE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--config", type=Path, help="a config file (default: the defaults)")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench-out" / "prefill-data",
                        help="sessions and the server's saved prompt prefix")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="only the first N recordings")
    parser.add_argument("--model", default="", help="[llm] model (default: the config's)")
    args = parser.parse_args()

    from voiceagent.agent.events import Events, Sentence
    from voiceagent.agent.messages import Message
    from voiceagent.build import build_assistant
    from voiceagent.front_end import KIOSK
    from voiceagent.modes import early_end
    from voiceagent.testing import FakeSynthesizer, RecordingPlayer

    BASE = [Message("user", "Hello there."), Message("assistant", "Hello! How can I help?")]
    config = load_config(args.config) if args.config else Config()
    config = dataclasses.replace(
        config, llm=dataclasses.replace(config.llm, temperature=0.0,
                                        model=args.model or config.llm.model),
        paths=dataclasses.replace(config.paths, data_dir=str(args.data_dir),
                                  models_dir=str(config.models_dir)))
    chosen = clips()[: args.limit or None]
    refs = references([(n, p, []) for n, p in chosen])
    audio = {n: load_audio(p) for n, p in chosen}
    runs: list[Run] = []
    with ExitStack() as stack:
        events = Events()
        assistant = build_assistant(config, stack, front_end=KIOSK, player=RecordingPlayer(),
                                    events=events, synthesizer=FakeSynthesizer(),
                                    allow_demo=False)
        assert assistant.keep_warm, "the kiosk on the embedded server keeps warm"
        # the first token is what is measured: each turn stops at its first sentence
        events.subscribe(lambda e: assistant.interrupt() if isinstance(e, Sentence) else None)
        local = assistant.agent.local
        holder = type("Recorder", (), {"drafts": None})()
        for variant_set, local_on in ((("prefill", "none"), False), (("local",), True)):
            assistant.agent.local = local if local_on else None
            early_end(config, assistant, holder)  # the drafts as the kiosk wires them
            drafts = holder.drafts
            rounds = args.rounds if not local_on else 1
            for rnd in range(rounds):
                for i, (name, _p) in enumerate(chosen):
                    if name not in refs:
                        continue
                    order = variant_set if (i + rnd) % 2 == 0 else variant_set[::-1]
                    for variant in order:
                        run = one(assistant, drafts, config, name, audio[name],
                                  refs[name]["end"], variant, rnd)
                        runs.append(run)
                        print(f"{variant:8} r{rnd} {name[-44:]:44} cut {run.cut_s} first "
                              f"token {run.first_token_s} stt {run.stt_s} split {run.split} "
                              f"final {run.final!r} drafts {run.drafts} prefilled "
                              f"{run.prefilled}", file=sys.stderr, flush=True)
        assistant.agent.local = local
    if args.json:
        args.json.parent.mkdir(exist_ok=True)
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=0))
    print(f"\n{len(chosen)} recordings, {args.rounds} rounds, LLM "
          f"{config.llm.model or 'default'}\n")
    print(summary(runs))


if __name__ == "__main__":
    main()
