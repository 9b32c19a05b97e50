"""A plugin tool that asks first and has its own sentences (kiosk approval test)."""

import os
from pathlib import Path

from voiceagent.agent.tools import tool


@tool(needs_approval=True, sentences=["empty the (trash|recycle bin)"])
def empty_trash() -> str:
    """Use when the user asks to empty the trash."""
    Path(os.environ["VOICEAGENT_TEST_TRASH"]).write_text("emptied")
    return "The trash is empty."
