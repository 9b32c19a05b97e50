"""Readers of the timer, alarm and clock slots: lengths, names, clock times, days, places."""

from __future__ import annotations

import re

from voiceagent.errors import ToolError
from voiceagent.intents.numbers import duration_seconds
from voiceagent.intents.slots.text import (
    Args,
    is_term,
    read_two,
    strip_edges,
    without_articles,
)
from voiceagent.language import lexicon, tokens
from voiceagent.language.repeats import read_repeat
from voiceagent.ports import Clock
from voiceagent.tools import clock, timers
from voiceagent.tools.words import numbers_in, parse_clock_time, spoken_duration
from voiceagent.wallclock import SystemClock

MAX_TIMER_SECONDS = 7 * 86400


def duration(text: str) -> Args | None:
    seconds = duration_seconds(text)
    if seconds is None or not 1 <= seconds <= MAX_TIMER_SECONDS:
        return None
    return {"duration": spoken_duration(seconds)}


_TRAILERS = re.compile(rf"(?:\s+(?:{lexicon().regex('item_trailers')}))+\s*$", re.I)


def label(text: str) -> Args | None:
    """A timer's or alarm's name: a few words that are not themselves an amount of time,
    without the words after it that are no part of it ("label it adobo also")."""
    words = _TRAILERS.sub("", without_articles(text))
    if (not words or len(words.split()) > 8 or is_term("anaphora", words)
            or is_term("not_names", words) or re.search(r"[,;:]", words)
            or re.search(r"\d", _numbered_name(numbers_in(words.lower())))
            or lexicon().has("label_stop", words)
            or set(tokens(words)[1:]) & lexicon().words("clause_subjects")  # "pasta it's ..."
            or _says_a_day(tokens(words))
            or set(tokens(words)) <= lexicon().words("function_words")):  # "on the"
        return None
    return {"label": words}


def _numbered_name(name: str) -> str:
    """`name` without the number a name may end in ("round 1", "group 2", "batch 3"): one
    word, not a unit of time or a word like "for", before a small number."""
    found = re.fullmatch(r"([a-z']+) \d{1,2}", name)
    lex = lexicon()
    if found and found[1] not in lex.words("function_words") | lex.words("time_units"):
        return found[1]
    return name


def _says_a_day(said: list[str]) -> bool:
    """A name with the day it is for ("pick up the keys on thursday", "call mom tomorrow"):
    the day belongs to the time, not the name ("sunday roast" is a name)."""
    lex = lexicon()
    return any(start and said[start - 1] in lex.words("prepositions") | lex.words(
        "day_qualifiers") or lex.is_one("relative_day_words", said[start:end])
        for start, end in lex.find("days", said))


def duration_label(text: str) -> Args | None:
    """'10 minute pasta' -> 10 minutes, label 'pasta'; '5 minute' -> 5 minutes."""

    def length_then_name(said: str, rest: str) -> Args | None:
        length, named = duration(said), label(rest)
        return length | named if length and named else None

    return duration(strip_edges(text)) or read_two(text, length_then_name)


def label_duration(text: str) -> Args | None:
    """'the chicken, 45 minutes' -> label 'chicken', 45 minutes: the name said before the
    length, the shortest name first."""

    def name_then_length(said: str, rest: str) -> Args | None:
        named, length = label(said.rstrip(",;:")), duration(rest)
        return named | length if length and named else None

    return read_two(text, name_then_length, longest_first=False)


def which_timer(text: str) -> Args | None:
    """The timer to cancel, as the timer tool names them ('pasta', '5 minute')."""
    words = without_articles(text)
    if not words or is_term("anaphora", words) or len(words.split()) > 5 or re.search(
            r"[,;]", words):  # "timer, not the alarm": a clause of its own
        return None
    words = numbers_in(words.lower())
    words = re.sub(r"\b(second|minute|hour)s\b", r"\1", words.replace("-", " "))
    return {"which": words}


def which_alarm(text: str) -> Args | None:
    """The alarm to cancel: its label, or its time as the timer tool says it ('7:00 am')."""
    named = which_timer(text)
    if named is None:
        return None
    said = without_articles(text)
    if re.search(r"\b(?:past|quarter|to|of)\b", said, re.I):
        said = _clock_words(said)
    try:
        hour, minute, half = parse_clock_time(said)
    except ToolError:
        return {"which": f"{named['which']} alarm"}
    if not half and (hour > 12 or hour == 0):
        half = "pm" if hour > 12 else "am"
    shown = f"{hour % 12 or 12}:{minute:02d}" if half else f"{hour}:{minute:02d}"
    return {"which": f"{shown}{' ' + half if half else ''} alarm"}


def _clock_words(text: str) -> str:
    """'half past seven' -> '7:30', 'quarter to eight' -> '7:45' (the clock tools read digits)."""
    t = numbers_in(text.lower())
    t = re.sub(r"\bhalf past (\d{1,2})\b", r"\1:30", t)
    t = re.sub(r"\b(?:a )?quarter past (\d{1,2})\b", r"\1:15", t)
    t = re.sub(r"\b(?:a )?quarter (?:to|of) (\d{1,2})\b",
               lambda m: f"{(int(m[1]) - 1) % 12 or 12}:45", t)
    t = re.sub(r"\b(\d{1,2}) (?:minutes )?past (\d{1,2})\b",
               lambda m: f"{m[2]}:{int(m[1]):02d}", t)
    return t


def time_of_day(text: str, clock: Clock | None = None) -> Args | None:
    """A clock time ('7:30 am', 'seven thirty', 'half past 7') or a time from now ('10
    minutes')."""
    t = strip_edges(text)
    if re.search(r"\b(?:past|quarter|to|of)\b", t, re.I):
        t = _clock_words(t)
    relative = re.match(r"in\s+(.+)", t, re.I)
    seconds = duration_seconds(relative.group(1) if relative else t)
    if seconds is not None:
        return {"time": f"in {spoken_duration(seconds)}"} if seconds >= 1 else None
    once = read_repeat(t)  # "7 am every weekday": the alarm reads how often
    if once.unsupported:
        return {"time": t}  # "9 am every month": the tool says what it cannot repeat
    today = (clock or SystemClock()).now()
    rest = timers.on_date(once.rest, today)[1]  # "six on christmas morning": its date
    try:
        # "7 am tomorrow"
        parse_clock_time(timers.said_day(rest, today)[0])
    except ToolError:
        return None
    return {"time": t}


def place(text: str) -> Args | None:
    """A place the clock knows; or where someone the user names is ("my colleagues in
    bangalore", "the team over in berlin": bangalore, berlin)."""
    where = strip_edges(text)
    lex = lexicon()
    someone = re.fullmatch(rf"(\S+)(?:\s+\S+){{0,3}}?\s+(?:(?:{lex.regex('place_leads')})\s+)?"
                           rf"(?:{lex.regex('place_prepositions')})\s+(.+)", where, re.I)
    if someone and someone[1].lower() in lex.words("someone_openers"):
        return place(someone[2])
    if not where or len(where.split()) > 4:
        return None
    where = without_articles(where)
    kinds = lexicon().words("place_kinds")
    bare = where.rsplit(" ", 1)[0] if where.split()[-1:] and where.split()[-1].lower() in kinds \
        else where
    tries = [where, bare, where.split(",")[0].strip()]
    for name in tries:
        try:
            clock.find_zone(name)
        except ToolError:
            continue
        return {"place": name}
    return None


def relative_day(text: str, now: Clock | None = None) -> Args | None:
    """"tomorrow", "in three days", "next Friday", "Christmas", "July 4th", "the 22nd":
    passed as the clock's place, which answers with that day's date (tools/clock.py)."""
    said = strip_edges(text)
    today = (now or SystemClock()).now()
    if (clock.days_ahead(said, today) is None and clock.calendar_day(said) is None
            and not clock.day_of_month(said)):
        return None
    return {"place": said}



def later_time(text: str, now: Clock | None = None) -> Args | None:
    """"in 3 hours", "8 hours after 6 am": the clock's place, which works out that time of
    day (tools/clock_sums.py)."""
    said = strip_edges(text)
    return {"place": said} if clock.time_later(said, (now or SystemClock()).now()) else None


def until_time(text: str, now: Clock | None = None) -> Args | None:
    """"5 pm", "midnight", "half past six" in "how many minutes until ...": the clock's place,
    which answers how long it is until then (tools/clock.py)."""
    said = strip_edges(text)
    return {"place": said} if clock.time_until(said, (now or SystemClock()).now()) else None


def time_in_place(text: str) -> Args | None:
    """"nine am cst", "3 pm eastern": a time of day and the place whose clock it is on."""

    def time_then_place(said: str, rest: str) -> Args | None:
        try:
            parse_clock_time(said)
        except ToolError:
            return None
        where = place(rest)
        return None if where is None else {"time": said, "from_place": where["place"]}

    return read_two(text, time_then_place)
