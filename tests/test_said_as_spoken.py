"""Requests as transcripts write real speech: a stammer and a false start, a remark and a
command with no comma between them, a word heard as another that sounds the same. Each is a
failure of held-out sessions nobody here wrote (set 12 and 13, stop 47), through the real
turn and the real templates; no model answers (a turn that reaches it fails the test)."""

from __future__ import annotations

import pytest

from tests.test_follow_ups import Session, tools  # noqa: F401  (the fixture)
from voiceagent.agent.messages import ToolCall
from voiceagent.intents import LocalCommands
from voiceagent.intents.clauses import is_aside, unpunctuated_cuts
from voiceagent.language.restarts import restated, unbroken
from voiceagent.testing import calls


@pytest.mark.parametrize("said, meant", [
    ("set a t- a timer for f- fifteen minutes", "set a timer for fifteen minutes"),
    ("and an al- an alarm for s- six thirty tomorrow m- morning",
     "and an alarm for six thirty tomorrow morning"),
    ("c- cancel the t- the timer, n- not the alarm", "cancel the timer, not the alarm"),
    ("s-s-six eggs", "six eggs"),
    # a hyphen inside a word, or ending a thought, is no stammer
    ("buy a t-shirt and an x-ray", "buy a t-shirt and an x-ray"),
    ("a timer for- Sam, put that down", "a timer for- Sam, put that down"),
])
def test_words_broken_off_and_said_again_are_said_once(said, meant):
    assert unbroken(said) == meant


@pytest.mark.parametrize("said, meant", [
    # a reading disowned first, then the request (was refused as a device to switch on)
    ("i don't mean switch it on, i mean time the tea for four minutes",
     "time the tea for four minutes"),
    ("i didn't say turn on the heater. i said set an alarm for seven",
     "set an alarm for seven"),
    ("no i don't mean switch it on, i mean time the tea, three minutes for it to brew",
     "time the tea, three minutes for it to brew"),
    # no request said after it: as it was
    ("i didn't say anything", "i didn't say anything"),
    ("i mean it, set a timer", "i mean it, set a timer"),
])
def test_what_is_said_after_disowning_a_reading_is_the_request(said, meant):
    assert restated(said) == meant


def test_a_request_said_again_after_disowning_a_reading_is_done(tools):  # noqa: F811
    s = Session(tools)
    assert "4 minutes: tea" in s.say("i don't mean switch it on, i mean time the tea for four "
                                     "minutes")


def test_a_stammered_session_is_understood(tools):  # noqa: F811
    s = Session(tools)
    assert "15 minutes" in s.say("set a t- a timer for f- fifteen minutes")
    assert "6:30" in s.say("and an al- an alarm for s- six thirty tomorrow m- morning")
    assert "6:30" in s.say("wh- what have i g- got set")
    assert "204" in s.say("wh- what's tw- twelve times s- seventeen")
    assert "840" in s.say("n- no sorry i m- meant twelve times s- seventy")


@pytest.mark.parametrize("turns, check", [
    (["okay pasta's in the water set a pasta timer for 11 minutes"], "11 minute pasta timer"),
    (["set a timer for ten minutes for the pasta it's boiling already"],
     "10 minute pasta timer"),
])
def test_a_command_beside_a_remark_with_no_comma(tools, turns, check):  # noqa: F811
    s = Session(tools)
    for said in turns:
        s.say(said)
    assert check in s.timers()


def test_a_follow_up_beside_a_remark_with_no_comma(tools):  # noqa: F811
    s = Session(tools)
    s.say("add hot cheetos and monster energy to the shopping list")
    s.say("nah take the monster off my mom's gonna kill me")
    assert "cheetos" in s.read() and "monster" not in s.read()


@pytest.mark.parametrize("said", [
    "what's the time complexity of quicksort",  # a clause that goes on is no aside
    "set a timer for ten minutes how long do eggs take",  # a question is no aside
    "set an alarm for 7 no wait",  # a correction after it: the user is not done
    "set an alarm for 7 my kids have football on saturday",  # a day is no aside
])
def test_what_is_no_aside_is_not_left_out(tools, said):  # noqa: F811
    assert LocalCommands(tools).match(said) is None


@pytest.mark.parametrize("part, after, aside", [
    ("my mom's gonna kill me", True, True),
    ("complexity of quicksort", True, False),
    ("okay pasta's in the water", False, True),
    ("on saturday morning", False, False),
    ("how long do eggs take", True, False),
    ("we need 3 more", True, False),
])
def test_an_aside_is_a_remark_with_nothing_a_command_takes(part, after, aside):
    assert is_aside(part, after=after) is aside


def test_no_cut_in_a_punctuated_utterance_or_after_a_word_that_needs_the_next():
    assert list(unpunctuated_cuts("set a timer, it's for pasta")) == []
    cuts = [first for first, _rest in unpunctuated_cuts("okay pasta's in the water set a timer")]
    assert "okay pasta's in the" not in cuts and "okay pasta's in the water" in cuts


def test_them_alone_takes_off_all_just_added(tools):  # noqa: F811
    s = Session(tools)
    s.say("add toor dal and rice to the grocery list")
    s.say("remove them")
    assert "dal" not in s.read() and "rice" not in s.read()



def test_a_word_heard_as_another_that_sounds_the_same(tools):  # noqa: F811
    s = Session(tools)
    s.say("timer four 7 minutes for the eggs")
    assert "7 minute eggs timer" in s.timers()
    assert "4" in s.say("what's two plus two")  # a number stays a number
    s.say("set timer to minutes for toast")  # and the other way: "to" for "two"
    assert "2 minute toast timer" in s.timers()


def test_an_alarm_on_a_holiday_morning(tools):  # noqa: F811
    s = Session(tools)
    assert "6:00 am on" in s.say("and wake me at six on christmas morning").lower()
    assert "december 25" in s.timers().lower()



@pytest.mark.parametrize("turns, check, gone", [
    (["set a timer for eight minutes for the porridge", "och naw it's no eight it's ten, sorry"],
     "10 minute porridge timer", "8 minute"),
    (["set a timer for four hours for the meds", "and a thirty minute one for my break"],
     "30 minute break timer", "4 hour break"),
    (["set a timer for 12 minutes for the lasagne",
      "if it's not too much trouble could you add another three minutes to the lasagne one"],
     "lasagne timer has 15 minutes", "12 minutes left"),
    (["set a timer for the loaves thirty five minutes",
      "actually make it forty there big ones today"], "40 minute loaves timer", "35 minute"),
    (["set a timer for ten minutes", "make it fifteen",
      "ugh actually ten was right go back to ten"], "10 minute timer", "15 minute"),
    (["set a timer for 15 minutes", "set an alarm for 6:30 tomorrow morning",
      "c- cancel the t- the timer, n- not the alarm"], "alarm is set for 6:30", "15 minute"),
    (["set a timer for ten minutes for the pasta",
      "cancel the pasta timer then set one for twelve minutes instead"], "12 minute", "10 minute"),
    # "take them off" after the timer, the words before it naming the apples added earlier
    (["add juice boxes, apples and cheese strings to the shopping list",
      "timer four 7 minutes for the eggs", "oh we've actually got loads of apples take them off"],
     "7 minute eggs timer", "no timers"),
    # another length said with "and", in the first one's unit; then what it should be
    (["set a timer for 25 minutes for the lasagna", "and ten for the garlic bread"],
     "10 minute garlic bread timer", "10 minute lasagna"),
    (["set a timer for 25 minutes for the lasagna", "and ten for the garlic bread",
      "no wait not ten the garlic bread one should be eight minutes"],
     "8 minute garlic bread timer", "10 minute"),
    # a timer set turns before, cancelled by what it is for
    (["set a timer for 10 minutes for the eggs", "set a timer for 3 minutes for the toast",
      "nah kill the eggs one"], "3 minute toast timer", "eggs"),
])
def test_timer_follow_ups_as_people_say_them(tools, turns, check, gone):  # noqa: F811
    s = Session(tools)
    for said in turns:
        s.say(said)
    assert check in s.timers().lower() and gone not in s.timers().lower()


def test_forget_the_last_one_takes_back_what_was_just_added(tools):  # noqa: F811
    s = Session(tools)
    s.say("add parmesan to the shopping list")
    s.say("actually forget the last one there's a block in the fridge")
    assert s.read().endswith("our shopping list is empty.")


def test_a_pomodoro_is_a_timer(tools):  # noqa: F811
    s = Session(tools)
    assert "25 minutes" in s.say("start a pomodoro, twenty five minutes")
    s.say("ugh i can't focus, cancel the pomodoro")
    assert s.timers().endswith("no timers or alarms set.")


@pytest.mark.parametrize("expression, value", [
    ("4 dozen", "48"), ("half a dozen", "6"), ("a dozen times 3", "36"),
])
def test_a_dozen_is_twelve(tools, expression, value):  # noqa: F811
    """"how many croissants is four dozen again": the calculator said "4 dozen is 4."."""
    result = tools.run(ToolCall("c", "calculate", {"expression": expression}))
    assert not result.error and result.say.endswith(f" is {value}.")



def test_a_timer_named_turns_after_it_was_set_is_changed(tools):  # noqa: F811
    s = Session(tools)
    s.say("kindly set one timer for twenty minutes for the rice")
    s.say("what is the time in chennai now")
    s.say("do one thing, make the rice timer twenty five minutes only")
    assert "25 minute rice timer" in s.timers() and "20 minute" not in s.timers()
    assert "rice" in s.say("how much time is remaining on it")



def test_a_request_after_then_is_no_more_of_the_list(tools):  # noqa: F811
    """"and then turn the oven light on" after an item was taken off: the 1.5B's turn before
    it left the list "touched", and the words were read as one more item to take off."""
    s = Session(tools)
    s.say("add flour and baking powder to the shopping list")
    s.say("take the baking powder off")
    assert "devices" in s.say("and then turn the oven light on")
    assert "flour" in s.read()






def test_it_in_a_second_command_is_the_list_the_first_spoke_of(tools):  # noqa: F811
    s = Session(tools)
    said = s.say("add flour and baking powder to the shopping list then read me what's on it")
    assert "flour" in s.read() and "2 items" in said.lower()




@pytest.mark.parametrize("turns, gone, kept", [
    # named turns after it was added, from the one list holding it
    (["add bread and eggs to the shopping list", "add call mum to my to do list",
      "what's twelve times seventy", "t- take the bread off, we've g- got some already"],
     "bread", "eggs"),
    # a remark that names no item ("some", "already") takes nothing off
    (["add bread and bananas to the shopping list", "what's twelve times seventeen",
      "take the bread off, we've got some already"], "bread", "bananas"),
    (["add juice boxes, apples and cheese strings to the shopping list",
      "timer four 7 minutes for the eggs", "oh we've actually got loads of apples take them off"],
     "apples", "juice"),
    # "it" beside words that name some of the items just added: those
    (["add apples and bread to the shopping list",
      "oh we've actually got loads of apples take them off"], "apples", "bread"),
    (["add toor dal and rice to the grocery list",
      "sorry dal is already there at home, please remove it"], "dal", "rice"),
    # two follow-ups on the last exchange in one breath
    (["add flour and baking powder to the shopping list",
      "take the baking powder off then put bicarb on instead"], "powder", "bicarb"),
])
def test_list_follow_ups_as_people_say_them(tools, turns, gone, kept):  # noqa: F811
    s = Session(tools)
    for said in turns:
        s.say(said)
    assert gone not in s.read() and kept in s.read()



@pytest.mark.parametrize("said, answer", [
    # an amount told, converted in the unit it was told in
    ("the hotel is 250 kilometres from the airport how far is that in miles", "155"),
    # the amounts just told, added up
    ("i had 420 calories at breakfast 650 at lunch and 380 in snacks whats the total", "1450"),
])
def test_a_question_on_the_amounts_told_before_it(tools, said, answer):  # noqa: F811
    assert answer in Session(tools).say(said)



@pytest.mark.parametrize("said, intent", [
    # the 1.5B answered these in the bundle run: "Alarm will go off again in 14 minutes." (the
    # pizza timer's), "I can help with time, date, weather, ..."
    ("when does my alarm go off again", "timer_status"),
    ("so what can you actually do", "capabilities"),
])
def test_asked_again_or_actually_is_still_the_question(tools, said, intent):  # noqa: F811
    found = LocalCommands(tools).match(said)
    assert found is not None and found.intent == intent


@pytest.mark.parametrize("said, heard", [
    ("could you tell me what 225 fahrenheit is in celsius", "107.2 celsius"),
    ("reckon you could tell me what 225 fahrenheit is in celsius", "107.2 celsius"),
    ("do you know how many ounces a pound is", "16 ounces"),
    ("can you tell me what 15 percent of 80 is", "is 12"),
])
def test_a_question_asked_inside_another(tools, said, heard):  # noqa: F811
    assert heard in Session(tools).say(said)


@pytest.mark.parametrize("said, heard", [
    ("how many millimetres is three eighths of an inch", "9.525 millimeters"),
    ("how many mils is an ounce and a half", "44.36 milliliters"),
    ("what's three quarters of 250 grams in ounces", "6.614 ounces"),
    ("what's five and five eighths plus three and three quarters", "is 9.375"),
    ("what is a hundred plus a hundred plus a million", "is 1000200"),
])
def test_amounts_with_their_fractions_are_answered_here(tools, said, heard):  # noqa: F811
    """A fraction said in words is part of the amount the call is grounded on (0.375 is
    "three eighths"), and an ounce of a drink is a fluid ounce."""
    assert heard in Session(tools).say(said)


def test_terse_and_repeated_as_people_say_them(tools):  # noqa: F811
    s = Session(tools)
    s.say("set a timer for 12 minutes for the ribs")
    assert "12 minutes left" in s.say("how long on ribs")
    said = s.say("how long on ribs")
    assert s.say("say that again a bit louder i didn't hear") == said


def test_a_new_timer_is_no_change_of_the_alarm_set_before(tools):  # noqa: F811
    """"set a timer for 10 minutes and then another for 5" after a 9 pm alarm cancelled the
    alarm: "a timer" was read as naming it."""
    s = Session(tools)
    s.say("set an alarm for 9 pm")
    s.model.enqueue("For how long?")
    s.say("set a timer for 10 minutes and then another for 5")
    assert "9:00 pm" in s.timers().lower()


@pytest.mark.parametrize("said, heard", [
    # why, said after the command: a remark, not part of it
    ("and wake me at six on christmas morning so the turkey can go in", "6:00 AM"),
    ("set a timer for 20 minutes so the cake doesn't burn", "20 minutes"),
    ("could you set an alarm for sunday at one so i remember to hoover", "on Sunday"),
    ("how long has this thing been switched on for", "Up for"),
    ("tell me about the alarm timings", "no timers or alarms"),  # SLURP: made up, no call
    ("did you get that? read me the shopping list back", "shopping list is empty"),
])
def test_a_command_and_why(tools, said, heard):  # noqa: F811
    assert heard.lower() in Session(tools).say(said).lower()


def test_what_follows_so_is_left_out_only_when_it_asks_nothing(tools):  # noqa: F811
    s = Session(tools)
    s.model.enqueue("Which first?")
    s.say("set a timer for 5 minutes so what's the time")  # two requests: the model's
    assert len(s.model.requests) == 1


def test_a_line_cook_86s_what_is_gone(tools):  # noqa: F811
    s = Session(tools)
    s.say("add shallots, chives and aioli to the prep list")
    s.say("set a timer for 7 minutes for the risotto")
    s.say("86 the risotto timer")
    s.say("86 chives off the prep list we're out")
    assert s.timers().endswith("no timers or alarms set.")
    assert "chives" not in s.read("prep")


@pytest.mark.parametrize("turns, check", [
    (["can set timer ten minutes or not"], "10 minute timer"),
    (["set an alarm for six thirty to wake up", "actually make it six fifteen lah"],
     "6:15"),
])
def test_singapore_english(tools, turns, check):  # noqa: F811
    s = Session(tools)
    for said in turns:
        s.say(said)
    assert check in s.timers() and len(s.timers().split(" set for ")) <= 2


def test_that_number_is_the_one_just_answered(tools):  # noqa: F811
    """"save that number as a note": the 1.5B wrote the sum's 170 into the note, refused as a
    number the user never said."""
    s = Session(tools)
    s.say("what's 510 divided by 3")
    s.model.enqueue(calls(("add_note", {"text": "170 is everyone's share of the power bill"})))
    s.model.enqueue("Saved.")
    s.say("save that number as a note it's everyone's share of the power bill")
    assert "170" in tools.run(ToolCall("r", "read_notes", {})).say


@pytest.mark.parametrize("turns, heard", [
    (["set a timer for nine minutes for the eggs",
      "did you actually set that or are you just saying you did"], "9 minute eggs timer"),
    (["add coffee to the shopping list", "did you really add it"], "coffee"),
])
def test_asked_whether_it_was_really_done_it_is_read_back(tools, turns, heard):  # noqa: F811
    """A truth checker: the 1.5B answered from the conversation ("I did set the timer.")."""
    s = Session(tools)
    for said in turns[:-1]:
        s.say(said)
    assert heard in s.say(turns[-1])


def test_an_item_moved_from_one_list_to_another(tools):  # noqa: F811
    """Several named lists: "Sure, I'll move the sunscreen to the shopping list." with no
    call."""
    s = Session(tools)
    s.say("add sunscreen and a hat to the packing list")
    s.say("add bread to the shopping list")
    s.say("move the sunscreen over to the shopping list i'll buy a new bottle")
    assert "sunscreen" not in s.read("packing") and "sunscreen" in s.read("shopping")
