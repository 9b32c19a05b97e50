"""Soak driver for scripts/soak.sh: N mixed turns spoken into a live kiosk's microphone.

A private PulseAudio (tests/pulse.py) stands in for the sound card; `voiceagent run --mode
kiosk` runs on it with its own embedded LLM server. Each turn plays a recorded or synthesised
question (local commands, LLM answers, tool errors), or silence, or noise, then samples the
assistant's and the LLM server's RSS, open file descriptors and threads. At the end: the
slope of each per 100 turns (after warm-up), every failed turn, and whether every answered
turn's user and assistant lines are in the session file. Exit 1 on growth or failures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.pulse import PulseServer  # noqa: E402
from voiceagent.agent.session import SessionStore  # noqa: E402
from voiceagent.audio import STT_RATE, Audio, concat, read_wav  # noqa: E402

QUESTIONS = REPO / "voiceagent" / "bench" / "questions"
# (kind, recorded WAV stem or text to synthesise)
TURNS: list[tuple[str, str]] = [
    ("local", "q01"),                                  # What time is it?
    ("llm", "What is the capital of France?"),
    ("local", "q02"),                                  # seventeen plus twenty five
    ("silence", ""),
    ("local", "Add apples to my shopping list."),
    ("llm", "q06"),                                    # a fun fact about the moon
    ("tool_error", "Remove unicorns from my shopping list."),
    ("noise", ""),
    ("local", "q07"),                                  # what day of the week
    ("local", "q05"),                                  # good morning (a greeting template)
    ("llm", "Who wrote Romeo and Juliet?"),
    ("tool_error", "Cancel my pasta timer."),
    ("local", "What is on my shopping list?"),
]
LIMITS = {"assistant_rss_mb": 50.0, "server_rss_mb": 50.0, "assistant_fds": 10.0,
          "server_fds": 10.0, "assistant_threads": 10.0, "server_threads": 10.0}
"""Largest growth per 100 turns that passes (--max-rss-growth overrides the RSS ones): a leak
of one fd or thread per turn is 100, of 1 MB per turn 100 MB."""


STEP = 2
"""A count (fds, threads) that rose by no more than this after warm-up is not a leak, however
steep its slope over a short run: a connection pool's second connection or a lazily started
thread opens once, while a leak keeps rising."""


def _typical_step(values: list[float]) -> float:
    """The median change from one turn to the next, per 100 turns. A leak adds to RSS on every
    turn, so its median step is the leak; warm-up (allocator arenas, caches) adds in a few
    large steps between flat turns, so its median step is near 0 however steep the slope of a
    short run. A slower machine runs more threads at once and takes more, larger steps: the
    13-turn CI soak measured 473 and then 1,894 MB per 100 turns by slope on unchanged code."""
    steps = np.diff(np.array(values, float))
    return float(np.median(steps) * 100) if steps.size else 0.0


def _rise(values: list[float]) -> float:
    """How far the count's floor rose: the lowest of the last third of the run against the
    lowest of the first. A leak keeps rising; a turn that briefly holds a few more fds or
    threads (a keep-warm request beside the answer) drops back and is no rise."""
    if not values:
        return 0.0
    third = max(1, len(values) // 3)
    return min(values[-third:]) - min(values[:third])


@dataclass
class Sample:
    turn: int
    kind: str
    seconds: float
    outcome: str
    assistant: dict[str, float] = field(default_factory=dict)
    server: dict[str, float] = field(default_factory=dict)


class Kiosk:
    """`voiceagent run --mode kiosk`, its log collected line by line."""

    def __init__(self, config: Path, env: dict[str, str], log: Path) -> None:
        self.log = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "voiceagent", "--config", str(config), "run"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO,
            env={**os.environ, **env})
        self.lines: list[str] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.write(line)
            self.log.flush()
            with self._cond:
                self.lines.append(line.rstrip())
                self._cond.notify_all()

    def wait_for(self, pattern: str, start: int, timeout: float) -> str | None:
        """The first line from index `start` on matching `pattern`, or None at timeout."""
        deadline = time.monotonic() + timeout
        seen = start
        with self._cond:
            while True:
                for line in self.lines[seen:]:
                    if re.search(pattern, line):
                        return line
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self._cond.wait(min(left, 1.0))

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=60)
        finally:
            self.log.close()


def proc_stats(pid: int | None) -> dict[str, float]:
    """RSS (MB), open fds and threads of a live process; {} if it is gone."""
    if pid is None:
        return {}
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return {}
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    return {"rss_mb": round(rss, 1), "fds": fds, "threads": threads}


def server_pid(parent: int) -> int | None:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
            if ppid == parent and b"voiceagent.llm.host" in cmdline:
                return int(stat.parent.name)
        except (OSError, ValueError, IndexError):
            continue
    return None


def slope_per_100(xs: list[int], ys: list[float]) -> float:
    if len(xs) < 2 or len(set(xs)) < 2:
        return 0.0
    return float(np.polyfit(np.array(xs, float), np.array(ys, float), 1)[0] * 100)


def make_audio(kind: str, what: str, synth: object) -> Audio:
    if kind == "silence":
        return Audio.silence(3.0)
    if kind == "noise":
        rng = np.random.default_rng(7)
        return Audio((rng.standard_normal(2 * STT_RATE) * 0.05).astype(np.float32), STT_RATE)
    if re.fullmatch(r"q\d\d", what):
        return concat([Audio.silence(0.6), read_wav(QUESTIONS / f"{what}.wav")
                       .resampled(STT_RATE), Audio.silence(1.2)])
    return synth(what)  # type: ignore[operator,no-any-return]


def synthesiser() -> object:
    from piper import PiperVoice, SynthesisConfig

    from voiceagent.config import Config
    from voiceagent.models import piper_voice

    config = Config()
    voice = PiperVoice.load(piper_voice(config.tts.voice, config.models_dir))
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, volume=0.7)

    def make(text: str) -> Audio:
        chunks = list(voice.synthesize(text, syn_config=steady))
        spoken = Audio(np.concatenate([c.audio_float_array for c in chunks]),
                       chunks[0].sample_rate)
        return concat([Audio.silence(0.6), spoken.resampled(STT_RATE), Audio.silence(1.2)])

    return make


def run(turns: int, model: str, work: Path, out: Path | None) -> int:
    data = work / "data"
    config = work / "config.toml"
    config.write_text(f'[llm]\nmodel = "{model}"\n[paths]\ndata_dir = "{data}"\n'
                      f'[session]\nmax_turns = {turns + 10}\n'  # the size cap still applies
                      '[audio]\nchime = false\n[trigger]\nmode = "kiosk"\n')
    pulse = PulseServer(work / "pulse")
    (work / "pulse").mkdir()
    pulse.start()
    synth = synthesiser()
    clips = {what: make_audio(kind, what, synth) for kind, what in TURNS}
    kiosk = Kiosk(config, pulse.env, work / "kiosk.log")
    samples: list[Sample] = []
    failures: list[str] = []
    try:
        if kiosk.wait_for("kiosk mode ready", 0, 300) is None:
            print("the kiosk did not start; see", work / "kiosk.log")
            return 1
        for n in range(turns):
            kind, what = TURNS[n % len(TURNS)]
            mark = len(kiosk.lines)
            t0 = time.monotonic()
            pulse.play_into_mic(clips[what])
            if kind in ("silence", "noise"):
                heard = kiosk.wait_for(r"heard: (?!\(nothing\))", mark, 4.0)
                outcome = "ignored" if heard is None else f"answered noise: {heard}"
                if heard is not None:
                    kiosk.wait_for(r"turn over", mark, 120)
            else:
                line = kiosk.wait_for(r"turn over \(", mark, 240)
                outcome = re.sub(r".*turn over \((\w+)\).*", r"\1", line) if line else "timeout"
            if outcome in ("timeout", "error") or kiosk.proc.poll() is not None:
                why = [ln.strip() for ln in kiosk.lines[mark:]
                       if re.search(r"\b(?:ERROR|WARNING|error)\b", ln)][-2:]
                failures.append(f"turn {n} ({kind} {what!r}): {outcome}"
                                + (f" ({' / '.join(why)})" if why else ""))
            time.sleep(0.5)
            s = Sample(n, kind, round(time.monotonic() - t0, 2), outcome,
                       proc_stats(kiosk.proc.pid), proc_stats(server_pid(kiosk.proc.pid)))
            samples.append(s)
            print(json.dumps(asdict(s)), flush=True)
            if kiosk.proc.poll() is not None:
                break
    finally:
        code = kiosk.stop()
        pulse.stop()
    if code != 0:
        failures.append(f"the kiosk exited with {code}")
    failures += missing_from_session(kiosk.lines, data / "sessions" / "default.jsonl")
    report = summarise(samples, failures)
    print(json.dumps(report, indent=1))
    if out is not None:
        out.write_text(json.dumps({"report": report, "samples": [asdict(s) for s in samples]},
                                  indent=1))
    return 0 if report["ok"] else 1


def missing_from_session(lines: list[str], session: Path) -> list[str]:
    """Every heard question and spoken answer since the oldest turn the session still keeps
    (it is bounded by turns and by size, to fit the model's context) must be in the file, in
    order; turns before it were dropped on purpose, and their count is not a failure."""
    messages = SessionStore(session, 10**6).load()
    users = [m.text.strip() for m in messages if m.role == "user"]
    assistants = " ".join(m.text for m in messages if m.role == "assistant")
    said = []
    for line in lines:
        for key, role in (("heard: ", "user"), ("answered: ", "assistant")):
            if key in line:
                text = line.split(key, 1)[1].strip()
                if text and text != "(nothing)":
                    said.append((role, text))
    if not users:
        return ["the session file holds no turn"] if said else []
    # The kept window is the last len(users) questions heard (the same question recurs, so
    # align from the end, not by the first match).
    heard_at = [i for i, (role, _) in enumerate(said) if role == "user"]
    first = heard_at[-len(users)] if len(users) <= len(heard_at) else 0
    missing = []
    for role, text in said[first:]:
        if role == "user" and not any(text in u or u in text for u in users):
            missing.append(f"user line not in the session: {text!r}")
        elif role == "assistant" and text not in assistants:
            missing.append(f"assistant line not in the session: {text!r}")
    return missing


def summarise(samples: list[Sample], failures: list[str]) -> dict[str, object]:
    # Allocator arenas and model caches fill during the first dozens of turns (RSS steps up,
    # then stays flat): the slope that decides is the one after the first third.
    warm = max(2, len(samples) // 3)
    slopes, slopes_all = {}, {}
    for who in ("assistant", "server"):
        for key in ("rss_mb", "fds", "threads"):
            for target, part in ((slopes, samples[warm:]), (slopes_all, samples)):
                pairs = [(s.turn, getattr(s, who)[key]) for s in part if getattr(s, who)]
                target[f"{who}_{key}"] = round(slope_per_100([p[0] for p in pairs],
                                                             [p[1] for p in pairs]), 2)
    rise = {f"{who}_{key}": _rise([getattr(s, who)[key] for s in samples[warm:]
                                    if getattr(s, who)])
            for who in ("assistant", "server") for key in ("fds", "threads")}
    typical = {f"{who}_rss_mb": round(_typical_step([getattr(s, who)["rss_mb"]
                                                      for s in samples[warm:]
                                                      if getattr(s, who)]), 2)
               for who in ("assistant", "server")}
    growth = [f"{k} grows {v} per 100 turns (limit {LIMITS[k]})"
              for k, v in slopes.items()
              if v > LIMITS[k] and rise.get(k, STEP + 1) > STEP
              and typical.get(k, LIMITS[k] + 1) > LIMITS[k]]
    last = samples[-1] if samples else None
    return {
        "turns": len(samples), "warm_up_turns": warm, "slope_per_100_turns": slopes,
        "slope_per_100_turns_with_warm_up": slopes_all, "median_rss_step_per_100": typical,
        "first": asdict(samples[0]) if samples else None,
        "last": asdict(last) if last else None,
        "failed_turns": failures, "growth": growth,
        "median_turn_s": float(np.median([s.seconds for s in samples])) if samples else 0,
        "ok": bool(samples) and not failures and not growth,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("turns", type=int)
    p.add_argument("--model", default=os.environ.get("SOAK_MODEL", "qwen2.5-coder-0.5b"))
    p.add_argument("--json", type=Path, help="write the report and samples here")
    p.add_argument("--keep", action="store_true", help="keep the work folder (logs, data)")
    p.add_argument("--max-rss-growth", type=float, default=LIMITS["assistant_rss_mb"],
                   help="MB per 100 turns that still passes (short runs are noisy: raise it)")
    args = p.parse_args()
    LIMITS["assistant_rss_mb"] = LIMITS["server_rss_mb"] = args.max_rss_growth
    work = Path(tempfile.mkdtemp(prefix="voiceagent-soak-"))
    print(f"soak: {args.turns} turns, model {args.model}, work folder {work}", flush=True)
    try:
        return run(args.turns, args.model, work, args.json)
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
