"""The streaming sentence splitter on realistic model replies, fed in small pieces."""

from __future__ import annotations

import pytest

from voiceagent.speech.sentences import SentenceSplitter


def split(text: str, step: int = 3) -> list[str]:
    """Feed `text` in `step`-character deltas, as a model streams it, then flush."""
    splitter = SentenceSplitter()
    out: list[str] = []
    for i in range(0, len(text), step):
        out += splitter.feed(text[i:i + step])
    return out + splitter.flush()


CASES = [
    ("Sure. I set a timer for ten minutes. Anything else?",
     ["Sure.", "I set a timer for ten minutes.", "Anything else?"]),
    ("Dr. Smith said the dose is 3.5 mg twice a day. That's all!",
     ["Dr. Smith said the dose is 3.5 mg twice a day.", "That's all!"]),
    ("Try a fruit, e.g. an apple or a pear. They keep well, i.e. for weeks.",
     ["Try a fruit, e.g. an apple or a pear.", "They keep well, i.e. for weeks."]),
    ("Here's your shopping list:\n1. Milk\n2. Eggs\n3. Bread\nWant me to add more?",
     ["Here's your shopping list:", "1. Milk", "2. Eggs", "3. Bread", "Want me to add more?"]),
    ("- Call mum\n- Water the plants\n\nThat's everything on your to-do list.",
     ["- Call mum", "- Water the plants", "That's everything on your to-do list."]),
    ("It costs $1,200. Or 3.50 a month.", ["It costs $1,200.", "Or 3.50 a month."]),
    ("J. R. R. Tolkien wrote it... I think. Really?! Yes.",
     ["J. R. R. Tolkien wrote it...", "I think.", "Really?!", "Yes."]),
    ("He said \"stop.\" Then he left.", ["He said \"stop.\"", "Then he left."]),
    ("Your alarm is set for 7 a.m. tomorrow. Sleep well.",
     ["Your alarm is set for 7 a.m. tomorrow.", "Sleep well."]),
    ("I am. You are.", ["I am.", "You are."]),
    ("No trailing punctuation here", ["No trailing punctuation here"]),
]


@pytest.mark.parametrize("text,expected", CASES, ids=[c[1][0][:20] for c in CASES])
@pytest.mark.parametrize("step", [1, 3, 50])
def test_sentences(text, expected, step):
    assert split(text, step) == expected


def test_a_sentence_is_released_as_soon_as_it_has_ended():
    splitter = SentenceSplitter()
    assert splitter.feed("The oven is preheated") == []
    assert splitter.feed(".") == []  # "." could still become "3.5"
    assert splitter.feed(" Put") == ["The oven is preheated."]
    assert splitter.flush() == ["Put"]


def test_a_decimal_is_never_cut():
    splitter = SentenceSplitter()
    assert splitter.feed("It is 3.") == []
    assert splitter.feed("5 degrees outside. ") == ["It is 3.5 degrees outside."]


def test_a_long_first_sentence_is_cut_at_a_comma_to_start_speaking_early():
    text = ("The weather in Berlin today will be mostly cloudy with a high of twelve degrees, "
            "and there is a chance of rain in the evening, so take an umbrella. Have a nice day.")
    assert split(text) == [
        "The weather in Berlin today will be mostly cloudy with a high of twelve degrees,",
        "and there is a chance of rain in the evening, so take an umbrella.",
        "Have a nice day.",
    ]


def test_short_first_sentences_are_not_cut_at_commas():
    assert split("Yes, done, all set. Okay.") == ["Yes, done, all set.", "Okay."]


def test_a_code_block_is_kept_whole():
    text = "Run this:\n```bash\nls -la. Then\ncd /tmp\n```\nDone. Bye."
    assert split(text) == ["Run this:", "```bash\nls -la. Then\ncd /tmp\n```", "Done.", "Bye."]


def test_flush_resets_for_the_next_reply():
    splitter = SentenceSplitter()
    splitter.feed("First reply without an end")
    assert splitter.flush() == ["First reply without an end"]
    assert splitter.flush() == []
    long = "A second reply that is long enough to be cut, once it has passed sixty characters"
    assert splitter.feed(long)[0] == "A second reply that is long enough to be cut,"


def test_the_first_clause_to_a_colon_or_semicolon_is_spoken_first() -> None:
    """Piper takes ~0.6 s before a long sentence sounds: the refusal of the real coffee orders
    ("I can't order or buy things: this assistant works offline.") is synthesised in two."""
    from voiceagent.speech.sentences import first_clause

    assert first_clause("I can't order or buy things: this assistant works offline. More.") == (
        "I can't order or buy things:", "this assistant works offline. More.")
    assert first_clause("Your shopping list has 3 items: milk, eggs and bread.") == (
        "Your shopping list has 3 items:", "milk, eggs and bread.")
    for whole in ("It is 10:52 AM, Saturday, December 5, 2026.",  # a clock time, no clause
                  "Note: yes.",  # too short to be worth it
                  "Sure. Note this: it works.",  # not in the first sentence
                  "See http://example.org: it works fine for everyone here."):
        assert first_clause(whole) == (whole, ""), whole


def test_the_replys_first_clause_is_synthesised_on_its_own() -> None:
    from voiceagent.agent.events import Events
    from voiceagent.speaking import SpeechOutput
    from voiceagent.testing import FakeSynthesizer, RecordingPlayer

    synth = FakeSynthesizer(seconds=0.01)
    speech = SpeechOutput(synth, RecordingPlayer(), Events())
    speech.sentence("I can't order or buy things: this assistant works offline.")
    speech.sentence("Anything else: just ask.")  # not the first: whole
    speech.finish()
    assert synth.texts == ["I can't order or buy things:", "this assistant works offline.",
                           "Anything else: just ask."]
