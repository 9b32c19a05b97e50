"""Follow-ups act on what the last exchange did, read from its tools' typed outcomes: they
work the same when every confirmation is reworded, and they cover corrections, undo and
arithmetic on the last result (language/en/follow_ups.yaml)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from voiceagent.agent.events import Events
from voiceagent.agent.loop import Agent
from voiceagent.agent.messages import Message, ToolCall
from voiceagent.agent.outcome import Outcome
from voiceagent.agent.tools import ToolRegistry
from voiceagent.config import AgentConfig
from voiceagent.config_file import load_config
from voiceagent.intents import LocalCommands
from voiceagent.testing import FakeClock, ScriptedChatModel, calls
from voiceagent.tools import ToolContext, build_tools


def reworded(registry: ToolRegistry) -> ToolRegistry:
    """The same tools, each saying its result in other words (the outcome's refs kept)."""

    def wrap(func: Any) -> Any:
        def said_otherwise(**kwargs: Any) -> Any:
            result = func(**kwargs)
            if isinstance(result, Outcome):
                return Outcome(f"Right: {result.say.lower()}", result.refs, result.note)
            return result
        return said_otherwise

    return ToolRegistry([dataclasses.replace(registry.get(n), func=wrap(registry.get(n).func))
                         for n in registry.names])


NOW = "2026-12-01 10:00"
"""The moment every session here is held at: a timer's time left, "tomorrow at 7" and the
clock's answers never depend on when the test runs or how slowly the machine runs it."""


@pytest.fixture(params=["as they are", "reworded"])
def tools(request: pytest.FixtureRequest, tmp_path: Path):
    box = build_tools(load_config(None), ToolContext(tmp_path, clock=FakeClock(NOW)))
    yield box.registry if request.param == "as they are" else reworded(box.registry)
    box.close()


class Session:
    """One conversation through the real turn with the real templates; no model needed."""

    def __init__(self, tools: ToolRegistry) -> None:
        self.tools = tools
        self.model = ScriptedChatModel()
        """Answers only what a test enqueues: a turn the templates miss fails otherwise."""
        self.agent = Agent(self.model, tools, AgentConfig(), Events(),
                           local=LocalCommands(tools, FakeClock(NOW)))
        self.history: list[Message] = []

    def say(self, text: str) -> str:
        spoken: list[str] = []
        result = self.agent.run_turn(self.history, text, on_text=spoken.append)
        self.history.extend(result.messages)
        return " ".join(spoken)

    def read(self, list_name: str = "shopping") -> str:
        return self.tools.run(ToolCall("t", "read_list", {"list_name": list_name})).say

    def timers(self) -> str:
        return self.tools.run(ToolCall("t", "list_timers", {})).say


def test_cancel_and_change_work_whatever_the_confirmation_says(tools):
    s = Session(tools)
    s.say("Set a pasta timer for 10 minutes.")
    assert "12 minutes" in s.say("Actually, make it 12 minutes.")
    assert "12 minute pasta timer" in s.timers() and "10 minute" not in s.timers()
    s.say("Cancel it.")
    assert s.timers().endswith("no timers or alarms set.")


def test_i_meant_x_not_y_replaces_the_item_just_added(tools):
    s = Session(tools)
    s.say("Add butter and eggs to my shopping list.")
    s.say("Sorry, I meant margarine, not butter.")
    listing = s.read()
    assert "margarine" in listing and "eggs" in listing and "butter" not in listing


def test_make_that_x_replaces_the_one_of_its_kind_just_added(tools):
    s = Session(tools)
    s.say("put oat milk and bananas on the shopping list")
    s.say("actually make that almond milk")
    listing = s.read()
    assert "almond milk" in listing and "bananas" in listing and "oat milk" not in listing
    s.say("add apples and pears to the shopping list")
    s.model.enqueue("Which one should I change?")
    assert s.say("actually make that almond milk") == "Which one should I change?"  # no kin


@pytest.mark.parametrize("before", ["what's on it now", "add bread to the shopping list"])
def test_an_item_named_goes_off_the_list_the_last_exchange_touched(tools, before):
    s = Session(tools)
    s.say("put oat milk and bananas on the shopping list")
    s.say(before)
    s.say("take the bananas off")
    assert "bananas" not in s.read() and "oat milk" in s.read()
    s.say("what's on it")
    s.model.enqueue("Which item should I take off?")
    assert s.say("take it off") == "Which item should I take off?"  # nothing named
    assert "oat milk" in s.read()


@pytest.mark.parametrize("said", ["actually take the onions off, I meant garlic",
                                  "not onions, garlic"])
def test_a_correction_naming_an_item_added_turns_ago_replaces_it(tools, said):
    """The sessions measure: four turns after "add tomatoes and onions to the shopping list",
    "actually take the onions off, I meant garlic" went to the model, which said "Garlic is
    already added to the recipe." (no call)."""
    s = Session(tools)
    s.say("add tomatoes and onions to the shopping list")
    s.say("set a timer for 15 minutes for the sauce")
    s.say("what's 3 times 250")
    s.say(said)
    listing = s.read()
    assert "garlic" in listing and "tomatoes" in listing and "onions" not in listing


def test_a_correction_of_an_item_never_added_is_left_to_the_model(tools):
    s = Session(tools)
    s.say("add tomatoes to the shopping list")
    s.say("what's 3 times 250")
    s.model.enqueue("Carrots were never on the list.")
    assert s.say("not carrots, garlic") == "Carrots were never on the list."
    assert "garlic" not in s.read()


def test_scrap_that_and_take_it_back_undo_the_last_exchange(tools):
    s = Session(tools)
    s.say("Set a timer for five minutes.")
    s.say("Scrap that.")
    assert s.timers().endswith("no timers or alarms set.")
    s.say("Add apples to my shopping list.")
    s.say("Take it back.")
    assert "apples" not in s.read()
    s.say("Add pears and figs to my shopping list.")
    s.say("Remove pears from my shopping list.")
    s.say("Undo that.")
    assert "pears" in s.read() and "figs" in s.read()


def test_arithmetic_on_the_last_result(tools):
    s = Session(tools)
    assert "84" in s.say("What is 12 times 7?")
    assert "184" in s.say("Now add a hundred to that.")
    assert "92" in s.say("Divide that by 2.")
    assert "9.2" in s.say("what's 10 percent of that")  # 10 % of 92, not of the example's 80


def test_which_one_is_answered_by_name_from_what_was_offered(tools):
    s = Session(tools)
    s.say("Set a tea timer for 3 minutes.")
    s.say("Set an egg timer for 5 minutes.")
    assert "which one?" in s.say("Cancel the timer.").lower()
    s.say("The egg one.")
    assert "tea" in s.timers() and "egg" not in s.timers()


def test_nothing_to_point_at_leaves_it_to_the_templates_and_the_model(tools):
    s = Session(tools)
    assert s.say("Cancel that.") == "OK."  # never mind: no exchange to undo


# --- more of the same: "and grapes" after an add -------------------------------------------------


def calls_of_last_turn(s: Session) -> list[tuple[str, dict[str, Any]]]:
    last_user = max(i for i, m in enumerate(s.history) if m.role == "user")
    return [(c.name, c.args) for m in s.history[last_user:] for c in m.calls]


@pytest.mark.parametrize("said, item", [("and grapes", "grapes"),
                                        ("Oh and also sponges.", "sponges"),
                                        ("also two bananas", "two bananas"),
                                        ("also some bread please", "bread"),
                                        ("nails as well", "nails"),
                                        ("Alexa, and grapes too.", "grapes")])
def test_a_continuation_puts_more_on_the_list_just_added_to(tools, said, item):
    s = Session(tools)
    s.say("Add milk to my hardware list.")
    assert item in s.say(said).lower()  # answered locally: the scripted model has no reply
    assert calls_of_last_turn(s) == [("add_to_list", {"list_name": "hardware", "items": item})]
    assert s.read("hardware").lower().endswith(f"milk and {item}.")
    assert s.read().endswith("our shopping list is empty.")  # nothing written anywhere else


def test_a_continuation_after_a_removal_takes_more_off(tools):
    s = Session(tools)
    s.say("Add milk, eggs and flour to my shopping list.")
    s.say("Take milk off my shopping list.")
    s.say("and eggs")
    assert s.read().lower().endswith("1 item: flour.")


@pytest.mark.parametrize("said", ["and who wrote hamlet?", "And what's the time?",
                                  "and that's all", "and set a timer for 5 minutes"])
def test_a_question_or_command_after_and_is_no_item(tools, said):
    s = Session(tools)
    s.say("Add milk to my shopping list.")
    s.model.enqueue("Shakespeare wrote Hamlet.")
    s.say(said)
    assert all(name != "add_to_list" for name, _args in calls_of_last_turn(s))
    assert s.read().lower().endswith("1 item: milk.")


def test_and_grapes_with_no_list_touched_just_before_is_no_list_add(tools):
    s = Session(tools)
    s.say("Set a timer for five minutes.")
    s.model.enqueue("Grapes are a fruit.")
    assert s.say("and grapes") == "Grapes are a fruit."
    fresh = Session(tools)
    fresh.model.enqueue("Grapes?")
    assert fresh.say("and grapes") == "Grapes?"
    assert fresh.read().endswith("our shopping list is empty.")


def test_grapes_without_a_cue_is_left_to_the_model(tools):
    s = Session(tools)
    s.say("Add milk to my shopping list.")
    s.model.enqueue("Grapes?")
    assert s.say("grapes") == "Grapes?"


def test_another_one_for_a_length_sets_one_more_timer(tools):
    s = Session(tools)
    s.say("Set a pasta timer for 10 minutes.")
    s.say("And another one for five minutes.")
    assert "10 minute pasta timer" in s.timers() and "5 minute timer" in s.timers()
    s.say("Set another one for 25 minutes.")
    assert "3 timers" in s.timers() and "25 minute timer" in s.timers()
    s.model.enqueue("For how long?")
    assert s.say("and another one for the eggs") == "For how long?"  # no length: not clean
    assert "3 timers" in s.timers()


def test_another_one_for_a_length_after_a_list_add_is_no_item(tools):
    s = Session(tools)
    s.say("Add milk to my shopping list.")
    s.model.enqueue("Another what?")
    assert s.say("and another one for ten minutes") == "Another what?"
    assert s.read().lower().endswith("1 item: milk.")


def test_a_bare_number_for_a_timer_takes_the_unit_it_was_set_in(tools):
    s = Session(tools)
    s.say("Set a timer for ten minutes.")
    s.say("No, 12.")
    assert "12 minute" in s.timers() and "10 minute" not in s.timers()
    s.say("Set a timer for 2 hours.")
    s.say("No, three.")
    assert "3 hour" in s.timers() and "2 hour" not in s.timers()


@pytest.mark.parametrize("said", ["Never mind, cancel that alarm.", "Cancel that alarm.",
                                  "ok, delete this alarm"])
def test_that_alarm_is_the_alarm_just_set(tools, said):
    s = Session(tools)
    s.say("Set an alarm for 5 am.")
    s.say(said)
    assert s.timers().endswith("no timers or alarms set.")


@pytest.mark.parametrize("said, value", [
    ("Double it.", "24"), ("What's the square root of that?", "3.46"), ("Halve it.", "6"),
    ("And minus one from the result?", "11")])
def test_a_function_of_the_last_result(tools, said, value):
    s = Session(tools)
    s.say("What is 15 percent of 80?")
    assert value in s.say(said)


def test_a_part_or_a_multiple_of_a_result_is_a_number_the_user_said(tools):
    """"what's 12 times 12", "minus 44", "and half of that?": the call "0.5 times 100" was
    refused for numbers nobody said (0, 5) and the model answered; "half" says 0.5."""
    s = Session(tools)
    s.say("what's 12 times 12")
    assert "100" in s.say("minus 44")
    assert s.say("and half of that?").endswith("is 50.")
    assert s.say("double it").endswith("is 100.")
    assert "33.3" in s.say("a third of that")


def test_an_item_put_on_it_goes_on_the_list_just_read_and_comes_off_again(tools):
    """"what's on my to-do list" (none yet), "add call the dentist to it": refused as a
    calendar call; "it" is the list just read, found or not."""
    s = Session(tools)
    s.say("what's on my to-do list")
    assert "dded call the dentist to your new to-do list" in s.say("add call the dentist to it")
    s.say("actually take it off again")
    assert s.read("to-do").endswith("our to-do list is empty.")


def test_a_list_just_made_is_the_one_things_go_on(tools):
    """"start a list called packing", "add the tent and a torch to it": onto the new list."""
    s = Session(tools)
    assert "new packing list" in s.say("start a list called packing")
    assert "packing list" in s.say("add the tent and a torch to it")
    assert s.read("packing").endswith("2 items: tent and torch.")


def test_an_item_scratched_or_done_comes_off_by_the_words_said(tools):
    """"scratch the onions" went to the model (refused), "i've done the passport one, take it
    off" took both items just added: the one named comes off, by part of its words too."""
    s = Session(tools)
    s.say("add rice, beans and onions to my shopping list")
    assert "onions" in s.say("scratch the onions")
    assert s.say("read it back to me").endswith("rice and beans.")
    s.say("put renew passport and book flights on my to do list")
    assert "renew passport" in s.say("i've done the passport one, take it off")
    assert s.read("to-do").endswith("1 item: book flights.")


def test_and_one_for_a_length_is_one_more_timer(tools):
    s = Session(tools)
    s.say("set a timer for 5 minutes")
    assert "15 minutes" in s.say("and one for 15 minutes")
    assert "5 minute" in s.timers() and "15 minute" in s.timers()


def test_a_correction_in_two_fragments_splits_where_an_item_just_added_ends(tools):
    s = Session(tools)
    s.say("Add bread and eggs to my shopping list.")
    s.say("Not bread. Buns.")
    listing = s.read()
    assert "buns" in listing and "eggs" in listing and "bread" not in listing


def test_a_timer_for_that_takes_the_length_the_user_just_told(tools):
    s = Session(tools)
    s.model.enqueue("Enjoy your pasta.")
    s.say("The pasta needs eleven minutes.")
    assert "11 minutes" in s.say("Set a timer for that.")
    assert "11 minute" in s.timers()


def test_a_note_of_that_is_what_the_user_just_told(tools):
    s = Session(tools)
    s.model.enqueue("Okay.")
    assert s.say("I parked on level four, spot 22.") == "Okay."  # a remark: no claim
    s.say("Make a note of that.")
    notes = tools.run(ToolCall("n", "read_notes", {})).say
    assert "level four, spot 22" in notes


@pytest.mark.parametrize("told, item", [
    ("The remote needs new batteries.", "new batteries"),
    ("We could do with some more olive oil.", "olive oil"),
])
def test_add_them_puts_on_the_list_what_the_user_just_said_was_needed(tools, told, item):
    """"The remote needs new batteries." then "Can you add them to my shopping list?": the
    1.5B put eggs, milk and bread on the list (refused: nobody said them) and the user was
    asked what to add (the bundled session "batteries, add them")."""
    s = Session(tools)
    s.model.enqueue("Good to know.")
    s.say(told)
    s.say("Can you add them to my shopping list?")
    assert item in s.read().lower()
    s.model.assert_consumed()
    s = Session(tools)  # a call the model tried that did not run changes nothing
    s.model.enqueue(calls(("set_alarm", {"time": "7:30 am", "label": "batteries"})))
    s.model.enqueue("Sorry, I can't do that here.").enqueue("Sorry, I can't do that here.")
    s.say(told)
    s.say("Can you add them to my shopping list?")
    assert item in s.read().lower()


@pytest.mark.parametrize("said, item", [
    ("oh dear, I'll need some prunes, would you write that down on my shopping list please",
     "prunes"),
    ("We need olive oil, put it on the shopping list.", "olive oil"),
])
def test_it_is_what_was_told_earlier_in_the_same_breath(tools, said, item):
    """"I'll need some prunes, would you write that down on my shopping list": "down" went on
    the list; what "that" points at was said a clause before."""
    s = Session(tools)
    s.say(said)
    assert s.read().lower().endswith(f"your shopping list has 1 item: {item}.")


def test_a_command_before_a_pointing_clause_is_not_what_was_told(tools):
    s = Session(tools)
    s.say("The pasta needs eleven minutes, set a timer for that.")
    assert "11 minute" in s.timers()
    s = Session(tools)
    s.say("Set a timer for 10 minutes, and make a note of that")
    assert "no notes" in tools.run(ToolCall("n", "read_notes", {})).say


def test_that_after_a_question_or_a_call_is_not_what_was_told(tools):
    """"Make a note of that" after a question, or after a command that ran, is the model's
    to resolve: what the user told there is no note."""
    s = Session(tools)
    s.model.enqueue("Paris.")
    s.say("What is the capital of France?")
    s.model.enqueue("What should the note say?")
    s.say("Make a note of that.")
    assert "no notes" in tools.run(ToolCall("n", "read_notes", {})).say
    s.model.assert_consumed()


def test_running_out_puts_it_on_the_shopping_list_and_saying_it_again_keeps_one(tools):
    s = Session(tools)
    assert "coffee" in s.say("We're out of coffee.")
    s.say("We're out of coffee.")
    assert s.read().count("coffee") == 1


def test_the_one_clause_that_points_back_among_remarks(tools):
    s = Session(tools)
    s.say("Remind me in 10 minutes to check the oven.")
    s.say("Actually I don't need that reminder any more, get rid of it.")
    assert s.timers().endswith("no timers or alarms set.")


def test_a_negated_command_beside_a_reading_only_reads(tools):
    s = Session(tools)
    s.say("Set a timer for 5 minutes.")
    assert "left" in s.say("Don't cancel it, just tell me how long is left.")
    assert "5 minute" in s.timers()


@pytest.mark.parametrize("said", ["oh wait i said apples but i meant pears",
                                  "apples, I meant pears"])
def test_i_said_x_but_meant_y_replaces_x(tools, said):
    s = Session(tools)
    s.say("put apples on my shopping list")
    s.say(said)
    assert "pears" in s.read() and "apples" not in s.read() and "meant" not in s.read()


@pytest.mark.parametrize("first, then, expected", [
    ("Set an alarm for 5 am.", "Make it 11.", "11:00 AM"),
    ("Set an alarm for 5 pm.", "Make it 11.", "11:00 PM"),
    ("Set an alarm for 5 am.", "And another one for 6.", "6:00 AM"),
    ("Set an alarm for 5 pm.", "And another one for 6.", "6:00 PM"),
])
def test_a_bare_hour_for_an_alarm_keeps_its_half_of_the_day(tools, first, then, expected):
    """Said at six in the evening, "set another one for 8" after a 7 am alarm set one for
    8 pm today: the next 8 o'clock, not the morning the user was setting alarms for. (Each
    pair has one case that fails at any time of day without the rule.)"""
    s = Session(tools)
    s.say(first)
    assert expected.lower() in s.say(then).lower()


@pytest.mark.parametrize("first, then, expected", [
    # "quarter" is no old time to put right: the alarm moves to a quarter to seven
    ("Can you wake me at half seven tomorrow morning please.",
     "Oh hang on, the train's earlier. Make that quarter to seven instead.", "6:45 AM"),
    ("Set a timer for 10 minutes.", "Sorry, I meant 12, not 10.", "12 minutes"),
    ("Set an alarm for 7 am.", "I said 8, not 7.", "8:00 AM"),
    ("set an alarm for 7 tomorrow morning", "change my alarm to 7:30", "7:30 AM"),  # by kind
])
def test_the_old_value_a_correction_names_is_the_one_set(tools, first, then, expected):
    s = Session(tools)
    s.say(first)
    said = s.say(then).lower()
    assert expected.lower() in said and said.count("cancelled") == 1
    left = s.timers().lower()
    assert expected.removesuffix(" minutes").lower() in left and " and " not in left


def test_a_repeating_alarm_moved_keeps_repeating(tools):
    """"Set an alarm for 7 am every weekday." "Make it 6:30.": the alarm set again must repeat
    as the one it replaces did."""
    s = Session(tools)
    assert "repeating every weekday" in s.say("Set an alarm for 7 am every weekday.")
    said = s.say("Make it 6:30.").lower()
    assert "6:30 am" in said and "repeating every weekday" in said
    assert s.timers().lower().count("alarm") == 1 and "every weekday" in s.timers()


def test_another_one_with_its_own_name_sets_one_more_so_named(tools):
    """"Start a 3 minute timer for the eggs." "And another one for 10 minutes for the rice."
    went to the model, which called calculate("10 minutes")."""
    s = Session(tools)
    s.say("Start a 3 minute timer for the eggs.")
    s.say("And another one for 10 minutes for the rice.")
    assert "3 minute eggs timer" in s.timers() and "10 minute rice timer" in s.timers()


# --- the last question asked again of something else --------------------------------------------


@pytest.mark.parametrize("follow, place", [
    ("And London?", "London"), ("what about in paris", "Paris"), ("and tomorrow?", "omorrow")])
def test_and_another_place_asks_the_clock_again(tools, follow, place):
    """"What time is it in Tokyo?" "And London?": the 1.5B said Tokyo's time for London."""
    s = Session(tools)
    s.say("What time is it in Tokyo?")
    assert place.lower() in s.say(follow).lower()
    assert calls_of_last_turn(s)[0][0] == "get_time"


def test_what_about_another_number_converts_it_the_same_way(tools):
    """After "5 miles in kilometers", "What about 10?" -> calculate("10 percent of 80"): the
    worked example's sum, not the user's."""
    s = Session(tools)
    assert "8.047" in s.say("How many kilometers is 5 miles?")
    assert "16.09" in s.say("What about 10?")
    assert "5" in s.say("what is the square root of 25")
    assert "7" in s.say("and 49?")
    assert "16 ounces" in s.say("how many ounces in a pound")
    assert "32 ounces" in s.say("and in two pounds?")


def test_another_value_for_a_sum_of_two_numbers_is_left_to_the_model(tools):
    s = Session(tools)
    s.say("What's 15 percent of 80?")
    s.model.enqueue("Which number should be 20?")
    assert s.say("what about 20?") == "Which number should be 20?"


def test_another_value_said_with_its_unit_takes_the_place_of_that_one(tools):
    """"what about fifteen percent" after "twenty percent of 85" (set 26) was worked as
    "twenty percent of 15": the one number written in digits was taken. The number said
    with the same unit ("percent") is the one asked about again."""
    s = Session(tools)
    assert "17" in s.say("what's twenty percent of 85")
    assert "12.75" in s.say("what about fifteen percent")



@pytest.mark.parametrize("more", ["Add five more minutes to it.", "give it another 5 minutes",
                                  "add 5 minutes"])
def test_more_time_on_the_timer_just_set_keeps_its_name(tools, more):
    """"Add five more minutes to it." after a pasta timer: the 1.5B said "Timer extended by 5
    minutes." with no call; the templates said a running timer cannot be changed."""
    s = Session(tools)
    s.say("Set a timer for 10 minutes for the pasta.")
    said = s.say(more).lower()
    assert said.startswith(("added 5 minutes to the 10 minute pasta timer: 1",
                            "right: added 5 minutes")), said
    [pasta] = s.tools.run(ToolCall("t", "list_timers", {})).refs
    assert pasta.label == "pasta" and pasta.value == 15 * 60  # one timer, 5 minutes longer


def test_more_time_on_a_timer_named_or_the_only_one(tools):
    s = Session(tools)
    s.say("Set a timer for 10 minutes for the pasta.")
    s.say("Set a timer for 3 minutes for the eggs.")
    assert "eggs" in s.say("add 2 minutes to the egg timer")
    lengths = {r.label: r.value for r in s.tools.run(ToolCall("t", "list_timers", {})).refs}
    assert lengths == {"pasta": 600, "eggs": 300}
    s.say("cancel the pasta timer")
    assert "eggs" in s.say("put 10 more minutes on the timer")


def test_the_timer_just_set_paused_resumed_and_shortened(tools):
    s = Session(tools)
    s.say("Set a timer for 10 minutes for the pasta.")
    said = [s.say(it).lower().removeprefix("right: ")
            for it in ("pause it", "resume it", "take two minutes off it")]
    assert said == ["paused the 10 minute pasta timer: 10 minutes left.",
                    "resumed the 10 minute pasta timer: 10 minutes left.",
                    "took 2 minutes off the 10 minute pasta timer: 8 minutes left."]
    [pasta] = s.tools.run(ToolCall("t", "list_timers", {})).refs
    assert pasta.label == "pasta" and pasta.value == 8 * 60


def test_a_word_alone_resumes_the_paused_timer_or_goes_to_the_model(tools):
    s = Session(tools)
    s.model.enqueue("There is nothing paused to resume.")
    assert s.say("unpause") == "There is nothing paused to resume."  # no timer: the model's
    s.say("Set a timer for 10 minutes for the pasta.")
    s.say("pause it")
    s.model.enqueue("William Shakespeare wrote Hamlet.")
    s.say("Who wrote Hamlet?")
    said = s.say("unpause").lower().removeprefix("right: ")
    assert said == "resumed the 10 minute pasta timer: 10 minutes left."


def test_more_time_after_a_list_add_is_no_timer(tools):
    s = Session(tools)
    s.say("Add milk to my shopping list.")
    s.model.enqueue("Five minutes of what?")
    s.say("add five more minutes")
    assert s.timers().endswith("no timers or alarms set.")


@pytest.mark.parametrize("again", ["how many days until then", "when is that",
                                   "how many days away is that", "how far off is that"])
def test_the_day_just_asked_about_asked_again_another_way(tools, again):
    """"what day of the week is christmas this year" "how many days until then": the model
    called get_time() and the user heard today's date."""
    s = Session(tools)
    first = s.say("what day of the week is christmas this year")
    assert s.say(again) == first and calls_of_last_turn(s)[0][0] == "get_time"
    s.say("what's the date")  # asked of no day: nothing to ask again
    s.model.enqueue("Until when?")
    assert s.say("how many days until then") == "Until when?"


@pytest.mark.parametrize("ask", ["and how many grams is that", "what's that in grams",
                                 "and in grams?", "convert that to grams"])
def test_the_amount_just_converted_in_another_unit(tools, ask):
    """"how many ounces in a pound" "and how many grams is that": the model answered from
    itself, "16 ounces is approximately 473.2 grams" (it is 453.6)."""
    s = Session(tools)
    s.say("how many ounces in a pound")
    assert "453.6" in s.say(ask) and calls_of_last_turn(s)[0][0] == "convert_units"
    s.say("what's 6 times 7")  # a sum has no unit to put it in
    s.model.enqueue("Grams of what?")
    assert s.say("what's that in grams") == "Grams of what?"


def test_everything_just_read_bought_comes_off_that_list(tools):
    """"ok i bought all that, you can clear it" after the list was read: the clause ran into
    the item ("all that, you can clear it" is not on your list)."""
    s = Session(tools)
    s.say("add bread and jam to my shopping list")
    s.say("add call the bank to my to do list")
    s.say("what's on the shopping list")
    assert s.say("ok i bought all that, you can clear it").lower().endswith(
        "removed bread and jam from your shopping list.")
    assert s.read().endswith("empty.") and "call the bank" in s.read("to do")


def test_several_commands_in_one_breath_are_each_done_and_said(tools):
    s = Session(tools)
    said = s.say("set a timer for ten minutes and add milk to my shopping list").lower()
    assert "timer set for 10 minutes." in said and "added milk" in said
    assert "milk" in s.read() and "10 minute" in s.timers()
    said = s.say("add eggs to my shopping list and turn on the lights")
    assert "eggs" in s.read() and "lights" in said.lower()
    assert s.say("what time is it and what's the date").count("2026") == 1  # said once


def test_one_of_the_timers_just_read_cancelled_by_its_name(tools):
    """"how long is left on the rice" then "cancel the pasta one": the model said "Sorry, I
    can't do that here." and both timers ran on."""
    s = Session(tools)
    s.say("set a pasta timer for 10 minutes")
    s.say("set a rice timer for 15 minutes")
    s.say("what timers do i have")
    assert s.say("cancel the pasta one").lower().endswith("cancelled the 10 minute pasta timer.")
    assert "rice" in s.timers() and "pasta" not in s.timers()
    s.say("what timers do i have")
    said = s.say("cancel the egg one")  # no timer of that name: asked which, none cancelled
    assert "which one" in said.lower() and "rice" in s.timers()


def test_items_taken_off_with_the_particle_first(tools):
    """"take off sugar and butter" after the list was read: the model sent
    remove_from_list(items="sugar butter", list_name="") and the turn failed."""
    s = Session(tools)
    s.say("add eggs, flour, sugar and butter to my shopping list")
    s.say("how many things are on my shopping list")
    assert s.say("take off sugar and butter").lower().endswith(
        "removed sugar and butter from your shopping list.")
    assert s.read().lower().endswith("eggs and flour.")


def test_several_commands_with_one_failing_are_never_done_twice(tools):
    """One of several commands failed: the model got the whole request afresh and could
    set the timer that had already run a second time. What ran is said, then that the rest
    could not be done."""
    from voiceagent.agent.tools import tool
    from voiceagent.errors import ToolError

    @tool(writes=True, sentences=["ring the doorbell"])
    def ring_doorbell() -> str:
        """Rings the doorbell."""
        raise ToolError("the doorbell is not connected")

    tools.add(ring_doorbell)
    s = Session(tools)
    said = s.say("add eggs to my shopping list and ring the doorbell")
    assert said.lower().endswith(
        "added eggs to your new shopping list. sorry, i couldn't do the rest.")
    assert s.read().lower().endswith("eggs.")  # once, and no model was asked


@pytest.mark.parametrize("said", ["Set a 90 second timer.", "Start a timer for 90 seconds."])
def test_a_length_in_other_numbers_is_the_length_said(tools, said):
    """"a 90 second timer" reads as "1 minute 30 seconds": no number of it was said, so the
    local command went to the model as made up; the length was said."""
    s = Session(tools)
    s.say(said)
    assert "1 minute and 30 seconds" in s.timers()
    s.model.assert_consumed()


@pytest.mark.parametrize("added, changed, item", [
    ("Add 2 pounds of ground beef to the shopping list.", "Actually make that 3 pounds.",
     "3 pounds of ground beef"),
    ("Add 6 eggs to the shopping list.", "No, twelve.", "12 eggs"),
    ("Add 2 liters of milk to the shopping list.", "Make it 3 liters.", "3 liters of milk"),
])
def test_a_new_amount_alone_changes_the_amount_of_the_item_just_added(tools, added, changed,
                                                                       item):
    """"actually make that 3 pounds" after ground beef put "3 pounds" on the list as an item
    of its own (a session in another style)."""
    s = Session(tools)
    s.say(added)
    s.say(changed)
    assert s.read().lower().endswith(f"your shopping list has 1 item: {item}.")


def test_a_bill_split_and_a_tip_on_top(tools):
    """"the dinner was 84 dollars, split it four ways" then "and with a 20 percent tip on
    top": the 1.5B answered both without the calculator, the second wrong ($25.60)."""
    s = Session(tools)
    assert s.say("The dinner was 84 dollars, split it four ways.").endswith(
        "84 divided by four is 21.")
    assert s.say("And with a 20 percent tip on top.").endswith(" is 25.2.")
    assert s.say("What's 10 percent of that?").endswith("10 percent of 25.2 is 2.52.")
    s.model.assert_consumed()


def test_another_timer_named_before_its_length(tools):
    """"and another one for the potatoes, 30 minutes" after a chicken timer: the 1.5B
    called calculate('30 minutes + 45 minutes'), then again for "cancel that one"."""
    s = Session(tools)
    s.say("Set a timer for the chicken, 45 minutes.")
    s.say("And another one for the potatoes, 30 minutes.")
    assert "30 minute potatoes timer" in s.timers() and "45 minute chicken" in s.timers()
    s.say("The potatoes are done early, cancel that one.")
    assert "potatoes" not in s.timers() and "chicken" in s.timers()
    s.model.assert_consumed()


@pytest.mark.parametrize("said", ["Wait no, cheddar instead.", "Actually no, the cheddar."])
def test_two_words_of_taking_it_back_then_the_new_item(tools, said):
    """"wait no, cheddar instead" after mozzarella: the model said "Sorry, I can't do that
    here." and mozzarella stayed."""
    s = Session(tools)
    s.say("Put mozzarella on my grocery list.")
    s.say(said)
    assert s.read().lower().endswith("your shopping list has 1 item: cheddar.")


def test_and_also_after_a_note_is_one_more_note(tools):
    """"and also that the bins go out on thursday" after a note: the 1.5B called get_time
    and the user heard "Sorry, I couldn't do that."; a question after it stays one."""
    s = Session(tools)
    s.say("Make a note that the gate code is 4419.")
    s.say("And also that the bins go out on Thursday.")
    notes = tools.run(ToolCall("n", "read_notes", {})).say
    assert "bins go out on Thursday" in notes and "gate code is 4419" in notes
    assert "it is " in s.say("And what time is it?").lower()
    s.model.assert_consumed()


def test_the_weekday_of_the_day_just_asked_about(tools):
    """"and what day of the week is that" after "the date three weeks from today": the 1.5B
    called get_time with the question as the place."""
    s = Session(tools)
    s.say("What's the date three weeks from today?")
    assert "three weeks from today it will be" in s.say("And what day of the week is that?").lower()
    s.model.assert_consumed()



def test_and_a_command_of_another_tool_after_an_add_is_no_item(tools):
    """A parent, interrupted: "and a timer for- Sam, put that DOWN - sorry, a timer for
    twelve minutes for the fish fingers" after an add put "timer for- Sam" on the list."""
    s = Session(tools)
    s.say("Add milk to the shopping list.")
    said = s.say("and a timer for- Sam, put that DOWN - sorry, a timer for twelve minutes "
                 "for the fish fingers").lower()
    assert "12 minutes" in said and "fish fingers" in said
    assert "timer" not in tools.run(ToolCall("r", "read_list", {"list_name": "shopping"})).say


def test_a_british_list_session_puts_on_and_takes_off_the_list_spoken_of(tools):
    """"stick sugar on" after asking whether sugar is on it; "scrap that last one, there's a
    whole pack under the sink" after one more item (both went to the model)."""
    s = Session(tools)
    s.say("Put flour, butter and lemons on the shopping list.")
    s.say("Oh, and sponges.")
    assert "removed sponges" in s.say(
        "Actually scrap that last one, there's a whole pack under the sink.").lower()
    assert "not on" in s.say("Right, and is there sugar on it?")
    assert "added sugar" in s.say("Go on then, stick sugar on.").lower()
    assert "removed lemons" in s.say(
        "And take the lemons off, I found some in the fruit bowl.").lower()
    left = tools.run(ToolCall("r", "read_list", {"list_name": "shopping"})).say
    assert "sugar" in left and "lemons" not in left and "sponges" not in left


def test_that_year_is_the_year_just_asked_about(tools):
    """"what day of the week is the 4th of july next year" ... "and christmas day that year":
    the clock read "christmas day that year" as no place at all and told the time now."""
    s = Session(tools)
    assert "2027" in s.say("what day of the week is the 4th of july next year")
    said = s.say("and christmas day that year")
    assert "december 25, 2027" in said.lower()
    s = Session(tools)  # the year said by its number
    s.say("what day of the week is the fourth of july 2027")
    assert "december 25, 2027" in s.say("and christmas day that year").lower()


def test_a_thing_scratched_off_the_list_just_spoken_of(tools):
    s = Session(tools)
    s.say("Add chips, soda, balloons and plates to the party list.")
    s.say("and napkins")
    said = s.say("actually scratch the balloons the birthday girl is scared of them")
    assert "removed balloons" in said.lower()


def test_a_budget_carried_across_turns(tools):
    """Home budgeting, chained: a share taken off the last result, the rest split."""
    s = Session(tools)
    assert s.say("what's 1200 minus 350").endswith("is 850.")
    assert s.say("now take off another twenty percent").endswith("is 680.")
    assert s.say("and split that four ways").endswith("is 170.")


def test_how_long_is_left_on_a_timer_named_by_its_dish(tools):
    s = Session(tools)
    s.say("Set a pizza timer for 14 minutes.")
    assert "pizza timer has" in s.say("how long is left on the pizza").lower()


def test_what_is_on_there_reads_the_list_of_an_earlier_turn():
    """"what have we got on there then" after a sum that followed the adds (set 23): the
    1.5B answered from memory; the list the conversation last touched is read."""
    from voiceagent.agent.messages import Message, ToolCall
    from voiceagent.agent.outcome import Ref
    from voiceagent.intents.follow_up import FollowUps
    history = [
        Message("user", "we're out of eggs"),
        Message("assistant", "", (ToolCall("c1", "add_to_list",
                                           {"items": "eggs", "list_name": "shopping"}),)),
        Message("tool", "Added eggs to your shopping list.", call_id="c1", name="add_to_list",
                refs=(Ref("list", "added", key="shopping", items=("eggs",)),)),
        Message("assistant", "Added eggs to your shopping list."),
        Message("user", "what is 8 times 3"),
        Message("assistant", "", (ToolCall("c2", "calculate", {"expression": "8 times 3"}),)),
        Message("tool", "8 times 3 is 24.", call_id="c2", name="calculate",
                refs=(Ref("number", "made", label="8 times 3", value=24.0),)),
        Message("assistant", "8 times 3 is 24."),
    ]
    found = FollowUps(FakeClock()).calls("what have we got on there then", history)
    assert [(m.tool, m.args.get("list_name")) for m in found] == [("read_list", "shopping")]


def test_an_item_pointed_at_by_part_of_its_name_and_one_reaches_a_turn(tools):
    """"scratch the ict suite one, dave's already booked it" (set 25) raised out of the
    turn: "ict suite one" names no item by itself. Now the item is found by its part, or
    the model reads the request; nothing is lost."""
    s = Session(tools)
    s.say("add photocopy worksheets, book the ict suite to my lessons list")
    s.model.enqueue(calls(("remove_from_list", {"items": "book the ict suite",
                                                "list_name": "lessons"})))
    said = s.say("scratch the ict suite one, dave's already booked it")
    assert "removed book the ict suite" in said.lower()
    assert "photocopy worksheets" in s.read("lessons") and "ict" not in s.read("lessons")


def test_what_is_told_after_pointing_at_it_is_what_is_done(tools):
    """"ok write that down, the big tin holds 340 grams of loose leaf" (set 24) noted the
    last exchange's words; the words after "that" are what it points at."""
    s = Session(tools)
    s.model.enqueue("Nice.")
    s.say("i parked on level four")
    s.say("ok write that down, the big tin holds 340 grams of loose leaf")
    notes = tools.run(ToolCall("t", "read_notes", {})).say
    assert "big tin holds 340 grams" in notes and "level four" not in notes
    s = Session(tools)
    s.model.enqueue("Nice.")
    s.say("i parked on level four")
    s.say("set a timer for that, the rice needs twelve minutes")
    assert "12 minute" in s.timers()


def test_a_cancelled_timer_put_back_is_set_again(tools):
    """Set 25: "scrap that" cancelled the print timer, then "no it's fine, it's fine, put it
    back, two minutes again"; the 1.5B took "print" off a list instead."""
    s = Session(tools)
    s.say("set a print timer for two minutes")
    s.say("scrap that, i think the safelight fogged it")
    assert "no timers" in s.timers()
    s.say("no it's fine, it's fine, put it back, two minutes again")
    assert "2 minute print timer" in s.timers()


def test_a_question_after_a_note_is_no_second_note(tools):
    """Set 25: "he's asking which is the biggest planet and whether it has a floor" after a
    note was noted as "whether it has a floor"."""
    s = Session(tools)
    s.say("take a note, leo knows his sevens except seven times eight")
    s.model.enqueue("Jupiter, and no: it has no solid surface.")
    assert s.say("he's asking which is the biggest planet and whether it has a floor"
                 ).startswith("Jupiter")
    assert "floor" not in tools.run(ToolCall("t", "read_notes", {})).say


def test_a_request_that_asks_a_tool_in_its_own_words_is_not_read_with_the_last(tools):
    """Set 25: "okay malva pudding's in, give it forty-five minutes" after "recipe says 180
    degrees, what's that in fahrenheit for my ouma's old oven": read with the last request
    (for its "it"), the oven made the timer off-topic five times over."""
    s = Session(tools)
    s.say("recipe says 180 degrees, what's that in fahrenheit for my ouma's old oven")
    s.model.enqueue(calls(("set_timer", {"duration": "45 minutes", "label": "malva pudding"})))
    s.model.enqueue("Done.")
    s.say("okay malva pudding's in, give it forty-five minutes")
    assert "45 minute malva pudding timer" in s.timers()


def test_a_timer_corrected_after_another_question_keeps_its_name(tools):
    """"ah no sorry, the timer shall be fifteen minutes, not twelve" after a conversion that
    followed the potatoes timer (set 27): set a second timer; then reset it without its
    label, which the last exchange had not said."""
    s = Session(tools)
    s.say("please make me a timer on twelve minutes for the potatoes")
    s.say("how much is 180 degree celsius in fahrenheit")
    assert "15 minutes: potatoes" in s.say("ah no sorry, the timer shall be fifteen minutes, "
                                           "not twelve")
    assert "15 minute potatoes timer" in s.timers() and "12 minute" not in s.timers()


def test_the_list_said_without_a_name_is_the_one_the_conversation_is_about(tools):
    """"take book room 3 off the list, that's done" after the office to-dos (set 27) was
    tried on the shopping list, which the templates put in when no list is named."""
    s = Session(tools)
    s.say("add book room 3 and order toner to my office to-do list")
    s.say("we're out of milk")  # ... and a thing run out of still goes to the shopping
    s.say("put paper clips on the office to-do list")
    assert "removed book room 3" in s.say("take book room 3 off the list, that's done").lower()
    assert "order toner" in s.say("what's on the list")
    assert "milk" in s.read("shopping") and "book room" not in s.read("office to-do")


def test_a_command_beside_a_remark_about_it_is_not_taken_for_a_list_item(tools):
    """"cancel the fish tank timer, i've done it early" after a list was made (set 27): "i've
    done it early" read as taking "it early" off the vet list, and the timer ran on."""
    s = Session(tools)
    s.say("start a ten minute timer for the fish tank")
    s.say("make a list called vet with worming tablets and ask about the limp")
    assert "cancelled" in s.say("cancel the fish tank timer, i've done it early").lower()
    assert s.timers().endswith("no timers or alarms set.")
    assert "worming tablets" in s.read("vet")


def test_the_alarm_named_is_changed_after_a_timer_was_set(tools):
    """"actually make that alarm a quarter to seven instead" after a timer turn (set 27): the
    1.5B called convert_time three times; the alarm named by its kind is the one changed."""
    s = Session(tools)
    s.say("wake me at half six tomorrow")
    s.say("and a timer for a quarter of an hour for the bread")
    assert "6:45" in s.say("actually make that alarm a quarter to seven instead")
    assert "6:30" not in s.timers() and "15 minute bread timer" in s.timers()


def test_a_thing_named_then_taken_away_by_it_comes_off(tools):
    """"ah no, the mineral water we have still in the cellar, take it away from the list"
    (set 27): "it away" was taken for an item; "it" is the mineral water just named."""
    s = Session(tools)
    s.say("add quark, brezeln and mineral water to the shopping list")
    s.say("ah no, the mineral water we have still in the cellar, take it away from the list")
    assert "mineral water" not in s.read() and "quark" in s.read()


def test_a_name_the_user_gave_is_kept_though_models_add_such_words(tools):
    """"timer three minutes for the bottle" (set 26): "bottle" was dropped as a word models
    add ("a bottle of wine"); said by the user, it names the timer."""
    s = Session(tools)
    assert s.say("timer three minutes for the bottle").lower().endswith("bottle.")
    assert "bottle" in s.timers()
