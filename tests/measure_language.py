"""What the language readers make of a broad corpus, as JSON, to compare two trees.

    PYTHONPATH=<tree> python -m tests.measure_language OUT.json [--only clean,split_items]
    python -m tests.measure_language --diff BEFORE.json AFTER.json

The corpus: SLURP devel's sentences and entity values (../shared/requests), the `say` of
every requests.toml case, every string literal of tests/, and generated lengths of time,
clock times, days and written units. Each reader's result (or its error) is recorded per
input, so moving words into data can be shown to change nothing, or exactly what.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
SLURP = next((p / "shared" / "requests" / "slurp_devel.jsonl" for p in ROOT.parents
              if (p / "shared" / "requests").is_dir()), ROOT / "missing")
"""../shared/requests from the checkout (or from a worktree beside it)."""


def corpus() -> list[str]:
    said: set[str] = set()
    if SLURP.exists():
        for line in SLURP.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            said.add(row["sentence"])
            said |= {m[1].strip() for m in re.finditer(r"\[\w+ : ([^\]]+)\]", row["annotation"])}
    cases = tomllib.loads((ROOT / "voiceagent/bench/requests.toml").read_text())["case"]
    said |= {case["say"] for case in cases}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and 0 < len(node.value) < 200:
                said.add(node.value)
    units = "second seconds sec secs s minute minutes min mins m hour hours hr hrs h day days d"
    for n in ["1", "5", "one", "a", "an", "twenty five", "1.5", "half a", "a couple of"]:
        for unit in units.split():
            said |= {f"{n} {unit}", f"{n}{unit}", f"in {n} {unit}"}
    for hour in ["7", "seven", "12", "0", "19", "noon", "midnight", "half past 7"]:
        for minute in ["", ":30", " thirty", " oh five"]:
            for day in ["", " am", " pm", " in the morning", " tonight", " tomorrow",
                        " on friday", " the day after tomorrow"]:
                said |= {f"{hour}{minute}{day}", f"at {hour}{minute}{day}"}
    for sign in ["km/h", "km", "m", "kg", "g", "lb", "ml", "h", "min", "s", "GB", "Hz", "°C",
                 "%", "W", "L"]:
        for n in ["1", "2", "-3", "1,000", "0.5"]:
            said |= {f"It is {n} {sign} away.", f"It is {n}{sign}."}
    return sorted(said)


def readers() -> dict[str, Callable[[str], Any]]:
    from voiceagent.config import config_from_dict
    from voiceagent.intents import LocalCommands
    from voiceagent.intents.normalize import clean
    from voiceagent.intents.numbers import duration_seconds, number_value, split_quantity
    from voiceagent.speech.sentences import split_sentences
    from voiceagent.speech.speakable import speakable
    from voiceagent.testing import FakeClock
    from voiceagent.tools import (
        FAMILIES,
        ToolContext,
        build_tools,
        calculator,
        clock,
        lists,
        timers,
        words,
    )

    now = FakeClock("2026-12-01 08:00")
    data = Path(tempfile.mkdtemp())
    box = build_tools(config_from_dict({"paths": {"data_dir": str(data)},
                                        "tools": {"enabled": list(FAMILIES), "timezone": "UTC"}}),
                      ToolContext(data, "ptt", clock=now))
    commands = LocalCommands(box.registry, now)
    get_time = clock.make_tools(now)[0]
    calculate, _convert = calculator.make_tools()
    zone, at = ZoneInfo("UTC"), now.now()
    return {
        "clean": clean, "duration_seconds": duration_seconds, "number_value": number_value,
        "split_quantity": split_quantity, "numbers_in": words.numbers_in,
        "parse_duration": words.parse_duration, "parse_clock_time": words.parse_clock_time,
        "days_ahead": lambda x: clock.days_ahead(x, at),
        "calendar_day": clock.calendar_day, "said_day": lambda x: timers.said_day(x, at),
        "alarm_due": lambda x: timers.alarm_due(x, zone, now.time()),
        "alarm_or_reminder_due": lambda x: timers.alarm_or_reminder_due(x, zone, now.time()),
        "get_time": lambda x: get_time(place=x), "calculate": lambda x: calculate(expression=x),
        "to_expression": calculator.to_expression, "find_unit": calculator.find_unit,
        "split_items": lists.split_items, "clean_label": timers.clean_label,
        "timer_label": timers.timer_label, "speakable": speakable,
        "split_sentences": split_sentences, "match": commands.match,
    }


def _result(read: Callable[[str], Any], said: str) -> str:
    try:
        value = read(said)
    except Exception as exc:  # the error is the result
        return f"!{type(exc).__name__}: {exc}"
    if hasattr(value, "say") and hasattr(value, "refs"):
        value = (value.say, [ref.to_dict() for ref in value.refs])
    return repr(value)


def measure(out: Path, only: list[str] | None) -> None:
    said = corpus()
    chosen = {n: r for n, r in readers().items() if not only or n in only}
    results = {name: {x: _result(read, x) for x in said} for name, read in chosen.items()}
    out.write_text(json.dumps(results, indent=0, sort_keys=True), encoding="utf-8")
    print(f"{len(said)} inputs, {len(chosen)} readers -> {out}")


def diff(before: Path, after: Path, shown: int = 10) -> None:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    for name in sorted(set(old) & set(new)):
        changed = [x for x in new[name] if x in old[name] and old[name][x] != new[name][x]]
        print(f"{name}: {len(changed)} of {len(new[name])} differ")
        for x in changed[:shown]:
            print(f"   {x!r}\n      before {old[name][x]}\n      after  {new[name][x]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--only", help="readers, comma-separated")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.diff:
        diff(*args.diff)
    elif args.out:
        measure(args.out, args.only.split(",") if args.only else None)
    else:
        parser.error("give OUT.json or --diff BEFORE AFTER")


if __name__ == "__main__":
    main()
