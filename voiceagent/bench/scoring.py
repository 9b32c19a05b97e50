"""Was a played request heard and answered? Slot-phrase recall of its transcript, and the
judge's verdict (bench/judge.py, the same checks `voiceagent evaluate` makes) on what the
turn did, read from the turn's events. Pure functions over plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voiceagent.agent.events import Event
from voiceagent.bench.cases import REFUSE, Case
from voiceagent.bench.clips import Clip
from voiceagent.bench.judge import judge
from voiceagent.bench.matching import normal
from voiceagent.bench.observed import Observed, calls_from_events
from voiceagent.frontends import asks_back


def slot_recall(slots: Sequence[str], transcript: str) -> tuple[int, list[str]]:
    """(how many of the slot phrases are in the transcript, the missing ones), forgiving
    case, punctuation, hyphens and numbers said as words ("twelve ounce" = "12-ounce")."""
    heard = f" {normal(transcript)} "
    missing = [s for s in slots if f" {normal(s)} " not in heard]
    return len(slots) - len(missing), missing


def observed(events: Sequence[Event]) -> Observed:
    """What one turn did, from its events: tool calls with their results, the answer."""
    answer = next((str(e.fields.get("text", "")) for e in events if e.type == "final"), "")
    stop = next((str(e.fields.get("stop", "")) for e in events if e.type == "turn_end"),
                "timeout")
    return Observed(answer=answer, calls=calls_from_events(events), stop=stop,
                    local=any(e.type == "local_command" for e in events),
                    llm_requests=sum(e.type == "request" for e in events))


def case_for(clip: Clip, transcript: str) -> Case | None:
    """The judge's case for a clip: what its labels say a right answer does; an honest
    refusal for an unanswerable request; None when nothing says (a question with no
    expected answer)."""
    expect = clip.expect
    tool = str(expect.get("tool") or (REFUSE if clip.group == "unanswerable" else ""))
    if not tool:
        return None
    answer = expect.get("answer") or ()
    return Case(say=clip.text or transcript, intent=str(expect.get("intent") or clip.group),
                tool=tool, args=dict(expect.get("args") or {}),
                answer=tuple([answer] if isinstance(answer, str) else answer))


def verdict(clip: Clip, transcript: str, events: Sequence[Event]) -> dict[str, Any]:
    """answered (the right kind of reply: an answer that neither asks back nor refuses, or
    for an unanswerable request an honest refusal), right (the judge's verdict where the
    labels say what is right, else None), problems, and the slot recall."""
    seen = observed(events)
    said = clip.text or transcript
    refused = judge(Case(say=said, intent="refusal", tool=REFUSE), seen).refused
    misheard = any(e.type == "misheard" for e in events)
    if clip.group == "unanswerable":
        answered = bool(refused) and seen.stop == "done"
    else:
        answered = (seen.stop == "done" and bool(seen.answer.strip()) and not misheard
                    and not asks_back(seen.answer) and not refused)
    case = case_for(clip, transcript)
    judged = judge(case, seen) if case is not None else None
    found, missing = slot_recall(clip.slots, transcript)
    return {"answered": answered, "right": None if judged is None else judged.ok,
            "problems": list(judged.problems) if judged is not None else [],
            "slots": len(clip.slots), "slots_heard": found, "slots_missing": missing,
            "tools": [c.name for c in seen.calls], "path": "local" if seen.local else
            ("llm" if seen.llm_requests else "none")}
