"""`voiceagent evaluate`: is each turn right? Requests people say, run through the real turn.

Every case of the corpus (requests.toml, package data) is answered by the assistant the front
ends use (`build_assistant` -> `Assistant.answer_text`), each in a fresh data folder (empty
conversation, no lists, no timers) after its setup calls, with speech made and "played"
silently. What the turn did (its events, `TurnOutcome`, the lists and timers before and
after) is judged by `judge.py`; the report counts per intent: right tool, right arguments,
invented arguments, error text read aloud, honest refusals, local vs LLM share, time per turn.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Events
from voiceagent.assistant import Assistant
from voiceagent.bench.cases import Case, load_cases
from voiceagent.bench.judge import Verdict, judge
from voiceagent.bench.observe import observe_turn, run_setup
from voiceagent.bench.observed import Observed
from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError

CORPUS = Path(__file__).with_name("requests.toml")
"""The bundled requests (package data)."""
SETTINGS = {"on": (True,), "off": (False,), "both": (True, False)}
TURN_SECONDS = 600.0
"""The per-turn time cap while evaluating (at least; half of it for one model request): a
busy machine must not fail a turn."""


@dataclasses.dataclass
class Run:
    """One pass over the corpus with one model and one local-commands setting."""

    model: str
    local_commands: str
    """on, off, or n/a (this build has no local commands)."""
    verdicts: list[Verdict]


# --- running cases through the real turn ------------------------------------------------------


@contextmanager
def fresh_assistant(config: Config, data: Path | None = None) -> Iterator[tuple[Assistant, Path]]:
    """The assistant the front ends build, over its own data folder (a fresh temporary one
    unless `data` is given): its conversation, lists and timers are only its own."""
    from voiceagent.build import build_assistant
    from voiceagent.front_end import ASK
    from voiceagent.testing import FakeSynthesizer, RecordingPlayer

    with ExitStack() as stack:
        if data is None:
            data = Path(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="voiceagent-eval-")))
        config = dataclasses.replace(config, paths=dataclasses.replace(config.paths,
                                                                       data_dir=str(data)))
        assistant = build_assistant(config, stack, front_end=ASK, player=RecordingPlayer(),
                                    events=Events(), synthesizer=FakeSynthesizer(seconds=0.0),
                                    with_transcriber=False, allow_demo=False)
        close = getattr(assistant.agent.model, "close", None)
        if close is not None:  # one HTTP client per assistant: don't leave its socket behind
            stack.callback(close)
        yield assistant, data


def run_case(config: Config, case: Case) -> Verdict:
    """One case with its own assistant in a fresh data folder, judged."""
    with fresh_assistant(config) as (assistant, data):
        observed = observe(assistant, case, data, config.tools.list_aliases)
    setup_words = " ".join(str(v) for step in case.setup for v in step.args.values())
    return judge(case, observed, setup_words=setup_words)


def observe(assistant: Assistant, case: Case, data: Path,
            aliases: dict[str, str] | None = None) -> Observed:
    """Run the case's setup calls, then its turn through `assistant` (whose tools keep their
    data in `data`), and record what the turn did."""
    run_setup(assistant, case.setup, case.say)
    return observe_turn(assistant, case.say, data, aliases)


def evaluate(config: Config, cases: Sequence[Case],
             progress: Callable[[Verdict], None] | None = None,
             alive: Callable[[], None] | None = None) -> list[Verdict]:
    """Every case against the configured model. Each case builds its own assistant, so give
    it a model that is already running (see `serving`); `alive` runs before each case."""
    verdicts = []
    for case in cases:
        if alive is not None:
            alive()
        verdicts.append(run_case(config, case))
        if progress is not None:
            progress(verdicts[-1])
    return verdicts


def serving(config: Config, stack: ExitStack) -> tuple[Config, Callable[[], None]]:
    """For provider local: a running server (started here if none answers) that every case's
    assistant reuses through [llm] base_url, and a check that restarts it if it died."""
    if config.llm.provider != "local":
        return config, lambda: None
    from voiceagent.llm.discovery import ensure_server

    url, server = ensure_server(config)
    config = dataclasses.replace(config, llm=dataclasses.replace(config.llm, base_url=url))
    if server is None:
        return config, lambda: None
    stack.callback(server.stop)

    def alive() -> None:
        if not server.is_alive():
            server.restart()

    return config, alive


def pick(cases: Sequence[Case], limit: int = 0, intent: str = "") -> list[Case]:
    """Cases whose intent starts with `intent`, ordered so that any first part of the run
    samples everything: in turn from each group (commands, unsupported, chat, near misses)
    and within it from each intent. `limit` keeps the first that many."""
    queues: dict[str, dict[str, list[Case]]] = defaultdict(lambda: defaultdict(list))
    for c in cases:
        if c.intent.startswith(intent):
            queues[c.group][c.intent].append(c)
    order: list[list[Case]] = []  # intent queues, groups interleaved
    groups = [list(g.values()) for g in queues.values()]
    while any(groups):
        order += [g.pop(0) for g in groups if g]
    picked: list[Case] = []
    while any(order):
        picked += [q.pop(0) for q in order if q]
    return picked[:limit] if limit else picked


# --- reporting --------------------------------------------------------------------------------


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


def markdown_summary(runs: Sequence[Run]) -> str:
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


def to_json(runs: Sequence[Run], corpus: Path) -> dict[str, Any]:
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


# --- the command ------------------------------------------------------------------------------


def write_json(json_path: str, data: dict[str, Any]) -> None:
    """Write `data` whole or not at all (a run cut short leaves the last complete file)."""
    path = Path(json_path)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    part.replace(path)


def evaluation_config(config: Config, model: str | None = None) -> Config:
    """The config every evaluation runs with: `model` on our own server if given, and
    correctness judged apart from speed: on a busy machine the per-turn time cap and the
    request timeout would end turns the model gets right (time per turn is reported apart)."""
    if model:
        llm = dataclasses.replace(config.llm, model=model)
        if config.llm.provider == "local":  # our own server for this model, not a running one
            llm = dataclasses.replace(llm, base_url="")
            config = dataclasses.replace(config, server=dataclasses.replace(config.server,
                                                                            port=0))
        config = dataclasses.replace(config, llm=llm)
    return dataclasses.replace(
        config,
        agent=dataclasses.replace(config.agent,
                                  max_seconds=max(config.agent.max_seconds, TURN_SECONDS)),
        llm=dataclasses.replace(config.llm,
                                timeout_s=max(config.llm.timeout_s, TURN_SECONDS / 2)))


def local_settings(config: Config, local: str | None,
                   out: Callable[[str], None] = print) -> tuple[bool | None, ...]:
    """The [agent] local_commands values to run: the config's, or on/off/both."""
    if not hasattr(config.agent, "local_commands"):
        if local is not None:
            out("this build has no local commands: every turn goes to the language model")
        return (None,)
    if local is None:
        return (config.agent.local_commands,)
    return SETTINGS[local]


def with_local(config: Config, setting: bool | None) -> Config:
    """`config` with [agent] local_commands set (None: as it is)."""
    if setting is None:
        return config
    return dataclasses.replace(config, agent=dataclasses.replace(config.agent,
                                                                 local_commands=setting))


LOCAL_LABEL = {True: "on", False: "off", None: "n/a"}


def run_evaluate(config: Config, *, model: str | None = None, local: str | None = None,
                 json_path: str | None = None, limit: int = 0, intent: str = "",
                 corpus: Path = CORPUS, out: Callable[[str], None] = print) -> int:
    """`voiceagent evaluate`: run the corpus, print each case and the tables, write --json."""
    config = evaluation_config(config, model)
    name = config.llm.model or "default model"
    cases = pick(load_cases(corpus), limit, intent)
    if not cases:
        raise VoiceAgentError(f"no cases in {corpus} match --intent {intent!r}")
    settings = local_settings(config, local, out)
    runs: list[Run] = []

    def save() -> None:
        if json_path:
            write_json(json_path, to_json(runs, corpus))

    def progress(verdict: Verdict) -> None:
        runs[-1].verdicts.append(verdict)
        out(case_line(verdict))
        save()  # after every case, so a run cut short still leaves its results

    with ExitStack() as stack:
        config, alive = serving(config, stack)
        for setting in settings:
            run_config = with_local(config, setting)
            label = LOCAL_LABEL[setting]
            out(f"== {name}, local commands {label}: {len(cases)} requests ==")
            runs.append(Run(name, label, []))
            evaluate(run_config, cases, progress, alive)
            out(intent_table(runs[-1].verdicts))
    out("")
    out(markdown_summary(runs))
    save()
    if json_path:
        out(f"wrote {json_path}")
    return 0
