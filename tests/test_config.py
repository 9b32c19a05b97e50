"""Config loading: defaults, discovery order, and one clear line for every kind of mistake."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from voiceagent.config import Config
from voiceagent.config_file import default_toml, find_config, load_config
from voiceagent.errors import ConfigError

REPO = Path(__file__).resolve().parent.parent


def test_shipped_config_documents_every_key_at_its_default() -> None:
    assert (REPO / "config.toml").read_text() == default_toml()
    loaded = load_config(REPO / "config.toml")
    assert dataclasses.replace(loaded, source="built-in defaults") == Config()


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("[agent]\nmax_step = 3\n", "unknown key 'agent.max_step' in [agent]; known keys:"),
        ("[agent]\nmax_steps = \"six\"\n", "agent.max_steps: expected an integer, found 'six'"),
        ("[agent]\nmax_steps = 0\n", "agent.max_steps: expected a number >= 1, found 0"),
        ("[trigger]\nmode = \"always\"\n", "trigger.mode: expected one of ptt, kiosk, daemon"),
        ("[audio]\ninput_device = true\n", "audio.input_device: expected a string or an integer"),
        ("[tools]\nenabled = \"clock\"\n", "tools.enabled: expected a list, found 'clock'"),
        ("[stt]\nhotwords = [1, 2]\n", "stt.hotwords: expected a list of strings"),
        ("[tools.mcp]\nname = \"x\"\n", "tools.mcp: expected a list"),
        ("[[tools.mcp]]\nname = \"x\"\nbogus = 1\n", "unknown key 'tools.mcp[0].bogus'"),
        ("[sessoin]\n", "unknown key 'sessoin' in top level"),
        ("[agent\n", "not valid TOML"),
    ],
)
def test_mistakes_name_file_key_expected_and_found(
    tmp_path: Path, toml: str, expected: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_values_are_typed_and_integers_accepted_for_floats(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[agent]\nmax_seconds = 30\n[audio]\ninput_device = 3\n"
                    "[[tools.mcp]]\nname = \"echo\"\ncommand = \"python3\"\nargs = [\"-V\"]\n")
    config = load_config(path)
    assert config.agent.max_seconds == 30.0 and isinstance(config.agent.max_seconds, float)
    assert config.audio.input_device == 3
    assert config.tools.mcp[0].command == "python3" and config.tools.mcp[0].args == ["-V"]
    assert config.source == str(path)


def test_discovery_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VOICEAGENT_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert find_config(None) is None
    user = tmp_path / "xdg" / "voiceagent" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("")
    assert find_config(None) == user
    (tmp_path / "config.toml").write_text("")
    assert find_config(None) == Path("config.toml")
    monkeypatch.setenv("VOICEAGENT_CONFIG", "/env.toml")
    assert find_config(None) == Path("/env.toml")
    assert find_config("/explicit.toml") == Path("/explicit.toml")


def test_cli_reports_a_bad_config_in_one_line_with_exit_code_2(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[llm]\ntimeout_s = \"soon\"\n")
    result = subprocess.run(
        [sys.executable, "-m", "voiceagent", "--config", str(path), "models", "list"],
        capture_output=True, text=True, cwd=REPO,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"voiceagent: {path}: llm.timeout_s: expected a number, found 'soon' (string)"
    ]
    assert "Traceback" not in result.stderr


def test_help_is_instant_without_heavy_imports() -> None:
    code = ("import sys, voiceagent.cli as c\n"
            "try:\n    c.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = {'faster_whisper', 'piper', 'sounddevice', 'xllamacpp', 'numpy', 'httpx'}\n"
            "print(sorted(heavy & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=REPO)
    assert result.stdout.strip().splitlines()[-1] == "[]"
