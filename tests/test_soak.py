"""A short soak in CI (issue 16, part 1): scripts/soak.sh with 12 mixed turns on the live
kiosk; fails on a failed turn, a line missing from the session file, or growth of fds,
threads (10 per 100 turns) or RSS (a gross leak: a short run's RSS slope is mostly warm-up,
so the limit here is 300 MB per 100 turns; the README's long run uses 50)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.real
@pytest.mark.audio
def test_a_short_soak_has_no_failed_turns_and_no_growth(tmp_path: Path) -> None:
    report = tmp_path / "soak.json"
    run = subprocess.run(
        [str(REPO / "scripts" / "soak.sh"), "12", "--json", str(report),
         "--max-rss-growth", "300"],
        capture_output=True, text=True, timeout=1800, cwd=REPO,
    )
    assert report.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(report.read_text())["report"]
    assert result["turns"] == 12
    assert result["failed_turns"] == [] and result["growth"] == [], result
    assert run.returncode == 0, run.stdout[-3000:]
