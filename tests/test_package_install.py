"""The package installs anywhere: a wheel built from the source, installed (not editable) into
a fresh virtual environment, run from a directory that is not the checkout.

The new environment sees the project's .venv site-packages through a plain `.pth` path line,
so the dependencies and the model packages are there without a download, while the .venv's
own editable-install hook (a `.pth` import line in that directory) is never run: `voiceagent`
can only come from the wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from voiceagent.config import Config

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the source (the build writes nothing into the checkout)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(REPO / "voiceagent", src / "voiceagent",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "-q", "-w", str(out), str(src)], check=True, timeout=120)
    [built] = out.glob("voiceagent-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ directory of a fresh venv holding the wheel (non-editable)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)],  # type: ignore[attr-defined]
                   check=True, timeout=60)
    site = Path(subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()"
         "['purelib'])"], capture_output=True, text=True, check=True).stdout.strip())
    (site / "project-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                    "install", "--no-deps", "--no-index", "-q", str(wheel)],
                   check=True, timeout=120)
    return venv / "bin"


def run(bin_dir: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """Run a command of the installed venv from `home`, an empty directory, as a user would."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config"), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.pop("VOICEAGENT_CONFIG", None)
    env.pop("PYTHONPATH", None)
    return subprocess.run(list(args), capture_output=True, text=True, cwd=home, env=env,
                          timeout=180)


def _source_files() -> list[str]:
    """The package's files: git's list in a checkout, else what is on disk."""
    try:
        return subprocess.run(["git", "ls-files", "voiceagent"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return [str(p.relative_to(REPO)) for p in (REPO / "voiceagent").rglob("*")
                if p.is_file() and "__pycache__" not in p.parts]


def test_the_wheel_carries_the_package_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"voiceagent/manifest.toml", "voiceagent/chat_template.jinja"} <= names
    data = {f for f in _source_files() if not f.endswith((".py", ".pyc"))}
    assert data and not data - names, "package data left out of pyproject's package-data"
    questions = {n for n in names if n.startswith("voiceagent/bench/questions/")}
    wavs = {n for n in questions if n.endswith(".wav")}
    assert len(wavs) >= 8
    assert {w.replace(".wav", ".txt") for w in wavs} <= questions


def test_installed_package_lists_models_from_any_directory(installed: Path,
                                                           tmp_path: Path) -> None:
    where = run(installed, tmp_path, str(installed / "python"), "-c",
                "import voiceagent.bench.spoken_questions as b, voiceagent.models as m; "
                "print(m.MANIFEST); print(len(b.load_questions(b.QUESTIONS_DIR)))")
    assert where.returncode == 0, where.stderr
    manifest, questions = where.stdout.split()
    assert Path(manifest).is_relative_to(installed.parent) and Path(manifest).is_file()
    assert int(questions) >= 8

    result = run(installed, tmp_path, "voiceagent", "models", "list")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()
            if line and not line.startswith(" ")}
    assert set(rows) == {"tiny.en", "base", "en_US-joe-medium", "qwen2.5-coder-0.5b",
                         "qwen2.5-coder-1.5b", "smart-turn-v3.2"}
    assert rows["tiny.en"][2] == "ok" and rows["en_US-joe-medium"][2] == "ok"
    # Assembled models are looked for in the user's data directory, not in a checkout.
    assert rows["qwen2.5-coder-0.5b"][2] == "missing"
    assert rows["qwen2.5-coder-0.5b"][3].startswith(str(tmp_path / "data" / "voiceagent" /
                                                        "models"))
    assert "voiceagent models install qwen2.5-coder-0.5b" in result.stdout


@pytest.mark.real
@pytest.mark.audio
def test_installed_doctor_passes_with_models_dir_from_config(
    installed: Path, tmp_path: Path, llm_base_url: str, pulse: object,
) -> None:
    """The user's config (found in ~/.config) points at the models; the language model check
    talks to the tests' running server instead of starting a second one."""
    (tmp_path / "config" / "voiceagent").mkdir(parents=True)
    (tmp_path / "config" / "voiceagent" / "config.toml").write_text(
        f'[llm]\nmodel = "qwen2.5-coder-0.5b"\nbase_url = "{llm_base_url}"\n'
        f'[paths]\nmodels_dir = "{Config().models_dir}"\n'
    )
    result = run(installed, tmp_path, "voiceagent", "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout
    assert "ok    models:" in result.stdout
