"""Per-word probabilities and the short window's guards, without a model (pure functions)."""

from __future__ import annotations

import pytest

from voiceagent.ports import Transcript
from voiceagent.speech.whisper_decode import Decoded, group_words


def test_tokens_group_into_the_words_of_the_text():
    pieces = [(" Set", 1), (" a", 1), (" tim", 1), ("er", 1), (" for", 1), (" 12", 1),
              ("-", 1), ("ounce", 1), (" minutes", 1), (".", 1)]
    probs = [0.9, 0.8, 0.5, 0.5, 1.0, 0.6, 0.1, 0.5, 0.7, 0.2]
    assert group_words(pieces, probs) == (
        ("Set", 0.9), ("a", 0.8), ("timer", 0.25), ("for", 1.0),
        ("12-ounce", 0.3),  # the hyphen is punctuation: not counted, the parts multiply
        ("minutes.", 0.7))  # the full stop's own doubt is not the word's


def test_a_piece_of_several_tokens_counts_all_of_them():
    assert group_words([(" café", 2), (" ok", 1)], [0.5, 0.8, 1.0]) == (("café", 0.4),
                                                                       ("ok", 1.0))


def test_transcript_words_default_to_none_known():
    assert Transcript("hello").words == ()
    heard = Transcript("five minutes", words=(("five", 0.2), ("minutes", 0.9)))
    assert heard == "five minutes" and dict(heard.words)["five"] == 0.2


def _decoded(text: str) -> Decoded:
    return Decoded(text=text, tokens=(1, 2, 3), avg_logprob=-0.1, compression_ratio=1.0,
                   no_speech_prob=0.01, temperature=0.0, frames=400, capped=False)


@pytest.mark.parametrize(("text", "loops"), [
    ("Add apples to my shopping list. Add apples to my shopping list.", True),
    ("We'll set a timer for five minutes. Set a timer for five minutes.", True),
    ("Set a timer for five minutes.", False),
    ("A bit of sugar and a bit more milk.", False),  # "a bit" twice: shorter than a run
    ("Very, very, very good.", False),  # overlapping runs are speech, not a restart
])
def test_a_sentence_said_again_is_a_loop(text, loops):
    assert _decoded(text).looping is loops


def test_distrust_names_why_the_short_window_is_not_used():
    from voiceagent.speech.stt import distrust

    assert distrust(_decoded("Set a timer for five minutes.")) == ""
    assert distrust(_decoded("")) == "heard no words"
    capped = Decoded(**{**_decoded("la la").__dict__, "capped": True})
    assert distrust(capped) == "ran to the token cap"
    unsure = Decoded(**{**_decoded("Set a timer.").__dict__, "avg_logprob": -0.7})
    assert distrust(unsure).startswith("avg_logprob")


def test_a_number_counts_both_its_spellings():
    from voiceagent.speech.whisper_decode import spelled_otherwise

    assert spelled_otherwise("10.") == "ten" and spelled_otherwise("Five") == "5"
    assert spelled_otherwise("twenty-five") == "25" and spelled_otherwise("minutes") is None
    assert spelled_otherwise("150") is None  # one-word numbers only (0-99)
    pieces = [(" for", 1), (" 10", 1), (" minutes", 1), (".", 1)]
    probs = [0.99, 0.54, 0.98, 0.9]
    assert group_words(pieces, probs, {1: 0.44}) == (("for", 0.99), ("10", 0.98),
                                                      ("minutes.", 0.98))


def test_a_word_whisper_hardly_believes_sends_the_clip_to_the_full_window():
    from voiceagent.speech.stt import WORD_FLOOR, distrust

    sure = Decoded(**{**_decoded("Make me a light roast iced mocha.").__dict__,
                      "words": (("Make", 0.7), ("me", 0.99), ("a", 0.9), ("light", 0.9),
                                ("roast", 0.6), ("iced", 0.99), ("mocha.", 0.6))})
    assert distrust(sure) == ""
    unsure = Decoded(**{**sure.__dict__, "words": (*sure.words[:4], ("down's", WORD_FLOOR / 2))})
    assert distrust(unsure) == "unsure of \"down's\""
