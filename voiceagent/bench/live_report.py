"""`bench --live`'s figures: statistics per variant and path, the target ratios, the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voiceagent.bench.report import describe

Getter = Callable[[dict[str, Any]], Any]
LIVE_METRICS: list[tuple[str, str, Getter]] = [
    ("endpoint", "utterance cut (endpoint)", lambda t: t["timings"].get("endpoint")),
    ("stt", "transcript ready", lambda t: t["timings"].get("stt_done")),
    ("llm_first_token", "LLM wait for 1st token *", lambda t: t.get("llm_first_token_s")),
    ("first_sentence", "first sentence ready", lambda t: t["timings"].get("first_sentence")),
    ("first_sound", "first sound heard", lambda t: t["timings"].get("first_sound")),
    ("reply_onset", "spoken reply starts", lambda t: t["timings"].get("reply_onset")),
    ("total", "turn over", lambda t: t["timings"].get("total")),
]
"""(key, label, how to read it from one turn): seconds since the end of the words at the
microphone, except the starred duration."""


def groups(turns: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Turns by "variant / path" (e.g. "local on / local", "local off / llm"), warm ones only:
    the first question after start is reported apart."""
    out: dict[str, list[dict[str, Any]]] = {}
    for t in turns:
        if t["role"] == "first" or t["stop"] == "not_heard":
            continue
        out.setdefault(f"{t['variant']} / {t['path']}", []).append(t)
    return out


def _median(turns: list[dict[str, Any]], key: str) -> float | None:
    get = dict((k, g) for k, _label, g in LIVE_METRICS)[key]
    stats = describe([v for v in map(get, turns) if v is not None])
    return stats["median"] if stats else None


def ratios(turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The issue's targets, each a ratio of reply onsets within this run:
    local / llm for the questions answered locally (with local commands off they took the
    LLM), and the first question after start / the same question asked again warm."""
    out: dict[str, Any] = {}
    local = [t for t in turns if t["variant"] == "local on" and t["path"] == "local"
             and t["role"] != "first"]
    names = {t["question"] for t in local}
    via_llm = [t for t in turns if t["variant"] == "local off" and t["question"] in names
               and t["role"] != "first"]
    a, b = _median(local, "reply_onset"), _median(via_llm, "reply_onset")
    out["local_vs_llm_onset"] = round(a / b, 3) if a and b else None
    first = next((t for t in turns if t["role"] == "first"), None)
    repeat = next((t for t in turns if t["role"] == "repeat"), None)
    if first and repeat:
        for key in ("reply_onset", "llm_first_token"):
            x, y = _median([first], key), _median([repeat], key)
            out[f"first_vs_warm_{key}"] = round(x / y, 3) if x and y else None
    return out


def summarize_live(turns: list[dict[str, Any]], *, setup: dict[str, Any]) -> dict[str, Any]:
    """The whole report (what --json writes)."""
    summary = {name: {key: describe([v for v in map(get, mine) if v is not None])
                      for key, _label, get in LIVE_METRICS}
               for name, mine in groups(turns).items()}
    first = next((t for t in turns if t["role"] == "first"), None)
    errors = sum(t.get("word_errors", 0) for t in turns)
    words = sum(t.get("words", 0) for t in turns)
    return {"setup": setup, "summary": summary, "first_after_start": first,
            "ratios": ratios(turns),
            "wer": {"rate": round(errors / words, 4) if words else None, "errors": errors,
                    "words": words},
            "turns": turns}


def typical_turns(turns: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per path (LLM, local command), the turn with the median reply onset: the turns a
    waterfall should show."""
    out: dict[str, dict[str, Any]] = {}
    for path, label in (("local", "local command"), ("llm", "LLM")):
        timed = sorted((t for t in turns if t["path"] == path and t["role"] != "first"
                        and t["timings"].get("reply_onset") is not None),
                       key=lambda t: t["timings"]["reply_onset"])
        if timed:
            out[label] = timed[(len(timed) - 1) // 2]
    return out


def render_live(report: dict[str, Any]) -> str:
    """The report as a fixed-width table for the terminal (and README)."""
    s = report["setup"]
    lines = [f"voiceagent bench --live (kiosk front end, {s.get('questions')} questions): LLM "
             f"{s['llm']}, STT whisper {s['stt']}, TTS piper {s['tts']}, endpoint silence "
             f"{s['silence_ms']} ms, chime {'on' if s['chime'] else 'off'}; prompt prefix "
             f"{s.get('prefix_restore', 'n/a')} in {s.get('prefix_restore_s', '-')} s",
             f"{s.get('cpus')} CPUs, load average {s.get('load_average_at_start')} at start, "
             f"{s.get('load_average_at_end')} at end; seconds since the end of the words at "
             "the microphone (median / p90, n)", ""]
    names = list(report["summary"])
    lines.append(f"{'':27}" + "".join(f"{n:>22}" for n in names))
    for key, label, _get in LIVE_METRICS:
        cells = "".join(_cell(report["summary"][n][key]) for n in names)
        lines.append(f"{label:27}{cells}")
    first = report["first_after_start"]
    if first:
        t = first["timings"]
        lines.append(f"\nfirst question after start ({first['question']}, {first['path']}): "
                     f"reply starts {_v(t.get('reply_onset'))} s, LLM wait "
                     f"{_v(first.get('llm_first_token_s'))} s")
    r = report["ratios"]
    lines.append("ratios: " + ", ".join(f"{k} {_v(v)}" for k, v in r.items()))
    wer = report["wer"]
    if wer["rate"] is not None:
        lines.append(f"word error rate: {wer['rate'] * 100:.1f} % ({wer['errors']} in "
                     f"{wer['words']} words)")
    return "\n".join(lines)


def _cell(stats: dict[str, float] | None) -> str:
    if stats is None:
        return f"{'-':>22}"
    return f"{stats['median']:>9.2f} /{stats['p90']:6.2f} ({stats['n']:>2})"


def _v(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, (int, float)) else "-"
