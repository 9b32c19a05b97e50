"""System status: battery, CPU temperature, disk, memory, uptime and IP address.

Read from Linux's /sys and /proc (a Raspberry Pi's CPU sensor is the 'cpu-thermal' zone);
anything the platform does not provide is said plainly instead of guessed. The roots are
parameters so tests can give a fake /sys tree.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import struct
from pathlib import Path
from typing import Literal

from voiceagent.agent.tools import Tool, tool

Part = Literal["all", "battery", "cpu", "temperature", "disk", "memory", "uptime", "ip"]
SIOCGIFADDR = 0x8915


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB"


class SystemInfo:
    """Each method returns one short sentence."""

    def __init__(self, sys_root: Path = Path("/sys"), proc_root: Path = Path("/proc"),
                 disk_path: Path = Path("/")):
        self.sys = sys_root
        self.proc = proc_root
        self.disk_path = disk_path

    def battery(self) -> str:
        for supply in sorted((self.sys / "class/power_supply").glob("*")):
            if _read(supply / "type") == "Battery" and _read(supply / "capacity"):
                status = (_read(supply / "status") or "").lower()
                state = f", {status}" if status and status != "unknown" else ""
                return f"Battery at {_read(supply / 'capacity')} percent{state}."
        return "This machine has no battery I can read (it may run on mains power)."

    def cpu(self) -> str:
        """How busy the processor is (the last minute's load over its cores), and how hot:
        "how's the cpu doing" asks both."""
        text = _read(self.proc / "loadavg")
        if not text:
            return self.temperature()
        listed = (_read(self.proc / "cpuinfo") or "").count("processor\t")
        cores = listed or os.cpu_count() or 1
        busy = min(100.0, 100 * float(text.split()[0]) / cores)
        return (f"The processor is about {busy:.0f} percent busy over the last minute "
                f"({cores} cores). {self.temperature()}")

    def temperature(self) -> str:
        zones = sorted((self.sys / "class/thermal").glob("thermal_zone*"))
        raw = [(_read(z / "type") or "", _read(z / "temp") or "") for z in zones]
        readings = [(kind, temp) for kind, temp in raw if temp.lstrip("-").isdigit()]
        cpu = [r for r in readings if any(k in r[0].lower() for k in ("cpu", "pkg", "soc"))]
        chosen = (cpu or readings)[:1]
        if not chosen:
            return "The CPU temperature is not available on this machine."
        return f"The CPU temperature is {int(chosen[0][1]) / 1000:.0f} degrees Celsius."

    def disk(self) -> str:
        usage = shutil.disk_usage(self.disk_path)
        percent = 100 * usage.used / usage.total if usage.total else 0
        return f"Disk: {_gb(usage.free)} free of {_gb(usage.total)} ({percent:.0f}% used)."

    def memory(self) -> str:
        info: dict[str, int] = {}
        for line in (_read(self.proc / "meminfo") or "").splitlines():
            key, _, rest = line.partition(":")
            if rest.split():
                info[key] = int(rest.split()[0]) * 1024
        if "MemTotal" not in info or "MemAvailable" not in info:
            return "Memory use is not available on this machine."
        return f"Memory: {_gb(info['MemAvailable'])} free of {_gb(info['MemTotal'])}."

    def uptime(self) -> str:
        text = _read(self.proc / "uptime")
        if not text:
            return "Uptime is not available on this machine."
        minutes = int(float(text.split()[0]) // 60)
        days, rest = divmod(minutes, 1440)
        hours, mins = divmod(rest, 60)
        parts = [f"{n} {unit}{'s' if n != 1 else ''}"
                 for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute")) if n]
        return f"Up for {' '.join(parts) or 'less than a minute'}."

    def ip(self) -> str:
        found = []
        for _, name in socket.if_nameindex():
            if name == "lo":
                continue
            address = _ipv4(name)
            if address:
                found.append(f"{address} on {name}")
        if not found:
            return "This machine has no network address right now."
        return "IP address: " + ", ".join(found) + "."

    def report(self, part: Part) -> str:
        parts = ["battery", "temperature", "disk", "memory", "uptime", "ip"]
        chosen = parts if part == "all" else [part]
        return " ".join(getattr(self, p)() for p in chosen)


def _ipv4(interface: str) -> str | None:
    """The IPv4 address of an interface, asked of the kernel (no traffic is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR,
                                 struct.pack("256s", interface.encode()[:15]))
        except OSError:
            return None
    return socket.inet_ntoa(packed[20:24])


def make_tools(info: SystemInfo) -> list[Tool]:
    """get_system_status over `info`."""

    @tool(speaks_result=True)
    def get_system_status(part: Part = "all") -> str:
        """This computer: free memory, disk space, uptime, battery, CPU load and
        temperature, IP address.

        Args:
            part: which reading; "all" for everything.
        """
        return info.report(part)

    return [get_system_status]
