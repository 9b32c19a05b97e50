"""The bench's figures: per-metric statistics of both pipelines, their ratio, the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

PIPELINES = ("streaming", "sequential")

Getter = Callable[[dict[str, Any]], Any]
METRICS: list[tuple[str, str, Getter]] = [
    ("first_audio", "time to first audio (s)", lambda t: t["timings"].get("first_audio")),
    ("total", "total turn time (s)", lambda t: t["timings"].get("total")),
    ("stt", "speech to text (s)", lambda t: t["timings"].get("stt_done")),
    ("llm_first_token", "LLM first token (s)", lambda t: t["llm_first_token_s"]),
    ("llm_reply", "LLM reply complete (s)", lambda t: t["timings"].get("answer_done")),
    ("first_sentence", "first sentence ready (s)", lambda t: t["timings"].get("first_sentence")),
    ("tokens_per_s", "LLM tokens/s", lambda t: t["tokens_per_s"]),
    ("stt_rtf", "STT real-time factor", lambda t: t["stt_rtf"]),
    ("tts_rtf", "TTS real-time factor", lambda t: t["tts_rtf"]),
    ("reply_audio_s", "spoken reply (s)", lambda t: t["reply_audio_s"] or None),
]
"""(key, label, how to read it from one turn); times are seconds since the end of speech."""
RATIOS = ("first_audio", "total")
"""The metrics whose streaming/sequential ratio of medians is reported."""


def describe(values: list[float]) -> dict[str, float] | None:
    """median, p90, min, max (and n) of the values; None when there are none."""
    if not values:
        return None
    a = np.asarray(values, dtype=float)
    return {"median": round(float(np.median(a)), 3),
            "p90": round(float(np.percentile(a, 90)), 3),
            "min": round(float(a.min()), 3), "max": round(float(a.max()), 3), "n": len(a)}


def summarize(turns: list[dict[str, Any]], *, setup: dict[str, Any],
              memory: dict[str, float | None]) -> dict[str, Any]:
    """The whole report (what --json writes): setup, statistics, ratios, WER, memory, turns."""
    summary: dict[str, dict[str, Any]] = {}
    for pipeline in PIPELINES:
        mine = [t for t in turns if t["pipeline"] == pipeline]
        summary[pipeline] = {
            key: describe([v for v in map(get, mine) if v is not None])
            for key, _label, get in METRICS
        }
    ratio = {}
    for key in RATIOS:
        s, q = summary["streaming"][key], summary["sequential"][key]
        ratio[key] = round(s["median"] / q["median"], 3) if s and q and q["median"] else None
    errors = sum(t["word_errors"] for t in turns)
    words = sum(t["words"] for t in turns)
    return {
        "setup": setup,
        "summary": summary,
        "ratio": ratio,
        "wer": {"rate": round(errors / words, 4) if words else None, "errors": errors,
                "words": words},
        "peak_rss_mb": memory,
        "turns": turns,
    }


def typical_pair(turns: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Both pipelines' turns on the question whose streaming time to first audio is the
    median: the turn a waterfall should show."""
    timed = sorted((t for t in turns if t["pipeline"] == "streaming"
                    and t["timings"].get("first_audio") is not None),
                   key=lambda t: t["timings"]["first_audio"])
    pick = timed[(len(timed) - 1) // 2] if timed else turns[0]
    return {t["pipeline"]: t for t in turns if t["turn"] == pick["turn"]}


def render_table(report: dict[str, Any]) -> str:
    """The report as a fixed-width table for the terminal (and README)."""
    s = report["setup"]
    lines = [
        f"voiceagent bench: LLM {s['llm']}, STT whisper {s['stt']}, TTS piper {s['tts']}; "
        f"{s['cpus']} CPUs ({s['machine']}); {s['turns_per_pipeline']} turns per pipeline "
        f"over {s['questions']} questions, warm-up excluded",
        "",
        f"{'':26}{'streaming':^28}  {'sequential':^28}  {'stream/seq':>10}",
        f"{'':26}" + f"{'median':>7}{'p90':>7}{'min':>7}{'max':>7}  " * 2 + f"{'(median)':>10}",
    ]
    for key, label, _get in METRICS:
        cells = "  ".join(_cells(report["summary"][p][key]) for p in PIPELINES)
        ratio = report["ratio"].get(key)
        lines.append(f"{label:26}{cells}  {'' if ratio is None else f'{ratio:.2f}':>10}")
    wer, rss = report["wer"], report["peak_rss_mb"]
    if wer["rate"] is not None:
        lines.append(f"\nword error rate of the transcripts: {wer['rate'] * 100:.1f} % "
                     f"({wer['errors']} errors in {wer['words']} words)")
    lines.append(f"peak memory (RSS): assistant {_mb(rss['assistant'])}, "
                 f"LLM server {_mb(rss['llm_server'])}")
    return "\n".join(lines)


def _cells(stats: dict[str, float] | None) -> str:
    if stats is None:
        return f"{'-':>7}" * 4
    return "".join(f"{stats[k]:7.2f}" for k in ("median", "p90", "min", "max"))


def _mb(value: float | None) -> str:
    return "n/a (not started by the bench)" if value is None else f"{value:.0f} MB"
