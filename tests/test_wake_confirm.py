"""Whether a transcript ends in something that sounds like the wake word (wake_confirm.py):
Whisper's spellings of the real wake words said in one breath, and of what only came close
to them on the shared recordings."""

from __future__ import annotations

import pytest

from voiceagent.speech.wake_confirm import ends_with_name


@pytest.mark.parametrize(("text", "name"), [
    ("Alexa.", "Alexa"), ("Alexa?", "Alexa"), ("I'll like so.", "Alexa"),
    ("Hey, Jarvis.", "Hey Jarvis"), ("Hey, McRoughton.", "Hey Mycroft"),
    ("Okay, now boom.", "Okay Nabu"), ("Okay, now.", "Okay Nabu"),
    ("so I said alexa", "Alexa"),
])
def test_the_name_as_whisper_spells_it(text: str, name: str) -> None:
    assert ends_with_name(text, name)


@pytest.mark.parametrize(("text", "name"), [
    ("I like it.", "Alexa"), ("Computer.", "Alexa"), ("Can I have it?", "Hey Mycroft"),
    ("Make me a light roast.", "Hey Mycroft"), ("May I have...", "Hey Mycroft"),
    ("Good job, Ace!", "Hey Jarvis"), ("Computer.", "Okay Nabu"), ("Jovis.", "Okay Nabu"),
    ("Alexa, what time is it", "Alexa"),  # the name must end it: it was cut after the name
    ("", "Alexa"),
])
def test_what_only_came_close(text: str, name: str) -> None:
    assert not ends_with_name(text, name)


def test_a_failing_second_opinion_leaves_it_asleep() -> None:
    """A transcriber that fails (or an install without jellyfish) must not take the
    listening loop down: the doubtful wake word is not woken, as without a second opinion."""
    import numpy as np

    from voiceagent.speech.wake_confirm import heard_by

    class Broken:
        def transcribe(self, audio):
            raise RuntimeError("model gone")

    assert heard_by(Broken(), "Alexa")(np.zeros(16000, np.float32)) is False
