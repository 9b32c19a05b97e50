"""The whole assistant as a Wyoming intent handler: a transcript in, the answer as `handled`.

Nobody stands at the speaker to approve a tool, and Wyoming has no authentication, so no tool
that needs approval runs here and the shell tool is not even offered. Turns share one
conversation (`[wyoming] session`, apart from the local assistant's) and run one at a time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from contextlib import ExitStack

from voiceagent.agent.events import Events
from voiceagent.assistant import Assistant, TurnOutcome
from voiceagent.config import Config

log = logging.getLogger(__name__)

ANSWERED = ("done", "cap")
"""Turn stops whose answer is an answer (a capped turn still says what it has)."""


def never(name: str, args: dict[str, object]) -> bool:
    """The approver over Wyoming: nobody is there to say yes."""
    log.info("declined %s over Wyoming (it needs approval)", name)
    return False


def wyoming_config(config: Config) -> Config:
    """The config the Wyoming assistant runs with: no shell tool, its own session."""
    enabled = [name for name in config.tools.enabled if name != "shell"]
    if len(enabled) != len(config.tools.enabled):
        log.info("the shell tool is not offered over Wyoming")
    return dataclasses.replace(
        config,
        tools=dataclasses.replace(config.tools, enabled=enabled),
        session=dataclasses.replace(config.session, name=config.wyoming.session),
    )


class IntentHandler:
    """Answers transcripts with the real assistant turn, one turn at a time."""

    def __init__(self, assistant: Assistant) -> None:
        self.assistant = assistant
        self._turns = asyncio.Lock()

    async def answer(self, text: str) -> TurnOutcome:
        async with self._turns:
            return await asyncio.to_thread(self.assistant.answer_text, text)


def build_intent_handler(config: Config, stack: ExitStack, *, with_transcriber: bool) -> (
        IntentHandler):
    """The assistant with a player and synthesizer that say nothing (the client speaks the
    answer, through its own text to speech or ours)."""
    from voiceagent.build import build_assistant
    from voiceagent.front_end import WYOMING
    from voiceagent.sound.player import NullPlayer
    from voiceagent.speaking import NoSpeech

    assistant = build_assistant(
        wyoming_config(config), stack, front_end=WYOMING, player=NullPlayer(), events=Events(),
        synthesizer=NoSpeech(), approve=never, with_transcriber=with_transcriber,
    )
    return IntentHandler(assistant)
