"""A short soak in CI (issue 16, part 1): scripts/soak.sh with 13 mixed turns on the live
kiosk; fails on a failed turn, a line missing from the session file, or growth of fds,
threads (10 per 100 turns) or RSS (a gross leak only: a short run's RSS slope is warm-up. In
the 300-turn run in README the assistant rose 436 -> 590 MB over the first 100 turns, in steps
of up to ~40 MB, then +3.5 MB per 100 turns; 13-turn CI runs measured 473 and 1,894 MB per 100
turns by slope. So RSS counts as a leak only when it also rises on a typical turn (the median
step, scripts/soak.py), by more than 1,000 MB per 100 turns, 10 MB every turn; the README's
long run uses 50)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.real
@pytest.mark.audio
def test_a_short_soak_has_no_growth_no_crash_and_loses_no_line(tmp_path: Path) -> None:
    report = tmp_path / "soak.json"
    run = subprocess.run(
        [str(REPO / "scripts" / "soak.sh"), "13", "--json", str(report),
         "--max-rss-growth", "1000"],
        capture_output=True, text=True, timeout=1800, cwd=REPO,
    )
    assert report.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(report.read_text())["report"]
    assert result["turns"] == 13
    assert result["growth"] == [], result
    # A turn whose model request failed twice ends in a spoken apology and the kiosk goes on
    # (tests/test_agent_faults.py); one such turn in 13 is tolerated on a shared CI machine
    # (it happened once, with the reason not logged: the failure now says why). A timeout,
    # a crash or a second failure is not.
    failed = result["failed_turns"]  # also lines missing from the session file
    assert len(failed) <= 1 and all(re.match(r"turn \d+ \(.*\): error\b", f) for f in failed), \
        result


def _soak_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("soak", REPO / "scripts" / "soak.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_one_extra_fd_is_not_a_leak_and_a_steady_rise_is() -> None:
    soak = _soak_module()

    def samples(fds: list[int]) -> list:
        return [soak.Sample(turn=i, kind="llm", seconds=1.0, outcome="done",
                            assistant={"rss_mb": 400.0, "fds": n, "threads": 13},
                            server={"rss_mb": 700.0, "fds": 4, "threads": 12})
                for i, n in enumerate(fds)]

    # a pool's second connection, once, in a short run: a steep slope, but no leak
    assert soak.summarise(samples([18] * 9 + [19] * 3), [])["growth"] == []
    # a turn that briefly holds more (a keep-warm request beside the answer) drops back
    assert soak.summarise(samples([19, 18] * 4 + [25, 18, 19, 19]), [])["growth"] == []
    # one fd every other turn keeps rising
    leak = soak.summarise(samples([18 + i // 2 for i in range(12)]), [])["growth"]
    assert leak and leak[0].startswith("assistant_fds grows")


def test_rss_that_steps_up_in_warm_up_is_no_leak_and_rss_that_rises_every_turn_is() -> None:
    soak = _soak_module()

    def samples(rss: list[float]) -> list:
        return [soak.Sample(turn=i, kind="llm", seconds=1.0, outcome="done",
                            assistant={"rss_mb": mb, "fds": 18, "threads": 13},
                            server={"rss_mb": 700.0, "fds": 4, "threads": 12})
                for i, mb in enumerate(rss)]

    before = soak.LIMITS["assistant_rss_mb"]
    soak.LIMITS["assistant_rss_mb"] = 1000.0
    try:
        # a slow CI machine's warm-up: ~170 MB in a few steps after turn 4, flat in between
        warm_up = [480, 505, 512, 513, 520, 521, 560, 561, 562, 610, 611, 612, 651]
        report = soak.summarise(samples(warm_up), [])
        assert report["slope_per_100_turns"]["assistant_rss_mb"] > 1000  # steep, yet
        assert report["growth"] == []
        # a model loaded again on every turn: 15 MB each time
        leak = soak.summarise(samples([480 + 15 * i for i in range(13)]), [])["growth"]
        assert leak and leak[0].startswith("assistant_rss_mb grows")
    finally:
        soak.LIMITS["assistant_rss_mb"] = before
