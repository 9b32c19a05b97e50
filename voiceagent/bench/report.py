"""The bench's figures: what one turn's events measure, word errors, statistics over turns,
the streaming/sequential ratio, and the table."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from voiceagent.agent.events import Event
from voiceagent.assistant import timings_from
from voiceagent.tools.words import numbers_in

PIPELINES = ("streaming", "sequential")

Getter = Callable[[dict[str, Any]], Any]
METRICS: list[tuple[str, str, Getter]] = [
    ("first_audio", "time to first audio (s)", lambda t: t["timings"].get("first_audio")),
    ("total", "total turn time (s)", lambda t: t["timings"].get("total")),
    ("stt", "speech to text (s)", lambda t: t["timings"].get("stt_done")),
    ("llm_first_token", "LLM wait for 1st token (s)", lambda t: t["llm_first_token_s"]),
    ("llm_reply", "LLM reply complete (s)", lambda t: t["timings"].get("answer_done")),
    ("first_sentence", "first sentence ready (s)", lambda t: t["timings"].get("first_sentence")),
    ("tokens_per_s", "LLM tokens/s", lambda t: t["tokens_per_s"]),
    ("stt_rtf", "STT real-time factor", lambda t: t["stt_rtf"]),
    ("tts_rtf", "TTS real-time factor", lambda t: t["tts_rtf"]),
    ("reply_audio_s", "spoken reply (s)", lambda t: t["reply_audio_s"] or None),
    ("other_cpu_s", "CPU taken by others (s)", lambda t: t["other_cpu_s"]),
]
"""(key, label, how to read it from one turn); times are seconds since the end of speech,
except the LLM wait, which counts from the request."""
RATIOS = ("first_audio", "total")
"""The metrics whose streaming/sequential ratio of medians is reported."""


def words(text: str) -> list[str]:
    """Lower-case words, punctuation dropped, spoken numbers as digits, so "What is 17 plus
    25?" and "what is seventeen plus twenty-five" count as the same words."""
    return re.findall(r"[a-z0-9']+", numbers_in(text.replace("-", " ")).lower())


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(substitutions + deletions + insertions, reference words): Levenshtein over words."""
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1], len(ref)


def turn_figures(events: list[Event], t0: float,
                 spans: list[tuple[str, float, float, float]]) -> dict[str, Any]:
    """Timings, per-stage spans (seconds since end of speech) and rates of one turn."""
    timings = timings_from(events)
    stage: dict[str, list[list[Any]]] = {"stt": [], "llm_wait": [], "llm_write": [],
                                         "tools": [], "tts": [], "playback": []}
    if "stt_done" in timings:
        stage["stt"].append([0.0, timings["stt_done"]])
    request = first = None
    tokens = steps = 0
    for e in events:
        if e.type == "request":
            request, first = e.t, None
        elif e.type == "first_token" and request is not None:
            first = e.t
            stage["llm_wait"].append([round(request, 3), round(e.t, 3)])
        elif e.type == "reply" and request is not None:
            stage["llm_write"].append([round(first or request, 3), round(e.t, 3)])
            tokens += int(e.fields.get("output_tokens") or 0)
            steps += 1
        elif e.type == "tool_result":
            start = e.t - float(e.fields.get("seconds") or 0)
            stage["tools"].append([round(start, 3), round(e.t, 3), e.fields.get("name")])
    made = {"tts": 0.0, "playback": 0.0}
    for name, start, end, audio_s in spans:
        stage[name].append([round(start - t0, 3), round(end - t0, 3)])
        made[name] += audio_s
    writing = sum(end - start for start, end in stage["llm_write"])
    tts_s = sum(end - start for start, end in stage["tts"])
    audio_s = next((e.fields["audio_s"] for e in events if e.type == "speech_end"), 0.0)
    return {
        "timings": timings,
        "stages": stage,
        "llm_first_token_s": _round(stage["llm_wait"][0][1] - stage["llm_wait"][0][0]
                                    if stage["llm_wait"] else None),
        "output_tokens": tokens,
        "tokens_per_s": _round((tokens - steps) / writing if writing > 0 and tokens > steps
                               else None),
        "stt_rtf": _round(timings["stt_done"] / audio_s if audio_s and "stt_done" in timings
                          else None),
        "tts_rtf": _round(tts_s / made["tts"] if made["tts"] else None),
        "reply_audio_s": round(made["playback"], 3),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


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
        f"over {s['questions']} questions, warm-up excluded; load average at start "
        f"{s.get('load_average_at_start', '?')}",
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
