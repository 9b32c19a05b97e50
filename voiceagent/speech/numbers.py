"""Numbers as English words, the way a person says them: 1,250 -> "one thousand two hundred
fifty", 3.05 -> "three point zero five", 1999 (a year) -> "nineteen ninety-nine"."""

from __future__ import annotations

ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen").split()
"""The words for 0..19 (the one table of number words; tools/words.py reads them too)."""
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
"""TENS[n] is the word for n * 10, n >= 2."""
SCALES = {"trillion": 10**12, "billion": 10**9, "million": 10**6, "thousand": 1000}
"""Scale words, largest first."""
_ORDINAL_WORDS = {"one": "first", "two": "second", "three": "third", "five": "fifth",
                  "eight": "eighth", "nine": "ninth", "twelve": "twelfth"}


def cardinal(n: int) -> str:
    """0 -> "zero", 42 -> "forty-two", 1_000_001 -> "one million one"; digits past 10^15."""
    if n < 0:
        return "minus " + cardinal(-n)
    if n >= 10**15:
        return digits(str(n))
    if n < 20:
        return ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return TENS[tens] + (f"-{ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{ONES[hundreds]} hundred" + (f" {cardinal(rest)}" if rest else "")
    for name, value in SCALES.items():
        if n >= value:
            high, rest = divmod(n, value)
            return f"{cardinal(high)} {name}" + (f" {cardinal(rest)}" if rest else "")
    raise AssertionError("unreachable")


def decimal(text: str) -> str:
    """ "3.5" -> "three point five", "1250" -> "one thousand two hundred fifty"."""
    whole, _, frac = text.partition(".")
    words = cardinal(int(whole or "0"))
    return words + (f" point {digits(frac)}" if frac else "")


def digits(text: str) -> str:
    """Each digit on its own, for phone numbers and codes: "007" -> "zero zero seven"."""
    return " ".join(ONES[int(d)] for d in text if d.isdigit())


def ordinal(n: int) -> str:
    """1 -> "first", 22 -> "twenty-second", 100 -> "one hundredth"."""
    words = cardinal(n)
    head, sep, last = words.rpartition("-" if "-" in words.split()[-1] else " ")
    if last in _ORDINAL_WORDS:
        last = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last


def year(n: int) -> str:
    """1999 -> "nineteen ninety-nine", 2005 -> "two thousand five", 2024 -> "twenty twenty-four"."""
    high, low = divmod(n, 100)
    if 2000 <= n < 2010 or low == 0 and n % 1000 == 0:
        return cardinal(n)
    if low == 0:
        return f"{cardinal(high)} hundred"
    return f"{cardinal(high)} {'oh ' + ONES[low] if low < 10 else cardinal(low)}"
