"""`voiceagent evaluate --requests FILE`: real people's requests through the real turn.

Each request gets its own assistant in a fresh data folder (after its intent's setup, e.g. a
shopping list holding milk), exactly as `evaluate` runs its corpus; slurp.py judges it. The
report: right overall and per scenario and intent, the failure classes with examples,
answers claiming what no tool did, writes on requests nothing serves, general questions
refused.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from voiceagent.bench.harness import evaluation_config, fresh_assistant
from voiceagent.bench.observe import observe_turn, observed_from, run_setup
from voiceagent.bench.passes import Report, Run, part_of, run_passes, show_rejudged
from voiceagent.bench.slurp import (
    Judged,
    Request,
    expectation_for,
    judge_request,
    load_expectations,
    load_requests,
    sample,
)
from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError

EXAMPLES = 3
"""Examples printed per failure class."""


def run_requests(config: Config, path: Path, *, model: str | None = None,
                 local: str | None = None, json_path: str | None = None, limit: int = 0,
                 seed: int = 0, intent: str = "", part: tuple[int, int] = (1, 1),
                 out: Callable[[str], None] = print) -> int:
    """Run a seeded, scenario-stratified sample of `path` (its `part` = (K, N): every N-th
    request from the K-th) and print the tables."""
    if not path.is_file():
        raise VoiceAgentError(f"--requests {path}: no such file (SLURP's devel split is "
                              "../shared/requests/slurp_devel.jsonl from the project root)")
    every = load_requests(path)
    chosen = part_of(sample([r for r in every if r.intent.startswith(intent)], limit, seed),
                     part)
    if not chosen:
        raise VoiceAgentError(f"no requests in {path} match --intent {intent!r}")
    per_intent, words, per_scenario = load_expectations()
    expectations = {r.intent: expectation_for(r.intent, per_intent, per_scenario)
                    for r in chosen}  # every intent known before the first turn
    config = evaluation_config(config, model)
    mix = Counter(r.scenario for r in every)

    def run_request(run_config: Config, req: Request) -> Judged:
        exp = expectations[req.intent]
        with fresh_assistant(run_config) as (assistant, data):
            run_setup(assistant, exp.setup, req.sentence)
            seen = observe_turn(assistant, req.sentence, data, run_config.tools.list_aliases)
        return judge_request(req, exp, seen, words)

    def saved(runs: Sequence[Run[Judged]]) -> dict[str, Any]:
        return {"requests": str(path), "seed": seed, "limit": limit, "part": list(part),
                "mix": dict(mix), "runs": [to_json(r.verdicts, mix) | {
                    "model": r.model, "local_commands": r.local_commands} for r in runs],
                "markdown": markdown(runs, mix)}

    run_passes(config, chosen, run_request, report(mix),
               what=f"{len(chosen)} of {len(every)} requests, seed {seed}, "
               f"part {part[0]}/{part[1]}",
               to_json=saved, local=local, json_path=json_path, out=out)
    return 0


def report(mix: Counter[str]) -> Report[Judged]:
    """How requests are printed (the README rows weighted to `mix`)."""
    return Report(line=line, tables=lambda judged: [
        table(judged, lambda j: j.request.scenario, "scenario"),
        table(judged, lambda j: j.request.intent, "intent"),
        failure_classes(judged)], markdown=lambda runs: markdown(runs, mix))


# --- reporting --------------------------------------------------------------------------------


def calls_text(j: Judged) -> str:
    return "; ".join(f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.args.items())})"
                     f"{'!' if c.error else ''}" for c in j.observed.calls) or "(no tool)"


def line(j: Judged) -> str:
    o = j.observed
    path = "local" if o.local and not o.llm_requests else f"llm×{o.llm_requests}"
    text = (f"{'ok  ' if j.ok else 'MISS'} {o.seconds:5.1f}s {path:6} {j.request.intent:24} "
            f"{j.request.sentence!r} -> {calls_text(j)[:90]} | {o.answer[:80]!r}")
    if j.ok:
        return text
    return text + "\n      " + "; ".join(f"{t}: {d}" for t, d in j.problems)


def summary(judged: Sequence[Judged], mix: Counter[str] | None = None) -> dict[str, Any]:
    """The headline counts of one run."""
    by_kind: dict[str, list[Judged]] = defaultdict(list)
    by_scenario: dict[str, list[Judged]] = defaultdict(list)
    for j in judged:
        by_kind[j.expect].append(j)
        by_scenario[j.request.scenario].append(j)
    weighted = None
    if mix:
        total = sum(mix[s] for s in by_scenario)
        weighted = round(100 * sum(mix[s] / total * sum(j.ok for j in js) / len(js)
                                   for s, js in by_scenario.items()), 1)
    return {
        "requests": len(judged),
        "right": sum(j.ok for j in judged),
        "right_weighted_pct": weighted,
        "unbacked_claims": sum(j.has("unbacked claim") for j in judged),
        "refuse_requests": len(by_kind["refuse"]),
        "writes_on_unserved": sum(j.has("write on unserved") for j in judged),
        "answer_requests": len(by_kind["answer"]),
        "general_refused": sum(j.has("general refused") for j in judged),
        "act_requests": len(by_kind["act"]),
        "act_right": sum(j.ok for j in by_kind["act"]),
        "asked_back": sum(j.asked_back for j in judged),
        # a write the model tried that the turn refused (a guard): no harm, but a near miss
        "writes_refused": sum(any(c.writes and c.error for c in j.observed.calls)
                              and j.expect != "act" for j in judged),
        "local": sum(j.observed.local and not j.observed.llm_requests for j in judged),
        "classes": dict(Counter(t for j in judged for t in dict.fromkeys(
            t for t, _ in j.problems)).most_common()),
    }


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f} %)" if n else "-"


def table(judged: Sequence[Judged], key: Callable[[Judged], str], title: str) -> str:
    """One row per group: right, and the failure classes' counts."""
    groups: dict[str, list[Judged]] = defaultdict(list)
    for j in judged:
        groups[key(j)].append(j)
    head = f"{title:26} {'expect':7} {'n':>4} {'right':>12}  failures"
    lines = [head, "-" * 72]
    for name, js in sorted(groups.items()):
        s = summary(js)
        kinds = "/".join(sorted({j.expect for j in js}))
        fails = ", ".join(f"{t} {n}" for t, n in s["classes"].items())
        lines.append(f"{name:26} {kinds:7} {len(js):>4} {_pct(s['right'], len(js)):>12}  "
                     f"{fails}")
    s = summary(judged)
    lines.append(f"{'[all]':26} {'':7} {len(judged):>4} {_pct(s['right'], len(judged)):>12}")
    return "\n".join(lines)


def failure_classes(judged: Sequence[Judged], examples: int = EXAMPLES) -> str:
    """Each failure class with its count and a few examples (what was asked, what it did)."""
    by_tag: dict[str, list[tuple[Judged, str]]] = defaultdict(list)
    for j in judged:
        for tag, detail in j.problems:
            if not any(x is j for x, _ in by_tag[tag]):
                by_tag[tag].append((j, detail))
    s = summary(judged)
    lines = [f"answered locally {s['local']}/{len(judged)}; asked back (allowed) "
             f"{s['asked_back']}; writes tried where none was wanted, refused by the turn "
             f"{s['writes_refused']}",
             "failure classes (requests with each; one request can have several):"]
    for tag, hits in sorted(by_tag.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"  {tag}: {len(hits)}")
        for j, detail in hits[:examples]:
            lines.append(f"    {j.request.intent}: {j.request.sentence!r} -> {calls_text(j)[:80]}"
                         f" | {j.observed.answer[:70]!r}  [{detail[:70]}]")
    return "\n".join(lines)


def markdown(runs: Sequence[Run[Judged]], mix: Counter[str]) -> str:
    """The README rows: one per model and local-commands setting."""
    lines = ["| model | local commands | requests | right | right, weighted to devel's mix | "
             "built-in commands right | answers claiming what no tool did | writes on "
             "requests nothing serves | general questions refused |",
             "|---|---|---|---|---|---|---|---|---|"]
    for run in runs:
        s = summary(run.verdicts, mix)
        lines.append(
            f"| {run.model} | {run.local_commands} | {s['requests']} | "
            f"{_pct(s['right'], s['requests'])} | {s['right_weighted_pct']} % | "
            f"{_pct(s['act_right'], s['act_requests'])} | {s['unbacked_claims']} | "
            f"{_pct(s['writes_on_unserved'], s['refuse_requests'])} | "
            f"{_pct(s['general_refused'], s['answer_requests'])} |")
    return "\n".join(lines)


def to_json(judged: Sequence[Judged], mix: Counter[str]) -> dict[str, Any]:
    """Summaries per run, scenario and intent, and every request's details."""
    groups: dict[str, dict[str, list[Judged]]] = {"scenarios": defaultdict(list),
                                                  "intents": defaultdict(list)}
    for j in judged:
        groups["scenarios"][j.request.scenario].append(j)
        groups["intents"][j.request.intent].append(j)
    return {
        "summary": summary(judged, mix),
        **{k: {name: summary(js) for name, js in sorted(v.items())} for k, v in groups.items()},
        "cases": [{
            "id": j.request.id, "sentence": j.request.sentence, "intent": j.request.intent,
            "entities": [list(e) for e in j.request.entities], "expect": j.expect,
            "ok": j.ok, "asked_back": j.asked_back,
            "problems": [list(p) for p in j.problems], "answer": j.observed.answer,
            "stop": j.observed.stop, "local": j.observed.local,
            "llm_requests": j.observed.llm_requests, "seconds": j.observed.seconds,
            "calls": [dataclasses.asdict(c) for c in j.observed.calls],
            "observed": dataclasses.asdict(j.observed),
        } for j in judged],
    }


def rejudge(saved: Sequence[dict[str, Any]], out: Callable[[str], None] = print) -> int:
    """Saved runs (the parts of one, put together by model and setting) judged again with
    today's judge and slurp.toml, without the model."""
    per_intent, words, per_scenario = load_expectations()
    mix: Counter[str] = Counter(saved[0].get("mix", {}))
    merged: dict[tuple[str, str], list[Judged]] = defaultdict(list)
    for data in saved:
        for run in data["runs"]:
            for case in run["cases"]:
                req = Request(case["id"], case["sentence"], case["intent"],
                              tuple((str(t), str(v)) for t, v in case["entities"]))
                exp = expectation_for(req.intent, per_intent, per_scenario)
                merged[run["model"], run["local_commands"]].append(
                    judge_request(req, exp, observed_from(case["observed"]), words))
    show_rejudged(merged, report(mix), noun="requests", shown=lambda j: not j.ok, out=out)
    return 0
