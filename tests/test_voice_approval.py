"""The spoken approval question names what will happen in words, never parameter names."""

from __future__ import annotations

import numpy as np

from voiceagent.audio import Audio
from voiceagent.frontends import VoiceApprover


class OneReply:
    """Records nothing real; the transcriber says what the user answered."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def record(self, stop=None) -> Audio:
        return Audio(np.zeros(1600, dtype=np.float32), 16000)

    def transcribe(self, audio: Audio) -> str:
        return self.reply


def test_the_question_reads_the_values_and_a_spoken_yes_approves() -> None:
    spoken: list[str] = []
    user = OneReply("Yes, please.")
    approve = VoiceApprover(user, user, spoken.append)
    assert approve("clear_list", {"list_name": "shopping"}) is True
    assert spoken == ["May I clear list: shopping? Say yes or no."]
    assert "list_name" not in spoken[0]
    assert VoiceApprover(OneReply("no"), OneReply("No, keep it."), spoken.append)(
        "cancel_timer", {"which": "all"}) is False
    assert VoiceApprover(user, None, spoken.append)("clear_list", {}) is False  # no ears
