"""The lexicon: named word sets from language/en/lexicon.yaml, matched on whole words."""

from __future__ import annotations

from voiceagent.language import lexicon, tokens


def test_tokens_keep_apostrophes_and_read_curly_quotes():
    assert tokens("Don\u2019t STOP, it's 5 o'clock!") == ["don't", "stop", "it's", "5", "o'clock"]


def test_terms_are_whole_words_and_phrases():
    lex = lexicon()
    assert lex.has("stop", "Okay, never mind.")
    assert lex.has("stop", "Stop!")
    assert not lex.has("stop", "Unstoppable music")  # whole words only
    assert lex.find("stop", "never mind, just stop") == [(0, 2), (3, 4)]


def test_only_covers_every_word():
    lex = lexicon()
    assert lex.only("stop", "be quiet")
    assert not lex.only("stop", "stop the music")
    assert not lex.only("stop", "")


def test_every_set_has_terms_and_unknown_sets_are_named():
    lex = lexicon()
    assert lex.sets and all(lex.sets.values())
    try:
        lex.words("no such set")
    except KeyError as exc:
        assert "known:" in str(exc)
    else:
        raise AssertionError("an unknown set must raise")
