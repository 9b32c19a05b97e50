"""The ways to use the assistant, as composition around one `Assistant`.

- KeyedFrontEnd (keyed.py): push-to-talk in a terminal, and the wake-on-keypress daemon.
- KioskFrontEnd (kiosk.py): always listening, with an optional wake word and barge-in.
- VoiceApprover (approval.py): asks aloud before an irreversible tool runs.
"""

from voiceagent.frontends.approval import VoiceApprover, is_yes
from voiceagent.frontends.keyed import KeyedFrontEnd, Listen
from voiceagent.frontends.kiosk import KioskFrontEnd, PausableListener, Replies, asks_back, is_stop

__all__ = ["KeyedFrontEnd", "KioskFrontEnd", "Listen", "PausableListener", "Replies",
           "VoiceApprover", "asks_back", "is_stop", "is_yes"]
