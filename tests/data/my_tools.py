"""An example tool module, as a user would write it ([tools] modules = ["my_tools.py"])."""

from voiceagent.tools import tool


@tool
def spell_word(word: str) -> str:
    """Use when the user asks how to spell a word.

    Args:
        word: the word to spell, e.g. "necessary".
    """
    return f"{word} is spelled " + ", ".join(word.upper()) + "."
