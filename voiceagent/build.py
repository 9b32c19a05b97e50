"""Builds the running objects from a Config: the only place that knows every concrete part.

Nothing here decides behaviour; it wires adapters into the core, each object built after what
it needs and handed it (nothing patched in afterwards). What differs between front ends comes
from their FrontEnd value (front_end.py). Everything that must be stopped at exit (the
embedded LLM server, timer thread, MCP servers, session lock) is pushed onto the caller's
ExitStack.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from voiceagent.agent.events import Events
from voiceagent.agent.example import worked_example
from voiceagent.agent.loop import Agent, LocalMatcher
from voiceagent.agent.session import SessionStore
from voiceagent.agent.tools import ToolRegistry
from voiceagent.assistant import Assistant
from voiceagent.config import Config
from voiceagent.connect import ChatSetup, closed_at_exit, connect_model
from voiceagent.front_end import ASK, FrontEnd
from voiceagent.llm.prompt_cache import Prompt, prime
from voiceagent.ports import Approver, Clock, Player, Synthesizer, Transcriber
from voiceagent.tools import Toolbox, ToolContext, build_tools
from voiceagent.wallclock import clock_for

if TYPE_CHECKING:
    from voiceagent.llm.server import LLMServer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Parts:
    """What an assistant is made of besides its model and its speaker: built first, so a front
    end can wrap a part (modes.early_end wraps the transcriber) before the assistant exists."""

    session: SessionStore
    """The conversation's file, locked for this process."""
    clock: Clock
    toolbox: Toolbox
    prompt: Prompt
    """What every request starts with (for the agent and the server's prompt cache)."""
    local: LocalMatcher | None
    """The local command templates; None when [agent] local_commands is off."""
    transcriber: Transcriber | None
    forget: threading.Event
    """Set by the conversation tool: the assistant forgets the conversation after the turn."""


def build_parts(config: Config, stack: ExitStack, *, front_end: FrontEnd,
                with_transcriber: bool = True, transcriber: Transcriber | None = None,
                room: str = "", clock: Clock | None = None,
                more_tools: Callable[[ToolRegistry], None] | None = None) -> Parts:
    """The session, clock, tools, prompt, local commands and transcriber for `front_end`;
    `transcriber` is one several assistants share (the hub's rooms), `room` the room this
    one serves (its timers ring only there); `more_tools` adds tools of its own (the hub's:
    a timer in another room, a broadcast) before the prompt and the templates are made;
    `clock` one that stands at a day (an evaluation's), else the system clock."""
    session = SessionStore(
        config.data_dir / "sessions" / f"{config.session.name}.jsonl", config.session.max_turns,
        history_chars(config),
    )
    stack.enter_context(session.lock())
    clock, warning = (clock, "") if clock is not None else clock_for(config.tools.timezone)
    if warning:
        log.warning("%s", warning)
    forget = threading.Event()
    toolbox = build_toolbox(config, stack, ToolContext(
        config.data_dir, front_end, reset_conversation=forget.set, clock=clock, room=room))
    if more_tools is not None:
        more_tools(toolbox.registry)
    if transcriber is None and with_transcriber:
        transcriber = build_transcriber(config, toolbox.vocabulary)
    return Parts(
        session=session,
        clock=clock,
        toolbox=toolbox,
        prompt=prompt_for(config, toolbox),
        local=build_local_commands(config, toolbox, clock),
        transcriber=transcriber,
        forget=forget,
    )


def build_assistant(
    config: Config,
    stack: ExitStack,
    *,
    front_end: FrontEnd,
    player: Player,
    events: Events,
    synthesizer: Synthesizer,
    parts: Parts | None = None,
    approve: Approver | None = None,
    with_transcriber: bool = True,
    allow_demo: bool = True,
    standby: bool = False,
    lazy_model: bool = False,
    chat: ChatSetup | None = None,
) -> Assistant:
    """The whole assistant for one front end, from `parts` (built here when not given);
    `stack` closes what it started.

    Without `allow_demo`, a missing default model is an error instead of the demo stand-in;
    with `standby`, an unreachable model is retried in the background (connect.build_chat);
    with `lazy_model` the model (and the embedded server) is connected on the first request
    that needs it, so a one-shot turn answered locally never starts it. Several assistants
    share one model by passing `chat` (the hub: its owner primed the server's cache).
    """
    if parts is None:
        parts = build_parts(config, stack, front_end=front_end,
                            with_transcriber=with_transcriber)
    if chat is not None:
        model, recover = chat.model, chat.recover
    else:
        model, recover = connect_model(config, stack, parts.prompt, share=front_end.share,
                                       allow_demo=allow_demo, standby=standby, lazy=lazy_model)
    agent = Agent(model, parts.toolbox.registry, config.agent, events, approve=approve,
                  prefix=parts.prompt.prefix, local=parts.local, recover=recover)
    assistant = Assistant(agent=agent, session=parts.session, synthesizer=synthesizer,
                          player=player, events=events, transcriber=parts.transcriber,
                          keep_warm=keeps_warm(config, front_end), forget=parts.forget,
                          foreground=chat.foreground if chat is not None else None)
    if front_end.fires_timers:
        parts.toolbox.ring_timers(assistant.announce)
    return assistant


def history_chars(config: Config) -> int | None:
    """How much history fits our own server's context window beside the fixed prompt prefix
    (~1,400 tokens), the reply and one tool round (~650), at ~2.5 characters a token; None
    for other providers (their windows are large)."""
    if config.llm.provider != "local":
        return None
    tokens = config.server.ctx_size - 2048 - config.llm.max_reply_tokens
    return max(1000, int(tokens * 2.5))


def build_toolbox(config: Config, stack: ExitStack, context: ToolContext) -> Toolbox:
    toolbox = build_tools(config, context)
    stack.callback(toolbox.close)
    for warning in toolbox.warnings:
        log.warning("%s", warning)
    return toolbox


def prompt_for(config: Config, toolbox: Toolbox) -> Prompt:
    """What every request starts with: the system prompt, the worked example, the tools."""
    registry = toolbox.registry
    prefix = worked_example(registry) if config.agent.worked_example else ()
    return Prompt(config.agent.system_prompt, tuple(prefix), tuple(registry.specs()))


def prompt_of(agent: Agent) -> Prompt:
    """The same, read off a built agent (the live bench primes a server it restarts)."""
    return Prompt(agent.config.system_prompt, agent.prefix, tuple(agent.tools.specs()))


def prime_for_asks(config: Config, server: LLMServer) -> None:
    """Put the prompt prefix a one-shot `ask` sends into `server`'s cache (restored from its
    file, or prefilled once), as `run` does for itself: the first ask that uses `voiceagent
    server` (llm/registry.py) is as quick as the next."""
    from voiceagent.agent.providers import make_chat_model

    try:
        with ExitStack() as stack:
            toolbox = build_toolbox(config, stack, ToolContext(config.data_dir, ASK))
            model = closed_at_exit(stack, make_chat_model(config.llm, base_url=server.base_url))
            prime(server, prompt_for(config, toolbox), model)
    except Exception as exc:  # the server serves either way; only the first ask is slower
        log.warning("could not cache the prompt prefix for asks: %s", exc)


def build_local_commands(config: Config, toolbox: Toolbox,
                         clock: Clock | None = None) -> LocalMatcher | None:
    """The sentence templates for the enabled tools, unless [agent] local_commands is off."""
    if not config.agent.local_commands:
        return None
    from voiceagent.intents import LocalCommands

    return LocalCommands(toolbox.registry, clock or clock_for(config.tools.timezone)[0])


def build_transcriber(config: Config, vocabulary: list[str] | None = None) -> Transcriber:
    """Speech to text, biased towards `vocabulary` (list names) and the wake phrase."""
    wake = [config.trigger.wake_phrase] if config.trigger.wake_phrase else []
    vocabulary = [*(vocabulary or []), *wake]
    if config.stt.engine == "wyoming":  # a remote service, the bundled model as fallback
        from voiceagent.wyoming.client import RemoteTranscriber

        local = dataclasses.replace(config, stt=dataclasses.replace(config.stt, engine="local"))
        fallback = ((lambda: build_transcriber(local, vocabulary))
                    if config.stt.fallback == "local" else None)
        return RemoteTranscriber(config.stt.uri, config.stt.language, fallback)
    from voiceagent.speech.stt import WhisperTranscriber

    return WhisperTranscriber(config.stt, config.models_dir, vocabulary=vocabulary or [])


def build_synthesizer(config: Config) -> Synthesizer:
    if config.tts.engine == "wyoming":  # a remote service, the bundled voice as fallback
        from voiceagent.wyoming.client import RemoteSynthesizer

        local = dataclasses.replace(config, tts=dataclasses.replace(config.tts, engine="local"))
        fallback = (lambda: build_synthesizer(local)) if config.tts.fallback == "local" else None
        return RemoteSynthesizer(config.tts.uri, fallback)
    from voiceagent.speech.tts import PiperSynthesizer

    return PiperSynthesizer(config.tts, config.models_dir)


def keeps_warm(config: Config, front_end: FrontEnd) -> bool:
    """Whether to have the server cache the conversation after turns the model never saw:
    for the front ends that run on, against a server on this machine (no API key), so a paid
    API never gets requests the user did not make."""
    from voiceagent.agent.providers import PROVIDERS

    table = PROVIDERS.get(config.llm.provider)
    keyed = bool(config.llm.api_key_env or (table is not None and table.key_env))
    return front_end.keeps_warm and not keyed
