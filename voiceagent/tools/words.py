"""Spoken numbers and durations as text: "twenty five" -> "25", "an hour and a half" -> 5400 s.

Speech recognition writes numbers either way, and small models pass the user's words through,
so the tools accept both.
"""

from __future__ import annotations

import re

from voiceagent.errors import ToolError
from voiceagent.speech.numbers import ONES, TENS
from voiceagent.speech.numbers import SCALES as _BIG

SMALL = {w: i for i, w in enumerate(ONES)} | {w: 10 * i for i, w in enumerate(TENS) if i >= 2}
SCALES = {"hundred": 100, **_BIG}
_WORD = "|".join(sorted([*SMALL, *SCALES], key=len, reverse=True))
_RUN = re.compile(rf"\b(?:{_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_WORD}))*\b", re.I)


def _value(words: list[str]) -> int:
    total = current = 0
    for w in words:
        if w in SMALL:
            last, value = current % 100, SMALL[w]
            if last == 0 or (last % 10 == 0 and last >= 20 and value < 10):
                current += value  # "one hundred five", "twenty five"
            else:
                current = current * 100 + value  # "twelve fifty", "nineteen ninety nine"
        elif w == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * SCALES[w]
            current = 0
    return total + current


def numbers_in(text: str) -> str:
    """Replace runs of number words with digits; "point" joins decimals ("two point five")."""

    def run(match: re.Match[str]) -> str:
        words = [w for w in re.split(r"[\s-]+", match.group(0).lower()) if w != "and"]
        return str(_value(words))

    text = _RUN.sub(run, text)
    return re.sub(r"(\d+) point (\d+)", r"\1.\2", text)


_SECONDS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60,
            "h": 3600, "hr": 3600, "hour": 3600, "d": 86400, "day": 86400}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b")


def parse_duration(text: str) -> float:
    """Seconds in "5 minutes", "five minutes", "1 hour 30 minutes", "half an hour", "90 s".

    A bare number means minutes ("set a timer for 5").
    """
    t = numbers_in(text.lower().replace(",", " "))
    t = re.sub(r"\b(?:an?|one)\s+(\w+)\s+and\s+a\s+half\b", r"1.5 \1", t)
    t = re.sub(r"\b(\d+)\s+and\s+a\s+half\s+(\w+)", r"\1.5 \2", t)
    t = re.sub(r"\b(\d+)\s+(\w+?)s?\s+and\s+a\s+half\b", r"\1.5 \2", t)
    t = re.sub(r"\b(?:a\s+)?quarter\s+of\s+an?\s+hour\b", "15 minutes", t)
    t = re.sub(r"\bhalf\s+an?\s+", "0.5 ", t)
    t = re.sub(r"\b(?:an?|one)\s+(?=sec|min|hour|hr|day)", "1 ", t)
    parts = _PART.findall(t)
    if parts:
        return sum(float(n) * _SECONDS[_unit(u)] for n, u in parts)
    bare = re.fullmatch(r"\s*(?:for\s+|in\s+)?(\d+(?:\.\d+)?)\s*", t)
    if bare:
        return float(bare.group(1)) * 60
    raise ToolError(f"I could not read {text!r} as a length of time. "
                    "Say it like '5 minutes', '90 seconds' or '1 hour 30 minutes'.")


def _unit(word: str) -> str:
    for key in ("sec", "min", "hour", "hr", "day"):
        if word.startswith(key):
            return key if key != "sec" else "second"
    return word.rstrip("s") or "s"


def spoken_duration(seconds: float) -> str:
    """5400 -> '1 hour 30 minutes'; 90 -> '1 minute 30 seconds'."""
    seconds = round(seconds)
    parts = []
    for name, size in (("hour", 3600), ("minute", 60), ("second", 1)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n} {name}{'s' if n != 1 else ''}")
    return " ".join(parts) or "0 seconds"


def parse_clock_time(text: str) -> tuple[int, int, str | None]:
    """(hour, minute, 'am'|'pm'|None) from "7:30", "7:30 pm", "at 7", "seven thirty", "noon"."""
    t = text.lower().strip()
    t = re.sub(r"\b(?:a\.m\.?|am)(?!\w)", " am", t)
    t = re.sub(r"\b(?:p\.m\.?|pm)(?!\w)", " pm", t)
    t = re.sub(r"\b(?:at|for|o'?clock|oclock|in the)\b", " ", t)
    t = t.replace("morning", "am").replace("evening", "pm").replace("afternoon", "pm")
    t = t.replace("tonight", "pm").replace("night", "pm")
    if re.fullmatch(r"\s*noon\s*", t):
        return 12, 0, None
    if re.fullmatch(r"\s*midnight\s*", t):
        return 0, 0, None
    half_word = re.search(r"\b(am|pm)\b", t)
    words = [w for w in re.split(r"[\s-]+", re.sub(r"\b(am|pm)\b", " ", t)) if w]
    if words and words[0] in SMALL and not re.search(r"\d", t):
        # "seven thirty", "seven oh five pm": an hour word, then the minute words
        minutes = numbers_in(" ".join(w for w in words[1:] if w != "oh")) or "0"
        if not minutes.isdigit():
            minutes = "99"  # not a time: rejected below with the instructive message
        t = f"{SMALL[words[0]]}:{int(minutes):02d}"
    else:
        t = numbers_in(" ".join(words))
    t += f" {half_word.group(1)}" if half_word else ""
    match = re.fullmatch(r"\s*(\d{1,2})(?:[:.h ](\d{2}))?\s*(am|pm)?\s*", t)
    if not match:
        raise ToolError(f"I could not read {text!r} as a time of day. "
                        "Say it like '7:30', '7:30 pm' or '19:45'.")
    hour, minute, half = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if hour > 23 or minute > 59 or (half and not 1 <= hour <= 12):
        raise ToolError(f"{text!r} is not a valid time of day. Say it like '7:30 pm' or '19:45'.")
    return hour, minute, half


def capitalised(text: str) -> str:
    """Spoken results start with a capital: 'Cheese was not on it.', 'Tomorrow is ...'."""
    return text[:1].upper() + text[1:]
