"""Requests as people dictate and type them (stop 51's sets 20 and 21, written by others):
punctuation said aloud, typed shorthand, digits said one by one, corrections with a reason
between, a list named by part of its name, and what is no list ("put bluey on the telly")."""

from __future__ import annotations

import pytest

from tests.test_follow_ups import Session, tools  # noqa: F401  (the fixture)
from voiceagent.language.dictation import marks_written, unabbreviated
from voiceagent.language.lexicon import tokens
from voiceagent.language.numbers import numbers_in
from voiceagent.language.topics import topics_of
from voiceagent.tools.calculator import make_tools


@pytest.mark.parametrize("said, written", [
    ("take a note colon bio homework due friday comma read chapter seven full stop",
     "take a note: bio homework due friday, read chapter seven."),
    ("add to the shopping list colon eggs comma flour comma caster sugar full stop",
     "add to the shopping list: eggs, flour, caster sugar."),
    ("email that list to my husband full stop", "email that list to my husband."),
    ("how long do eggs keep in the fridge question mark", "how long do eggs keep in the fridge?"),
    # a mark after a word that makes it a noun, or one alone mid-sentence, is a word
    ("what is a comma", "what is a comma"),
    ("what's the difference between a colon and a semicolon",
     "what's the difference between a colon and a semicolon"),
    ("what is the gestation period of a cow", "what is the gestation period of a cow"),
    ("the car came to a full stop", "the car came to a full stop"),
])
def test_punctuation_said_aloud_is_written_only_when_dictated(said, written):
    assert marks_written(said) == written


@pytest.mark.parametrize("said, meant", [
    ("can u text that to the group chat", "can you text that to the group chat"),
    ("read me my notes rq", "read me my notes real quick"),
    ("alarm for six forty five tmrw pls", "alarm for six forty five tomorrow please"),
    ("what is 5 u s d in euros", "what is 5 u s d in euros"),  # letters spelled stay
])
def test_typed_shorthand_is_read_as_words(said, meant):
    assert unabbreviated(said) == meant


@pytest.mark.parametrize("said, digits", [
    ("one five minutes", "15 minutes"), ("one zero kilometres", "10 kilometres"),
    ("two four times three six", "24 times 36"), ("zero eight minutes", "8 minutes"),
    # pairs of bigger numbers keep their reading
    ("twelve fifty", "1250"), ("nineteen ninety nine", "1999"), ("twenty five", "25"),
    ("one hundred five", "105"),
])
def test_digits_said_one_by_one_are_one_number(said, digits):
    assert numbers_in(said) == digits


@pytest.mark.parametrize("value, units, said", [
    (8, ("ounces", "grams"), "226.8 grams"), (640, ("acres", "hectares"), "259 hectares"),
    (350, ("fahrenheit", "celsius"), "176.7 celsius"), (2, ("kilos", "pounds"), "4.409 pounds"),
])
def test_a_conversion_is_said_to_four_figures(value, units, said):
    convert = make_tools()[1]
    assert said in convert.func(value=value, from_unit=units[0], to_unit=units[1]).say


@pytest.mark.parametrize("sentence, claims", [
    ("Reminder set for 160 minutes.", True), ("Pasta timer set.", True),
    ("Okay, reminder set for 4.", True), ("Countdown started.", True),
    # a thing described, not reported
    ("Your timer, set for 10 minutes, has 3 left.", False),
    ("A timer set for ten minutes beeps after ten minutes.", False),
])
def test_a_headline_report_claims_it_was_done(sentence, claims):
    assert topics_of()._says_done(tokens(sentence)) is claims


@pytest.mark.parametrize("said, topic", [
    ("put bluey on the telly for him", "media"),
    ("put the kettle on", "devices"),
    ("can u text that to the group chat", "messages"),
    ("can you send mpesa of five hundred bob to my brother", "shopping"),
])
def test_what_no_list_or_tool_here_does_is_refused_without_the_model(tools, said, topic):  # noqa: F811
    s = Session(tools)  # the scripted model has nothing queued: a request to it would fail
    assert s.say(said) == topics_of().topic(topic).reply
    assert not s.model.requests


@pytest.mark.parametrize("turns, has, lacks", [
    (["add rye flour and fresh yeast to the shopping list",
      "not the fresh yeast actually, put instant yeast instead"],
     ["rye flour", "instant yeast"], ["fresh yeast"]),
    (["put deer corn, salt blocks and fence staples on the shopping list",
      "don't put salt blocks, make it mineral tubs"], ["mineral tubs"], ["salt blocks"]),
    (["add the bread, the cheese and the leeks to the shopping list",
      "no not the cheese, i have already some, put instead the creme fraiche"],
     ["creme fraiche", "leeks"], ["cheese", "already"]),
    (["add to the shopping list colon eggs comma self raising flour full stop"],
     ["eggs", "self raising flour"], ["colon", "comma", "stop"]),
])
def test_an_item_taken_back_and_another_put_on(tools, turns, has, lacks):  # noqa: F811
    s = Session(tools)
    for said in turns:
        s.say(said)
    read = s.read().lower()
    assert all(item in read for item in has) and not any(item in read for item in lacks)


def test_a_list_named_by_part_of_its_name(tools):  # noqa: F811
    s = Session(tools)
    s.say("add dish soap to the shared house list")
    assert "dish soap" in s.say("what's on the house list again")
    s.say("add sponges to the house list")
    assert "sponges" in s.read("shared house")


def test_a_list_said_after_which_one_is_not_an_answer_to_it(tools):  # noqa: F811
    s = Session(tools)
    s.say("set a timer for 18 minutes for the risotto")
    assert "which one" in s.say("kill the lamb timer").lower()
    s.model.enqueue("MODEL")  # the list goes to the model, no timer is cancelled for it
    s.say("prep list. shallots, chives, two kilos butter. heard?")
    assert "risotto" in s.timers()


@pytest.mark.parametrize("said, has", [
    ("add milk to the shopping list, and eggs", ["milk", "eggs"]),
    ("put bread on the shopping list, oh and butter", ["bread", "butter"]),
    # a reason after the afterthought is no item
    ("oh and stick leeks on the shopping list, and a swede, we're nearly out see",
     ["leeks", "swede"]),
])
def test_an_item_said_after_where_it_goes_goes_there_too(tools, said, has):  # noqa: F811
    s = Session(tools)
    s.say(said)
    read = s.read().lower()
    assert all(item in read for item in has) and "nearly" not in read


def test_what_remains_on_a_timer_named_first(tools):  # noqa: F811
    s = Session(tools)
    s.say("set a timer for 35 minutes for the jollof")
    assert "jollof timer has" in s.say("ah okay no problem. the jollof, how many minutes remain?")


@pytest.mark.parametrize("said, unserved", [
    # a precision asked of a result names no place
    ("one point five pounds, avoirdupois, in grams to the nearest gram please", None),
    ("what is 17 divided by 3 to the nearest whole number", None),
    ("where is the nearest pharmacy", "navigation"),
    # a list sent somewhere is the sending's business, not the list's
    ("email that list to my husband", "messages"),
    ("text the shopping list to john", "messages"),
    ("add milk to the shopping list", None),
    ("call mom and add milk to my list", None),
])
def test_what_a_request_is_about(said, unserved):
    topic = topics_of().cannot(said)
    assert (topic.name if topic else None) == unserved


def test_a_correction_of_an_alarm_said_whole_is_not_one_of_the_list_just_added(tools):  # noqa: F811
    s = Session(tools)
    s.say("put deer corn, salt blocks and fence staples on the shopping list")
    s.say("don't put salt blocks, make it mineral tubs")
    s.model.enqueue("MODEL")  # the alarm and its correction go to the model, whole
    s.say("set me an alarm for quarter to five in the mornin, naw don't make it quarter to, "
          "make it four thirty")
    assert "mineral tubs" in s.read() and "thirty" not in s.read()


def test_marks_that_are_nouns_alone_are_no_dictation():
    said = "what causes colon cancer and colon polyps"
    assert marks_written(said) == said
    assert marks_written("note colon call the vet comma buy dog food") == (
        "note: call the vet, buy dog food")
