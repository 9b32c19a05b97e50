"""What `voiceagent evaluate` reports: a progress line per case, a table per intent and
group, the README row per model and setting, and every case's details for --json."""

from __future__ import annotations

import dataclasses
import statistics
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voiceagent.bench.judge import Verdict
from voiceagent.bench.passes import Run


def tally(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """Counts for one row of a table (an intent, a group, a whole run)."""
    tools = [v for v in verdicts if v.right_args is not None]
    refusals = [v for v in verdicts if v.refused is not None]
    seconds = [v.observed.seconds for v in verdicts]
    return {
        "cases": len(verdicts),
        "right": sum(v.ok for v in verdicts),
        "right_tool": sum(v.right_tool for v in verdicts),
        "tool_cases": len(tools),
        "right_args": sum(bool(v.right_args) for v in tools),
        "invented": sum(bool(v.invented) for v in verdicts),
        "error_aloud": sum(bool(v.error_aloud) for v in verdicts),
        "forbidden": sum(bool(v.forbidden) for v in verdicts),
        "refusal_cases": len(refusals),
        "refused": sum(bool(v.refused) for v in refusals),
        # answered by a local command without any model request
        "local": sum(v.observed.local and not v.observed.llm_requests for v in verdicts),
        "median_s": round(statistics.median(seconds), 2) if seconds else 0.0,
        "max_s": round(max(seconds), 2) if seconds else 0.0,
    }


def _frac(k: int, n: int) -> str:
    return f"{k}/{n}" if n else "-"


def intent_table(verdicts: Sequence[Verdict]) -> str:
    """A compact text table: one row per intent, then one per group, then all."""
    rows: list[tuple[str, list[Verdict]]] = []
    by_intent: dict[str, list[Verdict]] = defaultdict(list)
    by_group: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_intent[v.case.intent].append(v)
        by_group[v.case.group].append(v)
    rows += sorted(by_intent.items())
    rows += [(f"[{g}]", vs) for g, vs in by_group.items()]
    rows.append(("[all]", list(verdicts)))
    head = (f"{'intent':24} {'n':>3} {'right':>7} {'tool':>7} {'args':>7} {'invent':>6} "
            f"{'aloud':>5} {'destr':>5} {'refuse':>7} {'local':>7} {'s/turn':>6}")
    lines = [head, "-" * len(head)]
    for name, vs in rows:
        t = tally(vs)
        lines.append(
            f"{name:24} {t['cases']:>3} {_frac(t['right'], t['cases']):>7} "
            f"{_frac(t['right_tool'], t['cases']):>7} {_frac(t['right_args'], t['tool_cases']):>7} "
            f"{t['invented']:>6} {t['error_aloud']:>5} {t['forbidden']:>5} "
            f"{_frac(t['refused'], t['refusal_cases']):>7} {_frac(t['local'], t['cases']):>7} "
            f"{t['median_s']:>6.2f}")
    return "\n".join(lines)


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f} %)" if n else "-"


def markdown_summary(runs: Sequence[Run[Verdict]]) -> str:
    """The README table: one row per model and local-commands setting."""
    lines = ["| model | local commands | built-in commands right | invented arguments | "
             "errors read aloud | honest refusals | chat right | near misses right | "
             "answered locally | median s/turn |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for run in runs:
        groups: dict[str, list[Verdict]] = defaultdict(list)
        for v in run.verdicts:
            groups[v.case.group].append(v)
        every = tally(run.verdicts)
        cmd, unsup = tally(groups["commands"]), tally(groups["unsupported"])
        chat, near = tally(groups["chat"]), tally(groups["near misses"])
        lines.append(
            f"| {run.model} | {run.local_commands} | {_pct(cmd['right'], cmd['cases'])} | "
            f"{every['invented']} | {every['error_aloud']} | "
            f"{_pct(unsup['refused'], unsup['cases'])} | {_pct(chat['right'], chat['cases'])} | "
            f"{_pct(near['right'], near['cases'])} | {_pct(every['local'], every['cases'])} | "
            f"{every['median_s']:.2f} |")
    return "\n".join(lines)


def case_line(v: Verdict) -> str:
    """One progress line: verdict, time, path, intent, request, what was called, problems."""
    o = v.observed
    path = "+".join(p for p in ("local" if o.local else "",
                                f"llm×{o.llm_requests}" if o.llm_requests else "") if p)
    calls = "; ".join(f"{c.name}({_short(c.args)}){'!' if c.error else ''}" for c in o.calls)
    line = (f"{'ok  ' if v.ok else 'MISS'} {o.seconds:5.1f}s {path or '-':6} {v.case.intent:20} "
            f"{v.case.say!r} -> {calls or '(no tool)'} | {o.answer[:70]!r}")
    return line if v.ok else f"{line}\n      {'; '.join(v.problems)}"


def _short(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())[:60]


def to_json(runs: Sequence[Run[Verdict]], corpus: Path) -> dict[str, Any]:
    """Everything measured: summaries per run and intent, and every case's details."""
    out: dict[str, Any] = {"corpus": str(corpus), "runs": []}
    for run in runs:
        by_intent: dict[str, list[Verdict]] = defaultdict(list)
        for v in run.verdicts:
            by_intent[v.case.intent].append(v)
        out["runs"].append({
            "model": run.model,
            "local_commands": run.local_commands,
            "summary": tally(run.verdicts),
            "intents": {k: tally(vs) for k, vs in sorted(by_intent.items())},
            "cases": [{
                "say": v.case.say, "intent": v.case.intent, "expected": v.case.tool,
                "ok": v.ok, "right_tool": v.right_tool, "right_args": v.right_args,
                "invented": list(v.invented), "error_aloud": v.error_aloud,
                "refused": v.refused, "forbidden": list(v.forbidden),
                "problems": list(v.problems), "answer": v.observed.answer,
                "stop": v.observed.stop, "local": v.observed.local,
                "llm_requests": v.observed.llm_requests, "seconds": v.observed.seconds,
                "calls": [dataclasses.asdict(c) for c in v.observed.calls],
            } for v in run.verdicts],
        })
    out["markdown"] = markdown_summary(runs)
    return out
