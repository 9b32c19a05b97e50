"""Real people's requests (SLURP's devel split, ../shared/requests/): what each should get,
a seeded sample stratified over scenarios, and the judgement of one turn.

What an intent should get is data (slurp.toml: act with a tool, refuse, or answer in words);
the entities of the annotation ("[time : seven am]", "[list_name : shopping]") are what
must reach the call. The judgement reads what the turn did from `Observed` only.
"""

from __future__ import annotations

import json
import random
import re
import tomllib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from voiceagent.bench.cases import Setup
from voiceagent.bench.claims import sentences, unbacked
from voiceagent.bench.grounding import invented_values, ungrounded
from voiceagent.bench.judge import DESTRUCTIVE
from voiceagent.bench.leaks import error_aloud
from voiceagent.bench.matching import matches, normal
from voiceagent.bench.observed import Call, Observed
from voiceagent.bench.phrases import beside_refusals, refuses
from voiceagent.errors import ToolError, VoiceAgentError
from voiceagent.language.lexicon import tokens
from voiceagent.tools.clock import WEEKDAYS, days_ahead
from voiceagent.tools.words import parse_clock_time, parse_duration

INTENTS = Path(__file__).with_name("slurp.toml")
"""What each SLURP intent should get (package data)."""
KINDS = ("act", "refuse", "answer", "either")
_ENTITY = re.compile(r"\[\s*([\w]+)\s*:\s*([^\]]*?)\s*\]")
GENERAL_CONTENT_WORDS = 6
"""A general answer with fewer words than this beside its refusal sentences is a refusal."""


@dataclass(frozen=True)
class Request:
    """One SLURP request."""

    id: int
    sentence: str
    intent: str
    entities: tuple[tuple[str, str], ...] = ()
    """(type, value) of each bracketed entity of the annotation."""

    @property
    def scenario(self) -> str:
        return self.intent.split("_", 1)[0]


@dataclass(frozen=True)
class Expectation:
    """What one intent should get (see slurp.toml)."""

    expect: str
    tools: tuple[str, ...] = ()
    entities: dict[str, str] = field(default_factory=dict)
    setup: tuple[Setup, ...] = ()
    ask_ok: bool = False
    ask_unless: tuple[str, ...] = ("time",)


@dataclass(frozen=True)
class Words:
    """The [words] table: what need not reach the call."""

    ignore: frozenset[str] = frozenset()
    implied: frozenset[str] = frozenset()
    equivalent: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Judged:
    """The judgement of one request."""

    request: Request
    expect: str
    observed: Observed
    problems: tuple[tuple[str, str], ...]
    """(failure class, detail) of every failed check."""
    asked_back: bool = False
    """Answered with a question and nothing written (allowed where slurp.toml says)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def has(self, tag: str) -> bool:
        return any(t == tag for t, _ in self.problems)


def load_requests(path: Path) -> list[Request]:
    """The JSON lines of a SLURP-format file; a bad line names its number."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            entities = tuple((t.lower(), v.lower()) for t, v in
                             _ENTITY.findall(row.get("annotation", "")))
            out.append(Request(int(row["id"]), str(row["sentence"]), str(row["intent"]),
                               entities))
        except (ValueError, KeyError, TypeError) as exc:
            raise VoiceAgentError(f"{path}:{n}: not a SLURP request line ({exc}); each line "
                                  "needs id, sentence, intent and annotation") from None
    return out


def load_expectations(path: Path = INTENTS) -> tuple[dict[str, Expectation], Words,
                                                     dict[str, Expectation]]:
    """(per intent, the words table, per scenario) from slurp.toml."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    words = data.get("words", {})
    scenarios: dict[str, dict[str, Any]] = data.get("scenario", {})
    intents: dict[str, dict[str, Any]] = data.get("intent", {})

    def build(raw: dict[str, Any], where: str) -> Expectation:
        if raw.get("expect") not in KINDS:
            raise VoiceAgentError(f"{path}: {where}: expect must be one of {', '.join(KINDS)}")
        entities = dict(raw.get("entities", {}))
        return Expectation(
            expect=raw["expect"], tools=tuple(raw.get("tools", ())), entities=entities,
            setup=tuple(Setup(s["tool"], dict(s.get("args", {}))) for s in raw.get("setup", ())),
            ask_ok=bool(raw.get("ask_ok", False)),
            ask_unless=tuple(raw.get("ask_unless", ("time",))))

    per_intent = {name: build(scenarios.get(name.split("_", 1)[0], {}) | raw, f"intent.{name}")
                  for name, raw in intents.items()}
    per_scenario = {name: build(raw, f"scenario.{name}") for name, raw in scenarios.items()}
    table = Words(frozenset(words.get("ignore", ())), frozenset(words.get("implied", ())),
                  {k: tuple(v) for k, v in words.get("equivalent", {}).items()})
    return per_intent, table, per_scenario


def expectation_for(intent: str, per_intent: dict[str, Expectation],
                    per_scenario: dict[str, Expectation]) -> Expectation:
    """The intent's own entry, else its scenario's; an intent with neither names the file."""
    found = per_intent.get(intent) or per_scenario.get(intent.split("_", 1)[0])
    if found is None:
        raise VoiceAgentError(f"{INTENTS}: no [intent.{intent}] or [scenario."
                              f"{intent.split('_', 1)[0]}]: say what it should get")
    return found


def sample(requests: Sequence[Request], limit: int = 0, seed: int = 0) -> list[Request]:
    """`limit` requests (0: all), the same share from each scenario where it has enough,
    spread over its intents; ordered so any first part of the run samples every scenario."""
    rng = random.Random(seed)
    groups: dict[str, dict[str, list[Request]]] = defaultdict(lambda: defaultdict(list))
    for r in requests:
        groups[r.scenario][r.intent].append(r)
    spread: dict[str, list[Request]] = {}
    for scenario in sorted(groups):
        queues = [rng.sample(q, len(q)) for _, q in sorted(groups[scenario].items())]
        rng.shuffle(queues)
        order: list[Request] = []
        while any(queues):
            order += [q.pop() for q in queues if q]
        spread[scenario] = order
    total = sum(len(v) for v in spread.values())
    want = min(limit or total, total)
    quota = dict.fromkeys(spread, 0)
    while sum(quota.values()) < want:  # one more from each scenario that has one, in turn
        for s in sorted(spread, key=lambda s: quota[s]):
            if quota[s] < len(spread[s]) and sum(quota.values()) < want:
                quota[s] += 1
    picked = {s: spread[s][:quota[s]] for s in spread}
    out: list[Request] = []
    while any(picked.values()):
        out += [picked[s].pop(0) for s in sorted(picked) if picked[s]]
    return out


# --- judging ----------------------------------------------------------------------------------


def _arg_strings(calls: Sequence[Call]) -> list[str]:
    return [str(v) for c in calls for v in c.args.values() if v not in (None, "")]


def _said_in(value: str, calls: Sequence[Call], words: Words, text: str = "") -> bool:
    """Every word of `value` that matters is in some argument (or an equivalent is), or in
    `text` when given."""
    text = text or " ".join(_arg_strings(calls))
    have = set(tokens(normal(text)))
    missing = [w for w in ungrounded(value, text) if w not in words.ignore]
    return all(any(e in have for e in words.equivalent.get(w, ())) for w in missing)


def _clock(text: str) -> tuple[int, int] | None:
    try:
        h, m, _ = parse_clock_time(text)
    except ToolError:
        return None
    return h % 12, m


def _new_entries(seen: Observed, kind: str = "") -> list[Any]:
    """Timers and alarms due after the turn began (those a request without setup made)."""
    return [p for p in seen.pending if p.due >= seen.at and (not kind or p.kind == kind)]


def _time_reaches(value: str, calls: Sequence[Call], seen: Observed, words: Words) -> bool:
    """A clock time in an argument or on the alarm made; a length of time on the timer (or
    alarm) made; else its words in an argument."""
    clock = _clock(value)
    if clock is not None:
        if any(matches("time", value, a) for a in _arg_strings(calls)):
            return True
        for entry in _new_entries(seen, "alarm"):
            at = datetime.fromtimestamp(entry.due)
            if (at.hour % 12, at.minute) == clock:
                return True
    else:
        try:
            seconds = parse_duration(re.sub(r"\bfrom now\b", "", value))
        except ToolError:
            seconds = None
        if seconds is not None and any(abs(p.due - seen.at - seconds) < 120
                                       for p in _new_entries(seen)):
            return True
    return _said_in(value, calls, words)


def _day_reaches(value: str, calls: Sequence[Call], seen: Observed, words: Words) -> bool:
    """Its words reach the call, and an alarm made falls on that day (where it names one)."""
    if not _said_in(value, calls, words):
        return False
    alarms = _new_entries(seen, "alarm")
    if not alarms:
        return True
    start = datetime.fromtimestamp(seen.at)
    named = [d for d in WEEKDAYS if d in tokens(value)]
    if named:
        return any(WEEKDAYS[datetime.fromtimestamp(a.due).weekday()] in named for a in alarms)
    offset = days_ahead(value, start)
    if offset is None:
        return True
    return any((datetime.fromtimestamp(a.due).date() - start.date()).days == offset
               for a in alarms)


def reaches(kind: str, value: str, calls: Sequence[Call], seen: Observed,
            words: Words) -> bool:
    """The entity `value` (checked as `kind`, see slurp.toml) reached `calls`."""
    if value in words.implied:
        return True
    if kind == "list":
        return any(matches("list_name", value, c.args.get("list_name")) for c in calls)
    if kind == "time":
        return _time_reaches(value, calls, seen, words)
    if kind == "day":
        return _day_reaches(value, calls, seen, words)
    if kind == "answered":
        return _said_in(value, calls, words) and _said_in(value, calls, words, seen.answer)
    return _said_in(value, calls, words)


def refused_general(answer: str) -> bool:
    """A refusal with next to nothing else: a general question left unanswered."""
    if not answer.strip():
        return True
    if not refuses(answer):
        return False
    return sum(len(beside_refusals(s)) for s in sentences(answer)) < GENERAL_CONTENT_WORDS


def setup_words(exp: Expectation) -> str:
    return " ".join(str(v) for step in exp.setup for v in step.args.values())


def judge_request(req: Request, exp: Expectation, seen: Observed, words: Words) -> Judged:
    """Every check of `exp` on what the turn did with `req`."""
    problems: list[tuple[str, str]] = []
    said = f"{req.sentence} {setup_words(exp)}"
    good = [c for c in seen.calls if not c.error]
    writes = [c for c in good if c.writes]
    served = [c for c in good if c.name in exp.tools]
    types = {t for t, _ in req.entities}
    asked_back = (not writes and exp.ask_ok and not types & set(exp.ask_unless)
                  and seen.answer.rstrip().endswith("?"))
    acting = exp.expect == "act" or (exp.expect == "refuse" and bool(served))
    if acting:
        if not served and not asked_back:
            failed = [c.name for c in seen.calls if c.name in exp.tools]
            if failed:
                problems.append(("tool failed", f"{failed[0]} ran with an error"))
            elif seen.calls:
                problems.append(("wrong tool", f"wanted {'|'.join(exp.tools)}, called "
                                               f"{[c.name for c in seen.calls]}"))
            else:
                problems.append(("no tool", f"wanted {'|'.join(exp.tools)}"))
        for kind_of, value in req.entities:
            check = exp.entities.get(kind_of)
            if served and check and not reaches(check, value, served, seen, words):
                problems.append(("dropped", f"{kind_of}={value!r}"))
        other = [c.name for c in writes if c.name not in exp.tools]
        if other:
            problems.append(("other write", f"{other}"))
    elif writes:
        tag = "write on unserved" if exp.expect == "refuse" else "write on a question"
        problems.append((tag, f"{[c.name for c in writes]}"))
    elif exp.expect == "refuse" and not refuses(seen.answer) and not asked_back:
        problems.append(("no honest refusal", seen.answer[:80]))
    elif exp.expect == "answer" and refused_general(seen.answer):
        problems.append(("general refused", seen.answer[:80]))
    elif exp.expect == "either" and not seen.answer.strip():
        problems.append(("no answer", ""))
    forbidden = [c.name for c in good if c.name in DESTRUCTIVE and c.name not in exp.tools]
    if forbidden:
        problems.append(("destroyed", f"{forbidden}"))
    problems += [("invented", v) for v in invented_values(said, seen)]
    leak = error_aloud(seen.answer, seen.calls)
    if leak:
        problems.append(("error aloud", leak))
    problems += [("unbacked claim", c) for c in unbacked(
        seen.answer, said=said, calls=seen.calls, asked_action=exp.expect != "answer")]
    if seen.stop != "done":
        problems.append(("turn ended", seen.stop))
    return Judged(req, exp.expect, seen, tuple(problems), asked_back)
