"""`bench --live`'s figures: per clip, per group of requests (built-in commands, questions
for the model, unanswerable requests) and system, per wake-word gap, the ratios against the
peer, and the tables. Warm-up requests are reported apart, never in a median."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voiceagent.bench.clips import GROUPS
from voiceagent.bench.report import describe

Getter = Callable[[dict[str, Any]], Any]
TIMES: list[tuple[str, str]] = [
    ("endpoint", "cut"), ("stt_done", "transcript"), ("first_token", "1st token"),
    ("first_sound", "1st sound"), ("reply_onset", "reply onset"), ("total", "turn over")]
"""(timings key, column): seconds since the end of the words at the microphone."""
EVERYTHING = "everything"


def scored(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("role") != "warmup"]


def group_row(mine: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts and time statistics over some clips of one system."""
    judged = [r for r in mine if r.get("right") is not None]
    with_slots = [r for r in mine if r.get("slots")]
    words = sum(r.get("words", 0) for r in mine)
    return {
        "n": len(mine), "heard": sum(bool(r["heard"]) for r in mine),
        "answered": sum(bool(r["answered"]) for r in mine),
        "judged": len(judged), "right": sum(bool(r["right"]) for r in judged),
        "slot_clips": len(with_slots),
        "all_slots": sum(r["slots_heard"] == r["slots"] for r in with_slots),
        "slot_phrases": sum(r["slots"] for r in with_slots),
        "slot_phrases_heard": sum(r["slots_heard"] for r in with_slots),
        "wer": round(sum(r.get("word_errors", 0) for r in mine) / words, 4) if words else None,
        "cut_in_two": sum(r.get("turns", 0) > 1 for r in mine),
        "wake_transcribed": sum(bool(r.get("wake_transcribed")) for r in mine),
        "times": {key: describe([r["timings"][key] for r in mine
                                 if isinstance(r["timings"].get(key), (int, float))])
                  for key, _ in TIMES},
    }


def rows_by(records: list[dict[str, Any]], key: Callable[[dict[str, Any]], str]
            ) -> dict[str, dict[str, Any]]:
    """group_row per (variant, key(record)), plus each variant's "everything"."""
    out: dict[str, dict[str, Any]] = {}
    variants = list(dict.fromkeys(r["variant"] for r in records))
    for variant in variants:
        mine = [r for r in records if r["variant"] == variant]
        names = list(dict.fromkeys(sorted(map(key, mine), key=_order)))
        for name in names:
            out[f"{variant} | {name}"] = group_row([r for r in mine if key(r) == name])
        if len(names) > 1:
            out[f"{variant} | {EVERYTHING}"] = group_row(mine)
    return out


def _order(name: str) -> tuple[int, str]:
    return (GROUPS.index(name) if name in GROUPS else len(GROUPS), name)


def _median(records: list[dict[str, Any]], key: str) -> float | None:
    stats = describe([r["timings"][key] for r in records
                      if isinstance(r["timings"].get(key), (int, float))])
    return stats["median"] if stats else None


def peer_ratios(records: list[dict[str, Any]]) -> dict[str, Any]:
    """voiceagent / pipecat median reply onset per group, over the clips both replied to
    (voiceagent as configured: the first plain variant)."""
    plain = [r for r in scored(records) if r["system"] == "voiceagent" and r.get("gap_s") is None]
    peer = {r["clip"]: r for r in scored(records) if r["system"] == "pipecat"}
    if not plain or not peer:
        return {}
    ours = [r for r in plain if r["variant"] == plain[0]["variant"]]
    out: dict[str, Any] = {}
    for group in [*GROUPS, EVERYTHING]:
        pairs = [(r, peer[r["clip"]]) for r in ours
                 if (group == EVERYTHING or r["group"] == group) and r["clip"] in peer
                 and "reply_onset" in r["timings"] and "reply_onset" in peer[r["clip"]]["timings"]]
        a = _median([p[0] for p in pairs], "reply_onset")
        b = _median([p[1] for p in pairs], "reply_onset")
        if a is not None and b:
            out[group] = {"ratio": round(a / b, 3), "voiceagent": a, "pipecat": b,
                          "n": len(pairs)}
    return out


def other_ratios(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Local commands vs the same clips through the model (with --local-commands both), and
    the first request after start vs the same clip asked warm."""
    out: dict[str, Any] = {}
    local = [r for r in scored(records) if r["variant"] == "local on" and r["path"] == "local"]
    names = {r["clip"] for r in local}
    via_llm = [r for r in scored(records) if r["variant"] == "local off" and r["clip"] in names]
    a, b = _median(local, "reply_onset"), _median(via_llm, "reply_onset")
    if a and b:
        out["local_vs_llm_onset"] = round(a / b, 3)
    first = next((r for r in records if r.get("first_after_start")), None)
    if first is not None:
        warm = next((r for r in scored(records) if r["variant"] == first["variant"]
                     and r["clip"] == first["clip"]), None)
        x = first["timings"].get("reply_onset")
        y = warm["timings"].get("reply_onset") if warm else None
        if x and y:
            out["first_vs_warm_onset"] = round(x / y, 3)
    return out


def summarize_live(records: list[dict[str, Any]], *, setup: dict[str, Any]) -> dict[str, Any]:
    """The whole report (what --json writes)."""
    plain = [r for r in scored(records) if r.get("gap_s") is None]
    glued = [r for r in scored(records) if r.get("gap_s") is not None]
    return {"setup": setup,
            "groups": rows_by(plain, lambda r: r["group"]),
            "wake": rows_by(glued, lambda r: f"gap {r['gap_s']:g} s"),
            "peer_ratios": peer_ratios(records), "ratios": other_ratios(records),
            "false_wakes": setup.get("false_wakes"),
            "warmups": [r for r in records if r.get("role") == "warmup"],
            "clips": records}


def typical_turns(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per path (LLM, local command), voiceagent's turn with the median reply onset: the
    turns a waterfall should show."""
    out: dict[str, dict[str, Any]] = {}
    for path, label in (("local", "local command"), ("llm", "LLM")):
        timed = sorted((r for r in scored(records) if r["system"] == "voiceagent"
                        and r["path"] == path and r["timings"].get("reply_onset") is not None),
                       key=lambda r: r["timings"]["reply_onset"])
        if timed:
            out[label] = timed[(len(timed) - 1) // 2]
    return out


def render_clips(records: list[dict[str, Any]]) -> str:
    """One line per clip: what was heard, whether it was answered, and when."""
    lines = [f"{'system / clip':46} {'group':12} {'cut':>5} {'token':>5} {'sound':>5} "
             f"{'reply':>5}  ans  slots  transcript"]
    for r in records:
        t = r["timings"]
        slots = f"{r['slots_heard']}/{r['slots']}" if r.get("slots") else "-"
        role = " (warm-up)" if r.get("role") == "warmup" else ""
        lines.append(f"{(r['variant'] + ' ' + r['clip'])[-46:]:46} {r['group']:12} "
                     + " ".join(_num(t.get(k)) for k in ("endpoint", "first_token",
                                                          "first_sound", "reply_onset"))
                     + f"  {'yes' if r['answered'] else 'NO ':3}  {slots:5}  "
                     f"{r['transcript'][:60]!r}{role}")
    return "\n".join(lines)


def render_rows(rows: dict[str, dict[str, Any]], title: str) -> str:
    """A group table: counts, then median / p90 seconds since the end of the words."""
    head = (f"{title:34} {'n':>3} {'answered':>8} {'right':>6} {'slots':>7} {'WER':>5}"
            + "".join(f" {label:>11}" for _key, label in TIMES))
    lines = [head]
    for name, row in rows.items():
        right = f"{row['right']}/{row['judged']}" if row["judged"] else "-"
        slots = f"{row['all_slots']}/{row['slot_clips']}" if row["slot_clips"] else "-"
        wer = f"{row['wer'] * 100:.1f}%" if row["wer"] is not None else "-"
        cells = "".join(f" {_stat(row['times'][key]):>11}" for key, _ in TIMES)
        lines.append(f"{name:34} {row['n']:>3} {row['answered']:>4}/{row['n']:<3} {right:>6} "
                     f"{slots:>7} {wer:>5}{cells}")
    return "\n".join(lines)


def render_live(report: dict[str, Any]) -> str:
    """The report for the terminal (and README)."""
    s = report["setup"]
    lines = [render_clips(report["clips"]), "",
             f"voiceagent bench --live (kiosk as `run --mode kiosk` builds it): {s['clips']} "
             f"clips from {', '.join(s['folders'])}; LLM {s['llm']}, STT whisper {s['stt']}, "
             f"TTS piper {s['tts']}; prompt prefix {s.get('prefix_restore', 'n/a')}",
             f"{s.get('cpus')} CPUs, load average {s.get('load_average_at_start')} at start, "
             f"{s.get('load_average_at_end')} at end; peer: {s.get('peer', 'not run')}",
             "seconds since the end of the words at the microphone, median / p90; answered = "
             "the right kind of reply (an honest refusal for unanswerable requests); right = "
             "the judge's verdict where the labels say what is right; slots = clips with every "
             "slot phrase in the transcript", ""]
    if report["groups"]:
        lines += [render_rows(report["groups"], "variant | group"), ""]
    if report["wake"]:
        lines += [render_rows(report["wake"], "wake word | gap"), ""]
    fw = report.get("false_wakes")
    if fw:
        per = ", ".join(f"{name} {v['wakes']} in {v['hours'] * 60:.0f} min"
                        for name, v in fw["folders"].items())
        lines.append(f"false wakes (offline through the kiosk's gate): {fw['wakes']} in "
                     f"{fw['hours']:.2f} h = {fw['per_hour']} per hour ({per})")
    pr = report["peer_ratios"]
    if pr:
        lines.append("reply onset voiceagent / pipecat (median, same clips): " + ", ".join(
            f"{g} {v['ratio']:.2f}x ({v['voiceagent']:.2f} / {v['pipecat']:.2f} s, n {v['n']})"
            for g, v in pr.items()))
    if report["ratios"]:
        lines.append("ratios: " + ", ".join(f"{k} {v:.2f}" for k, v in report["ratios"].items()))
    for w in report["warmups"]:
        lines.append(f"warm-up ({w['variant']}, {w['clip']}, not in the medians): reply onset "
                     f"{_num(w['timings'].get('reply_onset')).strip()} s")
    return "\n".join(lines)


def _stat(stats: dict[str, float] | None) -> str:
    return "-" if stats is None else f"{stats['median']:.2f}/{stats['p90']:.2f}"


def _num(value: Any) -> str:
    return f"{value:5.2f}" if isinstance(value, (int, float)) else "    -"
