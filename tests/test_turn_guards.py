"""What a turn refuses to do and what it never says: grounded arguments, destructive tools
only when asked, nothing written on a doubtful transcript, spoken results without a second
request, no error text or JSON read aloud, local commands before the model, one retry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from voiceagent.agent.events import Events, LocalCommand, Recording
from voiceagent.agent.grounding import clearly_asked_to_destroy, unsaid_words
from voiceagent.agent.loop import Agent, TurnResult
from voiceagent.agent.messages import Message
from voiceagent.agent.spoken import Facts, unspeakable
from voiceagent.config import AgentConfig
from voiceagent.config_file import load_config
from voiceagent.errors import ServerDown
from voiceagent.language import say
from voiceagent.language.topics import topics_of
from voiceagent.testing import ScriptedChatModel, calls
from voiceagent.tools import ToolContext, build_tools


@dataclass(frozen=True)
class Match:
    intent: str
    tool: str | None
    args: dict[str, Any] = field(default_factory=dict)
    reply: str = ""


class Matcher:
    """A stand-in for the template matcher: one fixed match for one sentence."""

    def __init__(self, text: str, match: Match) -> None:
        self.text, self.result = text, match

    def match(self, text: str) -> Match | None:
        return self.result if text == self.text else None

    def follow_up(self, text: str, history: object) -> list[Match]:
        return []

    def several(self, text: str) -> list[Match]:
        return []

    def on_the_list_meant(self, args: dict, text: str, history: object) -> dict:
        return args

    def question_beside(self, text: str) -> None:
        return None


@pytest.fixture
def tools(tmp_path: Path):
    box = build_tools(load_config(None), ToolContext(tmp_path))
    yield box.registry
    box.close()


def conversation(agent: Agent) -> Callable[[str], str]:
    """One conversation with `agent`: say a line, get what was spoken."""
    history: list[Message] = []

    def say(text: str) -> str:
        spoken: list[str] = []
        result = agent.run_turn(history, text, on_text=spoken.append)
        history.extend(result.messages)
        return " ".join(spoken).strip()

    return say


def make(model: ScriptedChatModel, registry, **kwargs: Any) -> tuple[Agent, Recording]:
    events, rec = Events(), Recording()
    events.subscribe(rec)
    return Agent(model, registry, AgentConfig(), events, **kwargs), rec


def run(agent: Agent, text: str, **kwargs: Any) -> tuple[TurnResult, str]:
    spoken: list[str] = []
    result = agent.run_turn([], text, on_text=spoken.append, **kwargs)
    return result, " ".join(spoken).strip()


def test_words_the_user_never_said_are_caught_forgiving_plurals_numbers_and_spacing():
    assert unsaid_words("apples, bananas, oranges", "Happens to my shopping list.") == [
        "apples", "bananas", "oranges"]
    assert unsaid_words("two tomatoes", "add 2 tomato please") == []
    assert unsaid_words("ice cream", "put icecream on the list") == []
    assert unsaid_words("break", "set a timer for five minutes") == ["break"]
    # not inside the word for the tool's own kind of thing: the 1.5B labelled the timer
    # "time" for "set a timer for that long"
    assert unsaid_words("time", "set a timer for that long") == ["time"]


@pytest.mark.parametrize("text,clear", [
    ("call my mom", False), ("forget it", False), ("never mind, forget about it", False),
    ("cancel that", False), ("forget this conversation", True), ("start over", True),
    ("clear my shopping list", True), ("cancel all my timers", True),
    ("never mind, cancel the rice timer", True), ("never cancel the rice timer", False),
])
def test_destructive_requests_must_be_explicit(text: str, clear: bool):
    assert clearly_asked_to_destroy(text) is clear


def test_an_invented_list_item_is_never_written_and_the_model_hears_why(tools):
    model = ScriptedChatModel()
    model.enqueue(calls(("add_to_list", {"list_name": "shopping",
                                         "items": "apples, bananas, oranges"})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "Happens to my shopping list.")
    (_, text, is_error, _refs, _ran), = result.tool_calls
    assert is_error and "bananas" in text
    # nothing was written: the list does not even exist
    assert tools.get("read_list")(list_name="shopping") == "Your shopping list is empty."
    assert spoken == say("ask_items")  # none of the items was said: the user is asked
    assert "rror" not in spoken


@pytest.mark.parametrize("said, list_name, topic", [
    ("please add tom to my contact list", "contact", "messages"),
    ("add erosser at hotmail dot com as a new contact", "contacts", "messages"),
    ("put the dentist on my calendar", "calendar list", "calendar"),
    ("add this song to my playlist", "my playlist", "media"),
])
def test_a_list_kept_by_a_service_nothing_here_has_is_not_made(tools, said, list_name, topic):
    model = ScriptedChatModel()
    model.enqueue(calls(("add_to_list", {"list_name": list_name, "items": said.split()[1]})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, said)
    if model.requests:  # the model's call is refused
        (_, text, is_error, _refs, _ran), = result.tool_calls
        assert is_error and topic in text
    else:  # refused before the model: "put ... on my calendar" is about no list here
        assert not result.tool_calls
    assert tools.get("read_list").func(list_name="").startswith("You have no lists")
    assert spoken == topics_of().topic(topic).reply


@pytest.mark.parametrize("said, call", [
    ("remove all the events on my calendar", ("clear_list", {"list_name": "calendar"})),
    ("do remove next event from the calendar",
     ("remove_from_list", {"list_name": "events", "items": "next event"})),
])
def test_a_service_s_things_are_not_emptied_as_lists(tools, said, call):
    """SLURP devel: the 1.5B called clear_list(calendar) and remove_from_list(events), and
    the user heard "You have no calendar list yet.", not that nothing here has a calendar."""
    model = ScriptedChatModel().enqueue(calls(call))
    agent, _ = make(model, tools)
    result, spoken = run(agent, said)
    (_, text, is_error, _refs, _ran), = result.tool_calls
    assert is_error and "calendar" in text
    assert spoken == topics_of().topic("calendar").reply


def test_a_list_the_user_already_keeps_under_such_a_name_is_theirs(tools):
    tools.get("add_to_list").func(list_name="playlist", items="jazz night")
    model = ScriptedChatModel()
    model.enqueue(calls(("add_to_list", {"list_name": "playlist", "items": "rock"})))
    model.enqueue("Added rock to your playlist list.")
    agent, _ = make(model, tools)
    result, _spoken = run(agent, "add rock to my playlist list")
    assert not result.tool_calls[0][2]
    assert "rock" in tools.get("read_list")(list_name="playlist")


@pytest.mark.parametrize("tool, args, said, heard, gone", [
    ("get_time", {"place": "June 27, 2023"},
     "what day of the week is june twenty seventh on this year", "June 27 ", "2023"),
    ("set_timer", {"duration": "5 minutes", "label": "pasta break"},
     "set a five minute pasta timer", "pasta", "break"),
])
def test_an_optional_argument_partly_said_keeps_the_users_part(
        tools, tool: str, args: dict[str, Any], said: str, heard: str, gone: str):
    """SLURP's "what day of the week is june twenty seventh on this year": the 1.5B called
    get_time(place="June 27, 2023"); left out whole for the year nobody said, the place
    gave today's date. Nothing said is dropped, nothing unsaid is added."""
    model = ScriptedChatModel().enqueue(calls((tool, args)))
    agent, _ = make(model, tools)
    result, spoken = run(agent, said)
    (_, text, is_error, _refs, _ran), = result.tool_calls
    assert not is_error and heard in spoken and gone not in spoken
    assert "the user did not say it" in text


@pytest.mark.parametrize("tool, args, said, heard", [
    ("get_time", {"place": "Paris"}, "what time is it", "It is "),
    ("get_time", {"place": "any"}, "what time is it", "It is "),  # only a filler word
    ("set_timer", {"duration": "5 minutes", "label": "workout"},
     "set a timer for five minutes", "5 minutes"),
    # the assistant's name is whom the user speaks to, not what they want (SLURP devel);
    # the list read is the one they named
    ("read_list", {"list_name": "olly"}, "list the items on my shopping list olly",
     "Your shopping list is empty."),
    ("get_time", {"place": "Alexa"}, "Alexa, what time is it?", "It is "),
])
def test_a_made_up_optional_argument_is_left_out_and_the_call_runs(
        tools, tool: str, args: dict[str, Any], said: str, heard: str):
    model = ScriptedChatModel().enqueue(calls((tool, args)))
    agent, _ = make(model, tools)
    result, spoken = run(agent, said)
    (_, text, is_error, _refs, _ran), = result.tool_calls
    assert not is_error and heard in spoken
    assert not any(w in spoken for w in ("workout", "Paris", "any", "Ignored", "olly",
                                         "Alexa"))
    assert "the user did not say it" in text  # the model is told what was left out
    model.assert_consumed()


def test_a_place_named_in_an_earlier_turn_counts_for_a_question_not_for_a_write(tools):
    from voiceagent.agent.messages import Message
    history = [Message("user", "what time is it in Tokyo"),
               Message("assistant", "In Tokyo it is 4:00 AM.")]
    model = ScriptedChatModel().enqueue(calls(("get_time", {"place": "Tokyo"})))
    agent, _ = make(model, tools)
    result = agent.run_turn(history, "and what's the date there", on_text=lambda _t: None)
    assert result.tool_calls[0][1].startswith("In Tokyo it is")
    model = ScriptedChatModel().enqueue(calls(("add_to_list", {"items": "Tokyo"})))
    model.enqueue("What should I add?")
    agent, _ = make(model, tools)
    result = agent.run_turn(history, "add it to my list", on_text=lambda _t: None)
    assert result.tool_calls[0][2] is True  # an error: nothing the user said now


def test_a_sum_may_use_the_factor_between_units_the_user_named_but_no_other_number():
    said = "how many minutes are in three hours"
    assert unsaid_words("3 hours * 60 minutes", said) == []
    assert unsaid_words("3 * 60", "what is three times four") == ["60"]
    assert unsaid_words("15 percent of 80", "tell me a fun fact about the moon") == ["15", "80"]


@pytest.mark.parametrize("args", [{}, {"part": "all"}])
def test_a_destructive_call_on_an_unrelated_request_is_refused(tmp_path: Path, args):
    """Also with a parameter the tool does not have: the 0.5B's forget_conversation(part=
    "all") on "I forgot what I was going to say." skipped every guard and ran."""
    model = ScriptedChatModel()
    model.enqueue(calls(("forget_conversation", args)))
    model.enqueue("No problem, take your time.")
    forgotten: list[bool] = []
    box = build_tools(load_config(None), ToolContext(
        tmp_path, reset_conversation=lambda: forgotten.append(True)))
    agent, _ = make(model, box.registry)
    result, spoken = run(agent, "I forgot what I was going to say.")
    box.close()
    assert forgotten == [] and result.tool_calls[0][2] is True
    assert spoken == "No problem, take your time."


def test_asked_not_to_delete_the_turn_ends_with_nothing_deleted(tools):
    """The 0.5B called clear_list three times for "Don't clear the shopping list yet." and
    the turn ended in "I kept repeating the same step"; now the first refusal ends it."""
    tools.get("add_to_list")(list_name="shopping", items="apples")
    model = ScriptedChatModel().enqueue(calls(("clear_list", {"list_name": "shopping"})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "Don't clear the shopping list yet.")
    assert spoken == "OK, I'll leave it as it is." and len(model.requests) == 1
    assert "apples" in tools.get("read_list")(list_name="shopping")


@pytest.mark.parametrize("call", [
    ("remove_from_list", {"list_name": "shopping", "items": "apples"}),
    ("add_to_list", {"list_name": "shopping", "items": "shopping list"}),
])
def test_asked_only_not_to_delete_nothing_changes(tools, call):
    """"Don't clear my shopping list yet." -> the 1.5B took items off the list instead of
    clearing it: asked for no change, the user's data is left as it is."""
    tools.get("add_to_list")(list_name="shopping", items="apples")
    model = ScriptedChatModel().enqueue(calls(call))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "Don't clear my shopping list yet.")
    assert spoken == "OK, I'll leave it as it is." and len(model.requests) == 1
    assert tools.get("read_list")(list_name="shopping").endswith("apples.")


@pytest.mark.parametrize("yes", [None, False, True])
def test_a_thing_no_longer_wanted_is_deleted_only_on_a_spoken_yes(tools, yes):
    """"i don't want the shopping list any more": no clear request to delete, but a wish. The
    deletion is asked about (the approver); without one, or on a no, nothing is deleted."""
    tools.get("add_to_list")(list_name="shopping", items="apples")
    model = ScriptedChatModel().enqueue(calls(("clear_list", {"list_name": "shopping"})))
    asked: list[tuple[str, dict[str, Any]]] = []
    approve = None if yes is None else (lambda name, args: asked.append((name, args)) or yes)
    agent, _ = make(model, tools, approve=approve)
    result, spoken = run(agent, "i don't want the shopping list any more")
    listed = tools.get("read_list")(list_name="shopping")
    if yes:
        assert asked == [("clear_list", {"list_name": "shopping"})]
        assert "apples" not in listed and spoken == result.tool_calls[0][1]
    else:
        assert "apples" in listed and len(model.requests) == 1
        assert spoken == say("unconfirmed" if yes is None else "kept")
    tools.get("add_to_list")(list_name="shopping", items="apples")
    model = ScriptedChatModel().enqueue(calls(("clear_list", {"list_name": "shopping"})))
    model.enqueue("Okay.")
    agent, _ = make(model, tools, approve=lambda name, args: True)
    result, spoken = run(agent, "i don't want eggs on the shopping list")  # an item
    assert result.tool_calls[0][2] and "apples" in tools.get("read_list")(list_name="shopping")


def test_nothing_that_writes_runs_on_a_doubtful_transcript(tools):
    model = ScriptedChatModel().enqueue(calls(("set_timer", {"duration": "3 hours"})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "how many minutes in three hours", doubtful=True)
    assert result.stop == "misheard" and spoken == say("misheard")
    assert "no timers" in tools.get("list_timers")()


def test_a_question_on_a_doubtful_transcript_is_still_answered(tools):
    model = ScriptedChatModel().enqueue(calls(("get_time", {})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "what time is it", doubtful=True)
    assert result.stop == "done" and spoken.startswith("It is")
    model.assert_consumed()  # the time is the answer: no second request


def test_a_spoken_result_ends_the_turn_without_a_second_request(tools):
    model = ScriptedChatModel().enqueue(
        calls(("set_timer", {"duration": "5 minutes"})))
    agent, rec = make(model, tools)
    result, spoken = run(agent, "set a timer for five minutes")
    assert result.stop == "done" and "5 minute" in spoken and len(model.requests) == 1
    assert result.messages[-1].role == "assistant" and result.messages[-1].text == spoken


def test_the_time_is_not_the_whole_answer_to_a_question_about_a_span(tools):
    """"How many hours until midnight?": the clock's result goes back to the model instead of
    being read out as the answer; "What time is it in Tokyo?" still ends with it."""
    model = ScriptedChatModel().enqueue(calls(("get_time", {}))).enqueue("About 3 hours.")
    agent, _ = make(model, tools)
    result, spoken = run(agent, "How many hours until midnight?")
    assert spoken == "About 3 hours." and len(model.requests) == 2
    model = ScriptedChatModel().enqueue(calls(("get_time", {"place": "Tokyo"})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "What time is it in Tokyo?")
    assert spoken.startswith("In Tokyo it is") and len(model.requests) == 1

@pytest.mark.parametrize("reply", [
    "Error: parameter 'part': 'weather' is not one of ['all', 'battery'].",
    '{"name": "get_weather", "arguments": {"city": "New York"}}',
    "The current date is [insert date].",
    # the tools' descriptions read out ("sum up all the things for me i could do ...")
    "arguments: place (string, optional): a city or country the user named; else empty.",
    "label (string, optional): what it is for, if said; else empty.",
    "items (string): what to add, in the user's words.",
    # a stock sample value for what the model cannot know ("what's the address for alex")
    "The address for Alex is 123 Elm Street, Anytown, USA.",
    # a function made up (SLURP devel: "post new status on facebook time to celebrate")
    'You can use the "post_status" function to post it.',
])
def test_error_text_json_and_placeholders_are_never_spoken(tools, reply: str):
    assert unspeakable(reply)
    model = ScriptedChatModel().enqueue(reply).enqueue(reply)  # asked once more: the same
    agent, _ = make(model, tools)
    result, spoken = run(agent, "what's the weather like in New York")
    # held back twice, on what nothing here does: that is said plainly
    assert spoken == topics_of().topic("weather").reply == result.answer
    model.assert_consumed()


@pytest.mark.parametrize("reply", [
    "Sure! Here's a video about volcanoes: https://www.youtube.com/watch?v=",
    "You can find one at www.example.com.",
])
def test_a_web_address_is_never_spoken(tools, reply: str):
    """Set 25, "can you find her a video about volcanoes": the 1.5B made up a link."""
    assert unspeakable(reply)
    model = ScriptedChatModel().enqueue(reply).enqueue(reply)
    agent, _ = make(model, tools)
    _result, spoken = run(agent, "can you find her a video about volcanoes")
    assert spoken and "http" not in spoken and "www" not in spoken


def test_a_sentence_parroting_a_tool_error_is_dropped_but_the_rest_is_spoken(tools):
    model = ScriptedChatModel()
    model.enqueue(calls(("get_system_status", {"part": "weather"})))
    model.enqueue("The part weather is not one of all, battery, temperature. "
                  "I can't check the weather here.")
    agent, _ = make(model, tools)
    _result, spoken = run(agent, "what's the weather")
    assert spoken == "I can't check the weather here."


def test_a_local_command_runs_its_tool_without_the_model(tools):
    model = ScriptedChatModel()
    matcher = Matcher("what time is it", Match("time", "get_time"))
    agent, rec = make(model, tools, local=matcher)
    result, spoken = run(agent, "what time is it")
    assert spoken.startswith("It is") and model.requests == []
    assert rec.first(LocalCommand) == LocalCommand("time", "get_time", t=rec.first(
        LocalCommand).t)
    roles = [m.role for m in result.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]  # an ordinary exchange


def test_a_local_reply_without_a_tool(tools):
    matcher = Matcher("turn on the lights", Match("unsupported_lights", None,
                                                  reply="I can't control lights here."))
    agent, _ = make(ScriptedChatModel(), tools, local=matcher)
    _result, spoken = run(agent, "turn on the lights")
    assert spoken == "I can't control lights here."


def test_say_that_again_and_what_did_i_ask_come_from_the_conversation_not_the_example(tools):
    """The 1.5B answered "What did I ask you before?" with the worked example's question
    (the Mona Lisa), in a session about Hamlet; the real templates answer from history."""
    from voiceagent.intents import LocalCommands

    matcher = LocalCommands(tools)
    agent, _ = make(ScriptedChatModel(), tools, local=matcher)
    history = [Message("user", "Who wrote Hamlet?"),
               Message("assistant", "William Shakespeare wrote Hamlet."),
               Message("user", "Say that again."),
               Message("assistant", "William Shakespeare wrote Hamlet.")]
    said = {}
    for text in ("Say that again.", "Sorry, what did you say?", "What did I ask you before?"):
        spoken: list[str] = []
        agent.run_turn(history, text, on_text=spoken.append)
        said[text] = " ".join(spoken).strip()
    assert said == {"Say that again.": "William Shakespeare wrote Hamlet.",
                    "Sorry, what did you say?": "William Shakespeare wrote Hamlet.",
                    "What did I ask you before?": "You asked: Who wrote Hamlet?"}
    _result, spoken = run(agent, "What did I ask you before?")  # a new conversation
    assert spoken == "You haven't asked me anything yet."

def test_it_and_that_point_at_the_last_exchange(tools):
    """"Cancel it" after setting a timer matched "never mind": the user heard "OK." and the
    timer kept running; "Actually make it 12 minutes" set a second timer beside the first."""
    from voiceagent.intents import LocalCommands

    say = conversation(make(ScriptedChatModel(), tools, local=LocalCommands(tools))[0])

    assert say("Set a pasta timer for 10 minutes.") == "Timer set for 10 minutes: pasta."
    assert say("Actually, make it 12 minutes.") == (
        "Cancelled the 10 minute pasta timer. Timer set for 12 minutes: pasta.")
    assert say("Cancel it.") == "Cancelled the 12 minute pasta timer."
    assert tools.get("list_timers")() == "You have no timers or alarms set."
    assert say("Add milk to my shopping list.") == "Added milk to your new shopping list."
    assert say("No, take it off.") == "Removed milk from your shopping list."
    assert say("Cancel that.") == "OK."  # nothing of the last exchange to cancel: never mind
    say("Set a tea timer for 3 minutes.")
    say("Set an egg timer for 5 minutes.")
    say("How much time is left?")
    assert say("Cancel it.").startswith("Which one? You have the 3 minute tea timer")
    assert say("The egg one.") == "Cancelled the 5 minute egg timer."
    assert say("Set an alarm for 7:15 am.").startswith("Alarm set for 7:15 AM")
    assert say("Make it 7:30.").startswith("Cancelled the 7:15 AM alarm. Alarm set for 7:30 AM")
    say("Set an alarm for Friday at 9 am.")
    assert say("Make it 10.").startswith("Cancelled the 9:00 AM alarm. Alarm set for 10:00 AM")
    listing = tools.get("list_timers")()
    assert "10:00 AM" in listing and "9:00 AM" not in listing
    if f"{datetime.now():%A}" not in ("Thursday", "Friday"):  # else "tomorrow" or "today"
        assert "10:00 AM on Friday" in listing  # the day is kept
    say("Put apples and cheese on my grocery list.")
    assert say("How many things are on it?") == (
        "Your shopping list has 2 items: apples and cheese.")


def test_a_local_match_whose_tool_fails_goes_to_the_model(tools):
    # (a number on the timers' state no tool of this turn gave would be held: _live_number)
    model = ScriptedChatModel().enqueue("A timer can't be that long.")
    matcher = Matcher("set a timer for 30 days", Match("timer_start", "set_timer",
                                                       {"duration": "30 days"}))
    agent, _ = make(model, tools, local=matcher)
    result, spoken = run(agent, "set a timer for 30 days")
    assert spoken == "A timer can't be that long." and len(model.requests) == 1
    assert [m.role for m in result.messages] == ["user", "assistant"]


def test_one_retry_after_bringing_a_dead_server_back(tools):
    down = ServerDown("nothing answers")
    model = ScriptedChatModel().enqueue(down).enqueue("Back again.")
    restarts: list[bool] = []
    agent, _ = make(model, tools, recover=lambda: restarts.append(True) or True)
    result, spoken = run(agent, "hello")
    assert (result.stop, spoken, restarts) == ("done", "Back again.", [True])


def test_two_failures_are_one_apology(tools):
    down = ServerDown("nothing answers")
    model = ScriptedChatModel().enqueue(down).enqueue(down)
    agent, _ = make(model, tools, recover=lambda: True)
    result, spoken = run(agent, "hello")
    assert result.stop == "error" and spoken.count("Sorry") == 1


@pytest.mark.parametrize("text,clear", [
    ("Don't cancel the pasta timer, I still need it.", False),
    ("Don't clear the shopping list yet.", False), ("I forgot what I was going to say.", False),
    ("please do not forget our conversation", False),
    ("I don't need the timer anymore, cancel it.", True), ("Turn off the alarm.", True),
])
def test_negations_are_not_requests_and_a_named_it_is(text: str, clear: bool):
    assert clearly_asked_to_destroy(text) is clear


def test_a_number_written_as_a_string_runs_and_notes_for_the_model_are_not_spoken(tools):
    model = ScriptedChatModel().enqueue(calls(("convert_units", {
        "value": "5", "from_unit": "miles", "to_unit": "kilometers", "precision": 2})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "convert 5 miles to kilometers")
    assert result.stop == "done" and spoken.startswith("5 miles is 8.") and "Ignored" not in spoken
    assert "Ignored unknown parameter" in result.tool_calls[0][1]  # the model is still told


def test_a_clock_time_no_tool_gave_is_not_spoken(tools):
    model = ScriptedChatModel().enqueue("The time is 12:34 PM.").enqueue("It is 1:00 PM.")
    agent, _ = make(model, tools)
    _result, spoken = run(agent, "hey what's the time")
    assert spoken == say("failed")
    model = ScriptedChatModel().enqueue("Sure, see you at 7:30.")
    agent, _ = make(model, tools)
    _result, spoken = run(agent, "I'll come by at 7:30")
    assert spoken == "Sure, see you at 7:30."


def test_an_answer_held_back_whole_is_asked_for_once_more_with_why(tools):
    model = ScriptedChatModel().enqueue("It is 10:00 AM.").enqueue(calls(("get_time", {})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "what time is it")
    assert spoken.startswith("It is ") and "10:00" not in spoken
    asked = model.requests[1].messages[-1]
    assert asked.role == "user" and asked.text.startswith("what time is it")
    assert "get_time" in asked.text and model.requests[1].tool_choice == ("get_time",)
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    assert not any("held back" in m.text for m in result.messages)  # not kept


def test_the_history_keeps_what_was_said_not_what_was_held_back(tools):
    model = ScriptedChatModel().enqueue('{"name": "get_weather", "arguments": {}}')
    model.enqueue('{"name": "get_weather", "arguments": {}}')
    agent, _ = make(model, tools)
    result, spoken = run(agent, "how do i fix my bike chain")
    assert result.messages[-1].text == spoken == say("failed")


@pytest.mark.parametrize("value, said, unsaid", [
    ("10 seconds", "Start a stopwatch.", ["10"]),
    ("7:30 am", "Add a reminder to buy milk.", ["7", "30"]),
    ("5 minutes", "set a timer for ten minutes", ["5"]),
    ("6:30 AM", "Wake me up at 6:30 tomorrow.", []),
    ("15:00", "remind me at 3 pm", []),
    ("30 minutes", "a timer for half an hour", []),
    ("1 hour 30 minutes", "an hour and a half", []),
    ("90 minutes", "an hour and a half", []),
    ("6:45", "quarter to seven", []),
    ("5:50", "ten to six", []),
    ("12:00", "wake me at noon", []),
    ("7:30 am", "At seven thirty tomorrow morning.", []),
    ("120 minutes", "timer for two hours", []),
])
def test_a_duration_or_clock_time_must_be_numbers_the_user_said(value: str, said: str,
                                                                 unsaid: list[str]):
    from voiceagent.agent.grounding import unsaid_numbers
    assert unsaid_numbers(value, said) == unsaid


def test_an_alarm_nobody_gave_a_time_asks_for_it_and_the_answer_keeps_the_label(tools):
    """"Add a reminder to buy milk." got a 7:30 alarm from the 1.5B; now the user is asked,
    without a second model request, and their answer completes the request."""
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7:30 am",
                                                             "label": "buy milk"})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "Add a reminder to buy milk.")
    assert spoken == "For what time?" and result.tool_calls[0][2] is True
    model.assert_consumed()
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7:30 am",
                                                             "label": "buy milk"})))
    agent, _ = make(model, tools)
    result = agent.run_turn(result.messages, "At seven thirty.", on_text=lambda _t: None)
    assert result.tool_calls[0][2] is False
    # the first seven thirty to come: "am" was the model's, not the user's
    assert result.answer.startswith("Alarm set for 7:30 ") and "buy milk" in result.answer
    model = ScriptedChatModel().enqueue(calls(("set_timer", {"duration": "5 minutes"})))
    model.enqueue("Which length did you mean?")
    agent, _ = make(model, tools)
    result, spoken = run(agent, "Set a timer for ten minutes.")  # a wrong number: the model
    assert result.tool_calls[0][2] is True and spoken == "Which length did you mean?"


def test_what_the_answered_request_said_reaches_the_call(tools):
    """"Remind me to go to the store every Friday." "For what time?" "At five pm.": the 1.5B's
    second call left "every friday" out, and a one-off alarm was set for today."""
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7:30 am",
                                                             "label": "go to the store"})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "Remind me to go to the store every Friday.")
    assert spoken == "For what time?"
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "5 pm",
                                                             "label": "go to the store"})))
    agent, _ = make(model, tools)
    result = agent.run_turn(result.messages, "At five pm.", on_text=lambda _t: None)
    assert result.tool_calls[0][2] is False
    assert "repeating every Friday: go to the store." in result.answer


def test_a_weekday_nobody_gave_is_not_said():
    """Asked "What day of the week is it?" without the clock, the 1.5B said "Monday" on a
    Tuesday; a weekday from the user or a tool is fine."""
    assert unspeakable("The current day of the week is Monday.",
                       Facts(known=["What day of the week is it?"])) == "a weekday no tool gave"
    assert unspeakable("Your plumber comes on Monday.",
                       Facts(known=["The plumber comes on Monday."])) == ""


def test_a_question_only_for_a_request_about_that_tool(tools):
    """"Turn up the volume." -> set_alarm with a made-up time: not "For what time?" (the
    user asked for no alarm), the model hears why and answers."""
    model = ScriptedChatModel().enqueue(
        calls(("set_alarm", {"time": "10:00 am", "label": "music"}))).enqueue(
        "I can't change the volume here.")
    agent, _ = make(model, tools)
    _result, spoken = run(agent, "Tell me about the volume.")
    assert spoken == "I can't change the volume here." and len(model.requests) == 2
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7:30"})))
    agent, _ = make(model, tools)
    _result, spoken = run(agent, "Set an alarm.")
    assert spoken == "For what time?"


def test_a_follow_up_reads_what_the_last_exchange_did(tools):
    """"How much time is left on it?" after "Actually make it 15" (a follow-up that reset
    the timer, and names no timer itself): the 1.5B's list_timers was refused as off the
    topic, and the user heard "Sorry, I couldn't do that."."""
    from voiceagent.intents import LocalCommands

    model = ScriptedChatModel().enqueue(calls(("list_timers", {}))).enqueue(
        "About 15 minutes are left.")
    agent, rec = make(model, tools, local=LocalCommands(tools))
    history: list[Message] = []
    for text in ("Set a timer for 10 minutes.", "Actually, make it 15."):
        history.extend(agent.run_turn(history, text).messages)
    result = agent.run_turn(history, "How much time is left on it?")
    ran = [m for m in result.messages if m.role == "tool"]
    assert len(ran) == 1 and not ran[0].is_error and "15 minute" in ran[0].text


def test_one_of_the_items_just_added_taken_off_by_name(tools):
    """"Take the bread off" right after "add eggs and bread to the shopping list": no list
    named, so no template took it, and the 1.5B asked what it meant."""
    from voiceagent.intents import LocalCommands

    say = conversation(make(ScriptedChatModel(), tools, local=LocalCommands(tools))[0])

    assert say("Add eggs and bread to the shopping list.") == (
        "Added eggs and bread to your new shopping list.")
    assert say("Take the bread off.") == "Removed bread from your shopping list."
    assert say("Put it back.") == "Added bread to your shopping list."
    assert say("Add milk and cheese to the shopping list.").startswith("Added milk and cheese")
    assert say("Actually remove the cheese from it.") == (
        "Removed cheese from your shopping list.")
    assert tools.get("read_list")(list_name="shopping") == (
        "Your shopping list has 3 items: eggs, bread and milk.")


def test_it_and_them_take_the_topic_of_the_last_exchange(tools):
    """"Clear it" right after the shopping list was read out, "cancel all of them" right
    after the alarms: on no topic of their own, the model was offered no tool, and said
    "Shopping list cleared." / "All alarms have been cancelled." with no call."""
    from voiceagent.intents import LocalCommands

    agent, _ = make(ScriptedChatModel(), tools, local=LocalCommands(tools))
    history: list[Message] = []

    def say(text: str, model: ScriptedChatModel | None = None) -> TurnResult:
        if model is not None:
            agent.model = model
        result = agent.run_turn(history, text)
        history.extend(result.messages)
        return result

    say("Add milk and eggs to my shopping list.")
    say("What's on my shopping list?")
    model = ScriptedChatModel().enqueue(calls(("clear_list", {"list_name": "shopping"})))
    model.enqueue("Done.")
    say("Clear it.", model)
    assert model.requests[0].tool_choice == "auto" and model.requests[0].tools
    assert "no items" in tools.get("read_list")(list_name="shopping").lower() or \
        "empty" in tools.get("read_list")(list_name="shopping").lower()
    say("Set an alarm for 7 am.")
    say("Set an alarm for 8 am.")
    say("What alarms do I have?")
    model = ScriptedChatModel().enqueue("All alarms canceled.")  # said, not done: again
    model.enqueue(calls(("cancel_timer", {"which": "all"}))).enqueue("Done.")
    say("Cancel all of them.", model)
    assert "cancel_timer" in model.requests[1].tool_choice
    assert tools.get("list_timers")() == "You have no timers or alarms set."
    say("What time is it?")  # nothing of ours named: "clear it" clears nothing
    say("Add bread to my shopping list.")
    say("Who wrote Hamlet?", ScriptedChatModel().enqueue("Shakespeare."))
    model = ScriptedChatModel().enqueue(calls(("clear_list", {"list_name": "shopping"})))
    model.enqueue("I can't do that.").enqueue("Clear what?")
    say("Clear it.", model)
    assert "bread" in tools.get("read_list")(list_name="shopping")


@pytest.mark.parametrize("said, runs", [
    ("what time is my wakeup alarm set for", False),
    ("why don't you set an alarm for 7 am", True),  # asks it done
    ("is it possible to set an alarm for 7 am", True),
    ("set an alarm for 7 am", True),
    # asked after a preposition, or as a request to be told
    ("at what time have you set alarm for me", False),
    ("please let me know the morning alarm time for weekdays", False),
    ("remind me to take my pills at 7 am", True),
])
def test_a_question_changes_nothing(tools, said, runs):
    """Live, "what time is my wakeup alarm set for" -> set_alarm(7:30 am, breakfast) ->
    "For what time?": a question for information asks, it never sets anything."""
    model = ScriptedChatModel().enqueue(calls(("set_alarm", {"time": "7 am"})))
    model.enqueue("You have no alarms set.")
    agent, _ = make(model, tools)
    result, _spoken = run(agent, said)
    (_, text, is_error, _refs, _ran), = result.tool_calls
    assert is_error != runs
    assert ("asked a question" in text) != runs


def test_a_call_refused_beside_one_that_answers_does_not_ask_again(tools):
    """"at what time have you set alarm for me": the 1.5B called list_timers and
    read_list("alarm"); the refused read kept the timers' answer unsaid, the model was asked
    again, did both again, and the turn ended "I kept repeating the same step"."""
    model = ScriptedChatModel().enqueue(calls(("list_timers", {}),
                                              ("read_list", {"list_name": "groceries"})))
    agent, _ = make(model, tools)
    result, spoken = run(agent, "at what time have you set alarm for me")
    assert [d.error for d in result.tool_calls] == [False, True]
    assert spoken == "You have no timers or alarms set." and len(model.requests) == 1
