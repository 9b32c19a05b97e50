"""Numbers as English words, the way a person says them: 1,250 -> "one thousand two hundred
fifty", 3.05 -> "three point zero five", 1999 (a year) -> "nineteen ninety-nine".

The words and the rules are language/numbers.py (one table, read back by the tools too);
this is the speech side's name for them."""

from voiceagent.language.numbers import cardinal, decimal, digits, ordinal, year

__all__ = ["cardinal", "decimal", "digits", "ordinal", "year"]
