""""Set a timer in the bedroom": a timer that rings in another room of the house.

The tool is the room's own `set_timer` (same lengths, labels, checks and answer), after which
the new entry is handed to the named room: timers ring where their entry says (tools/
timers.py). Only offered when the house has more than one room; the rooms are an enum, so the
model cannot invent one.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

from voiceagent.agent.outcome import Outcome
from voiceagent.agent.tools import Tool, ToolRegistry, tool
from voiceagent.errors import ToolError
from voiceagent.tools.timer_store import Timers


def add_room_timer(registry: ToolRegistry, data_dir: Path, here: str, rooms: list[str]) -> None:
    """Add `set_timer_in_room` to `registry` when there is a room besides `here`."""
    others = [r for r in rooms if r != here]
    set_timer = registry.get("set_timer")
    if not others or set_timer is None:
        return
    timers = Timers(data_dir / "timers.json")  # the house's file; no bell

    def set_timer_in_room(room: str, duration: str, label: str = "") -> Outcome:
        """A timer that rings in another room, only when the user names the room ("set a
        timer in the bedroom for 10 minutes").

        Args:
            room: the room the user named.
            duration: how long, as said: a number and a unit, e.g. 10 minutes.
            label: what it is for, if said; else empty.
        """
        if room not in rooms:
            raise ToolError(f"there is no room {room!r}; the rooms are {', '.join(rooms)}.")
        before = timers.pending()
        set_here = set_timer.func(duration=duration, label=label)
        made = [e for e in timers.pending() if e not in before]
        if room != here and made:
            entry = made[-1]
            timers.remove([entry])
            timers.add(dataclasses.replace(entry, room=room))
        said = set_here.say if isinstance(set_here, Outcome) else str(set_here)
        refs = set_here.refs if isinstance(set_here, Outcome) else ()
        return Outcome(said.removesuffix(".") + f", in the {room}.", refs)

    annotations: dict[str, Any] = dict(set_timer_in_room.__annotations__)
    annotations["room"] = Literal[tuple(rooms)]  # type: ignore[valid-type]
    set_timer_in_room.__annotations__ = annotations
    made: Tool = tool(set_timer_in_room, speaks_result=True, writes=True,
                      grounded=("label",), counted=("duration",),
                      asks={"duration": "For how long?"})
    registry.add(made)
