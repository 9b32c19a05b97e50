"""System status from a fake /sys and /proc (a Raspberry Pi's), the real machine, and the
conversation reset tool."""

import re
from pathlib import Path

import pytest

from voiceagent.tools import conversation
from voiceagent.tools.system import SystemInfo, make_tools


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


@pytest.fixture
def pi(tmp_path):
    """A Raspberry Pi-like tree: cpu-thermal zone, a UPS battery HAT, meminfo, uptime."""
    sys_root, proc = tmp_path / "sys", tmp_path / "proc"
    write(sys_root / "class/thermal/thermal_zone0/type", "cpu-thermal")
    write(sys_root / "class/thermal/thermal_zone0/temp", "48312")
    write(sys_root / "class/power_supply/AC/type", "Mains")
    write(sys_root / "class/power_supply/BAT0/type", "Battery")
    write(sys_root / "class/power_supply/BAT0/capacity", "87")
    write(sys_root / "class/power_supply/BAT0/status", "Discharging")
    write(proc / "meminfo", "MemTotal:        3884000 kB\nMemAvailable:    2942000 kB")
    write(proc / "uptime", "93784.21 180000.00")
    return SystemInfo(sys_root, proc, tmp_path)


def test_raspberry_pi_readings(pi):
    (tool,) = make_tools(pi)
    assert tool(part="temperature") == "The CPU temperature is 48 degrees Celsius."
    assert tool(part="battery") == "Battery at 87 percent, discharging."
    assert tool(part="memory") == "Memory: 3.0 GB free of 4.0 GB."
    assert tool(part="uptime") == "Up for 1 day 2 hours 3 minutes."
    assert re.fullmatch(r"Disk: [\d.]+ GB free of [\d.]+ GB \(\d+% used\)\.", tool(part="disk"))


def test_how_the_cpu_is_doing_is_its_load_and_its_heat(pi, tmp_path):
    # "pc sounds like a jet, hows the cpu doing": the 1.5B asked for part "cpu" (set 22)
    write(tmp_path / "proc/loadavg", "3.00 2.10 1.50 2/345 6789")
    write(tmp_path / "proc/cpuinfo", "processor\t: 0\nprocessor\t: 1\nprocessor\t: 2\n"
          "processor\t: 3")
    (tool,) = make_tools(pi)
    assert tool(part="cpu") == ("The processor is about 75 percent busy over the last minute "
                                "(4 cores). The CPU temperature is 48 degrees Celsius.")


def test_missing_readings_are_said_plainly(tmp_path):
    (tool,) = make_tools(SystemInfo(tmp_path / "sys", tmp_path / "proc", tmp_path))
    assert tool(part="temperature") == "The CPU temperature is not available on this machine."
    assert tool(part="battery").startswith("This machine has no battery")
    assert tool(part="memory") == "Memory use is not available on this machine."
    assert tool(part="uptime") == "Uptime is not available on this machine."


def test_the_real_machine_answers_every_part():
    (tool,) = make_tools(SystemInfo())
    text = tool()
    for expected in ("Disk:", "Memory:", "Up for", "CPU temperature", "battery"):
        assert expected in text
    assert re.search(r"IP address: \d+\.\d+\.\d+\.\d+ on \w+|no network address", text)
    assert tool.parameters["properties"]["part"]["enum"][0] == "all"


def test_forget_conversation_calls_the_reset():
    calls = []
    (tool,) = conversation.make_tools(lambda: calls.append("reset"))
    assert tool.name == "forget_conversation"
    assert "forgotten" in tool()
    assert calls == ["reset"]
