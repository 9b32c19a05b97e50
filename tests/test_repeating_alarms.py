"""Alarms that repeat: "every weekday at 7" is read, set, said back, rung again on its next
day, listed and cancelled; a repeat nothing here keeps ("every month") sets nothing."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from voiceagent.agent.carried import carry
from voiceagent.language.repeats import WEEK, read_repeat, spoken_repeat
from voiceagent.testing import FakeClock
from voiceagent.tools.timer_store import Timers
from voiceagent.tools.timers import make_tools

BERLIN = ZoneInfo("Europe/Berlin")


def _at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=BERLIN).timestamp()


@pytest.fixture
def store(tmp_path):
    """Tuesday 1 December 2026, 08:00 in Berlin (a zone with summer time)."""
    return Timers(tmp_path / "timers.json", FakeClock("2026-12-01 08:00", zone="Europe/Berlin"))


def tools(store):
    return {t.name: t for t in make_tools(store)}


@pytest.mark.parametrize("said, days, rest", [
    ("7 am every weekday", "01234", "7 am"),
    ("6:30 on weekends", "56", "6:30"),
    ("12:00 p.m. every Friday", "4", "12:00 p.m."),
    ("7 on fridays", "4", "7"),
    ("every monday and thursday at 8", "03", "at 8"),
    ("mondays, wednesdays and fridays at 6", "024", "at 6"),
    ("9 am every single day", "0123456", "9 am"),
    ("5 am every morning", "0123456", "5 am"),
    ("7 every morning", "0123456", "7 am"),  # a bare hour: the morning's
    ("every night at 10", "0123456", "at 10 pm"),
    ("7:30 weekly", WEEK, "7:30"),
    ("7 am friday", "", "7 am friday"),  # one Friday, not every one
    ("7 am tomorrow", "", "7 am tomorrow"),
    ("every alarm", "", "every alarm"),
])
def test_how_often_as_said(said, days, rest):
    found = read_repeat(said)
    assert (found.days, found.rest, found.unsupported) == (days, rest, "")


def test_repeats_nothing_here_keeps_are_named():
    assert read_repeat("9 am every month").unsupported == "every month"
    assert read_repeat("rent, yearly").unsupported == "yearly"


def test_days_said_back():
    assert [spoken_repeat(d) for d in ("0123456", "01234", "56", "4", "03")] == [
        "every day", "every weekday", "every weekend", "every Friday",
        "every Monday and Thursday"]


def test_a_weekday_alarm_rings_each_weekday_and_not_at_the_weekend(store):
    t = tools(store)
    assert t["set_alarm"](time="7 am every weekday", label="") == (
        "Alarm set for 7:00 AM tomorrow, repeating every weekday.")
    rung: list[str] = []
    moments = []
    for _ in range(6):  # Wednesday .. Tuesday: five weekdays and the next Monday
        store.clock.advance(store.pending()[0].due - store.clock.time())
        moments.append(datetime.fromtimestamp(store.clock.time(), BERLIN).strftime("%a %H:%M"))
        store.ring(rung.append)
    assert moments == ["Wed 07:00", "Thu 07:00", "Fri 07:00", "Mon 07:00", "Tue 07:00",
                       "Wed 07:00"]
    assert len(rung) == 6 and len(store.pending()) == 1  # still set, for the next weekday


def test_it_keeps_its_time_of_day_across_summer_time(tmp_path):
    """Berlin moves its clocks on 29 March 2026: the daily 7:00 stays 7:00 on the wall."""
    store = Timers(tmp_path / "timers.json", FakeClock("2026-03-27 08:00", zone="Europe/Berlin"))
    tools(store)["set_alarm"](time="7:00 am", label="every day")
    for day in ("28", "29", "30"):
        store.clock.advance(store.pending()[0].due - store.clock.time())
        store.ring(lambda _text: None)
        assert store.pending()[0].due == _at(f"2026-03-{int(day) + 1:02d} 07:00")


def test_said_on_a_day_it_does_not_ring_it_starts_on_the_next_one(tmp_path):
    saturday = Timers(tmp_path / "timers.json", FakeClock("2026-12-05 08:00", zone="Europe/Berlin"))
    said = tools(saturday)["set_alarm"](time="6:30 am", label="work every weekday")
    assert said == "Alarm set for 6:30 AM on Monday, repeating every weekday: work."
    assert saturday.pending()[0].due == _at("2026-12-07 06:30")


def test_an_hour_without_am_or_pm_is_the_first_one_on_the_next_day_it_rings(tmp_path):
    """"six thirty on weekdays" said on a Sunday afternoon: the next 6:30 is that evening, on
    no weekday, and was moved to Monday as 6:30 PM; Monday's first 6:30 is the morning's."""
    sunday = Timers(tmp_path / "timers.json", FakeClock("2026-12-06 14:30", zone="Europe/Berlin"))
    said = tools(sunday)["set_alarm"](time="six thirty on weekdays", label="")
    assert said == "Alarm set for 6:30 AM tomorrow, repeating every weekday."
    assert sunday.pending()[0].due == _at("2026-12-07 06:30")
    monday = Timers(tmp_path / "t2.json", FakeClock("2026-12-07 14:30", zone="Europe/Berlin"))
    said = tools(monday)["set_alarm"](time="7 every weekday", label="")
    assert said == "Alarm set for 7:00 PM today, repeating every weekday."  # the next 7 is today's


def test_one_missed_while_not_running_rings_late_then_waits_for_its_next_day(tmp_path):
    path = tmp_path / "timers.json"
    tools(Timers(path, FakeClock("2026-12-01 08:00", zone="Europe/Berlin")))["set_alarm"](
        time="9 pm", label="pills every day")
    later = Timers(path, FakeClock("2026-12-03 10:00", zone="Europe/Berlin"))  # two days later
    rung: list[str] = []
    later.ring(rung.append)
    assert rung == ["Your pills alarm went off while I was not running."]
    assert later.pending()[0].due == _at("2026-12-03 21:00")


def test_listed_and_cancelled_by_how_often(store):
    t = tools(store)
    t["set_alarm"](time="7 am every weekday", label="")
    t["set_alarm"](time="9 am on weekends", label="")
    t["set_alarm"](time="6 pm", label="")
    listed = str(t["list_timers"]())
    assert "7:00 AM tomorrow, repeating every weekday." in listed
    assert "9:00 AM on Saturday, repeating every weekend." in listed
    assert str(t["cancel_timer"](which="the weekday alarm")) == "Cancelled the 7:00 AM alarm."
    assert [e.repeat for e in store.pending()] == ["", "56"]


def test_a_repeat_nothing_keeps_sets_nothing_and_says_so(store):
    said = str(tools(store)["set_alarm"](time="9 am every month", label="rent"))
    assert said.startswith("I can't repeat an alarm every month")
    assert store.pending() == []


def test_how_often_the_user_said_reaches_the_call(store):
    """The 1.5B called set_alarm(time="9:00 am", label="Daily reminder") for "i need a
    reminder every single day at nine am", and set_alarm(time="7 am") for "... every
    weekday": how often is the user's, and the call carries it."""
    set_alarm = tools(store)["set_alarm"]
    args, added = carry(set_alarm, {"time": "7 am", "label": ""},
                        "set an alarm for 7 am every weekday")
    assert added == ["every weekday"] and args["time"] == "7 am every weekday"
    args, added = carry(set_alarm, {"time": "12 noon", "label": "friday prayer"},
                        "set twelve noon prayer for every friday")
    assert added == ["every friday"]
    assert set_alarm(**args) == "Alarm set for 12:00 PM on Friday, repeating every Friday: prayer."


def test_how_often_is_only_what_the_user_said(store):
    """The 1.5B wrote label="daily breakfast" for "set an alarm for 7 am every weekday":
    the user's "every weekday" goes in, the model's "daily" goes out; said nowhere, an alarm
    does not repeat."""
    set_alarm = tools(store)["set_alarm"]
    args, _ = carry(set_alarm, {"time": "7:00 am", "label": "daily breakfast"},
                    "set an alarm for 7 am every weekday")
    assert args == {"time": "7:00 am every weekday", "label": "breakfast"}
    args, added = carry(set_alarm, {"time": "7 am daily", "label": ""}, "wake me at 7 am")
    assert (args, added) == ({"time": "7 am", "label": ""}, [])
    args, _ = carry(set_alarm, {"time": "5 pm every day", "label": "pills"}, "5 pm",
                    heard="remind me to take my pills every day")
    assert args["time"] == "5 pm every day"
