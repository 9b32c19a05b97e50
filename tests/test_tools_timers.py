"""Timers and alarms: spoken durations and times, announcing while idle, surviving restarts."""

import threading
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from voiceagent.errors import ToolError
from voiceagent.testing import FakeClock
from voiceagent.tools.timer_store import Bell, Timers
from voiceagent.tools.timers import alarm_due, make_tools, spoken_length
from voiceagent.tools.words import numbers_in, parse_clock_time, parse_duration
from voiceagent.wallclock import SystemClock

UTC = ZoneInfo("UTC")


class Announcer:
    """Collects announcements; `wait(n)` blocks until n have arrived (or fails)."""

    def __init__(self):
        self.texts: list[str] = []
        self._cond = threading.Condition()

    def __call__(self, text: str) -> None:
        with self._cond:
            self.texts.append(text)
            self._cond.notify_all()

    def wait(self, count: int = 1) -> list[str]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.texts) >= count, timeout=10), self.texts
            return list(self.texts)


@pytest.fixture
def timers(tmp_path):
    """A store on a clock the test moves (ring() is called by the test, no thread)."""
    return Timers(tmp_path / "timers.json", FakeClock("2026-12-01 08:00"))


def tools(store):
    return {t.name: t for t in make_tools(store)}


@pytest.mark.parametrize("spoken, seconds", [
    ("5 minutes", 300), ("five minutes", 300), ("90 seconds", 90), ("1 hour 30 minutes", 5400),
    ("an hour and a half", 5400), ("half an hour", 1800), ("1.5 hours", 5400), ("10 min", 600),
    ("twenty-five minutes", 1500), ("a quarter of an hour", 900), ("5", 300),
    ("three minutes and 20 seconds", 200), ("2 hrs", 7200),
])
def test_durations_in_words_and_digits(spoken, seconds):
    assert parse_duration(spoken) == seconds


@pytest.mark.parametrize("spoken, expected", [
    ("7:30", (7, 30, None)), ("7:30 pm", (7, 30, "pm")), ("at 7", (7, 0, None)),
    ("7 a.m.", (7, 0, "am")), ("19:45", (19, 45, None)), ("seven thirty", (7, 30, None)),
    ("seven forty five pm", (7, 45, "pm")), ("noon", (12, 0, None)),
    ("6 in the morning", (6, 0, "am")), ("ten pm", (10, 0, "pm")), ("seven oh five", (7, 5, None)),
])
def test_clock_times_in_words_and_digits(spoken, expected):
    assert parse_clock_time(spoken) == expected


@pytest.mark.parametrize("seconds, said", [
    (599.2, "10 minutes"), (598, "10 minutes"), (754, "13 minutes"),
    (90, "1 minute and 30 seconds"), (118, "2 minutes"), (44, "44 seconds"),
])
def test_time_left_is_said_as_people_say_it(seconds, said):
    """A second gone by while a request was heard is no "9 minutes and 59 seconds" for the
    10 minutes just left on a timer."""
    assert spoken_length(seconds) == said


def test_number_words():
    assert numbers_in("twenty five apples") == "25 apples"
    assert numbers_in("one hundred and five") == "105"
    assert numbers_in("twelve fifty") == "1250"
    assert numbers_in("two point five") == "2.5"


def test_unreadable_inputs_say_how_to_phrase_them():
    with pytest.raises(ToolError, match="5 minutes"):
        parse_duration("soonish")
    with pytest.raises(ToolError, match="7:30 pm"):
        parse_clock_time("banana")
    with pytest.raises(ToolError, match="not a valid time"):
        parse_clock_time("13 pm")


def _at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_alarm_picks_the_next_matching_time():
    evening = _at("2026-01-05 21:00")
    assert alarm_due("7:30", UTC, evening) == _at("2026-01-06 07:30")
    assert alarm_due("7:30 pm", UTC, evening) == _at("2026-01-06 19:30")
    afternoon = _at("2026-01-05 14:00")
    assert alarm_due("7:30", UTC, afternoon) == _at("2026-01-05 19:30")
    assert alarm_due("7:30 am", UTC, afternoon) == _at("2026-01-06 07:30")
    assert alarm_due("noon", UTC, afternoon) == _at("2026-01-06 12:00")


def test_an_alarm_on_the_day_said_with_it():
    """"Set an alarm for 7 am tomorrow" was an error (then 7 am today, when the model dropped
    "tomorrow"); "Friday at 9" rang at the next 9 o'clock."""
    tuesday = _at("2026-12-01 08:00")
    assert alarm_due("7 am tomorrow", UTC, tuesday) == _at("2026-12-02 07:00")
    assert alarm_due("tomorrow at 7", UTC, tuesday) == _at("2026-12-02 07:00")
    assert alarm_due("Friday at 9", UTC, tuesday) == _at("2026-12-04 09:00")
    assert alarm_due("9 tonight", UTC, tuesday) == _at("2026-12-01 21:00")
    assert alarm_due("7:30 the day after tomorrow", UTC, tuesday) == _at("2026-12-03 07:30")
    assert alarm_due("Tuesday at 7 am", UTC, tuesday) == _at("2026-12-08 07:00")  # next week
    with pytest.raises(ToolError, match="already passed today"):
        alarm_due("today at 7 am", UTC, tuesday)
    late_night = _at("2026-12-01 00:50")  # not yet slept: "tomorrow" is the coming morning
    assert alarm_due("6:30 tomorrow", UTC, late_night) == _at("2026-12-01 06:30")


def test_a_day_said_in_the_label_moves_to_the_time(tmp_path):
    """"Remind me to call mom tomorrow at 5 pm": the template's label holds "tomorrow"."""
    store = Timers(tmp_path / "timers.json", FakeClock("2026-12-01 08:00"))
    said = tools(store)["set_alarm"](time="5 pm", label="call mom tomorrow")
    assert said == "Alarm set for 5:00 PM tomorrow: call mom."
    assert store.pending()[0].due == _at("2026-12-02 17:00")

def test_a_due_timer_rings_once_and_is_gone(timers):
    t = tools(timers)
    assert t["set_timer"](duration="1 minute", label="the pasta timer") == (
        "Timer set for 1 minute: pasta.")
    said: list[str] = []
    timers.ring(said.append)
    assert said == []  # not due yet
    timers.clock.advance(60)
    timers.ring(said.append)
    timers.ring(said.append)  # rung once, not again
    assert said == ["Your 1 minute pasta timer is done."]
    assert t["list_timers"]() == "You have no timers or alarms set."


def test_a_paused_timer_stands_still_and_resumes_with_the_time_it_had_left(timers):
    t = tools(timers)
    t["set_timer"](duration="5 minutes", label="pasta")
    timers.clock.advance(60)
    assert t["pause_timer"]() == "Paused the 5 minute pasta timer: 4 minutes left."
    assert t["pause_timer"](which="pasta") == (
        "The 5 minute pasta timer is already paused, with 4 minutes left.")
    said: list[str] = []
    timers.clock.advance(600)  # long past when it would have rung
    timers.ring(said.append)
    assert said == []
    assert t["list_timers"]() == "Your 5 minute pasta timer is paused with 4 minutes left."
    assert t["pause_timer"](resume=True) == "Resumed the 5 minute pasta timer: 4 minutes left."
    timers.clock.advance(239)
    timers.ring(said.append)
    assert said == []
    timers.clock.advance(1)
    timers.ring(said.append)
    assert said == ["Your 5 minute pasta timer is done."]
    assert t["pause_timer"](which="timer") == "You have no timer running."
    with pytest.raises(ToolError, match="no timer is running"):
        t["pause_timer"]()  # "pause" alone, with no timer: of something else (the model's)


def test_pausing_among_several_timers_takes_the_one_named_or_asks(timers):
    t = tools(timers)
    t["set_timer"](duration="5 minutes", label="pasta")
    t["set_timer"](duration="10 minutes", label="rice")
    with pytest.raises(ToolError, match="pasta.*rice"):
        t["pause_timer"]()  # which one? the error lists them, for the model to ask
    assert t["pause_timer"](which="rice") == "Paused the 10 minute rice timer: 10 minutes left."
    # the only paused one is the one to resume; the only running one the one to pause
    assert t["pause_timer"](resume=True).startswith("Resumed the 10 minute rice timer")
    t["pause_timer"](which="pasta")
    assert t["pause_timer"](which="rice").startswith("Paused the 10 minute rice timer")
    assert t["pause_timer"](which="pasta", resume=True).startswith("Resumed the 5 minute pasta")


def test_time_taken_off_a_timer_running_or_paused(timers):
    t = tools(timers)
    t["set_timer"](duration="10 minutes", label="rice")
    assert t["set_timer"](duration="2 minutes", take_from="rice") == (
        "Took 2 minutes off the 10 minute rice timer: 8 minutes left.")
    t["pause_timer"]()
    assert t["set_timer"](duration="3 minutes", add_to="timer") == (
        "Added 3 minutes to the 8 minute rice timer: 11 minutes left.")
    with pytest.raises(ToolError, match="only 11 minutes left.*cancel"):
        t["set_timer"](duration="1 hour", take_from="rice")
    assert t["list_timers"]() == "Your 11 minute rice timer is paused with 11 minutes left."


def test_the_bell_rings_a_timer_while_idle(tmp_path):
    """The real thread on the real clock: set, then announced without anyone asking."""
    store, announcer = Timers(tmp_path / "timers.json", SystemClock(UTC)), Announcer()
    bell = Bell(store, announcer)
    try:
        tools(store)["set_timer"](duration="1 second", label="tea")
        assert announcer.wait() == ["Your 1 second tea timer is done."]
    finally:
        bell.close()


def test_set_list_and_cancel(timers):
    t = tools(timers)
    t["set_timer"](duration="five minutes", label="eggs")
    t["set_timer"](duration="10 minutes")
    assert t["set_alarm"](time="7:30 am", label="wake up").startswith("Alarm set for 7:30 AM")
    listing = t["list_timers"]()
    assert listing.startswith("You have 2 timers and 1 alarm. Your 5 minute eggs timer has ")
    assert "Your wake up alarm is set for 7:30 AM" in listing
    assert t["cancel_timer"](which="") == (  # three are set: the user is asked which
        "Which one? You have the 5 minute eggs timer, the 10 minute timer and the "
        "wake up alarm.")
    assert t["cancel_timer"](which="Eggs") == "Cancelled the 5 minute eggs timer."
    assert t["cancel_timer"](which="the timer") == "Cancelled the 10 minute timer."
    assert t["cancel_timer"](which="timer") == "You have no timer set, only the wake up alarm."
    assert t["cancel_timer"](which="all") == "Cancelled the wake up alarm."
    assert t["cancel_timer"](which="all") == "There are no timers or alarms to cancel."


def test_cancelling_the_alarms_of_a_day_keeps_the_others(timers):
    """"delete all reminders of sunday" cancelled every alarm: the day said is kept."""
    t = tools(timers)  # Tuesday 1 Dec 2026, 8:00
    t["set_alarm"](time="7 am on Sunday")
    t["set_alarm"](time="9:30 am on Sunday")
    t["set_alarm"](time="8 am tomorrow")
    assert t["cancel_timer"](which="all alarms on sunday") == (
        "Cancelled the 7:00 AM alarm and the 9:30 AM alarm.")
    assert t["cancel_timer"](which="the friday alarm") == (
        "You have no alarm on that day, only the 8:00 AM alarm.")
    assert t["cancel_timer"](which="tomorrow's alarm") == "Cancelled the 8:00 AM alarm."


def test_spoken_results_read_naturally(timers):
    t = tools(timers)
    # labels small models invent from the length itself are dropped
    assert t["set_timer"](duration="5 minutes", label="5") == "Timer set for 5 minutes."
    assert t["set_timer"](duration="20 minutes", label="20 minutes") == (
        "Timer set for 20 minutes.")
    assert t["set_timer"](duration="an hour and a half", label="10 minute bread") == (
        "Timer set for 1 hour and 30 minutes: bread.")
    assert t["set_timer"](duration="half a minute", label="tea") == (
        "Timer set for 30 seconds: tea.")
    assert t["set_timer"](duration="1 minute", label="to check the oven") == (
        "Timer set for 1 minute: to check the oven.")
    assert t["cancel_timer"](which="all timers") == (
        "Cancelled the 5 minute timer, the 20 minute timer, the 1 hour 30 minute bread timer, "
        "the 30 second tea timer and the 1 minute to check the oven timer.")
    t["set_alarm"](time="7 am")
    t["set_alarm"](time="8:15 pm")
    assert t["cancel_timer"](which="7:00 am alarm") == "Cancelled the 7:00 AM alarm."


def test_alarm_in_a_relative_time_and_bad_lengths(timers):
    t = tools(timers)
    assert t["set_alarm"](time="in 10 minutes").startswith("Alarm set for ")
    assert timers.pending()[0].due - timers.clock.time() == 600
    t["set_alarm"](time="20 minutes", label="oven")  # a reminder sent to set_alarm
    assert [e.label for e in timers.pending()] == ["", "oven"]
    with pytest.raises(ToolError, match="time of day"):
        t["set_alarm"](time="whenever")
    with pytest.raises(ToolError, match="between 1 second and 7 days"):
        t["set_timer"](duration="30 days")


def test_restart_keeps_timers(tmp_path):
    path = tmp_path / "timers.json"
    tools(Timers(path, FakeClock()))["set_timer"](duration="1 hour", label="bread")
    assert tools(Timers(path, FakeClock()))["list_timers"]().startswith(
        "Your 1 hour bread timer has ")


def test_a_paused_timer_stays_paused_across_a_restart(tmp_path):
    path = tmp_path / "timers.json"
    clock = FakeClock("2026-12-01 08:00")
    before = tools(Timers(path, clock))
    before["set_timer"](duration="10 minutes", label="bread")
    clock.advance(120)
    before["pause_timer"]()
    clock.advance(3600)
    again = Timers(path, clock)
    said: list[str] = []
    again.ring(said.append)  # not announced as gone off while the assistant was away
    assert said == []
    assert tools(again)["list_timers"]() == (
        "Your 10 minute bread timer is paused with 8 minutes left.")


def test_timer_due_while_not_running_is_announced_at_start(tmp_path):
    path = tmp_path / "timers.json"
    tools(Timers(path, FakeClock(1_000_000.0)))["set_timer"](duration="1 hour",
                                                             label="laundry")
    later = Timers(path, FakeClock(1_000_000.0 + 7200))  # started two hours later
    said: list[str] = []
    later.ring(said.append)
    assert said == ["Your 1 hour laundry timer went off while I was not running."]


def test_corrupt_timers_file_is_moved_aside(tmp_path):
    path = tmp_path / "timers.json"
    path.write_text("{not json")
    assert Timers(path).pending() == []
    assert (tmp_path / "timers.corrupt").read_text() == "{not json"


def test_a_timer_set_elsewhere_is_fired_by_the_running_assistant(tmp_path):
    """`voiceagent ask` in another process sets it; the running assistant's bell rings it."""
    path, announcer = tmp_path / "timers.json", Announcer()
    bell = Bell(Timers(path, SystemClock(UTC)), announcer)
    try:
        tools(Timers(path, SystemClock(UTC)))["set_timer"](duration="1 second", label="tea")
        assert announcer.wait() == ["Your 1 second tea timer is done."]
    finally:
        bell.close()


def test_without_a_bell_timers_are_kept_not_fired(tmp_path):
    path = tmp_path / "timers.json"
    tools(Timers(path, FakeClock(1_000_000.0)))["set_timer"](duration="1 hour", label="soup")
    quiet = Timers(path, FakeClock(1_000_000.0 + 7200))  # overdue, but nobody rings it
    assert tools(quiet)["list_timers"]().startswith("Your 1 hour soup timer has ")


def test_an_alarm_on_a_date_said_with_it(timers):
    """SLURP's "set alarm on twenty fifth may at five pm": the 1.5B put the date in the
    label ("Alarm set for 5:00 PM today: may 25th.") or wrote "25 May 17:00", refused for a
    25 nobody said ("twenty fifth" was no number). A date or holiday said with the time is
    the alarm's day."""
    from voiceagent.agent.amounts import unsaid_numbers

    t = tools(timers)
    assert t["set_alarm"](time="5 pm on may 25th") == (
        "Alarm set for 5:00 PM on Tuesday, May 25, 2027.")
    assert t["set_alarm"](time="5:00 pm", label="May 25th") == (
        "Alarm set for 5:00 PM on Tuesday, May 25, 2027.")
    assert t["set_alarm"](time="9 am on christmas", label="gifts") == (
        "Alarm set for 9:00 AM on Friday, December 25, 2026: gifts.")
    assert [e.due for e in timers.pending()] == [
        datetime(2026, 12, 25, 9, tzinfo=UTC).timestamp(),
        datetime(2027, 5, 25, 17, tzinfo=UTC).timestamp(),
        datetime(2027, 5, 25, 17, tzinfo=UTC).timestamp()]
    assert t["set_alarm"](time="5 pm", label="christmas shopping") == (
        "Alarm set for 5:00 PM today: christmas shopping.")  # what it is for, not when
    with pytest.raises(ToolError, match="no time of day"):
        t["set_alarm"](time="May 25th")  # no time is made up
    assert unsaid_numbers("25 May 17:00", "set alarm on twenty fifth may at five pm") == []
    assert unsaid_numbers("2:00", "wait a second") == ["2"]  # "second" is no date


def test_what_is_left_of_a_label_once_its_day_moved_is_no_label(timers):
    """SLURP's "checkout today set alarm of ten am": label="Alarm for today" was said back
    as "Alarm set for 10:00 AM today: alarm for."."""
    assert tools(timers)["set_alarm"](time="10:00 am", label="Alarm for today") == (
        "Alarm set for 10:00 AM today.")


def test_a_length_said_with_a_decimal_is_said_in_its_parts():
    """"set a timer for 1.5 hours" read as "1 hour 30 minutes" was refused for the 30 nobody
    said, and went to the model."""
    from voiceagent.agent.amounts import unsaid_numbers

    assert unsaid_numbers("1 hour 30 minutes", "set a timer for 1.5 hours") == []
    assert unsaid_numbers("2 minutes 30 seconds", "set a timer for 2.5 minutes") == []
    assert unsaid_numbers("45 minutes", "a timer for 0.75 hours") == []
    assert unsaid_numbers("1 hour 20 minutes", "set a timer for 1.5 hours") == ["20"]
