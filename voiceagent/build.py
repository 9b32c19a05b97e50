"""Builds the running objects from a Config: the only place that knows every concrete part.

Nothing here decides behaviour; it wires adapters into the core. Everything that must be
stopped at exit (the embedded LLM server, timer thread, MCP servers, session lock) is pushed
onto the caller's ExitStack.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass

from voiceagent.agent.events import Events
from voiceagent.agent.example import worked_example
from voiceagent.agent.loop import Agent
from voiceagent.agent.session import SessionStore
from voiceagent.assistant import Assistant, Recover
from voiceagent.config import Config
from voiceagent.errors import ChatError, ModelError
from voiceagent.ports import Approver, ChatModel, Player, Synthesizer, Transcriber
from voiceagent.tools import Toolbox, ToolContext, build_tools

log = logging.getLogger(__name__)


@dataclass
class ChatSetup:
    """The model to talk to and how to bring it back if it dies."""

    model: ChatModel
    recover: Recover | None
    demo: bool
    """True when no model could be reached and the demo stands in."""


def build_chat(config: Config, stack: ExitStack, *, allow_demo: bool = True) -> ChatSetup:
    """The configured chat model; for provider local, our own llama.cpp server if needed."""
    from voiceagent.agent.providers import make_chat_model

    try:
        if config.llm.provider == "local":
            from voiceagent.llm_server import ensure_server

            base_url, server = ensure_server(config)
            if server is not None:
                stack.callback(server.stop)

                def recover() -> bool:
                    if server.is_alive():
                        return False
                    server.restart()
                    return True

                return ChatSetup(make_chat_model(config.llm, base_url=base_url), recover, False)
            return ChatSetup(make_chat_model(config.llm, base_url=base_url), None, False)
        return ChatSetup(make_chat_model(config.llm), None, False)
    except (ModelError, ChatError) as exc:
        if not allow_demo:
            raise
        from voiceagent.agent.demo import DemoChat

        log.warning("no language model available (%s); running in demo mode", exc)
        return ChatSetup(DemoChat(), None, True)


def build_toolbox(config: Config, stack: ExitStack, context: ToolContext) -> Toolbox:
    toolbox = build_tools(config, context)
    stack.callback(toolbox.close)
    for warning in toolbox.warnings:
        log.warning("%s", warning)
    return toolbox


def build_transcriber(config: Config, vocabulary: list[str] | None = None) -> Transcriber:
    from voiceagent.speech.stt import WhisperTranscriber

    return WhisperTranscriber(config.stt, config.models_dir, vocabulary=vocabulary or [])


def build_synthesizer(config: Config) -> Synthesizer:
    from voiceagent.speech.tts import PiperSynthesizer

    return PiperSynthesizer(config.tts, config.models_dir)


def build_assistant(
    config: Config,
    stack: ExitStack,
    *,
    mode: str,
    player: Player,
    events: Events,
    synthesizer: Synthesizer,
    approve: Approver | None = None,
    with_transcriber: bool = True,
    allow_demo: bool = True,
) -> Assistant:
    """The whole assistant for one front end; `stack` closes what it started.

    Without `allow_demo`, an unreachable model is an error instead of the demo stand-in.
    """
    session = SessionStore(
        config.data_dir / "sessions" / f"{config.session.name}.jsonl", config.session.max_turns
    )
    stack.enter_context(session.lock())
    holder: list[Assistant] = []
    context = ToolContext(
        data_dir=config.data_dir,
        mode=mode,
        announce=lambda text: holder[0].announce(text) if holder else None,
        fires_timers=mode in ("ptt", "kiosk", "daemon"),  # not ask/bench: they exit at once
        reset_conversation=lambda: holder[0].request_reset() if holder else None,
    )
    toolbox = build_toolbox(config, stack, context)
    chat = build_chat(config, stack, allow_demo=allow_demo)
    agent = Agent(
        chat.model,
        toolbox.registry,
        config.agent,
        events,
        approve=approve,
        prefix=worked_example(toolbox.registry) if config.agent.worked_example else (),
    )
    transcriber = build_transcriber(config, toolbox.vocabulary) if with_transcriber else None
    assistant = Assistant(
        agent=agent,
        session=session,
        synthesizer=synthesizer,
        player=player,
        events=events,
        transcriber=transcriber,
        recover=chat.recover,
    )
    holder.append(assistant)
    return assistant
