"""The system clock as the Clock port (voiceagent/ports.py), in the configured zone."""

from __future__ import annotations

import time
import zoneinfo
from datetime import datetime, tzinfo


def zone_named(name: str) -> tzinfo | None:
    """The IANA zone `name` ("Europe/Berlin"), or None for the system's own when empty;
    ValueError naming the zone when it does not exist."""
    if not name:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None


class SystemClock:
    """Real time, said in `zone` (None: the system's zone, whatever it is at each call)."""

    def __init__(self, zone: tzinfo | None = None) -> None:
        self._zone = zone

    @property
    def zone(self) -> tzinfo | None:
        return self._zone

    def time(self) -> float:
        return time.time()

    def now(self) -> datetime:
        return datetime.now().astimezone(self._zone)


def clock_for(timezone: str) -> tuple[SystemClock, str]:
    """The system clock in `timezone` ([tools] timezone), and a warning when that zone does
    not exist (the system's zone is used then)."""
    try:
        return SystemClock(zone_named(timezone)), ""
    except ValueError as exc:
        return SystemClock(), (f"[tools] timezone: {exc}; using the system's zone. Use a zone "
                               "such as 'Europe/Berlin'.")
