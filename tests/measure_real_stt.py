"""Speech to text on real recordings: slot-phrase recall and seconds per utterance per choice.

    .venv/bin/python -m tests.measure_real_stt [--clean N] [--noisy N] [--choice LABEL ...]
        [--moonshine DIR] [--out results.json]

The shared real set (../shared/speech, see its README): spoken coffee orders by 50+ speakers
with their slot phrases (labels.json), also with the kitchen noise mixed in at 20, 10 and 5 dB
SNR (speech power measured over the parts Silero VAD calls speech), plus the three repro
clips. Every file is transcribed offline (no devices: this measures the engine) by every
choice; the choices take turns clip by clip, starting with a different one each time, so a
busy machine slows them alike. Times are wall-clock seconds per utterance on this machine at
this moment: compare them only within one run, as ratios to today's default.

A slot phrase is heard when its words occur in order in the transcript's words (case,
punctuation and hyphens ignored, digits read as number words: "12-ounce" hears
"twelve ounce"). A sample (the first N files in name order) keeps a run short; say so.

`--moonshine DIR`: a directory on which `moonshine_onnx` (useful-moonshine-onnx) imports and
`moonshine_voice/assets/tiny-en` holds the .ort weights (pip download both wheels and unzip
them there); Moonshine is then measured too (not a project dependency).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tests.fixtures_audio import words
from voiceagent.audio import STT_RATE, Audio, load_audio
from voiceagent.config import Config

_ROOT = Path(__file__).resolve().parents[1]
SPEECH = next((p for p in (_ROOT.parent / "shared" / "speech",  # a checkout beside shared/
                           _ROOT.parent.parent / "shared" / "speech")  # a worktree in wt/
               if p.is_dir()), _ROOT.parent / "shared" / "speech")
SNRS = (20, 10, 5)
REPRO = {  # what each repro clip says (README of ../shared/speech/repro)
    "stp_set_a_timer_for_5_minutes.flac": ["set a timer for five minutes"],
    "stp_add_apples_to_my_shopping_list.flac": ["add apples to my shopping list"],
    "pv_picovoice_make_me_a_large_coffee.flac": ["make me a large coffee"],
}


def said(text: str) -> list[str]:
    """The words of `text` for comparison: tests.fixtures_audio.words, with a number glued to
    its unit split off and the written abbreviation of the one unit in the set read out
    ("12oz" -> "twelve ounce")."""
    text = re.sub(r"(\d)([a-zA-Z])", r"\1 \2", text)
    return ["ounce" if w == "oz" else w for w in words(text)]


def heard(phrase: str, transcript: str) -> bool:
    """`phrase`'s words occur in order, together, in the transcript's words."""
    want, got = said(phrase), said(transcript)
    return bool(want) and any(got[i:i + len(want)] == want
                              for i in range(len(got) - len(want) + 1))


# --- the choices --------------------------------------------------------------------------


class Today:
    """faster-whisper exactly as voiceagent called it before the short window (main@47e70e5):
    the 30 s window, VAD filter, beam 5, the prompt, the temperature fallback."""

    def __init__(self, model: str) -> None:
        from faster_whisper import WhisperModel

        from voiceagent.models import whisper_dir
        from voiceagent.speech.stt import FALLBACK_TEMPERATURES

        config = Config()
        self.stt = config.stt
        self.temperatures = list(FALLBACK_TEMPERATURES)
        threads = self.stt.threads or os.cpu_count() or 1
        self.model = WhisperModel(str(whisper_dir(model, config.models_dir)), device="cpu",
                                  compute_type="int8", cpu_threads=threads,
                                  local_files_only=True)
        self.last_window = "full"

    def transcribe(self, audio: Audio) -> str:
        pad = np.zeros(int(0.4 * STT_RATE), dtype=np.float32)
        samples = np.concatenate([pad, audio.samples, pad])
        segments, _ = self.model.transcribe(
            samples, language="en", beam_size=self.stt.beam_size, vad_filter=True,
            condition_on_previous_text=False, without_timestamps=True,
            initial_prompt=self.stt.prompt, temperature=self.temperatures)
        return " ".join(s.text.strip() for s in segments)


MOONSHINE = {  # where each size's .ort weights lie in its unzipped wheel
    "tiny": Path("moonshine_voice") / "assets" / "tiny-en",  # moonshine-voice 0.1.0
    "base": Path("moonshine_cpp-0.1.4.data") / "purelib" / "moonshine_cpp" / "models" / "base-en",
}


class Moonshine:
    """Moonshine tiny-en (.ort from moonshine-voice 0.1.0) or base-en (moonshine-cpp 0.1.4) on
    onnxruntime, greedy, after the same Silero VAD the Whisper choices use."""

    def __init__(self, root: Path, size: str = "tiny") -> None:
        sys.path.insert(0, str(root))
        from moonshine_onnx import load_tokenizer
        from moonshine_onnx.model import MoonshineOnnxModel

        self.model = MoonshineOnnxModel(
            models_dir=str(root / MOONSHINE[size]), model_name=size, model_format="ort")
        self.tokenizer = load_tokenizer()
        self.last_window = "moonshine"

    def transcribe(self, audio: Audio) -> str:
        from faster_whisper.vad import VadOptions, collect_chunks, get_speech_timestamps

        pad = np.zeros(int(0.4 * STT_RATE), dtype=np.float32)
        samples = np.concatenate([pad, audio.samples, pad])
        chunks = get_speech_timestamps(samples, VadOptions())
        if not chunks:
            return ""
        speech = np.concatenate(collect_chunks(samples, chunks)[0]).astype(np.float32)
        cap = int(len(speech) / STT_RATE * 6) + 10
        tokens = self.model.generate(speech[None], max_len=cap)
        return str(self.tokenizer.decode_batch(tokens, skip_special_tokens=True)[0])


def whisper(model: str, window: str, beam: int) -> Callable[[], object]:
    def make() -> object:
        from voiceagent.speech.stt import WhisperTranscriber

        config = Config()
        stt = dataclasses.replace(config.stt, model=model, window=window, beam_size=beam)
        return WhisperTranscriber(stt, config.models_dir)
    return make


CHOICES: dict[str, Callable[[], object]] = {
    "today: tiny.en full window, beam 5": lambda: Today("tiny.en"),
    "tiny.en full window, beam 5 (+ words)": whisper("tiny.en", "full", 5),
    "tiny.en short window, beam 5": whisper("tiny.en", "short", 5),
    "tiny.en short window, beam 1": whisper("tiny.en", "short", 1),
    "base short window, beam 5": whisper("base", "short", 5),
    "base short window, beam 1": whisper("base", "short", 1),
    "base full window, beam 5": whisper("base", "full", 5),
}
DEFAULT = ["today: tiny.en full window, beam 5", "tiny.en short window, beam 5",
           "tiny.en short window, beam 1", "base short window, beam 5"]
BASELINE = "today: tiny.en full window, beam 5"


# --- the clips ----------------------------------------------------------------------------


def mix(speech: Audio, noise: np.ndarray, snr_db: float, offset: int) -> Audio:
    """`speech` with the noise under it at `snr_db`, power measured over the speech parts."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    s = speech.samples
    chunks = get_speech_timestamps(s, VadOptions(speech_pad_ms=0))
    voiced = np.concatenate([s[c["start"]:c["end"]] for c in chunks]) if chunks else s
    start = offset % (len(noise) - len(s))
    n = noise[start:start + len(s)]
    gain = np.sqrt(np.mean(voiced ** 2) / (np.mean(n ** 2) * 10 ** (snr_db / 10)))
    return Audio(np.clip(s + gain * n, -1, 1).astype(np.float32), STT_RATE)


def clips(clean: int, noisy: int, offset: int = 0) -> list[tuple[str, str, Audio, list[str]]]:
    """(condition, file, audio, slot phrases) for the sample: files offset.. in name order."""
    labels = json.loads((SPEECH / "commands" / "labels.json").read_text())
    names = sorted(labels)[offset:]
    noise = load_audio(SPEECH / "noise" / "kitchen.flac").samples
    out = []
    for name, phrases in REPRO.items():
        out.append(("repro", name, load_audio(SPEECH / "repro" / name), phrases))
    for i, name in enumerate(names[:max(clean, noisy)]):
        audio = load_audio(SPEECH / "commands" / name)
        phrases = [p.strip() for p in labels[name]["slots"].values() if p.strip()]
        if i < clean:
            out.append(("clean", name, audio, phrases))
        if i < noisy:
            for snr in SNRS:
                out.append((f"{snr} dB", name, mix(audio, noise, snr, 7919 * i), phrases))
    return out


# --- measuring ----------------------------------------------------------------------------


class Fallbacks(logging.Handler):
    """Catches stt.py's debug line when a short decoding is dropped: why, what it said, when."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.last: tuple[str, str, float] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("short window") and isinstance(record.args, tuple):
            why, text = record.args
            self.last = (str(why), str(text), record.created)


def measure(items: list[tuple[str, str, Audio, list[str]]], labels: list[str],
            engines: dict[str, object], out: Path | None = None) -> list[dict]:
    """Every clip by every choice; each row also appended to `out` (JSON lines) as it comes,
    so a run cut short keeps what it measured."""
    rows = []
    caught = Fallbacks()
    stt_log = logging.getLogger("voiceagent.speech.stt")
    stt_log.addHandler(caught)
    stt_log.setLevel(logging.DEBUG)
    for n, (condition, name, audio, phrases) in enumerate(items):
        order = labels[n % len(labels):] + labels[:n % len(labels)]
        for label in order:
            engine = engines[label]
            caught.last = None
            wall, started = time.time(), time.perf_counter()
            said = engine.transcribe(audio)  # type: ignore[attr-defined]
            seconds = time.perf_counter() - started
            found = [heard(p, str(said)) for p in phrases]
            why, short, at = caught.last or ("", "", wall)
            rows.append({
                "choice": label, "condition": condition, "file": name, "text": str(said),
                "seconds": seconds, "phrases": phrases, "found": found,
                "window": getattr(engine, "last_window", ""),
                "doubt": getattr(said, "doubt", ""),
                "words": list(getattr(said, "words", ())),
                # a dropped short decoding: why, what it said, seconds until it was dropped
                "short_why": why, "short_text": short, "short_seconds": at - wall,
                "short_found": [heard(p, short) for p in phrases] if why else [],
            })
            if out is not None:
                with out.open("a") as f:
                    f.write(json.dumps(rows[-1]) + "\n")
        if n % 20 == 0:
            print(f"  {n + 1}/{len(items)} {condition} {name}", file=sys.stderr, flush=True)
    return rows


def table(rows: list[dict], labels: list[str], condition: str) -> list[str]:
    base = [r["seconds"] for r in rows if r["choice"] == BASELINE and r["condition"] == condition]
    if not any(r["condition"] == condition for r in rows):
        return []
    out = [f"\n**{condition}** ({len(base) or '?'} clips)\n",
           "| choice | slot-phrase recall | clips with every slot | vs today: won / lost "
           "| s/utt median | s/utt p90 | speed vs today (median) | short window kept |",
           "|---|---|---|---|---|---|---|---|"]
    today = {r["file"]: all(r["found"]) for r in rows
             if r["choice"] == BASELINE and r["condition"] == condition}
    for label in labels:
        mine = [r for r in rows if r["choice"] == label and r["condition"] == condition]
        if not mine:
            continue
        found = [f for r in mine for f in r["found"]]
        whole = sum(all(r["found"]) for r in mine)
        secs = sorted(r["seconds"] for r in mine)
        p90 = secs[min(len(secs) - 1, int(0.9 * len(secs)))]
        ratio = statistics.median(secs) / statistics.median(base) if base else float("nan")
        kept = sum(r["window"] == "short" for r in mine)
        short = f"{100 * kept / len(mine):.0f} %" if "short" in label else "-"
        won = sum(all(r["found"]) and not today.get(r["file"], True) for r in mine)
        lost = sum(not all(r["found"]) and today.get(r["file"], False) for r in mine)
        out.append(f"| {label} | {100 * sum(found) / len(found):.1f} % | "
                   f"{whole}/{len(mine)} ({100 * whole / len(mine):.1f} %) | {won} / {lost} | "
                   f"{statistics.median(secs):.3f} | {p90:.3f} | {ratio:.2f}x | {short} |")
    return out


def fallbacks(rows: list[dict], labels: list[str]) -> list[str]:
    """Why short decodings were dropped, and what keeping the merely doubtful ones (mean
    log-probability between -1 and -0.5: the turn still doubts them) would have given."""
    out = ["\n**Short window dropped** (per condition: why; then every-slot clips and median "
           "seconds as run, and if a merely doubtful short decoding were kept)\n",
           "| choice | condition | no words | cap | loop | garbled | doubtful | every slot as "
           "run | if doubtful kept | s median as run | if doubtful kept |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for label in labels:
        if "short" not in label:
            continue
        for condition in ["clean", *[f"{s} dB" for s in SNRS]]:
            mine = [r for r in rows if r["choice"] == label and r["condition"] == condition]
            if not mine:
                continue
            why = [r["short_why"] for r in mine]
            counts = [sum(w == "heard no words" for w in why), sum("cap" in w for w in why),
                      sum("twice" in w for w in why), sum(w.startswith("garbled") for w in why),
                      sum(w.startswith("avg_logprob") for w in why)]
            kept = [r["short_why"].startswith("avg_logprob") for r in mine]
            whole = sum(all(r["found"]) for r in mine)
            whole_kept = sum(all(r["short_found"] if k else r["found"])
                             for r, k in zip(mine, kept, strict=True))
            secs = statistics.median(r["seconds"] for r in mine)
            secs_kept = statistics.median(r["short_seconds"] if k else r["seconds"]
                                          for r, k in zip(mine, kept, strict=True))
            out.append(f"| {label} | {condition} | " + " | ".join(map(str, counts)) +
                       f" | {whole}/{len(mine)} | {whole_kept}/{len(mine)} | {secs:.3f} | "
                       f"{secs_kept:.3f} |")
    return out


def lowest(row: dict) -> float:
    """The least sure word of a transcript (1.0 without words)."""
    return min((p for _, p in row["words"]), default=1.0)


def auc(missed: list[float], whole: list[float]) -> float:
    """How often a misheard clip's least sure word is less sure than a whole clip's (0.5 =
    no better than chance, 1 = always)."""
    pairs = [(m < w) + 0.5 * (m == w) for m in missed for w in whole]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def confidence(rows: list[dict], labels: list[str]) -> list[str]:
    """How well the per-word probability and the doubt flag point at misheard clips."""
    out = ["\n**Confidence** (clean and noisy together): of the clips with a slot phrase "
           "missed, the share whose transcript is doubted or has a word below a probability; "
           "the same for the clips heard whole (questions the turn would ask for nothing); "
           "AUC of the least sure word between the two\n",
           "| choice | missed clips | doubt set | word < 0.5 | word < 0.2 | whole clips: doubt "
           "| word < 0.5 | word < 0.2 | AUC |", "|---|---|---|---|---|---|---|---|---|"]
    for label in labels:
        mine = [r for r in rows if r["choice"] == label and r["condition"] != "repro"
                and r["words"]]
        if not mine:
            continue
        missed = [r for r in mine if not all(r["found"])]
        whole = [r for r in mine if all(r["found"])]
        cells = []
        for group in (missed, whole):
            n = max(1, len(group))
            cells += [f"{100 * sum(bool(r['doubt']) for r in group) / n:.0f} %",
                      f"{100 * sum(lowest(r) < 0.5 for r in group) / n:.0f} %",
                      f"{100 * sum(lowest(r) < 0.2 for r in group) / n:.0f} %"]
        score = auc([lowest(r) for r in missed], [lowest(r) for r in whole])
        out.append(f"| {label} | {len(missed)} | " + " | ".join(cells) + f" | {score:.2f} |")
    return out


def word_cost(items: list[tuple[str, str, Audio, list[str]]], n: int) -> list[str]:
    """What the per-word probabilities cost on each window: the decoding itself against the
    align passes that score its words (medians over the first `n` clean clips)."""
    from faster_whisper import WhisperModel

    from voiceagent.models import whisper_dir
    from voiceagent.speech.whisper_decode import WhisperDecoder

    config = Config()
    model = WhisperModel(str(whisper_dir("tiny.en", config.models_dir)), device="cpu",
                         compute_type="int8", cpu_threads=config.stt.threads or os.cpu_count()
                         or 1, local_files_only=True)
    decoder = WhisperDecoder(model, language="en", beam_size=config.stt.beam_size)
    prompt = decoder.prompt(config.stt.prompt)
    times: dict[str, list[float]] = {k: [] for k in ("short", "short words", "full",
                                                      "full words")}
    clean = [i for i in items if i[0] == "clean"][:n]
    for _, _, audio, _ in clean:
        pad = np.zeros(int(0.4 * STT_RATE), dtype=np.float32)
        features = decoder.features(decoder.speech(np.concatenate([pad, audio.samples, pad])))
        for window in ("short", "full"):
            started = time.perf_counter()
            if window == "short":
                decoded, encoded = decoder.short(features, prompt)
            else:
                full, encoded = decoder.full(features, prompt, (0.0,))
                if full is None:
                    continue
                decoded = full
            middle = time.perf_counter()
            decoder.with_words(decoded, encoded, prompt, features)
            times[window].append(middle - started)
            times[f"{window} words"].append(time.perf_counter() - middle)
    out = [f"\n**Per-word probabilities: cost** (tiny.en, beam {config.stt.beam_size}, "
           f"{len(clean)} clean clips, median seconds)\n",
           "| window | decoding | scoring the words | share |", "|---|---|---|---|"]
    for window in ("short", "full"):
        d, w = statistics.median(times[window]), statistics.median(times[f"{window} words"])
        out.append(f"| {window} | {d:.3f} | {w:.3f} | {100 * w / (d + w):.0f} % |")
    return out


def report(rows: list[dict], labels: list[str], title: str) -> list[str]:
    lines = [title]
    for condition in ["clean", *[f"{s} dB" for s in SNRS]]:
        lines += table(rows, labels, condition)
    lines += fallbacks(rows, labels)
    lines += confidence(rows, labels)
    lines.append("\n**Repro clips**\n")
    lines += ["| choice | " + " | ".join(REPRO) + " |", "|---|" + "---|" * len(REPRO)]
    for label in labels:
        texts = {r["file"]: r["text"] for r in rows if r["choice"] == label
                 and r["condition"] == "repro"}
        lines.append(f"| {label} | " + " | ".join(repr(texts.get(f, "")) for f in REPRO) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", type=int, default=400, help="clean files (first N)")
    parser.add_argument("--noisy", type=int, default=100,
                        help="files with noise mixed in, at each SNR (first N)")
    parser.add_argument("--choice", action="append", default=[], choices=list(CHOICES),
                        help="measure this choice (repeatable); default: " + "; ".join(DEFAULT))
    parser.add_argument("--moonshine", type=Path, help="also measure Moonshine from here")
    parser.add_argument("--moonshine-size", action="append", choices=list(MOONSHINE),
                        help="which Moonshine (repeatable; default tiny)")
    parser.add_argument("--offset", type=int, default=0, help="skip the first N files")
    parser.add_argument("--out", type=Path,
                        help="append every transcript and time here as JSON lines")
    parser.add_argument("--word-cost", type=int, default=0, metavar="N",
                        help="also time the per-word scoring on N clean clips")
    parser.add_argument("--tables-from", type=Path, metavar="JSON",
                        help="print the tables of a saved run (--out), rescoring its transcripts")
    args = parser.parse_args()
    if args.tables_from:
        text = args.tables_from.read_text()
        rows = json.loads(text) if text.startswith("[") else [
            json.loads(line) for line in text.splitlines() if line.strip()]
        for r in rows:
            r.setdefault("short_why", "")
            r.setdefault("short_text", "")
            r.setdefault("short_seconds", r["seconds"])
            r["found"] = [heard(p, r["text"]) for p in r["phrases"]]
            r["short_found"] = [heard(p, r["short_text"]) for p in r["phrases"]] \
                if r.get("short_why") else []
        labels = list(dict.fromkeys(r["choice"] for r in rows))
        print("\n".join(report(rows, labels, "saved run " + str(args.tables_from))))
        return 0
    labels = args.choice or list(DEFAULT)
    if BASELINE not in labels:
        labels.insert(0, BASELINE)
    engines = {label: CHOICES[label]() for label in labels}
    for size in (args.moonshine_size or ["tiny"]) if args.moonshine else []:
        labels.append(f"Moonshine {size}-en")
        engines[f"Moonshine {size}-en"] = Moonshine(args.moonshine, size)
    items = clips(args.clean, args.noisy, args.offset)
    for engine in engines.values():  # warm up: first calls pay for allocations
        engine.transcribe(items[0][2])  # type: ignore[attr-defined]
    print(f"{len(items)} clips x {len(labels)} choices", file=sys.stderr)
    rows = measure(items, labels, engines, args.out)
    lines = report(rows, labels, f"{args.clean} clean files from file {args.offset + 1}, "
                   f"{args.noisy} with noise at each of {SNRS} dB, 3 repro clips")
    if args.word_cost:
        lines += word_cost(items, args.word_cost)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
