"""Clock: the time, date and weekday here or in a named place.

Places are matched against the system's own zone database (zoneinfo.available_timezones()
plus the country table beside it), so "Tokyo", "new york" and "Japan" work without a
hand-kept list.
"""

from __future__ import annotations

import difflib
import re
import zoneinfo
from datetime import datetime, tzinfo
from functools import cache
from pathlib import Path

from voiceagent.agent.tools import Tool, tool
from voiceagent.errors import ToolError

HERE = {"", "here", "local", "home", "now", "right now", "today", "tonight", "current",
        "date", "the date", "day", "time", "the time", "my location", "local time"}
"""Words small models put in `place` when the user asked about here."""
ZONE_HINT = "Use a city such as 'Tokyo' or 'New York', or a zone such as 'Europe/Berlin'."


def local_zone(name: str) -> tzinfo | None:
    """The configured zone, or None for the system's own (datetime.astimezone() picks it)."""
    if not name:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ToolError(f"the configured time zone {name!r} is unknown. {ZONE_HINT}") from None


def now_in(zone: tzinfo | None) -> datetime:
    return datetime.now().astimezone(zone)


def spoken_time(moment: datetime) -> str:
    """'9:05 PM' — the form a speech synthesiser reads naturally."""
    return moment.strftime("%I:%M %p").lstrip("0")


def spoken_date(moment: datetime) -> str:
    """'Sunday, November 29, 2026'."""
    return f"{moment:%A, %B} {moment.day}, {moment.year}"


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


@cache
def _places() -> dict[str, str]:
    """Spoken place name -> IANA zone, from the zone names and the country table."""
    places: dict[str, str] = {}
    for zone in sorted(zoneinfo.available_timezones()):
        if zone.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            continue
        places.setdefault(_key(zone), zone)
        places.setdefault(_key(zone.rsplit("/", 1)[-1]), zone)
    places.update(_countries())
    return places


def _countries() -> dict[str, str]:
    """Country name -> its first (most populous) zone, when the zone tables are installed."""
    for base in map(Path, zoneinfo.TZPATH):
        iso, zones = base / "iso3166.tab", base / "zone.tab"
        if iso.is_file() and zones.is_file():
            break
    else:
        return {}
    first: dict[str, str] = {}
    for line in zones.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            code, _, zone = line.split("\t")[:3]
            first.setdefault(code, zone)
    names: dict[str, str] = {}
    for line in iso.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            code, name = line.split("\t")[:2]
            if code in first:
                names[_key(name)] = first[code]
    return names


def find_zone(place: str) -> zoneinfo.ZoneInfo:
    """The zone for a city, country or IANA name; an instructive ToolError otherwise."""
    try:
        return zoneinfo.ZoneInfo(place.strip())
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        pass
    key = re.sub(r"^(the )?(city of )?", "", _key(place))
    places = _places()
    if key in places:
        return zoneinfo.ZoneInfo(places[key])
    close = difflib.get_close_matches(key, places, n=3, cutoff=0.8)
    suggest = f" Did you mean {', '.join(close)}?" if close else ""
    raise ToolError(f"I don't know the time zone of {place!r}.{suggest} {ZONE_HINT}")


def make_tools(timezone: str) -> list[Tool]:
    """The clock tool, telling time in `timezone` (empty = the system's)."""

    @tool(speaks_result=True, grounded=("place",))
    def get_time(place: str = "") -> str:
        """Use when the user asks what time it is, today's date, or the day of the week,
        here or in another city or country.

        Args:
            place: a city or country, only if the user named one; otherwise empty.
        """
        if _key(place) not in HERE:
            zone = find_zone(place)
            moment = now_in(zone)
            return f"In {place.strip()} it is {spoken_time(moment)}, {spoken_date(moment)}."
        moment = now_in(local_zone(timezone))
        return f"It is {spoken_time(moment)}, {spoken_date(moment)}."

    return [get_time]
