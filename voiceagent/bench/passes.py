"""The outer loop every evaluation of single items shares: each local-commands setting, each
item (a request, a session) run and judged, its line printed, the --json file rewritten after
every item (a run cut short still leaves its results), the tables, the README rows; and the
same report again for saved runs judged anew (`--rejudge`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from voiceagent.bench.harness import LOCAL_LABEL, local_settings, serving, with_local, write_json
from voiceagent.config import Config

Item = TypeVar("Item")
Judged = TypeVar("Judged")


@dataclass
class Run(Generic[Judged]):
    """One pass over the items with one model and one local-commands setting."""

    model: str
    local_commands: str
    """on, off, or n/a (this build has no local commands)."""
    verdicts: list[Judged]


@dataclass(frozen=True)
class Report(Generic[Judged]):
    """How one kind of evaluation prints what it judged (in a run and judged again)."""

    line: Callable[[Judged], str]
    """One item's verdict, as its progress line(s)."""
    tables: Callable[[Sequence[Judged]], Sequence[str]]
    """The tables printed after each pass, one string each."""
    markdown: Callable[[Sequence[Run[Judged]]], str]
    """The README rows, printed after every pass."""


def part_of(items: Sequence[Item], part: tuple[int, int]) -> list[Item]:
    """Part K of N, `part` = (K, N): every N-th item from the K-th, so N parts run one after
    another (each taking the heavy lock on its own) cover the whole run once."""
    return list(items[part[0] - 1::part[1]])


def run_passes(config: Config, items: Sequence[Item],
               judge_one: Callable[[Config, Item], Judged], report: Report[Judged], *,
               what: str, to_json: Callable[[Sequence[Run[Judged]]], dict[str, Any]],
               local: str | None = None, json_path: str | None = None,
               out: Callable[[str], None] = print) -> list[Run[Judged]]:
    """Every item through `judge_one` once per local-commands setting, against one running
    model (`config` as evaluation_config made it); `what` ends each pass's heading and
    `to_json` makes the --json file of the runs so far."""
    name = config.llm.model or "default model"
    settings = local_settings(config, local, out)
    runs: list[Run[Judged]] = []

    def save() -> None:
        if json_path:
            write_json(json_path, to_json(runs))

    with ExitStack() as stack:
        config, alive = serving(config, stack)
        for setting in settings:
            run_config = with_local(config, setting)
            out(f"== {name}, local commands {LOCAL_LABEL[setting]}: {what} ==")
            runs.append(Run(name, LOCAL_LABEL[setting], []))
            for item in items:
                alive()
                runs[-1].verdicts.append(judge_one(run_config, item))
                out(report.line(runs[-1].verdicts[-1]))
                save()
            for table in report.tables(runs[-1].verdicts):
                out(table)
    out("")
    out(report.markdown(runs))
    save()
    if json_path:
        out(f"wrote {json_path}")
    return runs


def show_rejudged(merged: dict[tuple[str, str], list[Judged]], report: Report[Judged], *,
                  noun: str, shown: Callable[[Judged], bool] = lambda judged: True,
                  out: Callable[[str], None] = print) -> list[Run[Judged]]:
    """Saved runs judged again (by (model, local-commands setting)), reported as a run is:
    the `shown` items' lines, the tables, then the README rows."""
    runs = []
    for (model, local), verdicts in merged.items():
        out(f"== {model}, local commands {local}: {len(verdicts)} {noun}, judged again ==")
        for judged in verdicts:
            if shown(judged):
                out(report.line(judged))
        for table in report.tables(verdicts):
            out(table)
        runs.append(Run(model, local, verdicts))
    out("")
    out(report.markdown(runs))
    return runs
