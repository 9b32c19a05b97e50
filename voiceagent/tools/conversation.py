"""The conversation tool: "forget this conversation" starts the session afresh."""

from __future__ import annotations

from collections.abc import Callable

from voiceagent.agent.tools import Tool, tool


def make_tools(reset: Callable[[], None]) -> list[Tool]:
    """forget_conversation, calling `reset` (the assistant's session reset)."""

    @tool(writes=True, destroys=True)
    def forget_conversation() -> str:
        """Forget the conversation and start over."""
        reset()
        return "Done: the conversation so far is forgotten."

    return [forget_conversation]
