"""Units of measure for the converter: forgiving names ('Kilometres', 'km/h', 'degrees F',
'miles per hour') to units with their sizes, read from the lexicon's units.yaml (and the
units of time of time.yaml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from voiceagent.errors import ToolError
from voiceagent.language import lexicon
from voiceagent.language.conversions import as_written
from voiceagent.language.lexicon import number
from voiceagent.language.numbers import NUMBER, numbers_in
from voiceagent.language.plural import plural_phrase, singular

_LEX = lexicon()


@dataclass(frozen=True)
class Unit:
    """One unit: its kind and its size in the kind's first unit."""

    kind: str
    """What it measures: "length", "mass", "temperature", ..."""
    name: str
    """Its name, singular ("kilometer")."""
    size: float
    offset: float = 0.0
    """For a scale such as Fahrenheit: first unit = (value + offset) * size."""
    by_name: bool = False
    """Said by its name, however it was written ("30 c" is "30 celsius")."""


@dataclass(frozen=True)
class _Spelling:
    unit: Unit
    is_name: bool
    """The unit's name (made plural when said), not a short form (said as written)."""


def _row(kind: str, name: str, row: Any) -> tuple[Unit, list[str]]:
    where = f"units.yaml: units: {kind}: {name}"
    if isinstance(row, dict):
        return (Unit(kind, name, number(row.get("size", 1), where),
                     number(row.get("offset", 0), where), by_name=True),
                [str(s) for s in row.get("spellings", ())])
    size, *short = row if isinstance(row, list) else [row]
    return Unit(kind, name, number(size, where)), [str(s) for s in short]


@cache
def spellings() -> dict[str, _Spelling]:
    """Every way a unit is written -> the unit; the first kind to claim a spelling keeps it
    ("m" is meters, not minutes)."""
    found: dict[str, _Spelling] = {}
    kinds: dict[str, Any] = dict(_LEX.table("unit_sizes"))
    time = {**_LEX.table("durations"), **kinds.get("time", {})}
    letters: dict[str, list[str]] = {}
    for letter, of in _LEX.names("duration_letters").items():
        letters.setdefault(of, []).append(letter)
    kinds["time"] = time
    for kind, units in kinds.items():
        for name, row in units.items():
            unit, short = _row(kind, name, row)
            found.setdefault(name, _Spelling(unit, True))
            for spelling in [*short, *(letters.get(name, []) if kind == "time" else [])]:
                found.setdefault(spelling, _Spelling(unit, False))
    return found


_FILLERS = _LEX.pattern("unit_fillers")


def _find(name: str) -> tuple[_Spelling, str] | None:
    t = name.lower().replace("°", " ")
    t = as_written(t)
    t = _FILLERS.sub(" ", t)
    t = " ".join(re.sub(r"[^a-z0-9/ ]", " ", t).split())
    t = re.sub(r"\s*/\s*", "/", t)
    known = spellings()
    for guess in (t, " ".join(singular(w) for w in t.split())):
        if guess in known:
            return known[guess], guess
    return None


def find_unit(name: str) -> tuple[str, str]:
    """(kind, the unit as it is said) for a forgiving unit name: 'Kilometres' -> ('length',
    'kilometer'), 'km/h' -> ('speed', 'km/h'), 'degrees F' -> ('temperature',
    'fahrenheit')."""
    found = _find(name)
    if found is None:
        names: dict[str, list[str]] = {}
        for spelling in spellings().values():
            if spelling.is_name:
                names.setdefault(spelling.unit.kind, []).append(spelling.unit.name)
        known = "; ".join(f"{kind}: {', '.join(units)}" for kind, units in names.items())
        raise ToolError(f"I don't know the unit {name!r}. Known units - {known}.")
    spelling, said = found
    return spelling.unit.kind, spelling.unit.name if spelling.unit.by_name else said


def convert(value: float, from_unit: str, to_unit: str) -> tuple[float, str, str]:
    """(converted value, from name, to name). A name with a meaning of another kind takes
    the one the other side has (lexicon `other_kind_names`): "an ounce in ml" is a fluid
    ounce, "mils" of tequila are millilitres and "mils" of a board millimetres."""
    kind_a, a = find_unit(from_unit)
    kind_b, b = find_unit(to_unit)
    if kind_a != kind_b:
        for other_a, other_b in ((from_unit, _other_kind(to_unit)),
                                 (_other_kind(from_unit), to_unit),
                                 (_other_kind(from_unit), _other_kind(to_unit))):
            if other_a and other_b and find_unit(other_a)[0] == find_unit(other_b)[0]:
                return convert(value, other_a, other_b)
        raise ToolError(f"cannot convert {kind_a} ({from_unit}) to {kind_b} ({to_unit}).")
    unit_a, unit_b = spellings()[a].unit, spellings()[b].unit
    if unit_a.offset or unit_b.offset:
        return (value + unit_a.offset) * unit_a.size / unit_b.size - unit_b.offset, a, b
    return value * unit_a.size / unit_b.size, a, b


def _other_kind(name: str) -> str:
    """The unit `name` names when it means one of another kind ("" for none)."""
    found = _find(name)
    return "" if found is None else str(_OTHER_KIND.get(singular(found[1]), ""))


_OTHER_KIND = {singular(k): v for k, v in _LEX.names("other_kind_names").items()}


def said(unit: str, value: float) -> str:
    """The unit as said with `value`: 'miles', 'miles per hour', 'feet'; short forms ('km',
    'mph') and scales said by name ('celsius') as they are."""
    spelling = spellings().get(unit)
    if value == 1 or spelling is None or not spelling.is_name or spelling.unit.by_name:
        return unit
    return plural_phrase(unit)


def as_conversion(text: str) -> tuple[float, str, str] | None:
    """(value, from, to) when a 'calculation' is really a unit conversion: small models send
    "10 miles in kilometers" to the calculator."""
    t = re.sub(r"(?<=\d)(?=[a-z])", " ", numbers_in(text.lower()).strip(" ?.!"))
    found = _LEX.templates("conversions", {"value": f"-?{NUMBER}", "from": ".+?",
                                           "to": ".+?"}).match(t)
    if found is None:
        return None
    a, b = found.slots["from"], found.slots["to"]
    if _find(a) is None or _find(b) is None:
        return None
    return float(found.slots["value"]), a, b
