"""Truthful and general: nothing is said as done, and no live or personal state is stated,
unless a tool of this turn backs it; a tool runs only for a request about what it is for.
Scripted model replies are the ones the real 1.5B gave (issue 23)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from voiceagent.agent.events import Events
from voiceagent.agent.loop import Agent, TurnResult
from voiceagent.agent.messages import Message, ToolCall
from voiceagent.agent.spoken import Facts, unbacked, unspeakable
from voiceagent.config import AgentConfig
from voiceagent.config_file import load_config
from voiceagent.language import say
from voiceagent.language.sayings import tell_model
from voiceagent.language.topics import topics_of
from voiceagent.testing import ScriptedChatModel, calls
from voiceagent.tools import ToolContext, build_tools

LISTS = ("add_to_list", "create_list", "read_list", "remove_from_list", "clear_list")
TIMERS = ("set_timer", "set_alarm", "list_timers", "cancel_timer", "pause_timer")
CLOCK = ("get_time",)
"""The tools a held-back answer's retry must call one of: its request's topic's."""


@pytest.fixture
def tools(tmp_path: Path):
    box = build_tools(load_config(None), ToolContext(tmp_path))
    yield box.registry
    box.close()


def run(model: ScriptedChatModel, tools: Any, text: str) -> tuple[TurnResult, str]:
    agent = Agent(model, tools, AgentConfig(), Events())
    spoken: list[str] = []
    result = agent.run_turn([], text, on_text=spoken.append)
    return result, " ".join(spoken)


def test_a_promise_with_no_call_is_not_said_and_the_tool_is_required(tools):
    model = ScriptedChatModel().enqueue("Sure, I'll add naan bread to the shopping list.")
    model.enqueue(calls(("add_to_list", {"list_name": "shopping", "items": "naan bread"})))
    result, spoken = run(model, tools, "fine, add naan bread to the shopping list then")
    assert spoken == "Added naan bread to your new shopping list."
    assert model.requests[1].tool_choice == LISTS
    assert "add_to_list" in model.requests[1].messages[-1].text
    model.assert_consumed()


def test_a_write_for_what_no_tool_serves_never_runs_and_the_model_answers_in_words(tools):
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "uber-reservations", "items": "closest uber"})))
    model.enqueue("I can't book rides from here.")
    result, spoken = run(model, tools, "what is the closest uber")
    assert spoken == "I can't book rides from here."
    assert result.tool_calls[0].error and model.requests[1].tool_choice == "none"
    assert tools.run(ToolCall("r", "read_list", {})).say == "You have no lists yet."
    model.assert_consumed()


def test_a_general_question_primed_into_a_tool_is_answered_in_words(tools):
    """After four local commands the 1.5B answered "Who wrote the play Hamlet?" with
    calculate(...) and "Sorry, I couldn't do that."; it did in a fresh session too."""
    model = ScriptedChatModel().enqueue(
        calls(("calculate", {"expression": "who wrote the play Hamlet"})))
    model.enqueue("William Shakespeare wrote Hamlet.")
    result, spoken = run(model, tools, "Who wrote the play Hamlet?")
    assert spoken == "William Shakespeare wrote Hamlet."
    assert [r.tool_choice for r in model.requests] == ["none", "none"]


def test_a_request_no_tool_serves_is_asked_without_tools_and_with_a_note(tools):
    """The first request offers no tool, the tools stay in the prompt (its cached prefix
    is unchanged) and the note is never read out."""
    model = ScriptedChatModel().enqueue(
        "No tool here is for this: answer briefly in plain words from what you know.")
    model.enqueue("Shakespeare wrote it.")
    model2 = ScriptedChatModel().enqueue("Shakespeare wrote it.")
    _r, spoken = run(model2, tools, "Who wrote the play Hamlet?")
    first = model2.requests[0]
    assert first.tool_choice == "none" and len(first.tools) == len(tools.names)
    # "play" is a word of media: told what nothing here does, and to answer the rest
    assert tell_model("in_unserved", cannot=topics_of().topic("media").reply) in (
        first.messages[-1].text)
    assert spoken == "Shakespeare wrote it."
    _r, spoken = run(model, tools, "Who wrote the play Hamlet?")
    assert "No tool here" not in spoken


@pytest.mark.parametrize("text, about", [
    ("today was a tiring day", []),  # a remark about the user's day
    ("joke of the day", []),
    ("what day is it today", ["clock"]),
    ("what's the date", ["clock"]),
    ("will it rain on sunday", ["clock", "weather"]),
])
def test_words_that_only_say_when_are_the_clocks_only_when_asked(text, about):
    assert [t.name for t in topics_of().about(text)] == about


@pytest.mark.parametrize("text, note", [
    ("today was a tiring day", tell_model("in_general")),  # a remark: no word of refusing
    ("tell me a joke", tell_model("in_general")),
    # nothing here does it: told what cannot be done, and that it may refuse
    ("what is the best taxi to the airport",
     tell_model("in_unserved", cannot=topics_of().topic("shopping").reply)),
])
def test_only_a_request_on_what_nothing_here_does_is_told_it_may_refuse(tools, text, note):
    """Told "if it asks for something nothing here can do, say so plainly", the 1.5B
    answered remarks and jokes with "I'm sorry, but I can't assist with that."; told it
    without what that is, it answered "do they offer takeaway" with "Yes, they offer
    takeaway."."""
    model = ScriptedChatModel().enqueue("Okay then.")
    run(model, tools, text)
    assert model.requests[0].tool_choice == "none"
    assert note in model.requests[0].messages[-1].text


@pytest.mark.parametrize("history, text", [
    ([("user", "Can you set a timer for the eggs?"),
      ("assistant", "For how long should I set it?")], "Yes, the usual."),
    ([("user", "What time is it in Tokyo?"), ("assistant", "It's 3 PM in Tokyo.")],
     "And in Paris?"),
])
def test_an_answer_to_our_question_or_a_request_going_on_keeps_the_tools(tools, history, text):
    model = ScriptedChatModel().enqueue("Okay.")
    agent = Agent(model, tools, AgentConfig(), Events())
    agent.run_turn([Message(role, said) for role, said in history], text)
    assert model.requests[0].tool_choice == "auto"


def test_a_plugin_tool_keeps_every_request_open_to_tools(tmp_path):
    from voiceagent.agent.tool_def import Tool
    from voiceagent.agent.tools import ToolRegistry
    plugin = Tool("water_plants", "Water the plants.", {"type": "object", "properties": {}},
                  lambda: "Watered.")
    model = ScriptedChatModel().enqueue("Done watering.")
    Agent(model, ToolRegistry([plugin]), AgentConfig(), Events()).run_turn(
        [], "please give the ferns a drink")
    assert model.requests[0].tool_choice == "auto"


@pytest.mark.parametrize("sentence, named, claims", [
    ("Sure, I can help with that.", False, True),
    ("Will do!", False, True),
    ("Okay.", True, True),
    ("Okay.", False, False),
    ("Sure, the capital of France is Paris.", True, False),
    ("Is that okay?", True, False),
    ("Sure, I'll do my best!", False, True),  # to "much more clearer and subject oriented"
    ("Sure, I can!", False, True),  # to "could you please lower the tone" (SLURP devel)
    ("I can tell you a story.", False, False),
])
def test_an_acknowledgement_alone_says_the_request_was_taken_on(sentence, named, claims):
    from voiceagent.agent.spoken import Facts, unbacked
    assert bool(unbacked(sentence, Facts(named=named))) is claims
    assert unbacked(sentence, Facts(named=named, wrote=True)) == ""


@pytest.mark.parametrize("request_text, answer", [
    ("go forward please", "Of course!"),  # SLURP devel (seed 42), no call
    ("could you lower the tone", "Okay."),
    ("delete the birthday party tomorrow at two pm", "I understand."),
])
def test_an_order_answered_with_a_bare_okay_is_not_said_done(tools, request_text, answer):
    """A bare "Of course!" to an order no call served tells the user it was done."""
    model = ScriptedChatModel().enqueue(answer).enqueue(answer)
    result, spoken = run(model, tools, request_text)
    assert spoken and spoken.strip() != answer and not result.tool_calls


def test_a_bare_okay_to_a_remark_is_said(tools):
    model = ScriptedChatModel().enqueue("Okay!")
    _result, spoken = run(model, tools, "i had a long day at work")
    assert spoken == "Okay!"


def test_an_acknowledgement_with_no_call_is_not_said(tools):
    """Real coffee orders got "Sure, I can help with that." and nothing else."""
    model = ScriptedChatModel().enqueue("Sure, I can help with that.")
    model.enqueue("Sure, I can help with that.")
    _r, spoken = run(model, tools, "can i get a large latte with oat milk")
    assert "help with that" not in spoken and spoken


@pytest.mark.parametrize("request_text, answer, topic", [
    ("what did i tell susan in my last email", "I told Susan that I was going to the store.",
     "messages"),
    ("is it going to rain tomorrow", "Yes, it will rain tomorrow afternoon.", "weather"),
    ("did i get any new emails", "You have two new emails from Claire.", "messages"),
    ("how do i write a good email", "Keep it short and clear.", None),
    ("do i have any meetings today", "You have a meeting at 3 with the design team.",
     "calendar"),
])
def test_what_nothing_here_can_know_is_said_plainly(tools, request_text, answer, topic):
    """What the user's own world holds that nothing here knows (their email) is said plainly,
    without asking the model; a general question about such things is answered."""
    model = ScriptedChatModel().enqueue(answer)
    result, spoken = run(model, tools, request_text)
    assert spoken == (topics_of().topic(topic).reply if topic else answer)
    assert len(model.requests) <= 1  # no second try: no tool here knows it
    assert not result.tool_calls


def test_live_state_no_tool_gave_is_asked_for_with_the_tool(tools):
    model = ScriptedChatModel().enqueue("The current month is October.")
    model.enqueue(calls(("get_time", {})))
    result, spoken = run(model, tools, "what month is today")
    assert spoken.startswith("It is ") and "October" not in spoken
    assert model.requests[1].tool_choice == CLOCK


def test_a_claim_a_tool_backs_is_said(tools):
    model = ScriptedChatModel().enqueue(
        calls(("add_to_list", {"list_name": "shopping", "items": "milk"}), text=""))
    result, spoken = run(model, tools, "add milk to my shopping list")
    assert spoken == "Added milk to your new shopping list."


def test_a_refusal_is_no_claim_and_a_question_claims_nothing():
    known = topics_of()
    assert known.claimed("I can't add that to your calendar.") == []
    assert known.claimed("Would you like me to set a timer?") == []
    assert [t.name for t in known.claimed("Okay, I'll stop the alarms.")] == ["done"]
    assert [t.name for t in known.claimed("Got it.")] == ["done"]
    # a promise to remember, with no note taken (set 11's gardener)
    assert [t.name for t in known.claimed(
        "I'll remember that the tomatoes were planted on the 3rd.")] == ["done"]
    assert known.claimed("William Shakespeare wrote Hamlet.") == []
    # how warm it is now is the weather's; why it is cold in winter is knowledge
    assert [t.name for t in known.claimed("Yes, it is hot today.")] == ["weather"]
    # ...and so is that it is not raining; not knowing whether it is claims nothing
    assert [t.name for t in known.claimed("It's not raining, but check the forecast.")] == [
        "weather"]
    assert known.claimed("I can't tell if it's raining.") == []
    assert known.claimed("It's cold in winter because the Earth tilts away from the sun.") == []


@pytest.mark.parametrize("tool, said, on", [
    ("add_to_list", "reserve the closest uber", False),
    ("add_to_list", "book me a ticket to paris on eurostar", False),
    ("set_timer", "mute for one hour", False),
    ("calculate", "who wrote the play hamlet", False),
    ("get_system_status", "who wrote the play hamlet", False),
    ("add_to_list", "we're out of coffee", True),
    ("set_alarm", "set wake up thursday seven am", True),
    ("calculate", "now add a hundred to that", True),
    ("get_time", "what month is today", True),
    # a length of time in a request of the assistant is about timers
    ("set_timer", "the dough has to rise for forty five minutes, can you keep track of that "
                  "for me", True),
    ("set_timer", "can you mute the music for one hour", False),
    ("set_timer", "is nine minutes enough to boil an egg", False),
    # a number in a remark is no sum to work out
    ("calculate", "I parked on level four, spot 22.", False),
    ("calculate", "what is 2 to the power of 10", True),
    ("calculate", "2 to the power of 10", True),
])
def test_a_request_is_about_what_a_tool_is_for_only_when_it_says_so(tool, said, on):
    assert topics_of().on_topic(tool, said) is on


@pytest.mark.parametrize("place", ["this year", "", "June 27"])
def test_a_date_the_user_said_reaches_the_clock(tools, place):
    """"what day of the week is june twenty seventh on this year": the 1.5B called
    get_time(place="this year") and the user heard today's date. The date said is carried
    into the call; a month alone is no date ("may I ask")."""
    model = ScriptedChatModel().enqueue(calls(("get_time", {"place": place} if place else {})))
    _result, spoken = run(model, tools, "what day of the week is june twenty seventh on this year")
    assert spoken.startswith("June 27 ")  # not today's date
    assert f"June 27, {datetime.now().year}" in spoken  # this year's, as said
    model = ScriptedChatModel().enqueue(calls(("get_time", {})))
    _result, spoken = run(model, tools, "what time is it, may I ask")
    assert spoken.startswith("It is ")


def test_a_cancel_keeps_the_day_the_user_said(tools):
    """"please delete all reminder of sunday": the 1.5B called cancel_timer(which="all");
    the day said is carried into the call, so only Sunday's alarms go."""
    tools.run(ToolCall("a", "set_alarm", {"time": "7 am on sunday"}))
    tools.run(ToolCall("b", "set_alarm", {"time": "8 am on monday"}))
    model = ScriptedChatModel().enqueue(calls(("cancel_timer", {"which": "all"})))
    result, spoken = run(model, tools, "please delete all reminder of sunday")
    assert spoken == "Cancelled the 7:00 AM alarm."
    assert "8:00 AM" in tools.run(ToolCall("c", "list_timers", {})).say


def test_the_plain_sentence_when_the_second_try_fails_too(tools):
    model = ScriptedChatModel().enqueue("The time is 12:34 PM.").enqueue("It is 1:00 PM.")
    result, spoken = run(model, tools, "hey what's the time")
    assert spoken == say("failed")  # a tool serves it: it could not be done this time


def test_earlier_turns_are_shown_to_the_model_as_words_and_answers(tools):
    """A long session of tool turns must not teach the model that every request is a tool
    call: earlier turns reach it as what was said and answered."""
    from voiceagent.agent.history import for_model
    from voiceagent.agent.messages import Message

    history = [Message("user", "set a timer for five minutes"),
               Message("assistant", "", calls(("set_timer", {"duration": "5 minutes"})).calls),
               Message("tool", "Timer set for 5 minutes.", call_id="call_1_0", name="set_timer"),
               Message("assistant", "Timer set for 5 minutes.")]
    assert [(m.role, m.text) for m in for_model(history)] == [
        ("user", "set a timer for five minutes"), ("assistant", "Timer set for 5 minutes.")]
    assert for_model(history, "calls") == history
    model = ScriptedChatModel().enqueue("William Shakespeare.")
    agent = Agent(model, tools, AgentConfig(), Events())
    agent.run_turn(history, "Who wrote the play Hamlet?")
    sent = model.requests[0].messages
    assert [m.role for m in sent] == ["user", "assistant", "user"] and not sent[1].calls


def test_a_day_said_with_an_alarm_reaches_the_call(tools):
    """"set wake up thursday seven am" became an alarm for tomorrow, and told so, the 1.5B
    repeated the same call until the time ran out: the user's day is added to the call."""
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7 am", "label": "wake up"})))
    result, spoken = run(model, tools, "set wake up thursday seven am")
    [done] = result.tool_calls
    assert not done.error and "Added thursday" in done.text
    assert datetime.fromtimestamp(done.refs[0].due).strftime("%A") == "Thursday"
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "8 am"})))
    result, spoken = run(model, tools, "ring the wake up alarm at eight am next saturday")
    [done] = result.tool_calls
    assert datetime.fromtimestamp(done.refs[0].due).strftime("%A") == "Saturday"


@pytest.mark.parametrize("said", ["set an alarm for 7 am on the fifth of april",
                                  "wake me up at seven am april fifth"])
def test_a_date_said_with_an_alarm_reaches_the_call(tools, said):
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7 am"})))
    result, _spoken = run(model, tools, said)
    [done] = result.tool_calls
    assert not done.error
    assert datetime.fromtimestamp(done.refs[0].due).strftime("%m-%d %H:%M") == "04-05 07:00"


def test_am_or_pm_the_user_gave_no_word_for_is_left_out(tools):
    """"remind me that i have an appointment twelve o clock on saturday": the 1.5B called
    "12:00 AM saturday", midnight. Left out, the alarm takes the first twelve o'clock to come
    on Saturday; "seven pm" said is kept."""
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {
        "time": "12:00 AM saturday", "label": "appointment"})))
    result, _spoken = run(model, tools, "remind me that i have an appointment twelve o clock "
                                        "on saturday")
    [done] = result.tool_calls
    assert not done.error
    assert datetime.fromtimestamp(done.refs[0].due).strftime("%A %H:%M") == "Saturday 12:00"
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7:00 PM"})))
    result, _spoken = run(model, tools, "set an alarm for seven pm")
    [done] = result.tool_calls
    assert datetime.fromtimestamp(done.refs[0].due).strftime("%H:%M") == "19:00"


def test_a_date_is_no_clock_time(tools):
    """"remind me on fifth april there is a meeting with boss": the 1.5B set 5:00 PM today
    (the day's number for a time, the date dropped). The date reaches the call and its
    number is no clock time: the user is asked for one."""
    model = ScriptedChatModel().enqueue(calls(
        ("set_alarm", {"time": "5:00 pm", "label": "meeting with boss"})))
    result, spoken = run(model, tools, "remind me on fifth april there is a meeting with boss")
    assert spoken == "For what time?"
    assert tools.get("list_timers")() == "You have no timers or alarms set."


def test_an_alarm_made_of_a_length_is_refused_and_the_timer_set(tools):
    """Set 24, "ok warm up first, ten minutes on the clock please": the 1.5B set an alarm
    at 10:00. The hour was said only as a length; the model is told, and sets the timer."""
    model = ScriptedChatModel()
    model.enqueue(calls(("set_alarm", {"time": "10:00", "label": "warm up"})))
    model.enqueue(calls(("set_timer", {"duration": "10 minutes", "label": "warm up"})))
    result, spoken = run(model, tools, "ok warm up first, ten minutes on the clock please")
    assert "a length is a timer's" in model.requests[1].messages[-1].text
    listed = tools.get("list_timers")()
    assert "10 minute" in listed and "alarm" not in listed.lower()


def test_a_time_of_day_to_see_elsewhere_is_converted_not_read(tools):
    """Sets 24/25: "if it's seven in the evening here in dublin what time would that be in
    perth" -> get_time("Dublin"), the clock now read out. The clock is told a time of day
    was named, and the converter answers."""
    model = ScriptedChatModel()
    model.enqueue(calls(("get_time", {"place": "Dublin"})))
    model.enqueue(calls(("convert_time", {"time": "7 pm", "from_place": "dublin",
                                          "to_place": "perth"})))
    result, spoken = run(model, tools, "grand, and if it's seven in the evening here in "
                         "dublin what time would that be in perth")
    assert "convert_time" in model.requests[1].messages[-1].text
    assert spoken.startswith("When it is 7:00 PM in dublin")


def test_the_same_refused_call_twice_ends_the_turn(tools):
    model = ScriptedChatModel()
    for _ in range(2):
        model.enqueue(calls(("set_timer", {"duration": "1 hour"})))
    result, spoken = run(model, tools, "set a timer for 1/2 an hour")
    assert result.stop == "loop" and len(model.requests) == 2


def test_the_same_made_up_value_twice_asks_the_user_for_it(tools):
    """SLURP's "can you set the alarm for one hundred and thirty": set_alarm(10:30) twice,
    and the user heard "Sorry, I kept repeating the same step, so I stopped."."""
    model = ScriptedChatModel()
    for _ in range(2):
        model.enqueue(calls(("set_alarm", {"time": "10:30", "label": "breakfast"})))
    result, spoken = run(model, tools, "can you set the alarm for one hundred and thirty")
    assert all(d.error for d in result.tool_calls), (result.stop, spoken)
    assert spoken == "For what time?"


def test_a_length_said_is_the_length_set(tools):
    model = ScriptedChatModel().enqueue(calls(("set_timer", {"duration": "1 hour"})))
    model.enqueue(calls(("set_timer", {"duration": "90 seconds"})))
    result, spoken = run(model, tools, "set a timer for a minute and a half")
    assert result.tool_calls[0].error and spoken == "Timer set for 1 minute and 30 seconds."


def test_a_list_is_made_only_when_the_user_speaks_of_one(tools):
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "travel", "items": "paris"})))
    model.enqueue("Which list should I put that on?")
    result, spoken = run(model, tools, "remember to add paris please")
    assert result.tool_calls[0].error and "travel" in result.tool_calls[0].text
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "shopping", "items": "coffee"})))
    result, spoken = run(model, tools, "we're out of coffee, add it")
    assert spoken == "Added coffee to your new shopping list."  # a list the user has by name


def test_the_list_the_user_named_is_the_one_written_not_the_words_around_it(tools):
    """A parent, interrupted: the 1.5B made a list "no put that down"."""
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "no put that down", "items": "cereal"})))
    model.enqueue("Done.")
    result, spoken = run(model, tools,
                         "add cereal to the no put that down to the shopping list")
    assert result.tool_calls[0].text.startswith("Added cereal to your new shopping list.")
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "party", "items": "balloons"})))
    result, spoken = run(model, tools, "put balloons on the party list")
    assert spoken == "Added balloons to your new party list."


def test_here_is_not_a_place_said_before(tools):
    """"tell me the time in this time zone" after New York was named: the time here."""
    from voiceagent.agent.messages import Message

    history = [Message("user", "what time is it in New York"),
               Message("assistant", "In New York it is 9:00 AM.")]
    model = ScriptedChatModel().enqueue(calls(("get_time", {"place": "New York"})))
    agent = Agent(model, tools, AgentConfig(), Events())
    result = agent.run_turn(history, "tell me the time in this time zone")
    assert result.answer.startswith("It is ")  # the place was left out: the time here


def test_an_answer_that_opens_by_stepping_out_of_character_is_asked_again_whole(tools):
    """"what is your favorite color" -> "As an AI language model, I don't have personal
    preferences. However, many people enjoy ...": not spoken from its "However"."""
    model = ScriptedChatModel().enqueue(
        "As an AI language model, I don't have personal preferences or emotions. However, "
        "I can tell you that many people enjoy blue.")
    model.enqueue("My favorite color is blue.")
    _result, spoken = run(model, tools, "what is your favorite color")
    assert spoken == "My favorite color is blue."
    assert model.requests[1].system == AgentConfig().chat_prompt
    model = ScriptedChatModel().enqueue("Mount Everest. I'm not sure of its exact height.")
    _result, spoken = run(model, tools, "What is the highest mountain on earth?")
    assert spoken == "Mount Everest."  # a doubt after an answer: only the doubt goes
    assert len(model.requests) == 1


def test_a_general_question_declined_is_asked_once_more_to_be_answered(tools):
    model = ScriptedChatModel().enqueue("I'm sorry, but I can't help with that.")
    model.enqueue("Mount Everest, at 8,849 metres.")
    result, spoken = run(model, tools, "What is the highest mountain on earth?")
    assert spoken == "Mount Everest, at 8,849 metres."
    again = model.requests[1]  # as in a plain chat: shown the tools' rules, it declines
    assert again.system == AgentConfig().chat_prompt and again.tools == ()
    assert again.messages[-1].text == "What is the highest mountain on earth?"
    model = ScriptedChatModel().enqueue("I'm sorry, but I can't help with that.")
    model.enqueue("I don't know where your keys are.")
    result, spoken = run(model, tools, "where did i leave my keys")  # the user's own
    assert model.requests[1].system == AgentConfig().system_prompt
    assert model.requests[1].tool_choice == "none"
    model = ScriptedChatModel().enqueue("I'm sorry, but I don't have any information about it.")
    model.enqueue("Jane's party was a fun event.")
    result, spoken = run(model, tools, "i would like to know about jane's party")
    assert model.requests[1].system == AgentConfig().system_prompt  # not known: no chat
    model = ScriptedChatModel().enqueue("I'm sorry, but I can't provide real-time results.")
    model.enqueue("I can't check that here.")
    result, spoken = run(model, tools, "what happened at the party last night")  # the world now
    assert model.requests[1].system == AgentConfig().system_prompt
    model = ScriptedChatModel().enqueue("I'm sorry, but I can't answer that.")
    model.enqueue("Sounds like a long day.")
    result, spoken = run(model, tools, "the bus was super late today")  # a remark: no question
    assert model.requests[1].system == AgentConfig().chat_prompt
    model = ScriptedChatModel().enqueue("I'm sorry, I can't help with that.")
    model.enqueue("How about a simple stir-fry?")
    result, spoken = run(model, tools, "what should i cook tonight")  # advice: no live fact
    assert model.requests[1].system == AgentConfig().chat_prompt
    assert spoken == "How about a simple stir-fry?"
    model = ScriptedChatModel().enqueue("I can't check the weather.")  # not general: said
    result, spoken = run(model, tools, "what's the weather like")
    assert "weather" in spoken and len(model.requests) == 1


def test_declining_what_a_tool_here_does_is_asked_once_more_with_the_tools(tools):
    model = ScriptedChatModel().enqueue("Sorry, I can't do that.")
    model.enqueue(calls(("get_time", {})))
    result, spoken = run(model, tools, "tell me the time in this time zone")
    assert spoken.startswith("It is ")
    assert "get_time" in model.requests[1].messages[-1].text
    assert model.requests[1].tool_choice == "auto"  # named, not forced


@pytest.mark.parametrize("request_text, declined", [
    ("read my list to me", "I cannot do that here."),
    ("read shopping list items", "Today is [insert shopping list]."),  # a placeholder
])
def test_declining_what_a_list_does_must_call_one_of_the_list_tools(tools, request_text,
                                                                     declined):
    """SLURP's "read my list to me": the 1.5B declined, and declined again when the tools were
    named; the clock's everyday words aside, such a request is asked for one of its tools."""
    tools.run(ToolCall("a", "add_to_list", {"list_name": "shopping", "items": "milk"}))
    model = ScriptedChatModel().enqueue(declined)
    model.enqueue(calls(("read_list", {"list_name": "shopping"})))
    result, spoken = run(model, tools, request_text)
    assert spoken == "Your shopping list has 1 item: milk."
    assert model.requests[1].tool_choice == LISTS


@pytest.mark.parametrize("request_text, made_up", [
    ("what lists are available", "There are no lists available."),
    ("read shopping list items", "I don't have a shopping list."),
    ("do i have any timers", "You have no timers set."),
    ("at what time have you set alarm for me", "I haven't set an alarm for you."),
    ("which timers are still running", "Timer for eggs is still running."),  # one was rice
])
def test_saying_the_user_has_none_is_a_claim_a_tool_must_back(tools, request_text, made_up):
    """Asked about lists the user had, the 1.5B said they had none, with no call."""
    tools.run(ToolCall("a", "add_to_list", {"list_name": "shopping", "items": "milk"}))
    tools.run(ToolCall("b", "set_timer", {"duration": "5 minutes"}))
    model = ScriptedChatModel().enqueue(made_up)
    model.enqueue(calls(("read_list", {}) if "list" in request_text else ("list_timers", {})))
    result, spoken = run(model, tools, request_text)
    assert made_up not in spoken and ("shopping" in spoken or "5 minute" in spoken), spoken
    offered = model.requests[1].tool_choice
    # what was claimed: not the clock's too for "at what time have you set alarm for me";
    # of a question, only the tools that read
    assert offered in (LISTS, TIMERS, ("read_list",), ("list_timers",)), offered


def test_a_pronoun_or_a_correction_carries_the_last_request_words(tools):
    """'We're out of coffee.' then 'Put it on the list.': 'it' is the coffee; 'Sorry, I meant
    margarine' is still about the list."""
    from voiceagent.agent.messages import Message

    history = [Message("user", "We're out of coffee."),
               Message("assistant", "Should I add coffee to your shopping list?")]
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "shopping", "items": "coffee"})))
    agent = Agent(model, tools, AgentConfig(), Events())
    result = agent.run_turn(history, "Put it on the list.")
    assert not result.tool_calls[0].error and result.answer.startswith("Added coffee")


@pytest.mark.parametrize("told, asked, call, heard", [
    ("The pasta needs eleven minutes.", "Set a timer for that.",
     ("set_timer", {"duration": "11 minutes"}), "11 minutes"),
    ("I parked on level four, spot 22.", "Make a note of that.",
     ("add_note", {"text": "I parked on level four, spot 22."}), "Noted"),
])
def test_that_pointing_back_lets_the_call_use_what_the_user_said_before(tools, told, asked,
                                                                         call, heard):
    """The model resolved "that" to the user's last words; the call was refused as words
    nobody said."""
    from voiceagent.agent.messages import Message

    history = [Message("user", told), Message("assistant", "Okay.")]
    model = ScriptedChatModel().enqueue(calls(call)).enqueue(f"{heard}.")
    result = Agent(model, tools, AgentConfig(), Events()).run_turn(history, asked)
    assert not result.tool_calls[0].error and heard in result.answer


@pytest.mark.parametrize("sentence, done", [
    ("Alarm canceled.", True),  # the 1.5B after "Never mind, cancel that alarm.", no call
    ("Timer extended by 5 minutes.", True),  # to "Add five more minutes to it.", no call
    ("I removed eggs from your shopping list.", True),  # after "Remove the eggs from it."
    ("The 5 AM alarm has been cancelled.", True),
    ("Eggs removed from your shopping list.", True),
    ("Okay, the pasta timer is stopped.", True),
    ('I removed "apple" from it.', True),  # the list named in the sentence before (SLURP)
    ("I'll let you know when it's five hours.", True),  # to "alert me at five hours"
    ("I can't alert you, sorry.", False),
    ("Sure, I'll do my best to make it more friendly.", True),  # "lower the tone" (SLURP)
    ("I'll try to be more relaxed.", False),
    ("Sure, I'll be quiet for a while.", True),  # "can you please be muted for a while"
    ("Sure, I'll take a break for five minutes.", True),  # "lets have a break for five
    ("Pluto was removed from the list of planets in 2006.", False),
    ("You added milk to the list earlier.", False),
    ("Salt is added to the water before the pasta.", False),
    ("I haven't removed anything from your list.", False),
    ("Your timer, set for ten minutes, has three minutes left.", False),
    # the 1.5B to "add flour and baking powder to the shopping list then read me what's on
    # it", no call: the items first, the report, then where they went
    ("Flour and baking powder added to the shopping list.", True),
    ("Bananas and the big bag of rice removed from your list.", True),
    ("Flour is added to the bowl before the butter.", False),
    ("Crossed the van booking off your list.", True),  # to "so cross that one off", no call
    ("Took me a while to find it.", False),
])
def test_a_report_of_a_kept_thing_done_is_a_claim(sentence, done):
    """Done, said without a promise ("Alarm canceled."), is a claim a write must back; the
    same words describing the world ("Pluto was removed from the list") are not."""
    claimed = [t.name for t in topics_of().claimed(sentence)]
    assert ("done" in claimed) is done


def test_a_reported_cancel_with_no_call_is_not_said_and_the_tool_is_required(tools):
    tools.run(ToolCall("a", "set_alarm", {"time": "5 am"}))
    model = ScriptedChatModel().enqueue("Alarm canceled.")
    model.enqueue(calls(("cancel_timer", {"which": "alarm"})))
    result, spoken = run(model, tools, "please get rid of my alarm")
    assert "Alarm canceled." not in spoken and "ancel" in spoken
    assert model.requests[1].tool_choice == TIMERS
    assert tools.run(ToolCall("l", "list_timers", {})).say.endswith("no timers or alarms set.")
    model.assert_consumed()


@pytest.mark.parametrize("sentence, claims", [
    ("Yes, you can have a light roast 12 ounce coffee.", True),
    ("Sure, here is your latte.", True),
    ("Coming right up!", True),
    ("Sure, you can order a 20 ounce iced coffee with a little bit of sweetener.", True),
    ("You can have up to three timers.", False),
    ("A latte is espresso with steamed milk.", False),
])
def test_granting_an_order_is_a_claim_nothing_here_backs(sentence, claims):
    """Real spoken coffee orders got the 1.5B's "Yes, you can have a light roast 12 ounce
    coffee.": nothing here makes or orders anything."""
    assert ("shopping" in [t.name for t in topics_of().claimed(sentence)]) is claims


def test_a_real_coffee_order_granted_is_answered_plainly(tools):
    model = ScriptedChatModel().enqueue("Yes, you can have a large latte with oat milk.")
    _r, spoken = run(model, tools, "what is a large latte with oat milk like")
    assert spoken == topics_of().topic("shopping").reply
    assert model.requests[0].tool_choice == "none"


@pytest.mark.parametrize("request_text, topic", [
    ("can i get a large latte with oat milk", "shopping"),  # the shared real coffee orders
    ("reserve the closest uber", "shopping"),
    ("euro to u. s. d.", "news"),  # "1 euro is approximately 1.11 dollars."
    ("does pf changs accept takeout orders", "shopping"),  # "No, PF Changs does not ..."
    ("play some jazz", "media"),
])
def test_asking_for_what_nothing_here_does_is_refused_without_the_model(tools, request_text,
                                                                       topic):
    """Asked with a note quoting what cannot be done, the 1.5B still made up one answer in six
    to SLURP's requests on such topics; with local commands none is asked of it now, and the
    refusal is at once. Without them ([agent] local_commands off) the model answers it."""
    from voiceagent.intents import LocalCommands

    model = ScriptedChatModel()
    agent = Agent(model, tools, AgentConfig(), Events(), local=LocalCommands(tools))
    spoken: list[str] = []
    result = agent.run_turn([], request_text, on_text=spoken.append)
    refusal = topics_of().topic(topic).reply
    said = " ".join(spoken)  # the topic's own sentence, or a template's for the same
    assert said.split(":")[0] == refusal.split(":")[0] and not model.requests, said
    assert not result.tool_calls
    model = ScriptedChatModel().enqueue(refusal)
    _result, said = run(model, tools, request_text)  # no local commands
    assert len(model.requests) == 1


@pytest.mark.parametrize("sentence, refuses_other", [
    ("Sorry, I can't check the weather here.", True),
    ("I can't browse the web, but Hamlet was written by Shakespeare.", False),
    ("I can't play music here.", True),
    ("Sorry, I can't do that here.", False),
])
def test_a_refusal_of_what_was_not_asked_is_no_answer(sentence, refuses_other):
    """The 1.5B answered "who and why is on at the theater tonight" with the worked
    example's "Sorry, I can't check the weather here."."""
    asked = topics_of().about("who and why is on at the theater tonight")
    assert (topics_of().refuses_other(sentence, asked) is not None) is refuses_other


def test_the_worked_examples_refusal_copied_is_replaced_by_the_plain_one(tools):
    model = ScriptedChatModel().enqueue("Sorry, I can't check the weather here.")
    _r, spoken = run(model, tools, "who and why is on at the theater tonight")
    assert spoken == say("cannot")
    model.assert_consumed()


def test_a_refusal_copied_to_what_a_tool_serves_asks_for_the_tool_that_reads(tools):
    """SLURP's "what time is my wakeup alarm set for": the 1.5B said "Sorry, I can't check
    the weather here."; asked again it must read the alarms (a question writes nothing, and
    the clock's words say when the alarm is, not what was asked)."""
    tools.run(ToolCall("a", "set_alarm", {"time": "7:30 am", "label": "wake up"}))
    model = ScriptedChatModel().enqueue("Sorry, I can't check the weather here.")
    model.enqueue(calls(("list_timers", {})))
    _r, spoken = run(model, tools, "what time is my wakeup alarm set for")
    assert model.requests[1].tool_choice == ("list_timers",)
    assert "7:30" in spoken, spoken


def test_a_placeholder_for_the_clocks_value_asks_for_the_clock(tools):
    """"what is the date of next saturday" -> "The date of next Saturday is [insert date].":
    the model wanted a value it did not have; asked again, the clock is required."""
    model = ScriptedChatModel().enqueue("The date of next Saturday is [insert date].")
    model.enqueue(calls(("get_time", {"place": "next saturday"})))
    _r, spoken = run(model, tools, "what is the date of next saturday")
    assert model.requests[1].tool_choice == ("get_time",)
    assert spoken.startswith("Next saturday is Saturday"), spoken


def test_a_drafts_read_ahead_sends_the_request_as_the_turn_will(tools):
    """The server's cache must hold the turn's first request whole, note included: else
    the note's tokens are read after the user stops talking."""
    model = ScriptedChatModel().enqueue("Shakespeare.").enqueue("Shakespeare.")
    agent = Agent(model, tools, AgentConfig(), Events())
    agent.warm_up([], "Who wrote the play Hamlet?")
    agent.run_turn([], "Who wrote the play Hamlet?")
    ahead, turn = model.requests
    assert ahead.messages == turn.messages
    assert tell_model("in_unserved", cannot=topics_of().topic("media").reply) in (
        turn.messages[-1].text)


def test_offering_to_get_what_was_ordered_is_a_claim_too():
    """"can i get a large latte with oat milk" -> the 1.5B: "Sure, I can get a large latte
    with oat milk."."""
    claimed = topics_of().claimed("Sure, I can get a large latte with oat milk.")
    assert "shopping" in [t.name for t in claimed]


@pytest.mark.parametrize("sentence, done", [
    ("Sure, I can help you make a drip coffee.", True),
    ("Sure, I can help you make a triple shot Americano with sugar.", True),
    ("I'd be happy to help you set that up.", True),
    ("Sure, I can tell you how coffee is made.", False),
    ("Sure, I can't help you make that here.", False),
])
def test_a_verb_of_doing_is_counted_from_where_the_promise_ends(sentence, done):
    """Live, real coffee orders ("Brew a triple shot Americano") got the 1.5B's "Sure, I can
    help you make ...": the verb is four words from where "sure I can" starts, but two from
    where it ends."""
    assert ("done" in [t.name for t in topics_of().claimed(sentence)]) is done


def test_agreeing_to_brew_what_nothing_here_makes_is_answered_plainly(tools):
    model = ScriptedChatModel().enqueue(
        "Sure, I can help you make a triple shot Americano with sugar and cream.").enqueue(
        "Sure, I can make you a triple shot Americano.")
    _r, spoken = run(model, tools, "Whip up a triple shot Americano with sugar and lots of cream.")
    assert spoken == say("cannot")
    _r, spoken = run(model, tools, "Brew a triple shot Americano with sugar and a lot of cream.")
    assert spoken == topics_of().topic("shopping").reply  # an order: no model
    model.assert_consumed()


def test_items_nobody_named_are_asked_for_and_the_answer_is_taken(tools):
    """"Add something to my shopping list." -> the 1.5B made up "apples, bananas, oranges";
    the user is asked, and "Bread." is then what goes on the list."""
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "grocery", "items": "apples, bananas, oranges"})))
    agent = Agent(model, tools, AgentConfig(), Events())
    first = agent.run_turn([], "Add something to my shopping list.")
    assert first.answer == say("ask_items")
    model.enqueue(calls(("add_to_list", {"list_name": "shopping", "items": "bread"})))
    second = agent.run_turn(list(first.messages), "Bread.")
    assert not second.tool_calls[0].error
    assert "bread" in tools.run(ToolCall("r", "read_list", {"list_name": "shopping"})).say


@pytest.mark.parametrize("said, topic", [
    ("how is the traffic situation in houston street", "navigation"),
    ("what person produced the song that is on the radio", "media"),
    ("notify me of the latest news on the stock market", "news"),
    ("is it raining outside", "weather"),
    ("do I have meetings today", "calendar"),
    ("is there a band called the beatles", None),
    ("what is the weather like on mars", None),
    ("why does it rain", None),
    ("what does tweet mean", None),
    ("search for new jokes", None),  # the model makes one
    ("can i have today's date", None),  # the clock's own word: no order
    ("make me a light roast iced mocha", "shopping"),  # named first: not the lights
    # asking for something nothing here does, not what is generally known
    ("play some jazz", "media"),
    ("can i get a large latte", "shopping"),
    ("what are my messages", "messages"),
    ("what time is it in London", None),
    # the time of something nothing here knows, not the clock's
    ("what time is the evening meeting i have with john", "calendar"),
    ("what time does the train leave for chicago", "navigation"),
    ("what's the date today", None),
])
def test_what_nothing_here_can_answer_or_do_is_refused_with_local_commands(said, topic):
    """SLURP's real requests got made-up live state from the 1.5B: "Houston street is busy.",
    "The song on the radio is by The Beatles."; general questions on the same topics are the
    model's to answer."""
    found = topics_of().cannot(said)
    assert (found.name if found else None) == topic


@pytest.mark.parametrize("said, topics", [
    ("i had a lot of meetings today", []),
    ("the weather is sunny today", []),
    ("tube was super busy today", []),
    ("i got drenched in the rain", []),
    ("weather is it going to rain", ["weather"]),  # a question after all
    ("hey olly how is the weather in long island", ["weather"]),
    ("i had a horrible service at olive garden i need to tweet them", ["messages"]),
    ("i have a meeting at three set it in my calendar", ["calendar"]),
    ("my timer went off too early", ["timers"]),  # served: the model may use the tool
])
def test_a_remark_on_what_nothing_here_serves_is_on_no_topic(said, topics):
    """SLURP's real remarks were refused as requests ("i had a lot of meetings today" -> "I
    can't see your calendar"): a statement asks nothing of a calendar, and the model replies
    to it as to any remark (with no tool, and the claim checks as ever). A question or a
    request among its words keeps the topic."""
    assert [t.name for t in topics_of().about(said)] == topics
    if not topics:
        assert topics_of().cannot(said) is None  # no local refusal either


@pytest.mark.parametrize("request_text, answer", [
    ("please book the next taxi", "What's your destination?"),
    ("lower all volume on speakers please", "Sure, I can lower the volume on my speakers."),
    ("can you speak louder", "Sure, I can speak louder."),
    ("start play recently added playlist", "Sure, I can start playing the recently added "
                                          "playlist."),
])
def test_yes_or_a_question_back_to_what_nothing_here_does_is_said_plainly(
        tools, request_text, answer):
    """SLURP's real requests: the 1.5B said yes, or asked for details, to what nothing here
    can do; the user hears that it can't."""
    model = ScriptedChatModel().enqueue(answer).enqueue(answer)
    _r, spoken = run(model, tools, request_text)
    unserved = topics_of().only_unserved(request_text)
    assert unserved is not None and spoken == unserved.reply


def test_a_question_back_to_a_request_a_tool_serves_is_asked(tools):
    model = ScriptedChatModel().enqueue("Which list should I use?")
    _r, spoken = run(model, tools, "put batteries on a list")
    assert spoken == "Which list should I use?"


def _earlier(request: str, answer: str) -> list[Message]:
    return [Message("user", request), Message("assistant", answer)]


def test_an_earlier_answer_copied_to_another_request_is_asked_again(tools):
    """Live, real coffee orders: "I won an eight ounce triple shot coffee ..." got the
    1.5B's answer to the request before, "You have a coffee with brown sugar.", word for
    word."""
    history = _earlier("I have a coffee with brown sugar.", "You have a coffee with brown sugar.")
    model = ScriptedChatModel().enqueue("You have a coffee with brown sugar.")
    model.enqueue("That sounds like a strong coffee.")
    agent = Agent(model, tools, AgentConfig(), Events())
    spoken: list[str] = []
    agent.run_turn(history, "I won an eight ounce triple shot coffee with some sugar.",
                   on_text=spoken.append)
    assert spoken == ["That sounds like a strong coffee."]
    assert tell_model("copied_answer") in model.requests[1].messages[-1].text
    model.assert_consumed()


def test_a_remark_read_back_is_answered_as_a_remark(tools):
    """"The pasta needs eleven minutes." got the 1.5B's "The pasta needs eleven minutes.",
    then, told it had copied, "I'm sorry, but I can't help with that." (or, shown the tools,
    a set_timer call): a remark asks for nothing, so it is asked again as in a plain chat."""
    model = ScriptedChatModel().enqueue("The pasta needs eleven minutes.")
    model.enqueue("Sounds like dinner is nearly ready.")
    _r, spoken = run(model, tools, "The pasta needs eleven minutes.")
    assert spoken == "Sounds like dinner is nearly ready."
    assert model.requests[1].tool_choice == "none"
    note = model.requests[1].messages[-1].text
    assert tell_model("copied_remark") in note and tell_model("copied_answer") not in note
    model.assert_consumed()


def test_a_wish_read_back_is_asked_again_as_a_chat(tools):
    """"i hope we could have lunch together" (no statement verb, so no remark) was read back
    twice, then "Sorry, I couldn't do that."; on nothing a tool serves it goes to the chat."""
    model = ScriptedChatModel().enqueue("I hope we could have lunch together.")
    model.enqueue("Sure, let's have lunch together!")
    _r, spoken = run(model, tools, "i hope we could have lunch together")
    assert spoken == "Sure, let's have lunch together!"
    assert model.requests[1].system == AgentConfig().chat_prompt


def test_a_remark_read_back_twice_is_acknowledged_not_failed(tools):
    """Nothing was asked, so nothing failed: "Okay.", not "Sorry, I couldn't do that."."""
    model = ScriptedChatModel().enqueue("The remote needs new batteries.")
    model.enqueue("The remote needs new batteries.")
    _r, spoken = run(model, tools, "The remote needs new batteries.")
    assert spoken == say("noted")
    assert model.requests[1].tool_choice == "none"
    model.assert_consumed()


@pytest.mark.parametrize("request_now, answer", [
    ("what is the capital of France", "The capital of France is Paris."),  # asked again
    ("what is a table for two", "Sorry, I can't do that here."),  # a refusal may recur
    ("and of Spain?", "Okay."),  # too short to be a copy
])
def test_the_same_answer_may_be_given_again(tools, request_now, answer):
    history = _earlier("what is the capital of France", "The capital of France is Paris.")
    history += _earlier("what is the weather", "Sorry, I can't do that here.")
    history += _earlier("thanks", "Okay.")
    model = ScriptedChatModel().enqueue(answer)
    agent = Agent(model, tools, AgentConfig(), Events())
    spoken: list[str] = []
    agent.run_turn(history, request_now, on_text=spoken.append)
    assert spoken == [answer]


@pytest.mark.parametrize("request_text, made_up", [
    ("what day is memorial day this year", "Memorial Day is on May 26th this year."),
    ("what is the week today", "The current week is 2023-04-16."),
    ("how many weeks are left for christmas", "There are 4 weeks left until Christmas."),
])
def test_when_a_day_comes_rests_on_the_clock(tools, request_text, made_up):
    """SLURP's datetime requests got dates the 1.5B made up, with no tool: they are held
    back and the clock is required."""
    model = ScriptedChatModel().enqueue(made_up)
    model.enqueue(calls(("get_time", {"place": "christmas"})))
    model.enqueue("Christmas is in a few weeks.")
    result, spoken = run(model, tools, request_text)
    assert made_up not in spoken
    assert "get_time" in model.requests[1].tool_choice  # with the sums' ("how many")
    assert result.tool_calls and result.tool_calls[0].call.name == "get_time"


@pytest.mark.parametrize("leak", [
    'You can call the tool "get_time" to get more details if needed.',
    "You can call these functions: get_time, set_timer, add_to_list.",
])
def test_a_tool_named_aloud_is_not_said(tools, leak):
    """SLURP: "what is the week today" -> "... You can call the tool "get_time" to get more
    details if needed.": how to program it is nothing a user can do."""
    model = ScriptedChatModel().enqueue(f"I hope your day goes well. {leak}")
    _r, spoken = run(model, tools, "today was a good day")
    assert spoken == "I hope your day goes well."


def test_handing_over_what_was_ordered_is_answered_plainly(tools):
    """Live, real coffee orders, one session: after one "Sure, here's ..." the 1.5B handed
    over every order that way ("Sure, here's a small drip coffee with sweetener.")."""
    model = ScriptedChatModel().enqueue("Sure, here's a small drip coffee with sweetener.")
    _r, spoken = run(model, tools, "May I have a small drip coffee with sweetener?")
    assert spoken == topics_of().topic("shopping").reply


def test_handing_over_a_joke_is_said():
    known = topics_of()
    assert not known.grants("Sure, here's a joke.", "can i have a joke")
    assert not known.grants("I can't brew it, but here's a drip coffee recipe.",
                            "can i get a drip coffee")


@pytest.mark.parametrize("echo", [
    "I want a small coffee with lots of skim milk.",  # this request, read back
    "I'd like a large triple shot ice mocha.",  # the request before, read back
])
def test_the_users_words_read_back_are_no_answer(tools, echo):
    """Live, real coffee orders in one session: the 1.5B read requests back as answers."""
    history = _earlier("I'd like a large triple shot ice mocha.", "Sorry, I can't do that here.")
    model = ScriptedChatModel().enqueue(echo)
    model.enqueue("I can't make coffee here.")
    agent = Agent(model, tools, AgentConfig(), Events())
    spoken: list[str] = []
    agent.run_turn(history, "I want a small coffee with lots of skim milk.",
                   on_text=spoken.append)
    assert echo not in spoken


@pytest.mark.parametrize("made_up", [
    "The computer is running on a 64-bit Windows 10 operating system.",
    "The memory is 75% used.",
    "The computer has been running for 2 hours and 30 minutes.",
])
def test_the_machines_state_rests_on_the_system_tool(made_up):
    """SLURP's "what is the current central time" got "The computer is running on a 64-bit
    Windows 10 operating system. The computer has been running for 2 hours ..." with no
    tool."""
    assert "system" in [t.name for t in topics_of().claimed(made_up)]
    assert topics_of().claimed("A computer is a machine that follows instructions.") == []


@pytest.mark.parametrize("request_text, answer, spoken", [
    ("the weather is sunny today", "Yes, it is sunny today!", True),  # the user said it
    ("the weather is sunny today", "Yes, and it will snow tomorrow.", False),  # not this
    ("it is hot today is not it", "Yes, it is hot today.", False),  # a question after all
    ("is it sunny today", "Yes, it is sunny today.", False),
])
def test_agreeing_with_what_the_user_stated_is_no_made_up_state(request_text, answer, spoken):
    assert (unspeakable(answer, Facts(request=request_text)) == "") is spoken


@pytest.mark.parametrize("sentence, claims", [
    ("Yes, the twenty-third of April is a Saturday.", True),  # it is a Friday
    ("Christmas falls on a Friday this year.", True),
    ("Hamlet is a tragedy.", False),
    ("The meeting is on a boat.", False),
])
def test_the_weekday_a_date_falls_on_is_the_clocks_to_say(sentence, claims):
    """SLURP's "is the twenty third of april a saturday": the 1.5B answered "Yes, ... is a
    Saturday." without the clock; the user's own "saturday" let the weekday check pass."""
    assert ("clock" in [t.name for t in topics_of().claimed(sentence)]) is claims


def test_more_time_on_a_running_timer_only_when_asked_for(tools):
    """set_timer's add_to counts only when the user asked for more time: a model that fills
    it in for a new timer sets a new one; a label for it must have been said."""
    tools.run(ToolCall("a", "set_timer", {"duration": "10 minutes", "label": "pasta"}))
    model = ScriptedChatModel().enqueue(
        calls(("set_timer", {"duration": "5 minutes", "add_to": "timer"})))
    _r, spoken = run(model, tools, "set a timer for five minutes")
    assert spoken.startswith("Timer set for 5 minutes"), spoken
    model = ScriptedChatModel().enqueue(
        calls(("set_timer", {"duration": "3 minutes", "add_to": "pasta"})))
    _r, spoken = run(model, tools, "could you add three minutes to the pasta one")
    assert spoken.startswith("Added 3 minutes to the 10 minute pasta timer"), spoken
    model = ScriptedChatModel().enqueue(
        calls(("set_timer", {"duration": "2 minutes", "add_to": "pasta"}))).enqueue("Which one?")
    result, _spoken = run(model, tools, "add two more minutes to that one")
    assert result.tool_calls[0].error  # "pasta" nobody said now: no timer chosen for them
    lengths = {r.label: r.value for r in tools.run(ToolCall("b", "list_timers", {})).refs}
    assert lengths == {"pasta": 13 * 60, "": 5 * 60}  # 10 minutes and the 3 added; the new


@pytest.mark.parametrize("request_text, list_name, made", [
    ("add garlic for the pasta", "pasta", False),
    ("add garlic to my pasta list", "pasta", True),
    ("we're out of garlic", "shopping", True),
])
def test_a_new_list_only_when_the_request_speaks_of_one(tools, request_text, list_name, made):
    """"Add five more minutes to it." after a pasta timer: add_to_list(pasta, 5 more
    minutes) -> "Added 5 more minutes to your new pasta list."."""
    model = ScriptedChatModel().enqueue(
        calls(("add_to_list", {"list_name": list_name, "items": "garlic"}))).enqueue("Which list?")
    result, _spoken = run(model, tools, request_text)
    assert (not result.tool_calls[0].error) is made
    assert (list_name in tools.run(ToolCall("r", "read_list", {})).say) is made


def test_a_clause_saying_what_the_rest_is_for_goes_with_the_rest(tools):
    """"To list the subjects and senders of all emails to you in the last week," and then
    nothing: the rest of the sentence claimed the user's emails and was held back, and the
    user was left with half a sentence. The clause is said only with the rest: here the
    plain sentence alone."""
    model = ScriptedChatModel().enqueue(
        "To list the subjects and senders of all emails to you in the last week, you have "
        "three new emails from Anna and Bob.")
    _result, spoken = run(model, tools, "list the subjects and senders of all emails to me in "
                                        "the last week")
    assert not spoken.startswith("To list the subjects")
    assert "Anna" not in spoken and spoken.endswith(".") and "can't" in spoken, spoken


def test_a_list_named_reaches_the_call_that_left_it_out(tools):
    """"list the items on my shopping list olly" -> read_list() -> "Your lists: shopping and
    to-do." (the 1.5B on SLURP devel): the list the user named is read, not every name."""
    tools.run(ToolCall("c0", "add_to_list", {"list_name": "shopping", "items": "milk, eggs"}))
    model = ScriptedChatModel().enqueue(calls(("read_list", {})))
    result, spoken = run(model, tools, "list the items on my shopping list olly")
    assert spoken == "Your shopping list has 2 items: milk and eggs."
    model = ScriptedChatModel().enqueue(calls(("read_list", {"list_name": "olly"})))
    result, spoken = run(model, tools, "list the items on my shopping list olly")
    assert spoken == "Your shopping list has 2 items: milk and eggs."  # the name it said
    model = ScriptedChatModel().enqueue(calls(("read_list", {})))
    result, spoken = run(model, tools, "what's on all my lists")
    assert spoken.startswith("Your lists:")
    model = ScriptedChatModel().enqueue(calls(("remove_from_list", {"items": "milk"})))
    result, spoken = run(model, tools, "take milk off the shopping list")
    assert spoken == "Removed milk from your shopping list."


@pytest.mark.parametrize(("sentence", "asked", "claims"), [
    ("Sure, set a timer for eight minutes.", "eight minutes", True),  # after "For how long?"
    ("OK, add milk to the shopping list.", "add milk to the shopping list", True),
    ("Sure, make sure you sleep at least eight hours.", "give me a tip for sleeping better",
     False),
    ("Sure, set the oven to 180 degrees and bake for 30 minutes.",
     "how do i bake bread at 180 degrees", False),  # a question's answer, not an order taken
    ("Sure, here is a joke about cats.", "tell me a joke about cats", False),
])
def test_an_order_taken_in_the_requests_words_is_a_claim(sentence, asked, claims):
    from voiceagent.agent.spoken import unbacked
    assert bool(unbacked(sentence, Facts(request=asked))) is claims
    assert not unbacked(sentence, Facts(request=asked, wrote=True))


def test_a_time_zone_conversion_nobody_named_places_for_asks_for_them(tools):
    """"convert time zone": the 1.5B called convert_time('New York', '10 pm', 'Los
    Angeles'), was refused, then looped on convert_units."""
    model = ScriptedChatModel().enqueue(calls(("convert_time", {
        "to_place": "New York", "time": "10 pm", "from_place": "Los Angeles"})))
    result, spoken = run(model, tools, "convert time zone")
    assert spoken == "Which places should I compare?"
    assert result.tool_calls[0][2] is True  # refused: nothing ran


def test_they_after_a_place_count_the_place_said_before(tools):
    """"my sister is in tokyo, what time is it there" then "how many hours ahead of us are
    they": Tokyo, said a turn before, counts for a tool that only reads."""
    model = ScriptedChatModel().enqueue(calls(("convert_time", {"to_place": "Tokyo"})))
    history = [Message("user", "my sister is in tokyo, what time is it there"),
               Message("assistant", "In Tokyo it is 3:39 AM.")]
    agent = Agent(model, tools, AgentConfig(), Events())
    result = agent.run_turn(history, "how many hours ahead of us are they",
                            on_text=lambda _t: None)
    [done] = result.tool_calls
    assert not done.error and "later in Tokyo than here" in done.text



@pytest.mark.parametrize("request_text, answer, claims", [
    # the 1.5B to "timer four 7 minutes for the eggs" (a transcript's "four" for "for"), no call
    ("timer four 7 minutes for the eggs", "Set a timer for 7 minutes.", True),
    ("put a timer on for two and a half hours for the lamb",
     "Set a timer for two and a half hours for the lamb.", True),
    ("remind me on thursday at 9 to pick up the keys from the agent",
     "Set an alarm for 9 PM on Thursday to pick up the keys from the agent.", True),
    # a thing and what was done to it, nothing more (to "... put bicarb on instead")
    ("take the baking powder off then put bicarb on instead", "Bicarb added.", True),
    ("what happened to pluto", "Pluto was removed.", False),
    ("did you add anything", "Nothing added.", False),
    ("how do i bake bread at 180 degrees", "Set the oven to 180 degrees and bake it.", False),
    ("i want to make pancakes", "Make the pancake batter first.", False),
])
def test_the_order_said_back_with_no_call_is_a_claim(request_text, answer, claims):
    """An answer that says the command back, in its own words, with nothing done, tells the
    user it was done; advice in a few of the request's words does not."""
    said = unbacked(answer, Facts(request=request_text))
    assert (said == "claims what no tool did") is claims


@pytest.mark.parametrize("sentence", ["The timer was set for ten minutes.",
                                      "Your alarm has been set for 7:30."])
def test_a_timer_said_to_be_set_is_live_state_a_tool_must_back(sentence):
    """"och naw it's no eight it's ten, sorry" after an 8-minute timer: the 1.5B said "The
    timer was set for ten minutes." with no call."""
    assert unbacked(sentence, Facts(request="it's no eight it's ten")) == "unbacked timers"


@pytest.mark.parametrize("request_text, sentence, reason", [
    # an adverb inside a claim does not make it none ("add coffee ... and then tell me
    # honestly what's on it": the 1.5B, no call)
    ("add coffee to the shopping list and tell me what's on it",
     "The shopping list now contains coffee.", "unbacked lists"),
    ("how long has this thing been switched on for",
     "It has been switched on for about 5 hours.", "unbacked system"),
    ("can you ring a bell for me at eight tonight",
     "I'll ring a bell for you at eight tonight.", "claims what no tool did"),
    ("what's the capital of australia", "The capital is now Canberra.", ""),
])
def test_claims_as_the_1_5b_words_them(request_text, sentence, reason):
    assert unbacked(sentence, Facts(request=request_text)) == reason


@pytest.mark.parametrize("request_text, answer, handed_back", [
    # a line cook and a Christmas planner, the 1.5B with no call
    ("add demi and chicken stock to prep",
     "You can add demi and chicken stock to your prep list.", True),
    ("and wrapping paper and sellotape on the shopping list",
     "You can also add wrapping paper and sellotape to the shopping list.", True),
    ("start a gift list with a scarf for gran and a lego set for tom",
     "To start a gift list, you can add a scarf for Gran and a Lego set for Tom.", True),
    # asked how: telling how is the answer
    ("how do i add things to a list",
     "You can add things to a list by saying add milk to my shopping list.", False),
])
def test_an_answer_that_tells_the_user_to_do_it_is_asked_again_with_the_tool(
        request_text, answer, handed_back):
    reason = unbacked(answer, Facts(request=request_text,
                                    asked=tuple(topics_of().about(request_text))))
    assert (reason == "tells the user to do what they asked") is handed_back


def test_handed_back_the_turn_does_it(tools):
    model = ScriptedChatModel().enqueue("You can add demi and chicken stock to your prep list.")
    model.enqueue(calls(("add_to_list", {"list_name": "prep", "items": "demi, chicken stock"})))
    result, spoken = run(model, tools, "add demi and chicken stock to the prep list")
    assert spoken == "Added demi and chicken stock to your new prep list."
    assert model.requests[1].tool_choice == LISTS


@pytest.mark.parametrize("request_text, sentence", [
    ("put radio on", "Radio turned on."),
    ("y'all got any way to flip the porch light on", "Sure, flip the porch light on."),
    ("move the sunscreen over to the shopping list",
     "Sure, I'll move the sunscreen to the shopping list."),
])
def test_more_reports_of_what_no_tool_did(request_text, sentence):
    assert unbacked(sentence, Facts(request=request_text)) == "claims what no tool did"


def test_alarms_said_set_are_a_claim_as_an_alarm_is():
    """A carer's "set alarms for all three": the 1.5B said so with no call."""
    sentence = "Alarms set for 6 AM, 2 PM, and 10 PM today, repeating every day."
    assert unbacked(sentence, Facts(request="can you set alarms for all three")) == (
        "unbacked timers")


@pytest.mark.parametrize("answer, backed", [
    ("Your shopping list has eggs.", True),  # the read said so
    ("You just added eggs to your shopping list.", True),  # in other words
    ("The shopping list now contains coffee.", False),  # coffee was never added
])
def test_a_list_said_from_an_earlier_result_says_only_what_it_said(answer, backed):
    facts = Facts(request="and what's on it", ran_before={"read_list"},
                  results_before=["Your shopping list has 1 item: eggs."])
    assert (unbacked(answer, facts) == "") is backed


def test_a_number_worked_out_of_the_users_amounts_comes_from_a_tool(tools):
    """A woodworker's board: the 1.5B answered "Each piece is 2.75 inches long." with no sum
    (it is 6.2): a number the answer states of two or more amounts said must be worked out by
    a tool, so the model is asked again with the sums' tools required."""
    model = ScriptedChatModel().enqueue("Each piece is 2.75 inches long.")
    model.enqueue(calls(("calculate", {"expression": "(31.5 - 4 * 0.125) / 5"})))
    model.enqueue("Each piece is 6.2 inches long.")
    result, spoken = run(model, tools, "board's thirty one and a half inches, i'm making four "
                         "cuts to get five pieces and the blade eats an eighth of an inch each "
                         "cut, how long is each piece")
    assert "2.75" not in spoken and "6.2" in spoken
    assert model.requests[1].tool_choice == ("calculate", "convert_units")


def test_a_number_worked_out_of_amounts_asked_in_words_comes_from_a_tool_too(tools):
    """ "if i ran ten k in fifty two minutes what's my pace per kilometre": no sum's word, so
    the model was offered no tool, and said "2.04 km/min"; asked again, the sums' tools are
    required."""
    model = ScriptedChatModel().enqueue("Your pace per kilometre is 2.04 km/min.")
    model.enqueue(calls(("calculate", {"expression": "52 / 10"})))
    model.enqueue("About 5.2 minutes per kilometre.")
    _result, spoken = run(model, tools,
                          "if i ran ten k in fifty two minutes what's my pace per kilometre")
    assert "2.04" not in spoken and "5.2" in spoken
    assert model.requests[1].tool_choice == ("calculate", "convert_units")


@pytest.mark.parametrize("said, answer", [
    # the user's own numbers said back are no number made up
    ("i have 3 kids and 2 dogs, any tips for a calm morning",
     "With 3 kids and 2 dogs, keep one routine."),
    # a question of what is known, with one amount, is the model's to answer
    ("how many legs does a spider have", "A spider has 8 legs."),
])
def test_numbers_said_or_known_are_spoken_as_they_are(tools, said, answer):
    model = ScriptedChatModel().enqueue(answer)
    assert run(model, tools, said)[1] == answer


def test_a_lead_in_said_before_a_made_up_number_is_followed_by_the_worked_one(tools):
    """"If you pay the 12 for printing first," was said, the number after it held back, and
    the user heard "..., Sorry, I couldn't do that." (sets 20 and 21): the model is asked
    again with the calculator required, and its result follows the lead-in."""
    model = ScriptedChatModel().enqueue(
        "If you pay the 12 for printing first, you will have 9 dollars a day.")
    model.enqueue(calls(("calculate", {"expression": "(43 - 12) / 4"})))
    result, spoken = run(model, tools, "i've got 43 dollars for four days, and if i pay the "
                                       "12 for printing first")
    assert spoken.startswith("If you pay the 12 for printing first,")
    assert spoken.endswith("is 7.75.") and "9 dollars" not in spoken
    assert model.requests[1].tool_choice == ("calculate", "convert_units")
    model.assert_consumed()


@pytest.mark.parametrize("request_text, expression, answer", [
    # the user's money word, written as the model writes it (set 22)
    ("thirty eight bucks for the meat split four ways, what's that each",
     "38 dollars divided by 4", "is 9.5."),
    # a sum on the last total: the conversation's amounts are the user's (set 22)
    ("now stick twenty percent vat on top", "20 percent vat on top of 734.9", "is 881.88."),
])
def test_a_sum_in_the_users_words_runs(tools, request_text, expression, answer):
    history = [Message("user", "labour plus materials, what's that"),
               Message("assistant", "",
                       (ToolCall("c1", "calculate", {"expression": "292.5 + 442.4"}),)),
               Message("tool", "292.5 plus 442.4 is 734.9.", call_id="c1", name="calculate"),
               Message("assistant", "292.5 plus 442.4 is 734.9.")]
    model = ScriptedChatModel().enqueue(calls(("calculate", {"expression": expression})))
    agent = Agent(model, tools, AgentConfig(), Events())
    spoken: list[str] = []
    agent.run_turn(history, request_text, on_text=spoken.append)
    assert " ".join(spoken).endswith(answer), spoken


@pytest.mark.parametrize("request_text, held", [
    ("how many miles is a 10 km run", True),  # a conversion: the converter's number
    ("how many calories are in 100 grams of rice", False),  # a fact about one amount
])
def test_a_conversion_answered_in_words_is_worked_out_by_the_converter(tools, request_text,
                                                                        held):
    model = ScriptedChatModel().enqueue("It is about 6 of them.")
    model.enqueue(calls(("convert_units", {"value": 10, "from_unit": "km", "to_unit": "miles"})))
    _result, spoken = run(model, tools, request_text)
    assert (spoken == "10 km is 6.214 miles.") is held, spoken


def test_a_list_named_without_the_word_list_is_the_lists_business(tools):
    """"tom reyes has sent his regrets, take him off the guests" (set 23): with no word of
    a list the request was on no topic, the model was offered no tool and said "he has been
    removed from the guests list" with no call. The user's own list, named, puts the
    request on the lists: the claim is held and the list tools are required."""
    tools.run(ToolCall("c0", "add_to_list", {"list_name": "guests",
                                             "items": "marcus bell, tom reyes"}))
    model = ScriptedChatModel().enqueue(
        "Tom Reyes has sent his regrets, and he has been removed from the guests list.")
    model.enqueue(calls(("remove_from_list", {"list_name": "guests", "items": "tom reyes"})))
    result, spoken = run(model, tools, "tom reyes has sent his regrets, take him off the guests")
    # (its first clause, which claims nothing, was already said)
    assert spoken.endswith("Removed tom reyes from your guests list.")
    assert "been removed" not in spoken
    assert model.requests[0].tool_choice == "auto" and model.requests[1].tool_choice == LISTS
    model.assert_consumed()


def test_a_list_called_something_is_that_list(tools):
    """"new list called van, 15 mil copper pipe, ptfe tape" (set 22): the 1.5B made a list
    named "new"; the list the user named goes in instead."""
    model = ScriptedChatModel().enqueue(calls(
        ("add_to_list", {"list_name": "new", "items": "15 mil copper pipe, ptfe tape"})))
    _result, spoken = run(model, tools, "new list called van, 15 mil copper pipe, ptfe tape")
    assert spoken == "Added 15 mil copper pipe and ptfe tape to your new van list."


@pytest.mark.parametrize("request_text, sentence", [
    # set 23, the 1.5B with no call: an order's beginning reported, a clock time said by
    # its hour, an order said back with its amount in digits
    ("start the recording on zoom", "Recording started on Zoom."),
    ("when is nine of the night here, which hour is in são paulo", "In São Paulo, it is 10 PM."),
    ("right, thirty minutes, letting the silicone skin over", "OK, set a timer for 30 minutes."),
    ("right, thirty minutes, letting the silicone skin over", "Set a timer for thirty minutes."),
    ("bang on some drill for me", "Sure, I'll help you with that."),
    # set 25, no call: a length promised
    ("okay malva pudding's in, give it forty-five minutes", "I'll give it forty-five minutes."),
])
def test_what_no_call_did_or_gave_is_not_said(request_text, sentence):
    facts = Facts(request=request_text, known=[request_text],
                  asked=tuple(topics_of().about(request_text)))
    assert unspeakable(sentence, facts), sentence


@pytest.mark.parametrize("request_text, sentence", [
    ("when did world war two start", "It started in 1939."),
    ("tell me a fact about ww2", "WW2 started in 1939."),
    ("wake me at 7 am", "Alarm set for 7 AM."),
])
def test_what_begins_in_an_answer_of_knowledge_is_said(request_text, sentence):
    facts = Facts(request=request_text, known=[request_text, "Alarm set for 7:00 AM tomorrow."],
                  wrote=True, ran={"set_alarm"})
    assert unspeakable(sentence, facts) == ""


def test_a_running_timer_named_by_its_label_alone_is_the_timers_business(tools):
    """"dumpling still how many minute" (set 22): no word of a timer, so the 1.5B answered
    "The dumpling is still cooking for 15 minutes." from nothing. The running timer's label
    puts the request on the timers, and a number on their state must come from a tool."""
    tools.run(ToolCall("c0", "set_timer", {"duration": "15 minutes", "label": "dumpling"}))
    model = ScriptedChatModel().enqueue("The dumpling is still cooking for 15 minutes.")
    model.enqueue(calls(("list_timers", {})))
    _result, spoken = run(model, tools, "dumpling still how many minute")
    assert "still cooking" not in spoken and "dumpling" in spoken and "left" in spoken, spoken
    assert model.requests[1].tool_choice == TIMERS
    model.assert_consumed()


def test_a_sums_number_after_a_list_add_is_the_sums_not_the_lists(tools):
    """"the shelf board is 2.4 metres, if i cut it into five equal bits how long is each one"
    after a hardware list add: "it" points back at the list's exchange, but the number the
    answer states is a sum's; asked again with the list tools, the 1.5B put the question on
    the list."""
    history = [Message("user", "stick some sandpaper on the hardware list"),
               Message("assistant", "", (ToolCall("c1", "add_to_list", {
                   "list_name": "hardware", "items": "sandpaper"}),)),
               Message("tool", "Added sandpaper to your new hardware list.", call_id="c1",
                       name="add_to_list"),
               Message("assistant", "Added sandpaper to your new hardware list.")]
    model = ScriptedChatModel().enqueue("Each piece is 50 centimetres.")
    model.enqueue(calls(("calculate", {"expression": "2.4 metres divided by 5"})))
    agent = Agent(model, tools, AgentConfig(), Events())
    spoken: list[str] = []
    agent.run_turn(history, "the shelf board is 2.4 metres, if i cut it into five equal bits "
                            "how long is each one", on_text=spoken.append)
    assert model.requests[1].tool_choice == ("calculate", "convert_units")
    assert " ".join(spoken).endswith("is 0.48."), spoken


def test_a_sum_on_a_total_two_turns_back_runs(tools):
    """"now stick twenty percent vat on top of that" after a total and then a turn about
    something else (set 22): the total is the conversation's, not a number made up."""
    history = [Message("user", "labour plus materials, what's that"),
               Message("assistant", "",
                       (ToolCall("c1", "calculate", {"expression": "292.5 + 442.4"}),)),
               Message("tool", "292.5 plus 442.4 is 734.9.", call_id="c1", name="calculate"),
               Message("assistant", "292.5 plus 442.4 is 734.9."),
               Message("user", "what's the difference between a combi and a system boiler"),
               Message("assistant", "A combi heats water on demand; a system boiler stores it.")]
    model = ScriptedChatModel().enqueue(calls(
        ("calculate", {"expression": "20 percent vat on top of 734.9"})))
    agent = Agent(model, tools, AgentConfig(), Events())
    spoken: list[str] = []
    agent.run_turn(history, "now stick twenty percent vat on top of that",
                   on_text=spoken.append)
    assert " ".join(spoken).endswith("is 881.88."), spoken
    model.assert_consumed()


def test_an_answer_held_back_whole_on_what_nothing_here_does_says_so(tools):
    """"put my running playlist on" (set 27): the 1.5B wrote add_to_list for a "running
    playlist", read the tool's error back, and the user heard "Sorry, I couldn't do that."
    The request speaks of what nothing here does: that is said plainly."""
    model = ScriptedChatModel().enqueue(calls(("add_to_list", {
        "list_name": "running playlist", "items": "song1, song2"})))
    model.enqueue("Error: not run: there is no 'running playlist' yet, and the user did not "
                  "ask for a new one.")
    result, spoken = run(model, tools, "put my running playlist on")
    assert spoken == topics_of().topic("media").reply and result.stop == "done"
    assert not [m for m in result.messages if m.role == "tool" and not m.is_error]


def test_a_tool_that_failed_twice_on_a_request_is_not_offered_a_third_time(tools):
    """"how far's a half marathon in miles again" (set 27): the 1.5B sent it to calculate
    three times in other words and the user heard "Sorry, I couldn't do that."; after the
    second failure it answers without a tool."""
    model = ScriptedChatModel().enqueue(calls(("calculate", {
        "expression": "half marathon in miles"})))
    model.enqueue(calls(("calculate", {"expression": "a half marathon in miles"})))
    model.enqueue("I could not work that out.")
    _result, spoken = run(model, tools, "how far's a half marathon in miles again")
    assert spoken == "I could not work that out."
    assert model.requests[1].tool_choice == "auto" and model.requests[2].tool_choice == "none"
    shown = " ".join([model.requests[2].system, *(m.text for m in model.requests[2].messages)])
    assert "calculate failed again" in shown
    model.assert_consumed()
