"""The speech policy of one turn (agent/voice.py), sentence by sentence."""

from __future__ import annotations

import pytest

from voiceagent.agent.events import Events, HeldBack, Recording
from voiceagent.agent.loop import Agent
from voiceagent.agent.spoken import Facts, words_note
from voiceagent.agent.tools import ToolRegistry
from voiceagent.agent.voice import INTRODUCES_DROPPED, UNFINISHED_BEFORE_CALL, Voice
from voiceagent.config import AgentConfig
from voiceagent.testing import ScriptedChatModel


@pytest.fixture
def tools_free_agent() -> tuple[Agent, Recording]:
    """An agent with no tools whose model makes up the time and then says it can't tell."""
    model = ScriptedChatModel().enqueue("It is 3:47 PM.").enqueue("I can't tell the time.")
    events, recording = Events(), Recording()
    events.subscribe(recording)
    config = AgentConfig(local_commands=False, worked_example=False)
    return Agent(model, ToolRegistry(), config, events), recording


def spoken(reply: str, facts: Facts | None = None) -> tuple[list[str], Voice]:
    heard: list[str] = []
    voice = Voice(heard.append, facts or Facts(request="what can you do"))
    for word in reply.split(" "):  # streamed a word at a time, as a model does
        voice.feed(word + " ")
    voice.end_reply()
    return heard, voice


def test_a_sentence_that_introduces_what_follows_is_said_only_with_it() -> None:
    heard, _ = spoken("I can help with these:\nTimers, lists and notes.")
    assert heard == ["I can help with these:", "Timers, lists and notes."]
    facts = Facts(request="what can you do", tool_names=frozenset({"get_time"}))
    heard, voice = spoken("You can call these functions:\n\nget_time: the time.", facts)
    assert heard == []  # the names were held back: so is what introduced them
    assert ("You can call these functions:", INTRODUCES_DROPPED) in voice.dropped
    heard, voice = spoken("Here is what I found:")
    assert heard == [] and voice.dropped == [("Here is what I found:", INTRODUCES_DROPPED)]


def test_a_clause_saying_only_what_the_rest_is_for_is_said_only_with_it() -> None:
    """SLURP's "please tell me how can i remove the item": the user heard "To remove an item
    from a list," and then "Sorry, I couldn't do that.": the rest named a tool."""
    facts = Facts(request="how can i remove the item",
                  tool_names=frozenset({"remove_from_list"}))
    heard, voice = spoken("To remove an item from a list, you need to call the function "
                          "remove_from_list with the name of the list and the item.", facts)
    assert heard == []
    assert ("To remove an item from a list,", INTRODUCES_DROPPED) in voice.dropped
    heard, _ = spoken("To make pancakes, mix flour, eggs and milk.")
    assert heard == ["To make pancakes, mix flour, eggs and milk."]


def test_every_sentence_held_back_is_traced_with_why(tools_free_agent) -> None:
    agent, recording = tools_free_agent
    agent.run_turn([], "what time is it")
    held = recording.of_type(HeldBack)
    assert [(h.text, h.reason) for h in held] == [("It is 3:47 PM.", "made-up time")]


def test_a_short_question_back_is_no_copy_of_the_note_to_the_model() -> None:
    """"trivia" -> "What would you like to know?": its words "what would you ... to" are
    in the note sent with the request, its own ("like", "know") mostly not."""
    facts = Facts(request="trivia")
    facts.errors.append(words_note("trivia"))
    heard, _ = spoken("Sure! What would you like to know?", facts)
    assert heard == ["Sure!", "What would you like to know?"]
    facts.errors.append("Error: not run: the user did not ask for anything calculate does.")
    heard, voice = spoken("The user did not ask for anything calculate does.", facts)
    assert heard == [] and voice.dropped[0][1] == "repeats a tool error"


def test_words_left_unfinished_before_a_tool_call_are_not_said() -> None:
    """"set a timer": the 1.5B wrote "To set a timer, use the command" and its call; the user
    heard "To set a timer, use the command For how long?"."""
    heard: list[str] = []
    voice = Voice(heard.append, Facts(request="set a timer"))
    voice.feed("To set a timer, use the command")
    assert voice.end_reply(calls=True) == "" and heard == []
    assert voice.dropped == [("To set a timer, use the command", UNFINISHED_BEFORE_CALL)]
    voice.feed("Let me check.")  # a whole sentence before a call is still said
    assert voice.end_reply(calls=True) == "Let me check." and heard == ["Let me check."]
    voice.feed("The answer is")  # an answer cut short, with no call: said as before
    voice.end_reply()
    assert heard[-1] == "The answer is"
