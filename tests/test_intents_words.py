"""The strict readers under local commands: Whisper's text cleaned, amounts read exactly."""

import pytest

from voiceagent.intents.normalize import clean
from voiceagent.intents.numbers import duration_seconds, number_value, split_quantity


@pytest.mark.parametrize(("heard", "cleaned"), [
    ("Um, hey, could you add apples to my shopping list, please?",
     "add apples to my shopping list"),
    ("Hey Jarvis, what time is it?", "what time is it"),
    ("ok google what's the easiest way to cook a turkey",  # a name, not "ok" + "google ..."
     "what's the easiest way to cook a turkey"),
    ("Okay, uh, set a timer for five minutes for me.", "set a timer for five minutes"),
    ("Can you tell me what's on my list?", "what's on my list"),
    ("I'd like to add eggs, milk, and bread to the list.",
     "add eggs, milk, and bread to the list"),
    ("Thanks.", "Thanks"),
    ("Um.", ""),
])
def test_fillers_politeness_and_punctuation_are_dropped(heard, cleaned):
    assert clean(heard) == cleaned


@pytest.mark.parametrize(("said", "seconds"), [
    ("five minutes", 300), ("90 seconds", 90), ("one and a half hours", 5400),
    ("half a minute", 30), ("a minute and a half", 90), ("an hour and 15 minutes", 4500),
    ("2 hours, 30 minutes", 9000), ("1.5 hours", 5400), ("ten-minute", 600),
    ("a quarter of an hour", 900), ("half an hour", 1800), ("5 mins", 300),
    ("twenty five minutes", 1500), ("three minutes and 20 seconds", 200), ("an hour", 3600),
    ("two and a half minutes", 150), ("a couple of minutes", 120),
    ("10 minutes from now", 600), ("five more minutes", 300), ("like 90 seconds", 90),
])
def test_durations_in_words_and_digits(said, seconds):
    assert duration_seconds(said) == seconds


@pytest.mark.parametrize("said", ["5", "pasta", "10 minutes for the pasta", "later",
                                  "5 minutes 3 minutes", "a few minutes", ""])
def test_anything_else_is_not_a_duration(said):
    assert duration_seconds(said) is None


def test_numbers_and_quantities():
    assert number_value("twenty") == 20 and number_value("2.5") == 2.5
    assert number_value("a") == 1 and number_value("fast") is None
    assert split_quantity("a mile") == (1, "mile")
    assert split_quantity("three hours") == (3, "hours")
    assert split_quantity("2 and a half kilos") == (2.5, "kilos")
    assert split_quantity("miles") is None
