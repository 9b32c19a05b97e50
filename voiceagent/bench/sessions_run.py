"""`voiceagent evaluate --sessions`: multi-turn sessions through the real turn.

Each session gets one assistant over one fresh data folder: its setup calls run, then its
turns in order through `Assistant.answer_text`, the conversation kept between them as a
front end keeps it. sessions.py judges each turn and the state at the end.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from voiceagent.bench.harness import evaluation_config, fresh_assistant
from voiceagent.bench.observe import observe_turn, observed_from, run_setup
from voiceagent.bench.observed import Observed
from voiceagent.bench.passes import Report, Run, part_of, run_passes, show_rejudged
from voiceagent.bench.sessions import (
    Session,
    SessionVerdict,
    judge_session,
    load_sessions,
    summary,
)
from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError

SESSIONS = Path(__file__).with_name("sessions.toml")
"""The bundled sessions (package data)."""


def run_session(config: Config, session: Session) -> list[Observed]:
    """Every turn of `session` through one assistant in a fresh data folder."""
    seen: list[Observed] = []
    with fresh_assistant(config, today=session.today) as (assistant, data):
        run_setup(assistant, session.setup, session.name)
        for case in session.turns:
            seen.append(observe_turn(assistant, case.say, data, config.tools.list_aliases))
    return seen


def pick(sessions: Sequence[Session], limit: int = 0, style: str = "") -> list[Session]:
    """Sessions whose style starts with `style`, styles interleaved so a first part of the
    run samples each; `limit` keeps the first that many."""
    queues: dict[str, list[Session]] = defaultdict(list)
    for s in sessions:
        if s.style.startswith(style):
            queues[s.style].append(s)
    order: list[Session] = []
    while any(queues.values()):
        order += [q.pop(0) for q in queues.values() if q]
    return order[:limit] if limit else order


def run_sessions(config: Config, path: Path = SESSIONS, *, model: str | None = None,
                 local: str | None = None, json_path: str | None = None, limit: int = 0,
                 style: str = "", part: tuple[int, int] = (1, 1),
                 out: Callable[[str], None] = print) -> int:
    """Run the sessions of `path` (its `part` = (K, N): every N-th from the K-th), print each
    turn and the tables, write --json."""
    sessions = part_of(pick(load_sessions(path), limit, style), part)
    if not sessions:
        raise VoiceAgentError(f"no sessions in {path} match --intent {style!r}")
    config = evaluation_config(config, model)

    def saved(runs: Sequence[Run[SessionVerdict]]) -> dict[str, Any]:
        return {"sessions": str(path), "runs": [
            {"model": r.model, "local_commands": r.local_commands} | to_json(r.verdicts)
            for r in runs], "markdown": markdown(runs)}

    run_passes(config, sessions, lambda c, s: judge_session(s, run_session(c, s)), REPORT,
               what=f"{len(sessions)} sessions, {sum(len(s.turns) for s in sessions)} turns",
               to_json=saved, local=local, json_path=json_path, out=out)
    return 0


# --- reporting --------------------------------------------------------------------------------


def lines(v: SessionVerdict) -> str:
    """The session's verdict, then one line per turn (what was said, called, answered)."""
    out = [f"{'ok  ' if v.ok else 'MISS'} [{v.session.style}] {v.session.name}"]
    for t in v.turns:
        o = t.verdict.observed
        calls = "; ".join(f"{c.name}({', '.join(f'{k}={x!r}' for k, x in c.args.items())})"
                          f"{'!' if c.error else ''}" for c in o.calls) or "(no tool)"
        path = "local" if o.local and not o.llm_requests else f"llm×{o.llm_requests}"
        out.append(f"   {'ok ' if t.ok else 'X  '} {path:6} {t.verdict.case.say!r} -> "
                   f"{calls[:80]} | {o.answer[:70]!r}")
        if not t.ok:
            out.append(f"          {'; '.join(t.problems)}")
    if v.end_problems:
        out.append(f"   end: {'; '.join(v.end_problems)}")
    return "\n".join(out)


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f} %)" if n else "-"


def table(verdicts: Sequence[SessionVerdict]) -> str:
    """One row per style, then all."""
    groups: dict[str, list[SessionVerdict]] = defaultdict(list)
    for v in verdicts:
        groups[v.session.style].append(v)
    head = (f"{'style':22} {'sessions':>12} {'turns':>13} {'end state':>10} {'claims':>6} "
            f"{'local':>6}")
    rows = [head, "-" * len(head)]
    for name, vs in [*sorted(groups.items()), ("[all]", list(verdicts))]:
        s = summary(vs)
        rows.append(f"{name:22} {_pct(s['right'], s['sessions']):>12} "
                    f"{_pct(s['turns_right'], s['turns']):>13} "
                    f"{s['end_right']:>4}/{s['sessions']:<5} {s['unbacked_claims']:>6} "
                    f"{s['local']:>3}/{s['turns']}")
    return "\n".join(rows)


def markdown(runs: Sequence[Run[SessionVerdict]]) -> str:
    """The README rows."""
    rows = ["| model | local commands | sessions right | turns right | end state right | "
            "answers claiming what no tool did | writes on refused turns | general "
            "questions right |", "|---|---|---|---|---|---|---|---|"]
    for run in runs:
        s = summary(run.verdicts)
        rows.append(f"| {run.model} | {run.local_commands} | {_pct(s['right'], s['sessions'])} | "
                    f"{_pct(s['turns_right'], s['turns'])} | "
                    f"{_pct(s['end_right'], s['sessions'])} | {s['unbacked_claims']} | "
                    f"{_pct(s['refusal_writes'], s['refusal_turns'])} | "
                    f"{_pct(s['general_right'], s['general_turns'])} |")
    return "\n".join(rows)


def to_json(verdicts: Sequence[SessionVerdict]) -> dict[str, Any]:
    return {"summary": summary(verdicts), "sessions": [{
        "name": v.session.name, "style": v.session.style, "ok": v.ok,
        "end_problems": list(v.end_problems),
        "turns": [{"say": t.verdict.case.say, "ok": t.ok, "problems": list(t.problems),
                   "observed": dataclasses.asdict(t.verdict.observed)} for t in v.turns],
    } for v in verdicts]}


REPORT: Report[SessionVerdict] = Report(line=lines, tables=lambda verdicts: [table(verdicts)],
                                        markdown=markdown)
"""How sessions are printed, in a run and judged again."""


def rejudge(saved: Sequence[dict[str, Any]], out: Callable[[str], None] = print) -> int:
    """Saved runs (the parts of one, put together by model and setting) judged again against
    today's sessions.toml, without the model."""
    known = {s.name: s for s in load_sessions(Path(saved[0]["sessions"]))}
    merged: dict[tuple[str, str], list[SessionVerdict]] = defaultdict(list)
    for data in saved:
        for run in data["runs"]:
            merged[run["model"], run["local_commands"]] += [
                judge_session(known[s["name"]], [observed_from(t["observed"])
                                                 for t in s["turns"]])
                for s in run["sessions"] if s["name"] in known]
    show_rejudged(merged, REPORT, noun="sessions", out=out)
    return 0
