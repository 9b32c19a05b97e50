"""`voiceagent evaluate`: is each turn right? Requests people say, run through the real turn.

Every case of the corpus (requests.toml, package data) is answered by the assistant the front
ends use (`build_assistant` -> `Assistant.answer_text`), each in a fresh data folder (empty
conversation, no lists, no timers) after its setup calls, with speech made and "played"
silently. What the turn did (its events, `TurnOutcome`, the lists and timers before and
after) is judged by `judge.py`; the report counts per intent: right tool, right arguments,
invented arguments, error text read aloud, honest refusals, local vs LLM share, time per turn.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from voiceagent.assistant import Assistant
from voiceagent.bench.cases import Case, load_cases
from voiceagent.bench.evaluate_report import case_line, intent_table, markdown_summary, to_json
from voiceagent.bench.harness import evaluation_config, fresh_assistant
from voiceagent.bench.judge import Verdict, judge
from voiceagent.bench.observe import observe_turn, run_setup
from voiceagent.bench.observed import Observed
from voiceagent.bench.passes import Report, run_passes
from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError

CORPUS = Path(__file__).with_name("requests.toml")
"""The bundled requests (package data)."""


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


def run_evaluate(config: Config, *, model: str | None = None, local: str | None = None,
                 json_path: str | None = None, limit: int = 0, intent: str = "",
                 corpus: Path = CORPUS, out: Callable[[str], None] = print) -> int:
    """`voiceagent evaluate`: run the corpus, print each case and the tables, write --json."""
    config = evaluation_config(config, model)
    cases = pick(load_cases(corpus), limit, intent)
    if not cases:
        raise VoiceAgentError(f"no cases in {corpus} match --intent {intent!r}")
    report: Report[Verdict] = Report(line=case_line,
                                     tables=lambda verdicts: [intent_table(verdicts)],
                                     markdown=markdown_summary)
    run_passes(config, cases, run_case, report, what=f"{len(cases)} requests",
               to_json=lambda runs: to_json(runs, corpus), local=local, json_path=json_path,
               out=out)
    return 0
