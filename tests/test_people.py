"""What an answer states of the people the user knows rests on their contacts, which
nothing here reaches: SLURP's "does bob live in france" -> "Yes, Bob lives in France." and
"what is john's last name" -> "John is last name Smith." (the real 1.5B's answers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from voiceagent.agent.events import Events
from voiceagent.agent.loop import Agent
from voiceagent.agent.messages import Message
from voiceagent.config import AgentConfig
from voiceagent.config_file import load_config
from voiceagent.language.people import keeper, people_known, states_of
from voiceagent.testing import ScriptedChatModel
from voiceagent.tools import ToolContext, build_tools


@pytest.fixture
def tools(tmp_path: Path):
    box = build_tools(load_config(None), ToolContext(tmp_path))
    yield box.registry
    box.close()


@pytest.mark.parametrize("request_text, people", [
    ("does bob live in france", ("Bob",)),
    ("what is john's last name", ("John",)),
    ("what's my boss's phone number", ("your boss",)),
    ("what should i get my mom for her birthday", ("your mom",)),
    ("when was bob dylan born", ("Bob",)),  # his surname comes back in the answer
    ("who is bob", ()),  # who someone is: what is generally known
    ("tell me a joke about bob", ()),  # something made
    ("who wrote hamlet", ()),
])
def test_the_people_a_request_speaks_of_that_the_user_knows(request_text, people):
    assert people_known(request_text) == people


def test_people_the_user_told_of_earlier_are_theirs_to_speak_of():
    assert people_known("where does bob live", earlier="my brother bob lives in paris") == ()


@pytest.mark.parametrize("sentence, claims", [
    ("Yes, Bob lives in France.", True),
    ("John is last name Smith.", True),
    ("John's last name is Smith.", True),
    ("Your boss's number is 555 1234.", True),
    ("Bob Dylan was born in 1941.", False),  # a surname: someone the world knows
    ("Your mom would love a scarf.", False),  # what might be: advice
    ("Does Bob live in France?", False),
    ("I don't know where Bob lives.", False),  # not opening on him
])
def test_a_sentence_that_states_what_is_of_one_of_them(sentence, claims):
    assert states_of(sentence, ("Bob", "John", "your boss", "your mom")) is claims


@pytest.mark.parametrize("request_text, answer, held", [
    ("does bob live in france", "Yes, Bob lives in France.", True),
    ("does bob live in france", "No, Bob does not live in France.", True),
    ("does bob live in france", "Bob isn't someone I know.", False),
    ("what is john's last name", "John is last name Smith.", True),
    ("what should i get my mom for her birthday", "Your mom would love a warm scarf.", False),
    ("when was bob dylan born", "Bob Dylan was born on May 24, 1941.", False),
])
def test_what_the_model_makes_up_of_them_is_said_plainly_instead(tools, request_text, answer,
                                                                 held):
    model = ScriptedChatModel().enqueue(answer)
    spoken: list[str] = []
    Agent(model, tools, AgentConfig(), Events()).run_turn([], request_text,
                                                          on_text=spoken.append)
    assert " ".join(spoken) == (keeper().reply if held else answer)


def test_what_the_user_told_earlier_may_be_said_back(tools):
    history = [Message("user", "my brother bob lives in paris"),
               Message("assistant", "Nice, Paris is lovely.")]
    model = ScriptedChatModel().enqueue("Bob lives in Paris.")
    spoken: list[str] = []
    Agent(model, tools, AgentConfig(), Events()).run_turn(history, "where does bob live",
                                                          on_text=spoken.append)
    assert " ".join(spoken) == "Bob lives in Paris."
