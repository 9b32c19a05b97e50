"""Language as data: every English word list, phrase and template lives in `language/en/`.

    from voiceagent.language import lexicon
    lex = lexicon()                       # loaded once, shared by everyone
    lex.has("stop", "Okay, never mind.")  # True: a term of the word set "stop" is in it
    lex.words("trailing")                 # frozenset of single words
    lex.values("durations")...            # a table: term -> value ("units", "holidays")
    lex.templates("days_ahead", slots)    # sentence templates with a structure
    say("misheard")                       # the assistant's own sentences, by name

A word set is a list of terms; a term is one word ("stop") or several ("never mind"), matched
on whole words, case and punctuation ignored. Numbers said in words (numbers.py), the plural
rule (plural.py) and spoken time (spoken_time.py: durations, clock times, days) are the
generic readers of those words. A second language is a second folder with the same file
names (docs/language.md).
"""

from voiceagent.language.lexicon import Lexicon, lexicon, tokens
from voiceagent.language.sayings import say, tell_model

__all__ = ["Lexicon", "lexicon", "say", "tell_model", "tokens"]
