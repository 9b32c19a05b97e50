"""Text made for speaking: markdown, code and links removed; numbers said as a person would.

Models write for screens ("**Note:** it's 7:30 and 45% done, see https://x.org"); a voice
reading that aloud says "asterisk asterisk" and spells the link. The voice's own front end
reads plain digits, but times, percentages, money, units and ordinals come out better when
written as words here, and the result stays the same when passed through again.
"""

from __future__ import annotations

import re

from voiceagent.speech.numbers import cardinal, decimal, digits, ordinal, year

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
    text = _EMAIL.sub(lambda m: f"{m.group(1)} at {_host(m.group(2))}", text)
    for pattern in (_TABLE_RULE, _RULE, _HEADING, _QUOTE, _BULLET):
        text = pattern.sub("", text)
    text = re.sub(r"\s*\|\s*", ", ", text.strip("|\n "))
    for _ in range(2):  # nested: **_both_**
        text = _EMPHASIS.sub(r"\2", text)
    return _EMOJI.sub("", text)


def _host(host: str) -> str:
    """A link is said as its site: "https://www.example.com/a?b" -> "example dot com"."""
    host = re.sub(r"^www\.", "", host.lower()).rstrip(".")
    return " dot ".join(host.split("."))


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

_ABBREVIATIONS = [
    (r"\be\.\s?g\.,?", "for example,"),
    (r"\bi\.\s?e\.,?", "that is,"),
    (r"\betc\.", "et cetera."),
    (r"\bvs\.?(?=\s)", "versus"),
    (r"\bapprox\.", "approximately"),
    (r"\bDr\.(?=\s+[A-Z])", "Doctor"),
    (r"\bMr\.", "Mister"),
    (r"\bMrs\.", "Missus"),
    (r"\bMs\.", "Miz"),
    (r"\bNo\.(?=\s*\d)", "number"),
    (r"\bmins?\.(?=\s)", "minutes"),
]


def _symbols(text: str) -> str:
    for pattern, spoken in _ABBREVIATIONS:
        text = re.sub(pattern, spoken, text, flags=re.I if pattern[2].islower() else 0)
    text = re.sub(r"(?<=\d)\s*([+×÷=^])\s*(?=[-\d])", lambda m: f" {_OPERATORS[m.group(1)]} ",
                  text)
    text = re.sub(r"(?<=\d) [*x/-] (?=\d)", lambda m: f" {_OPERATORS[m.group(0).strip()]} ", text)
    text = re.sub(r"(?<=\d)x\b", " times", text)
    text = text.replace("&", " and ").replace("→", " to ").replace("—", ", ")
    return text


_OPERATORS = {"+": "plus", "×": "times", "*": "times", "x": "times", "÷": "divided by",
              "/": "divided by", "=": "equals", "^": "to the power of", "-": "minus"}

# --- numbers ------------------------------------------------------------------------------------

_UNITS = {
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"),
    "km": ("kilometer", "kilometers"), "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"), "m": ("meter", "meters"), "mi": ("mile", "miles"),
    "ft": ("foot", "feet"), "kg": ("kilogram", "kilograms"), "g": ("gram", "grams"),
    "mg": ("milligram", "milligrams"), "lb": ("pound", "pounds"), "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"), "l": ("liter", "liters"), "ml": ("milliliter", "milliliters"),
    "h": ("hour", "hours"), "hr": ("hour", "hours"), "hrs": ("hour", "hours"),
    "min": ("minute", "minutes"), "mins": ("minute", "minutes"), "s": ("second", "seconds"),
    "sec": ("second", "seconds"), "secs": ("second", "seconds"),
    "ms": ("millisecond", "milliseconds"), "kb": ("kilobyte", "kilobytes"),
    "mb": ("megabyte", "megabytes"), "gb": ("gigabyte", "gigabytes"),
    "tb": ("terabyte", "terabytes"), "hz": ("hertz", "hertz"), "khz": ("kilohertz", "kilohertz"),
    "mhz": ("megahertz", "megahertz"), "ghz": ("gigahertz", "gigahertz"),
    "w": ("watt", "watts"), "kw": ("kilowatt", "kilowatts"), "kwh": ("kilowatt hour",
                                                                    "kilowatt hours"),
    "v": ("volt", "volts"), "°c": ("degree Celsius", "degrees Celsius"),
    "°f": ("degree Fahrenheit", "degrees Fahrenheit"), "°": ("degree", "degrees"),
    "%": ("percent", "percent"),
}
_UNIT_SPELLINGS = {
    **{u: u for u in _UNITS if len(u) > 1 or u in "mgsh%°"},
    **{u.upper(): u for u in ("kb", "mb", "gb", "tb", "km", "kg", "mph")},
    "Hz": "hz", "kHz": "khz", "MHz": "mhz", "GHz": "ghz", "kW": "kw", "kWh": "kwh",
    "W": "w", "V": "v", "L": "l", "mL": "ml", "°C": "°c", "°F": "°f",
}
"""Case matters for one-letter units: "5 g" is grams, "5G" is a network; "2 W" is watts."""
_UNIT_RE = "|".join(re.escape(u) for u in sorted(_UNIT_SPELLINGS, key=len, reverse=True))
_CURRENCY = {"$": ("dollar", "dollars", "cent", "cents"), "€": ("euro", "euros", "cent", "cents"),
             "£": ("pound", "pounds", "penny", "pence")}
_SCALE_WORDS = r"thousand|million|billion|trillion"
_MONTHS = ("january february march april may june july august september october november "
           "december jan feb mar apr jun jul aug sep sept oct nov dec").split()
_YEAR_CUES = ["in", "since", "from", "until", "till", "to", "through", "by", "of", "year",
              "before", "after", "around", "circa", *_MONTHS]

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_AMPM = r"\s*([ap])\.?\s?m\b(?:\.(?=\s*[a-z,;]))?"
"""am, p.m., PM; a final "." is kept when it ends the sentence."""
_TIME = re.compile(rf"\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:{_AMPM})?", re.I)
_HOUR_AMPM = re.compile(rf"\b(1[0-2]|0?[1-9]){_AMPM}", re.I)
_PHONE = re.compile(r"\+\d{1,3}(?:[\s-]\d{2,4}){2,5}\b"
                    r"|(?<![\d,.])\d{3}[-.]\d{3,4}(?:[-.]\d{4})?(?![\d,]|\.\d)")
_DECADE = re.compile(r"(?:\b(1[1-9]|20)|')([1-9])0s\b")
_MONEY = re.compile(rf"([$€£])\s?({_NUMBER})(?:\s?({_SCALE_WORDS})\b)?", re.I)
_FRACTION = re.compile(r"(?<![\d/])([1-3])/([234])(?![\d/])")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)
_RANGE = re.compile(rf"(?<![\d.,])({_NUMBER})\s?[–-]\s?(?=\d)")
_QUANTITY = re.compile(rf"(?<![\w.,])([-−]?)({_NUMBER})(?:\s?({_UNIT_RE})(?![\w°%]))?")


def _time(m: re.Match[str]) -> str:
    hour, minute, half = int(m.group(1)), int(m.group(2)), m.group(3)
    if not half and (hour == 0 or hour > 12):  # 24-hour clock: said as 12-hour, "19:45" ->
        half, hour = ("a", 12) if hour == 0 else ("p", hour - 12)  # "seven forty-five PM"
    if half and hour == 0:
        hour = 12
    words = cardinal(hour)
    if minute == 0:
        words += "" if half else " o'clock"
    elif minute < 10:
        words += " oh " + cardinal(minute)
    else:
        words += " " + cardinal(minute)
    return words + (f" {half.upper()}M" if half else "")


def _phone(m: re.Match[str]) -> str:
    groups = ", ".join(digits(g) for g in re.findall(r"\d+", m.group(0)))
    return ("plus " if m.group(0).startswith("+") else "") + groups


def _decade(m: re.Match[str]) -> str:
    """1990s -> "nineteen nineties", '80s -> "eighties" (a bare "30s" is thirty seconds)."""
    century, tens = m.group(1), int(m.group(2))
    words = year(int(century) * 100 + tens * 10) if century else cardinal(tens * 10)
    return words[:-1] + "ies"


def _money(m: re.Match[str]) -> str:
    one, many, cent, cents = _CURRENCY[m.group(1)]
    amount, scale = m.group(2).replace(",", ""), m.group(3)
    if scale:
        return f"{decimal(amount)} {scale.lower()} {many}"
    whole, _, frac = amount.partition(".")
    n = int(frac[:2].ljust(2, "0")) if frac else 0
    words = f"{cardinal(int(whole))} {one if whole == '1' else many}"
    change = f"{cardinal(n)} {cent if n == 1 else cents}"
    if int(whole) == 0 and n:
        return change
    return f"{words} and {change}" if n else words


def _fraction(m: re.Match[str]) -> str:
    n, d = int(m.group(1)), int(m.group(2))
    if n >= d:
        return m.group(0)
    name = {2: ("half", "halves"), 3: ("third", "thirds"), 4: ("quarter", "quarters")}[d]
    return f"{'one' if n == 1 else cardinal(n)} {name[0] if n == 1 else name[1]}"


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
        words = "minus " + words
    if unit:
        singular, plural = _UNITS[_UNIT_SPELLINGS[unit]]
        words += " " + (singular if plain == "1" else plural)
    if text[m.end():m.end() + 1].isalpha():  # "5G", "3D": keep the letters a word apart
        words += " "
    return words


def _numbers(text: str) -> str:
    text = _TIME.sub(_time, text)
    text = _HOUR_AMPM.sub(lambda m: f"{cardinal(int(m.group(1)))} {m.group(2).upper()}M", text)
    text = _PHONE.sub(_phone, text)
    text = _DECADE.sub(_decade, text)
    text = _MONEY.sub(_money, text)
    text = _FRACTION.sub(_fraction, text)
    text = _ORDINAL.sub(lambda m: ordinal(int(m.group(1))), text)
    text = _RANGE.sub(r"\1 to ", text)
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
