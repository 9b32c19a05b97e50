"""A name said after the command it names is the label of its timer or alarm (a British
session: "and another one saturday at nine thirty, call it football" lost "football")."""

from __future__ import annotations

import pytest

from tests.test_follow_ups import Session, tools  # noqa: F401  (the fixture)
from voiceagent.intents.naming import named_after


@pytest.mark.parametrize("said, found", [
    ("set a timer for 20 minutes, name it laundry", ("set a timer for 20 minutes", "laundry")),
    ("set an alarm for 7 am and call it gym", ("set an alarm for 7 am", "gym")),
    # what is said after the name is no part of it
    ("set a timer for ten minutes, label it adobo also", ("set a timer for ten minutes",
                                                          "adobo")),
    ("set a timer for 20 minutes", None),
    ("call it a day", None),  # nothing before it to name
    ("set a timer for 5 minutes, call it 10", None),  # a number is no name
])
def test_the_name_said_after_a_command(said, found):
    assert named_after(said) == found


@pytest.mark.parametrize("first, then, expected", [
    ("Wake me at six on Friday.", "and another one saturday at nine thirty, call it football",
     "9:30 am on saturday: football"),
    ("Set a timer for 5 minutes.", "and another one for 10 minutes, name it rice",
     "10 minutes: rice"),
    (None, "Set a timer for 20 minutes, name it laundry.", "20 minutes: laundry"),
])
def test_the_call_that_takes_a_name_is_named(tools, first, then, expected):  # noqa: F811
    s = Session(tools)
    if first:
        s.say(first)
    assert expected in s.say(then).lower()
