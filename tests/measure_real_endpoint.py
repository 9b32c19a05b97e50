"""End of utterance on real recordings, offline: where the cut falls after the last word, and
how many requests are cut at a pause, with the code before and after a change, in one run.

    flock /work/heavy.lock .venv/bin/python -m tests.measure_real_endpoint --limit 100 \
        --before main --json bench-out/real_endpoint.json

The recorder (sound/recorder.py: real Silero, the cutter, drafts with real Whisper tiny.en,
the real local-command templates and, after, the real smart-turn) is fed each recording
through testing.FakeBlockSource, as fast as it reads: every decision is taken in stream time,
so the figures are the audio's, not this machine's. Recordings: ../shared/speech/commands (real
coffee orders by 50+ speakers; every `--limit`-th one evenly spread) and repro/, clean and with
../shared/speech/noise/kitchen.flac mixed in at 20, 10 and 5 dB SNR; 3 s of silence (or of the
noise) follow each recording, as the room goes on after the file.

The end of the words comes from the clean recording itself (`end_of_words`, docs/endpointing.md
says why). "Before" runs the same measurement in a subprocess on `git archive <ref>
voiceagent`, wired as that code wires itself (drafts reuse their transcript there).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from tests.fixtures_audio import words
from voiceagent.audio import STT_RATE, Audio, load_audio
from voiceagent.config import Config
from voiceagent.config_file import config_from_dict

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((p / "shared" / "speech" for p in (ROOT.parent, ROOT.parent.parent)
               if (p / "shared" / "speech").is_dir()), ROOT.parent / "shared" / "speech")
"""../shared/speech from the project root (or from a worktree's parent)."""
CACHE = ROOT / "bench-out" / "real_endpoint_reference.json"
PAD_S = 3.0
CONDITIONS = ("clean", "20 dB", "10 dB", "5 dB")
BLOCK_S = 512 / STT_RATE


# --- the recordings and where their words end ------------------------------------------------


def recordings(limit: int) -> list[tuple[str, Path, list[str]]]:
    """(name, path, slot phrases): the repro clips, then every n-th command."""
    out = []
    repro = json.loads((ROOT / "tests" / "data" / "real" / "repro" / "labels.json").read_text())
    for name, label in repro.items():
        out.append((f"repro/{name}", SHARED / "repro" / name, list(label["slots"])))
    labels = json.loads((SHARED / "commands" / "labels.json").read_text())
    names = sorted(labels)
    step = max(1, len(names) // limit) if limit else 1
    for name in names[::step][: limit or None]:
        out.append((f"commands/{name}", SHARED / "commands" / name,
                    list(labels[name]["slots"].values())))
    return out


def levels_db(samples: np.ndarray) -> np.ndarray:
    """The level of every 10 ms frame over the 30 ms around it, dB full scale."""
    frames = samples[: len(samples) // 160 * 160].reshape(-1, 160).astype(np.float64)
    power = np.convolve(np.mean(frames ** 2, axis=1), np.ones(3) / 3, mode="same")
    return 10 * np.log10(power + 1e-12)


def end_of_words(samples: np.ndarray, whisper_end: float) -> float:
    """Where the words end in a clean recording, in seconds.

    Whisper's word timestamps (base, on the whole file) find the last word but end it early
    (0.1-0.4 s on these clips), so the end is looked for in the audio after it: the last
    moment, up to 0.5 s past Whisper's end, that is louder than both the room right after
    the words (the median level 0.5-1.5 s past Whisper's end) + 6 dB and the speech's level
    (95th percentile of the file) - 35 dB. Room noise, breath and reverberation after the
    words stay under that; a soft last consonant does not."""
    level = levels_db(samples)
    at = int(whisper_end * 100)
    room = level[at + 50: at + 150]
    floor = float(np.median(room)) if len(room) else float(np.percentile(level, 10))
    threshold = max(floor + 6, float(np.percentile(level, 95)) - 35)
    window = level[at: at + 50]
    loud = np.flatnonzero(window > threshold)
    return (at + loud[-1] + 1) / 100 if len(loud) else whisper_end


def references(clips: list[tuple[str, Path, list[str]]]) -> dict[str, dict[str, Any]]:
    """Per recording: the end of the words and the speech level (cached in bench-out/)."""
    cache = json.loads(CACHE.read_text()) if CACHE.is_file() else {}
    missing = [c for c in clips if c[0] not in cache]
    if missing:
        from faster_whisper import WhisperModel

        from voiceagent.models import whisper_dir

        config = Config()
        model = WhisperModel(str(whisper_dir("base", config.models_dir)), device="cpu",
                             compute_type="int8", cpu_threads=2, local_files_only=True)
        for name, path, _slots in missing:
            samples = load_audio(path).samples
            lead = np.zeros(STT_RATE // 2, np.float32)  # Whisper mishears speech at sample 0
            segments, _ = model.transcribe(np.concatenate([lead, samples]), language="en",
                                           word_timestamps=True, vad_filter=False,
                                           condition_on_previous_text=False)
            said = [w for s in segments for w in (s.words or [])]
            if not said:
                print(f"no words found in {name}; skipped", file=sys.stderr)
                continue
            end = end_of_words(samples, said[-1].end - 0.5)
            begin = max(0.0, said[0].start - 0.5)
            power = float(np.mean(samples[int(begin * STT_RATE): int(end * STT_RATE)] ** 2))
            cache[name] = {"end": round(end, 3), "begin": round(begin, 3), "power": power,
                           "whisper_end": round(said[-1].end - 0.5, 3)}
        CACHE.parent.mkdir(exist_ok=True)
        CACHE.write_text(json.dumps(cache, indent=0))
    return cache


def mixed(name: str, path: Path, condition: str, power: float) -> Audio:
    """The recording, PAD_S of silence after it, kitchen noise under both at the SNR (of the
    noise against the words' own power), from a place in the noise that depends on the name."""
    samples = np.concatenate([load_audio(path).samples,
                              np.zeros(int(PAD_S * STT_RATE), np.float32)])
    if condition == "clean":
        return Audio(samples, STT_RATE)
    noise = _noise()
    offset = zlib.crc32(name.encode()) % (len(noise) - len(samples))
    part = noise[offset: offset + len(samples)]
    snr = float(condition.split()[0])
    gain = np.sqrt(power / np.mean(part ** 2) / 10 ** (snr / 10))
    return Audio((samples + gain * part).astype(np.float32), STT_RATE)


_NOISE: list[np.ndarray] = []


def _noise() -> np.ndarray:
    if not _NOISE:
        _NOISE.append(load_audio(SHARED / "noise" / "kitchen.flac").samples)
    return _NOISE[0]


# --- one run of the recorder -----------------------------------------------------------------


@dataclass
class Result:
    name: str
    condition: str
    variant: str
    cuts: list[float] = field(default_factory=list)
    """Stream time (s) at which each utterance was cut."""
    spans: list[float] = field(default_factory=list)
    """How long each utterance is (s)."""
    waited: float = 0.0
    """Silence waited before the cut that ended the words: from Silero's last speech block."""
    text: str = ""
    """The final transcript of the utterance that holds the end of the words."""
    judged: list[str] = field(default_factory=list)
    """The verdicts given at its pauses (after only)."""
    judge_s: list[float] = field(default_factory=list)
    """Wall-clock seconds each judgement took (draft + turn model) on this machine."""


def speech_start(result: Result, i: int, preroll_ms: int) -> float:
    """Where the speech of utterance `i` began, about: its cut less its length, plus the
    pre-roll kept before the speech."""
    return result.cuts[i] - result.spans[i] + preroll_ms / 1000


class Timed:
    """A transcriber that times its calls (to tell the judgements' cost)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.seconds = inner, []  # type: ignore[var-annotated]

    def transcribe(self, audio: Audio) -> Any:
        start = time.perf_counter()
        try:
            return self.inner.transcribe(audio)
        finally:
            self.seconds.append(time.perf_counter() - start)


def measure(variant: str, clips: list[tuple[str, Path, list[str]]], refs: dict[str, Any],
            conditions: list[str], audio: dict[str, Any] | None = None) -> list[Result]:
    """Every clip in every condition through the recorder as the code under test wires it,
    with the [audio] keys in `audio` changed."""
    from voiceagent.front_end import KIOSK
    from voiceagent.intents import LocalCommands
    from voiceagent.sound.recorder import MicRecorder
    from voiceagent.speech import drafts as drafts_module
    from voiceagent.speech.stt import WhisperTranscriber
    from voiceagent.speech.vad import BLOCK, SileroVAD
    from voiceagent.testing import FakeBlockSource
    from voiceagent.tools import ToolContext, build_tools

    config = Config()
    if audio:
        config = replace(config, audio=replace(config.audio, **audio))
    stt = WhisperTranscriber(config.stt, config.models_dir)
    new = hasattr(drafts_module.Drafts, "judge")
    turn = None
    if new:
        from voiceagent.speech.turn import load_turn_model

        turn = load_turn_model(config.audio.turn_model, config.models_dir)
    vad = SileroVAD()
    import voiceagent

    print(f"{variant}: voiceagent from {Path(voiceagent.__file__).parent}", file=sys.stderr)
    results = []
    with tempfile.TemporaryDirectory() as data:
        box = build_tools(config_from_dict({"paths": {"data_dir": data}}),
                          ToolContext(Path(data), KIOSK))
        local = LocalCommands(box.registry)

        def is_command(text: str) -> bool:
            return local.match(text) is not None

        for condition in conditions:
            for name, path, _slots in clips:
                if name not in refs:
                    continue
                clip = mixed(name, path, condition, refs[name]["power"])
                timed = Timed(stt)
                if new:
                    drafts = drafts_module.Drafts(
                        timed, turn, threshold=config.audio.turn_threshold, command=is_command)
                    judged: list[str] = []
                    judge = drafts.judge

                    def recorded(audio: Audio, *, short: bool = False, _j=judge,
                                 _l=judged) -> Any:
                        draft = _j(audio, short=short)
                        _l.append(draft.verdict.value)
                        return draft

                    drafts.judge = recorded  # type: ignore[method-assign]
                else:
                    drafts = drafts_module.Drafts(timed, is_command)
                    judged = []
                stop = threading.Event()
                source = FakeBlockSource(clip, done=stop)
                mic = MicRecorder(config.audio, source=lambda paused, s=source: s)
                mic.drafts = drafts
                result = Result(name, condition, variant, judged=judged)
                utterances = []
                for audio in mic.utterances(stop):
                    result.cuts.append(round(source.blocks_read * BLOCK_S, 3))
                    result.spans.append(round(audio.seconds, 3))
                    utterances.append(audio)
                result.judge_s = [round(s, 3) for s in timed.seconds]
                end = refs[name]["end"]
                holding = [i for i, _c in enumerate(result.cuts)
                           if speech_start(result, i, config.audio.preroll_ms) < end]
                if holding:
                    i = holding[-1]
                    final = drafts.transcribe if not new else stt.transcribe
                    result.text = str(final(utterances[i]))
                    vad.reset()
                    n = int(result.cuts[i] / BLOCK_S)
                    blocks = clip.samples[: n * BLOCK].reshape(n, BLOCK)
                    probs = np.array([vad(b) for b in blocks])
                    speech = np.flatnonzero(probs >= config.audio.vad_threshold)
                    last = (speech[-1] + 1) * BLOCK_S if len(speech) else 0.0
                    result.waited = round(result.cuts[i] - last, 3)
                results.append(result)
                print(f"{variant:6} {condition:5} {name[-40:]:40} cuts {result.cuts} end {end} "
                      f"{result.text!r} {result.judged}", file=sys.stderr, flush=True)
        box.close()
    return results


# --- the whole-file transcripts and the report ----------------------------------------------


def whole_texts(clips: list[tuple[str, Path, list[str]]], refs: dict[str, Any],
                conditions: list[str]) -> dict[str, str]:
    """What tiny.en hears in each whole recording, per condition (cached)."""
    cache_path = CACHE.with_name("real_endpoint_whole.json")
    cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    from voiceagent.speech.stt import WhisperTranscriber

    config = Config()
    stt = None
    for condition in conditions:
        for name, path, _slots in clips:
            key = f"{condition}|{name}"
            if key in cache or name not in refs:
                continue
            if stt is None:
                stt = WhisperTranscriber(config.stt, config.models_dir)
            cache[key] = str(stt.transcribe(mixed(name, path, condition, refs[name]["power"])))
    cache_path.parent.mkdir(exist_ok=True)
    cache_path.write_text(json.dumps(cache, indent=0))
    return cache


def found(phrases: list[str], text: str) -> set[str]:
    said = " " + " ".join(words(text)) + " "
    return {p for p in phrases if " " + " ".join(words(p)) + " " in said}


def verdict(result: Result, ref: dict[str, Any], slots: list[str], whole: str) -> dict[str, Any]:
    """What happened to one request: the cut after the words (of the last utterance whose
    speech began before the words ended); cut at a pause (more than one utterance began
    before the words ended, or the last of them misses slot words the whole file has);
    utterances cut from the noise after the words."""
    end, preroll = ref["end"], Config().audio.preroll_ms
    request = [i for i in range(len(result.cuts)) if speech_start(result, i, preroll) < end]
    lost = sorted(found(slots, whole) - found(slots, result.text))
    return {"after": result.cuts[request[-1]] - end if request else None,
            "split": len(request) != 1, "lost": lost,
            "noise": len(result.cuts) - len(request), "waited": result.waited}


def table(results: list[Result], refs: dict[str, Any], clips: list[tuple[str, Path, list[str]]],
          wholes: dict[str, str]) -> str:
    slots = {name: s for name, _p, s in clips}
    rows = ["| condition | code | requests | cut after the last word, median / p90 | "
            "cut at a pause (split / lost slot words) | silence waited, mean | noise cut as "
            "more utterances | judgements per request, each (median) |",
            "|---|---|---|---|---|---|---|---|"]
    groups: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        groups.setdefault((r.condition, r.variant), []).append(r)
    for (condition, variant), group in groups.items():
        checked = [(r, verdict(r, refs[r.name], slots[r.name],
                               wholes.get(f"{condition}|{r.name}", ""))) for r in group]
        after = sorted(v["after"] for _r, v in checked if v["after"] is not None)
        cut = [r.name for r, v in checked if v["split"] or v["lost"]]
        split = sum(v["split"] for _r, v in checked)
        lost = sum(bool(v["lost"]) and not v["split"] for _r, v in checked)
        noise = sum(v["noise"] > 0 for _r, v in checked)
        waited = [v["waited"] for _r, v in checked if v["after"] is not None]
        judge = [s for r in group for s in r.judge_s]
        per = statistics.mean(len(r.judge_s) for r in group)
        p90 = after[min(len(after) - 1, int(0.9 * len(after)))] if after else float("nan")
        rows.append(f"| {condition} | {variant} | {len(group)} | "
                    f"{statistics.median(after):.2f} s / {p90:.2f} s | "
                    f"{len(cut)} ({split} / {lost}) | {statistics.mean(waited):.2f} s | "
                    f"{noise} | {per:.1f}, {statistics.median(judge) if judge else 0:.2f} s |")
    return "\n".join(rows)


def cut_requests(results: list[Result], refs: dict[str, Any],
                 clips: list[tuple[str, Path, list[str]]], wholes: dict[str, str]) -> str:
    """Which requests were cut at a pause, and how (to read, not to tune on)."""
    slots = {name: s for name, _p, s in clips}
    lines = []
    for r in results:
        v = verdict(r, refs[r.name], slots[r.name], wholes.get(f"{r.condition}|{r.name}", ""))
        if v["split"] or v["lost"]:
            lines.append(f"- {r.condition}, {r.variant}: {r.name} cuts {r.cuts} (words end "
                         f"{refs[r.name]['end']}), lost {v['lost']}, heard {r.text!r}, "
                         f"verdicts {r.judged}")
    return "\n".join(lines)


def repro_rows(results: list[Result], refs: dict[str, Any]) -> str:
    rows = ["| clip | condition | code | cut after the words | utterances | transcript |",
            "|---|---|---|---|---|---|"]
    for r in results:
        if r.name.startswith("repro/"):
            end = refs[r.name]["end"]
            after = [f"{c - end:+.2f} s" for c in r.cuts]
            rows.append(f"| {r.name[6:-5]} | {r.condition} | {r.variant} | "
                        f"{', '.join(after)} | {len(r.cuts)} | {r.text} |")
    return "\n".join(rows)


def before_in_subprocess(ref: str, args: argparse.Namespace) -> list[Result]:
    """The same measurement on `git archive <ref> voiceagent`, in its own interpreter."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "voiceagent"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for name in ("models", "pyproject.toml"):  # a checkout's "models/" (config.py)
            (Path(tmp) / name).symlink_to(ROOT / name)
        out = Path(tmp) / "before.json"
        # run from tmp: `python -m` puts the working directory first on sys.path, so the old
        # voiceagent wins there and tests/ (this script) comes from this tree
        env = {**os.environ, "PYTHONPATH": f"{tmp}{os.pathsep}{ROOT}"}
        subprocess.run([sys.executable, "-m", "tests.measure_real_endpoint", "--as-before",
                        str(out), "--limit", str(args.limit), "--conditions", *args.conditions],
                       check=True, env=env, cwd=tmp)
        return [Result(**r) for r in json.loads(out.read_text())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=100, help="commands to use (0 = all 400)")
    parser.add_argument("--conditions", nargs="+", default=list(CONDITIONS),
                        choices=CONDITIONS)
    parser.add_argument("--before", metavar="GIT_REF", help="also measure this commit's code")
    parser.add_argument("--also", nargs="+", default=[], metavar="KEY=VALUE,...",
                        help="more variants of the code under test, each with these [audio] "
                        "keys changed (e.g. turn_end_ms=300 turn_model=)")
    parser.add_argument("--also-conditions", nargs="+", choices=CONDITIONS,
                        help="the conditions for --also (default: --conditions)")
    parser.add_argument("--json", type=Path, help="write every result here")
    parser.add_argument("--as-before", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    clips = recordings(args.limit)
    refs = references(clips)
    if args.as_before:  # the subprocess of before_in_subprocess
        results = measure("before", clips, refs, args.conditions)
        args.as_before.write_text(json.dumps([asdict(r) for r in results]))
        return
    wholes = whole_texts(clips, refs, args.conditions)
    results = before_in_subprocess(args.before, args) if args.before else []
    results += measure("after", clips, refs, args.conditions)
    for spec in args.also:
        changes = dict(item.split("=", 1) for item in spec.split(","))
        typed = {k: type(getattr(Config().audio, k))(v) for k, v in changes.items()}
        results += measure(f"after, {spec}", clips, refs,
                           args.also_conditions or args.conditions, typed)
    order = ["before", "after", *(f"after, {spec}" for spec in args.also)]
    results.sort(key=lambda r: (CONDITIONS.index(r.condition), order.index(r.variant)))
    if args.json:
        args.json.parent.mkdir(exist_ok=True)
        args.json.write_text(json.dumps({"results": [asdict(r) for r in results],
                                         "references": refs, "whole": wholes}, indent=0))
    digest = hashlib.sha256(json.dumps(sorted(refs)).encode()).hexdigest()[:8]
    print(f"\n{len(clips)} recordings (set {digest}), end of words from the clean audio\n")
    print(table(results, refs, clips, wholes))
    print()
    print(repro_rows(results, refs))
    print()
    print(cut_requests(results, refs, clips, wholes))


if __name__ == "__main__":
    main()
