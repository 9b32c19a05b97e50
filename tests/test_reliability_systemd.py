"""systemd units (issue 16, part 5): restart on failure without a permanent lock-out,
hardened, scored by `systemd-analyze security`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODES = ("kiosk", "daemon")


def installed(tmp_path: Path, mode: str) -> Path:
    """The unit as install-service.sh writes it (for user root), plus the retry unit."""
    text = (REPO / "systemd" / f"voiceagent-{mode}.service").read_text()
    for key, value in {"@REPO@": str(REPO), "@USER@": "root", "@UID@": "0",
                       "@HOME@": "/root"}.items():
        text = text.replace(key, value)
    unit = tmp_path / f"voiceagent-{mode}.service"
    unit.write_text(text)
    shutil.copy(REPO / "systemd" / "voiceagent-retry@.service", tmp_path)
    return unit


def settings(unit: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


@pytest.mark.parametrize("mode", MODES)
def test_units_restart_on_failure_and_are_never_locked_out(tmp_path: Path, mode: str) -> None:
    s = settings(installed(tmp_path, mode))
    assert s["Restart"] == ["on-failure"] and float(s["RestartSec"][0]) >= 1
    assert s["StartLimitBurst"] and s["StartLimitIntervalSec"]
    # Past the start limit the unit fails; OnFailure starts it again after a pause.
    assert s["OnFailure"] == ["voiceagent-retry@%n.service"]
    retry = settings(REPO / "systemd" / "voiceagent-retry@.service")
    assert any("reset-failed %i" in x for x in retry["ExecStart"])
    assert any("start" in x and "%i" in x for x in retry["ExecStart"][1:])
    assert "-v" not in s["ExecStart"][0].split()  # INFO by default: no per-request lines


@pytest.mark.parametrize("mode", MODES)
def test_units_verify_and_score_ok_in_systemd_analyze_security(tmp_path: Path,
                                                               mode: str) -> None:
    unit = installed(tmp_path, mode)
    verify = subprocess.run(["systemd-analyze", "verify", unit.name,
                             "voiceagent-retry@.service"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert verify.returncode == 0 and unit.name not in verify.stderr, verify.stderr
    s = settings(unit)
    assert s["ProtectSystem"] == ["strict"] and s["ProtectHome"] == ["read-only"]
    assert s["NoNewPrivileges"] == ["yes"] and s["PrivateTmp"] == ["yes"]
    assert "/root/.local/share/voiceagent" in s["ReadWritePaths"][0]
    security = subprocess.run(["systemd-analyze", "security", "--offline=true", unit.name],
                              capture_output=True, text=True, cwd=tmp_path)
    score = re.search(r"Overall exposure level for \S+: ([\d.]+)", security.stdout)
    assert score, security.stdout + security.stderr
    assert float(score.group(1)) <= 3.0, security.stdout  # was 9.6 (UNSAFE) before hardening
