"""Local commands before the LLM: sentence templates for the built-in tools and plugins.

    commands = LocalCommands(toolbox.registry)
    found = commands.match("Set a timer for five minutes, please.")
    # LocalMatch(intent="timer_start", tool="set_timer", args={"duration": "5 minutes"})
    # None: send the utterance to the LLM unchanged.
"""

from voiceagent.intents.match import LocalMatch
from voiceagent.intents.matcher import LocalCommands

__all__ = ["LocalCommands", "LocalMatch"]
