"""A spoken approval: before an irreversible tool runs, the question is asked aloud and a
spoken yes or no decides."""

from __future__ import annotations

import logging
from collections.abc import Callable

from voiceagent.language import lexicon, say
from voiceagent.ports import Recorder, Transcriber

log = logging.getLogger(__name__)


def is_yes(reply: str) -> bool:
    """A spoken yes; any negative word wins, silence is no (lexicon "yes" and "no")."""
    lex = lexicon()
    return lex.has("yes", reply) and not lex.has("no", reply)


class VoiceApprover:
    """Asks aloud before an irreversible tool runs and listens for a spoken yes or no.

    It listens through what the front end gives it: the recorder (push-to-talk, daemon), or
    in a kiosk its Replies, fed by the kiosk's own listening loop (one reader of the mic)."""

    def __init__(self, recorder: Recorder, transcriber: Transcriber | None,
                 speak: Callable[[str], None]) -> None:
        self._recorder = recorder
        self._transcriber = transcriber
        """The assistant's own (the same drafts, the same vocabulary)."""
        self._speak = speak
        """Speaks a sentence at once and waits until it has played."""

    def __call__(self, name: str, args: dict[str, object]) -> bool:
        if self._transcriber is None:
            return False
        what = ", ".join(str(v) for v in args.values() if str(v).strip())  # no parameter
        self._speak(say("approve", action=name.replace("_", " "),  # names read out
                        details=f": {what}" if what else ""))
        log.info("asking to run %s; listening for yes or no", name)
        reply = self._transcriber.transcribe(self._recorder.record(None)).strip()
        log.info("approval for %s: heard %r", name, reply)
        return is_yes(reply)
