"""Text made for speaking: markdown, code and links removed; numbers said as a person would.

Models write for screens ("**Note:** it's 7:30 and 45% done, see https://x.org"); a voice
reading that aloud says "asterisk asterisk" and spells the link. The voice's own front end
reads plain digits, but times, percentages, money, units and ordinals come out better when
written as words here, and the result stays the same when passed through again.
"""

from __future__ import annotations

import re

from voiceagent.language import lexicon
from voiceagent.language.numbers import cardinal, decimal, digits, ordinal, year
from voiceagent.language.plural import plural, plural_phrase
from voiceagent.speech import abbreviations

_LEX = lexicon()
_SAY = _LEX.names("symbols")
"""Signs as words ("+" plus, "@" at, "." dot in a web address)."""
_PARTS = _LEX.names("number_parts")

# --- markdown and links ------------------------------------------------------------------------

_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.S)
_INLINE_CODE = re.compile(r"`([^`]*)`")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"\b(?:https?://|www\.)([^\s/?#)\]]+)[^\s)\]]*", re.I)
_EMAIL = re.compile(r"\b([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)\b")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*", re.M)
_QUOTE = re.compile(r"^\s*>+\s?", re.M)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+", re.M)
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$", re.M)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$", re.M)
_EMPHASIS = re.compile(r"(\*\*|__|~~|\*|\b_)(?=\S)(.+?)(?<=\S)\1")
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f\u200d]")
_LEFTOVER = re.compile(r"[*#`~|<>_\\^]")


def _markdown_to_text(text: str) -> str:
    text = _CODE_BLOCK.sub(" ", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _IMAGE_OR_LINK.sub(r"\1", text)
    text = _URL.sub(lambda m: _host(m.group(1)), text)
    text = _EMAIL.sub(lambda m: f"{m.group(1)} {_SAY['@']} {_host(m.group(2))}", text)
    for pattern in (_TABLE_RULE, _RULE, _HEADING, _QUOTE, _BULLET):
        text = pattern.sub("", text)
    text = re.sub(r"\s*\|\s*", ", ", text.strip("|\n "))
    for _ in range(2):  # nested: **_both_**
        text = _EMPHASIS.sub(r"\2", text)
    return _EMOJI.sub("", text)


def _host(host: str) -> str:
    """A link is said as its site: "https://www.example.com/a?b" -> "example dot com"."""
    host = re.sub(r"^www\.", "", host.lower()).rstrip(".")
    return f" {_SAY['.']} ".join(host.split("."))


def _join_lines(text: str) -> str:
    """Each line (a list item, a heading) becomes its own sentence."""
    lines = [ln.strip().strip(",") for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    out = []
    for i, line in enumerate(lines):
        if i < len(lines) - 1 and not re.search(r"[.!?:;,]$", line):
            line += "."
        out.append(line)
    return " ".join(out)


# --- abbreviations and symbols -----------------------------------------------------------------

def _symbols(text: str) -> str:
    text = abbreviations.said(text)
    text = re.sub(r"(?<=\d)\s*([+×÷=^])\s*(?=[-\d])", lambda m: f" {_SAY[m.group(1)]} ", text)
    text = re.sub(r"(?<=\d) [*x/-] (?=\d)", lambda m: f" {_SAY[m.group(0).strip()]} ", text)
    text = re.sub(r"(?<=\d)x\b", f" {_SAY['x']}", text)
    for sign in "&→":
        text = text.replace(sign, f" {_SAY[sign]} ")
    return text.replace("—", f"{_SAY['—']} ")


# --- numbers ------------------------------------------------------------------------------------

_UNITS = _LEX.names("written_units")
"""Units as written after a number (case matters for one-letter units: "5 g" is grams, "5G"
a network; "2 W" is watts), and their names."""
_UNIT_RE = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_CURRENCY = {sign: [str(w) for w in row] for sign, row in _LEX.table("currencies").items()}
"""Currency sign -> (its unit, its hundredth)."""
_SCALE_WORDS = "|".join(w for w, v in _LEX.values("scales").items() if v >= 1000)
_YEAR_CUES = _LEX.words("year_cues")
_FRACTIONS = {round(1 / size): name for name, size in _LEX.values("fractions").items()}
"""Denominator -> the name of one such part (2: "half")."""
_ORDINAL_SUFFIX = "|".join(_LEX.phrases("ordinal_suffixes"))

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_HALVES = "|".join(r"\.?\s?".join(half) for half in sorted(set(_LEX.names("meridiem").values())))
_AMPM = rf"\s*({_HALVES})\b(?:\.(?=\s*[a-z,;]))?"
"""am, p.m., PM; a final "." is kept when it ends the sentence."""
_TIME = re.compile(rf"\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:{_AMPM})?", re.I)
_HOUR_AMPM = re.compile(rf"\b(1[0-2]|0?[1-9]){_AMPM}", re.I)
_PHONE = re.compile(r"\+\d{1,3}(?:[\s-]\d{2,4}){2,5}\b"
                    r"|(?<![\d,.])\d{3}[-.]\d{3,4}(?:[-.]\d{4})?(?![\d,]|\.\d)")
_DECADE = re.compile(r"(?:\b(1[1-9]|20)|')([1-9])0s\b")
_MONEY = re.compile(rf"([{''.join(map(re.escape, _CURRENCY))}])\s?({_NUMBER})"
                    rf"(?:\s?({_SCALE_WORDS})\b)?", re.I)
_FRACTION = re.compile(rf"(?<![\d/])([1-9])/([{''.join(map(str, _FRACTIONS))}])(?![\d/])")
_ORDINAL = re.compile(rf"\b(\d+)(?:{_ORDINAL_SUFFIX})\b", re.I)
_RANGE = re.compile(rf"(?<![\d.,])({_NUMBER})\s?[–-]\s?(?=\d)")
_QUANTITY = re.compile(rf"(?<![\w.,])([-−]?)({_NUMBER})(?:\s?({_UNIT_RE})(?![\w°%]))?")


def _half(said: str) -> str:
    """"a.m", "P M" -> "am", "pm" (ClockTime's values)."""
    return re.sub(r"\W", "", said).lower()


def _time(m: re.Match[str]) -> str:
    hour, minute = int(m.group(1)), int(m.group(2))
    half = _half(m.group(3)) if m.group(3) else ""
    if not half and (hour == 0 or hour > 12):  # 24-hour clock: said as 12-hour, "19:45" ->
        half, hour = ("am", 12) if hour == 0 else ("pm", hour - 12)  # "seven forty-five PM"
    if half and hour == 0:
        hour = 12
    words = cardinal(hour)
    if minute == 0:
        words += "" if half else " " + _PARTS["o'clock"]
    elif minute < 10:
        words += f" {_PARTS['nought']} {cardinal(minute)}"
    else:
        words += " " + cardinal(minute)
    return words + (f" {half.upper()}" if half else "")


def _phone(m: re.Match[str]) -> str:
    groups = ", ".join(digits(g) for g in re.findall(r"\d+", m.group(0)))
    return (f"{_SAY['+']} " if m.group(0).startswith("+") else "") + groups


def _decade(m: re.Match[str]) -> str:
    """1990s -> "nineteen nineties", '80s -> "eighties" (a bare "30s" is thirty seconds)."""
    century, tens = m.group(1), int(m.group(2))
    return plural(year(int(century) * 100 + tens * 10) if century else cardinal(tens * 10))


def _money(m: re.Match[str]) -> str:
    one, cent = _CURRENCY[m.group(1)]
    many, cents = plural(one), plural(cent)
    amount, scale = m.group(2).replace(",", ""), m.group(3)
    if scale:
        return f"{decimal(amount)} {scale.lower()} {many}"
    whole, _, frac = amount.partition(".")
    n = int(frac[:2].ljust(2, "0")) if frac else 0
    words = f"{cardinal(int(whole))} {one if whole == '1' else many}"
    change = f"{cardinal(n)} {cent if n == 1 else cents}"
    if int(whole) == 0 and n:
        return change
    return f"{words} {_PARTS['and']} {change}" if n else words


def _fraction(m: re.Match[str]) -> str:
    n, d = int(m.group(1)), int(m.group(2))
    if n >= d:
        return m.group(0)
    name = _FRACTIONS[d]
    return f"{cardinal(n)} {name if n == 1 else plural(name)}"


def _quantity(m: re.Match[str], text: str) -> str:
    sign, number, unit = m.group(1), m.group(2), m.group(3)
    plain = number.replace(",", "")
    before = text[: m.start()].split()
    if (not sign and not unit and "," not in number and re.fullmatch(r"1[1-9]\d\d|20\d\d", plain)
            and before and before[-1].lower().strip("(,") in _YEAR_CUES):
        return year(int(plain))
    if len(plain) > 1 and plain.startswith("0") and "." not in plain:
        words = digits(plain)
    else:
        words = decimal(plain)
    if sign:
        words = f"{_SAY['-']} {words}"
    if unit:
        name = _UNITS[unit]
        words += " " + (name if plain == "1" else plural_phrase(name))
    if text[m.end():m.end() + 1].isalpha():  # "5G", "3D": keep the letters a word apart
        words += " "
    return words


def _numbers(text: str) -> str:
    text = _TIME.sub(_time, text)
    text = _HOUR_AMPM.sub(lambda m: f"{cardinal(int(m.group(1)))} {_half(m.group(2)).upper()}",
                          text)
    text = _PHONE.sub(_phone, text)
    text = _DECADE.sub(_decade, text)
    text = _MONEY.sub(_money, text)
    text = _FRACTION.sub(_fraction, text)
    text = _ORDINAL.sub(lambda m: ordinal(int(m.group(1))), text)
    text = _RANGE.sub(rf"\1 {_PARTS['range']} ", text)
    return _QUANTITY.sub(lambda m: _quantity(m, text), text)


# --- the whole pipeline -------------------------------------------------------------------------


def speakable(text: str) -> str:
    """`text` as a voice should read it: no markup, links or symbols; numbers in words."""
    text = _markdown_to_text(text)
    text = _join_lines(text)
    text = _symbols(text)
    text = _numbers(text)
    text = _LEFTOVER.sub(" ", text)
    text = re.sub(r"\s+([,.!?;:])", r"\1", text)
    text = re.sub(r"([,.!?;:])\1+", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()
