"""The speech policy of one turn (agent/voice.py), sentence by sentence."""

from __future__ import annotations

from voiceagent.agent.spoken import Facts
from voiceagent.agent.voice import INTRODUCES_DROPPED, Voice


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
