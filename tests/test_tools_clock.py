"""The clock tool: local time and date, time elsewhere by city or country name."""

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from voiceagent.agent.messages import ToolCall
from voiceagent.agent.tools import ToolRegistry
from voiceagent.errors import ToolError
from voiceagent.tools.clock import find_zone, make_tools

WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
SPOKEN = rf"\d{{1,2}}:\d\d [AP]M, ({WEEKDAYS}), \w+ \d{{1,2}}, \d{{4}}\."


def get_time(timezone: str = ""):
    (tool,) = make_tools(timezone)
    assert tool.name == "get_time"  # agent/example.py and the evaluation refer to it
    return tool


def test_local_time_says_time_weekday_and_date():
    text = get_time("UTC")()
    assert re.fullmatch(rf"It is {SPOKEN}", text)
    assert datetime.now().strftime("%Y") in text


@pytest.mark.parametrize("place, zone", [
    ("Tokyo", "Asia/Tokyo"), ("london", "Europe/London"), ("New York", "America/New_York"),
    ("los angeles", "America/Los_Angeles"), ("Europe/Berlin", "Europe/Berlin"),
    ("the city of Paris", "Europe/Paris"), ("Japan", "Asia/Tokyo"), ("India", "Asia/Kolkata"),
    ("UTC", "UTC"),
])
def test_places_map_to_zones_from_the_zone_database(place, zone):
    now = datetime.now(UTC)
    expected = now.astimezone(ZoneInfo(zone)).utcoffset()
    assert now.astimezone(find_zone(place)).utcoffset() == expected


def test_time_elsewhere_names_the_place():
    text = get_time()(place="Tokyo")
    assert re.fullmatch(rf"In Tokyo it is {SPOKEN}", text)
    for here in ("here", "today", "now", "Today"):
        assert get_time("UTC")(place=here).startswith("It is ")


def test_unknown_place_is_an_instructive_error():
    with pytest.raises(ToolError, match="Europe/Berlin"):
        get_time()(place="Atlantis")
    registry = ToolRegistry(make_tools(""))
    text, is_error = registry.run(ToolCall("1", "get_time", {"place": "Atlantis"}))
    assert is_error and "Atlantis" in text and "Tokyo" in text
    with pytest.raises(ToolError, match="Did you mean paris"):
        get_time()(place="Pariss")


def test_bad_configured_zone_names_the_format():
    with pytest.raises(ToolError, match="configured time zone 'Mars/Base'"):
        get_time("Mars/Base")()
