""""Tell everyone dinner is ready": the user's words said aloud in every other room.

Home Assistant's satellites have it (its broadcast intent); in the hub each room can: the
tool has every other room announce the words, as a timer is announced there (the room's
Assistant.announce waits for an answer under way). Only offered when the house has more
than one room; the words must be the user's own (grounded), nothing is made up to say.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from voiceagent.agent.outcome import Outcome
from voiceagent.agent.tools import Tool, ToolRegistry, tool
from voiceagent.errors import ToolError
from voiceagent.tools.lists import spoken_join
from voiceagent.tools.words import capitalised


def add_broadcast(registry: ToolRegistry, here: str, rooms: list[str],
                  announcers: Mapping[str, Callable[[str], None]]) -> None:
    """Add `broadcast` to `registry` when the house has a room besides `here`; `announcers`
    is the house's live map of room -> announce (rooms found later are in it too)."""
    if not [r for r in rooms if r != here]:
        return

    def broadcast(message: str) -> Outcome:
        """Say the user's words aloud in every other room of the house ("tell everyone
        dinner is ready").

        Args:
            message: what to say, in the user's words.
        """
        text = capitalised(message.strip().rstrip(".!,;"))
        if not text:
            raise ToolError("say what to tell the other rooms.")
        others = {name: say for name, say in announcers.items() if name != here}
        if not others:
            raise ToolError("no other room is connected now: say so plainly.")
        for say in others.values():  # each room says it when its own answer is over
            threading.Thread(target=say, args=(f"{text}.",), daemon=True).start()
        return Outcome(f"Said in {spoken_join([f'the {name}' for name in sorted(others)])}: "
                       f"{text}.")

    made: Tool = tool(broadcast, speaks_result=True, writes=True, grounded=("message",),
                      asks={"message": "What should I say?"})
    registry.add(made)
