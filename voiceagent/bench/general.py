"""`voiceagent evaluate --general-after N`: are general questions answered as well after N
tool turns as in a fresh session? (A kiosk is one long session.)

Each question of general.toml is asked in a fresh session, and again after the first N
priming turns of one session (local commands and model turns: timers, lists, the clock,
sums). The priming runs once; each question then gets its own copy of that data folder, so
every question follows exactly the same N turns and none follows another question.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import tomllib
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceagent.bench.cases import NONE, Case
from voiceagent.bench.claims import unbacked
from voiceagent.bench.harness import (
    LOCAL_LABEL,
    evaluation_config,
    fresh_assistant,
    local_settings,
    serving,
    with_local,
    write_json,
)
from voiceagent.bench.judge import Verdict, judge
from voiceagent.bench.observe import observe_turn
from voiceagent.bench.observed import Observed
from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError

GENERAL = Path(__file__).with_name("general.toml")
"""The bundled questions and priming turns (package data)."""


@dataclass(frozen=True)
class Priming:
    """One tool turn before the question."""

    say: str
    model: bool = False
    """Sent to the language model (local commands off for this turn)."""


def load_general(path: Path = GENERAL) -> tuple[list[Case], list[Priming]]:
    """(the questions as cases expecting no tool, the priming turns)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    questions = [Case(say=q["say"], intent="general", tool=NONE,
                      answer=tuple(q.get("answer", ()))) for q in data.get("question", [])]
    try:
        priming = [Priming(str(t["say"]), bool(t.get("model", False)))
                   for t in data.get("priming", [])]
    except (TypeError, KeyError):
        raise VoiceAgentError(f"{path}: each priming turn is {{ say = \"...\" }}, with "
                              "model = true to send it to the language model") from None
    return questions, priming


def judged(case: Case, seen: Observed) -> tuple[Verdict, tuple[str, ...]]:
    """The question's verdict and its claims nothing backs."""
    return judge(case, seen), unbacked(seen.answer, said=case.say, calls=seen.calls,
                                       asked_action=False)


def ask_fresh(config: Config, case: Case) -> Observed:
    with fresh_assistant(config) as (assistant, data):
        return observe_turn(assistant, case.say, data, config.tools.list_aliases)


def prime(config: Config, turns: Sequence[Priming], folder: Path) -> list[Observed]:
    """The priming turns in one session kept in `folder`, each through its own assistant
    over it (as successive `voiceagent ask` calls), a model turn with local commands off."""
    seen = []
    for turn in turns:
        turn_config = with_local(config, False) if turn.model else config
        with fresh_assistant(turn_config, data=folder) as (assistant, data):
            seen.append(observe_turn(assistant, turn.say, data, config.tools.list_aliases))
    return seen


def ask_after(config: Config, case: Case, primed: Path) -> Observed:
    """The question in a copy of the primed session (its conversation, lists and timers)."""
    with tempfile.TemporaryDirectory(prefix="voiceagent-eval-") as tmp:
        copy = Path(tmp) / "data"
        shutil.copytree(primed, copy)
        with fresh_assistant(config, data=copy) as (assistant, data):
            return observe_turn(assistant, case.say, data, config.tools.list_aliases)


def run_general(config: Config, *, turns: int = 20, model: str | None = None,
                local: str | None = None, json_path: str | None = None, limit: int = 0,
                path: Path = GENERAL, out: Callable[[str], None] = print) -> int:
    """Both rates, each question's verdicts, and the priming turns' tool use."""
    questions, priming = load_general(path)
    questions = questions[:limit] if limit else questions
    if not 1 <= turns <= len(priming):
        raise VoiceAgentError(f"--general-after {turns}: {path} has {len(priming)} priming "
                              "turns; give 1 to that many")
    config = evaluation_config(config, model)
    name = config.llm.model or "default model"
    runs: list[dict[str, Any]] = []

    def save() -> None:
        if json_path:
            write_json(json_path, {"general": str(path), "turns": turns, "runs": runs,
                                   "markdown": markdown(runs)})

    with ExitStack() as stack:
        config, alive = serving(config, stack)
        for setting in local_settings(config, local, out):
            run_config = with_local(config, setting)
            label = LOCAL_LABEL[setting]
            out(f"== {name}, local commands {label}: {len(questions)} questions, fresh and "
                f"after {turns} tool turns ==")
            primed = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "primed"
            alive()
            seen = prime(run_config, priming[:turns], primed)
            for t, o in zip(priming, seen, strict=False):
                calls = ", ".join(c.name + ("!" if c.error else "") for c in o.calls)
                out(f"  prime {'local' if o.local and not o.llm_requests else 'llm  '} "
                    f"{t.say!r} -> {calls or '(no tool)'} | {o.answer[:60]!r}")
            run: dict[str, Any] = {
                "model": name, "local_commands": label, "turns": turns,
                "priming": [dataclasses.asdict(o) for o in seen],
                "priming_local": sum(o.local and not o.llm_requests for o in seen),
                "priming_tool_turns": sum(any(not c.error for c in o.calls) for o in seen),
                "fresh": [], "after": []}
            runs.append(run)
            for case in questions:
                alive()
                for key, observed in (("fresh", ask_fresh(run_config, case)),
                                      ("after", ask_after(run_config, case, primed))):
                    verdict, claims = judged(case, observed)
                    run[key].append({"say": case.say, "ok": verdict.ok and not claims,
                                     "problems": [*verdict.problems, *claims],
                                     "observed": dataclasses.asdict(observed)})
                    out(line(key, verdict, claims))
                save()
            out(markdown(runs[-1:]))
    out("")
    out(markdown(runs))
    save()
    if json_path:
        out(f"wrote {json_path}")
    return 0


def line(key: str, v: Verdict, claims: tuple[str, ...]) -> str:
    o = v.observed
    calls = ", ".join(c.name for c in o.calls) or "(no tool)"
    ok = v.ok and not claims
    text = (f"{'ok  ' if ok else 'MISS'} {key:5} {v.case.say!r} -> {calls} | "
            f"{o.answer[:80]!r}")
    return text if ok else f"{text}\n      {'; '.join([*v.problems, *claims])}"


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f} %)" if n else "-"


def markdown(runs: Sequence[dict[str, Any]]) -> str:
    """The README rows: right in fresh sessions, right after the tool turns."""
    rows = ["| model | local commands | general questions right, fresh sessions | right after "
            "N tool turns | priming turns answered locally |", "|---|---|---|---|---|"]
    for run in runs:
        fresh = sum(r["ok"] for r in run["fresh"]), len(run["fresh"])
        after = sum(r["ok"] for r in run["after"]), len(run["after"])
        rows.append(f"| {run['model']} | {run['local_commands']} | {_pct(*fresh)} | "
                    f"{_pct(*after)} (N = {run['turns']}) | "
                    f"{run['priming_local']}/{run['turns']} |")
    return "\n".join(rows)
