"""What the machine spent on the bench: peak memory and CPU seconds, read from /proc, so a
shared, noisy machine shows in the figures."""

from __future__ import annotations

import os
import re
import resource
from pathlib import Path


def peak_rss_mb(pid: int | None = None) -> float | None:
    """Peak resident memory of this process, or of `pid` and its children (/proc VmHWM)."""
    if pid is None:
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    total_kb = 0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        for p in [pid, *map(int, children)]:
            status = Path(f"/proc/{p}/status").read_text()
            match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
            total_kb += int(match.group(1)) if match else 0
    except OSError:
        return None
    return round(total_kb / 1024, 1)


def cpu_seconds(server_pid: int | None) -> tuple[float, float, float]:
    """CPU seconds used so far by the whole machine, this process, and the LLM server: the
    difference is what other programs took from the bench (a shared machine is noisy)."""
    tick = os.sysconf("SC_CLK_TCK")
    busy = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    machine = sum(map(int, busy)) - int(busy[3]) - int(busy[4])  # minus idle and iowait
    mine = sum(os.times()[:2]) * tick
    server = 0
    if server_pid is not None:
        try:
            fields = Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()
            server = int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return machine / tick, mine / tick, server / tick
