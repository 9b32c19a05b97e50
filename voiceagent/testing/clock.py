"""FakeClock: the Clock port at a time the test sets and moves."""

from __future__ import annotations

from datetime import datetime, tzinfo


class FakeClock:
    """The Clock port at a time the test sets: `advance(seconds)` moves it, nothing sleeps.

    `at` is epoch seconds or an ISO datetime ("2026-12-01 08:00", read in `zone`)."""

    def __init__(self, at: float | str = 1_000_000_000.0, zone: str = "UTC") -> None:
        from voiceagent.wallclock import zone_named

        self._zone = zone_named(zone)
        self.at = (at if isinstance(at, float | int)
                   else datetime.fromisoformat(at).replace(tzinfo=self._zone).timestamp())

    @property
    def zone(self) -> tzinfo | None:
        return self._zone

    def time(self) -> float:
        return float(self.at)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.at, self._zone)

    def advance(self, seconds: float) -> None:
        self.at += seconds
