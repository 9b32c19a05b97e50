"""How a request reads: a question for information changes nothing (language/asking.py)."""

import pytest

from voiceagent.language import tokens
from voiceagent.language.asking import asks_only


@pytest.mark.parametrize("said", [
    "what time is my wakeup alarm set for", "when is my alarm",
    "at what time have you set alarm for me", "in how many minutes does my timer ring",
    "please let me know the morning alarm time for weekdays", "show me my alarms",
    "can you tell me what time it is", "hey olly please tell me the pending reminders",
    "tell me about the alarm timings",
    "please tell me if my timer is still running", "what time is it please",
    "can i see my work lists", "let me check my shopping list",
])
def test_questions_for_information(said):
    assert asks_only(tokens(said))


@pytest.mark.parametrize("said", [
    "set an alarm for 7 am", "why don't you set an alarm for 7 am",
    "is it possible to set an alarm for 7 am", "could you set an alarm",
    "let me know when the timer is done", "tell me when it's five",  # told later: a reminder
    "remind me to call mom", "remind me about the dentist at 5", "what about ten minutes",
    "checkout today set alarm of ten am", "let me see, add milk to the list",
])
def test_requests_to_do_something(said):
    assert not asks_only(tokens(said))
