"""Builds the running objects from a Config: the only place that knows every concrete part.

Nothing here decides behaviour; it wires adapters into the core. Everything that must be
stopped at exit (the embedded LLM server, timer thread, MCP servers, session lock) is pushed
onto the caller's ExitStack.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from voiceagent.agent.events import Events
from voiceagent.agent.example import worked_example
from voiceagent.agent.loop import Agent, LocalMatcher
from voiceagent.agent.messages import Reply
from voiceagent.agent.session import SessionStore
from voiceagent.assistant import Assistant, Recover
from voiceagent.config import Config
from voiceagent.errors import ChatError, ModelError
from voiceagent.ports import Approver, ChatModel, Clock, Player, Synthesizer, Transcriber
from voiceagent.tools import Toolbox, ToolContext, build_tools
from voiceagent.wallclock import clock_for

Share = Literal["", "announce", "reuse"]
"""How an embedded LLM server is shared between processes (see build_chat)."""

if TYPE_CHECKING:
    from voiceagent.llm_server import LLMServer

log = logging.getLogger(__name__)


@dataclass
class ChatSetup:
    """The model to talk to and how to bring it back if it dies."""

    model: ChatModel
    recover: Recover | None
    demo: bool
    """True when no model is configured or installed and the demo stands in."""
    server: LLMServer | None = None
    """Our own embedded server, when we started it (its prompt cache is ours to prime)."""


def build_chat(config: Config, stack: ExitStack, *, allow_demo: bool = True,
               standby: bool = False, share: Share = "") -> ChatSetup:
    """The configured chat model; for provider local, our own llama.cpp server if needed.

    A model that cannot be reached is an error (ask exits non-zero), or with `standby` (the
    run modes) a DeferredChat that answers "unavailable" and keeps trying to connect. The demo
    stands in only when no model is configured and the default one is not installed.
    `share`: "announce" a server we start for one-shot asks to use, or "reuse" one a running
    assistant announced (llm_registry.py).
    """
    try:
        started: list[LLMServer] = []
        model, recover = _connect_chat(config, stack, started, share)
        return ChatSetup(model, recover, False, started[0] if started else None)
    except (ModelError, ChatError) as exc:
        if allow_demo and _no_model_configured(config, exc):
            from voiceagent.agent.demo import DemoChat

            log.warning("no language model installed (%s); running in demo mode", exc)
            return ChatSetup(DemoChat(), None, True)
        if not standby:
            raise
        from voiceagent.agent.deferred import DeferredChat

        log.error("the language model is unavailable: %s; serving without it and trying "
                  "again in the background", exc)
        chat = DeferredChat(lambda retry_stack: _connect_chat(config, retry_stack, None, share),
                            background_retry=True, reason=str(exc).splitlines()[0])
        stack.callback(chat.close)
        return ChatSetup(chat, chat.recover, False)


def _closed_at_exit(stack: ExitStack, model: ChatModel) -> ChatModel:
    """The model, its HTTP client closed when `stack` closes (no socket left open)."""
    close = getattr(model, "close", None)
    if close is not None:
        stack.callback(close)
    return model


def _connect_chat(config: Config, stack: ExitStack, started: list[LLMServer] | None = None,
                  share: Share = "") -> tuple[ChatModel, Recover | None]:
    """Connect to the model (starting the embedded server for provider local, which is then
    appended to `started`)."""
    from voiceagent.agent.providers import make_chat_model

    if config.llm.provider != "local":
        return _closed_at_exit(stack, make_chat_model(config.llm)), None
    from voiceagent.llm_server import ensure_server

    base_url, server = ensure_server(config, share=share)
    if server is None:
        return _closed_at_exit(stack, make_chat_model(config.llm, base_url=base_url)), None
    stack.callback(server.stop)
    if started is not None:
        started.append(server)

    def recover() -> bool:
        """Restart our server if it died (True: retry the turn); a failed restart is logged
        and tried again after the next failed turn, never raised into the turn."""
        if server.is_alive():
            return False
        try:
            server.restart()
        except ChatError as exc:
            log.error("could not restart the LLM server: %s (trying again at the next "
                      "question)", exc)
            return False
        return True

    return _closed_at_exit(stack, make_chat_model(config.llm, base_url=base_url)), recover


def _no_model_configured(config: Config, exc: Exception) -> bool:
    """Provider local, no [llm] model or base_url set, and the default model not installed."""
    return (config.llm.provider == "local" and not config.llm.model
            and not config.llm.base_url and isinstance(exc, ModelError))


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


def prime_for_asks(config: Config, server: LLMServer) -> None:
    """Put the prompt prefix a one-shot `ask` sends into `server`'s cache (restored from its
    file, or prefilled once), as `run` does for itself: the first ask that uses `voiceagent
    server` (llm_registry.py) is as quick as the next."""
    from voiceagent.agent.providers import make_chat_model
    from voiceagent.prompt_cache import prime

    try:
        with ExitStack() as stack:
            toolbox = build_toolbox(config, stack, ToolContext(config.data_dir, "ask"))
            model = _closed_at_exit(stack, make_chat_model(config.llm,
                                                           base_url=server.base_url))
            agent = Agent(model, toolbox.registry, config.agent, Events(),
                          prefix=(worked_example(toolbox.registry)
                                  if config.agent.worked_example else ()))
            prime(server, agent, model)
    except Exception as exc:  # the server serves either way; only the first ask is slower
        log.warning("could not cache the prompt prefix for asks: %s", exc)


class _NoModelYet:
    """Stands in for the model between building the agent and connecting it."""

    def complete(self, *_args: object, **_kwargs: object) -> Reply:
        raise ChatError("the language model is not connected yet")


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
        from voiceagent.wyoming.client import remote_transcriber

        return remote_transcriber(config, vocabulary)
    from voiceagent.speech.stt import WhisperTranscriber

    return WhisperTranscriber(config.stt, config.models_dir, vocabulary=vocabulary or [])


def build_synthesizer(config: Config) -> Synthesizer:
    if config.tts.engine == "wyoming":  # a remote service, the bundled voice as fallback
        from voiceagent.wyoming.client import remote_synthesizer

        return remote_synthesizer(config)
    from voiceagent.speech.tts import PiperSynthesizer

    return PiperSynthesizer(config.tts, config.models_dir)


def keeps_warm(config: Config, mode: str) -> bool:
    """Whether to have the server cache the conversation after turns the model never saw:
    for the front ends that run on, against a server on this machine (no API key), so a paid
    API never gets requests the user did not make."""
    from voiceagent.agent.providers import PROVIDERS

    table = PROVIDERS.get(config.llm.provider)
    keyed = bool(config.llm.api_key_env or (table is not None and table.key_env))
    return mode in ("ptt", "kiosk", "daemon", "wyoming") and not keyed


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
    standby: bool = False,
    lazy_model: bool = False,
    chat: ChatSetup | None = None,
    transcriber: Transcriber | None = None,
    room: str = "",
) -> Assistant:
    """The whole assistant for one front end; `stack` closes what it started.

    Without `allow_demo`, a missing default model is an error instead of the demo stand-in;
    with `standby`, an unreachable model is retried in the background (see build_chat);
    with `lazy_model` the model (and the embedded server) is connected on the first request
    that needs it, so a one-shot turn answered locally never starts it.
    Several assistants share one model and one speech recogniser by passing `chat` and
    `transcriber` (the hub: one assistant per `room`, whose timers ring only there).
    """
    session = SessionStore(
        config.data_dir / "sessions" / f"{config.session.name}.jsonl", config.session.max_turns,
        history_chars(config),
    )
    stack.enter_context(session.lock())
    holder: list[Assistant] = []
    clock, warning = clock_for(config.tools.timezone)
    if warning:
        log.warning("%s", warning)
    context = ToolContext(
        data_dir=config.data_dir,
        mode=mode,
        announce=lambda text: holder[0].announce(text) if holder else None,
        fires_timers=mode in ("ptt", "kiosk", "daemon"),  # not ask/bench: they exit at once
        reset_conversation=lambda: holder[0].request_reset() if holder else None,
        clock=clock,
        room=room,
    )
    toolbox = build_toolbox(config, stack, context)
    agent = Agent(
        _NoModelYet(),
        toolbox.registry,
        config.agent,
        events,
        approve=approve,
        prefix=worked_example(toolbox.registry) if config.agent.worked_example else (),
        local=build_local_commands(config, toolbox, clock),
    )

    def connect() -> tuple[ChatModel, Recover | None]:
        if chat is not None:  # shared: its owner primed the server's cache
            return chat.model, chat.recover
        share: Share = ("reuse" if mode == "ask" else
                        "announce" if mode in ("ptt", "kiosk", "daemon", "wyoming") else "")
        setup = build_chat(config, stack, allow_demo=allow_demo, standby=standby, share=share)
        if setup.server is not None:
            from voiceagent.prompt_cache import prime

            prime(setup.server, agent, setup.model)  # no prefill on the 1st question
        return setup.model, setup.recover

    if lazy_model:
        from voiceagent.agent.deferred import DeferredChat

        lazy = DeferredChat(lambda _own_stack: connect(), background_retry=False)
        agent.model, agent.recover = lazy, lazy.recover
    else:
        agent.model, agent.recover = connect()
    if transcriber is None and with_transcriber:
        transcriber = build_transcriber(config, toolbox.vocabulary)
    assistant = Assistant(
        agent=agent,
        session=session,
        synthesizer=synthesizer,
        player=player,
        events=events,
        transcriber=transcriber,
    )
    assistant.keep_warm = keeps_warm(config, mode)
    holder.append(assistant)
    return assistant
