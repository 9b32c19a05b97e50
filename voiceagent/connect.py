"""Connects the chat model: the configured provider, or our embedded llama.cpp server (found
or started, shared, its prompt prefix primed, restarted when it dies); the demo when no model
is configured at all; a stand-in that keeps trying when the model cannot be reached.

Everything that must be stopped at exit is pushed onto the caller's ExitStack.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from voiceagent.agent.deferred import DeferredChat, Recover
from voiceagent.agent.foreground import Foreground
from voiceagent.agent.http import HTTPChat
from voiceagent.config import Config
from voiceagent.errors import ChatError, ModelError
from voiceagent.llm.prompt_cache import Prompt, prime
from voiceagent.llm.registry import Share
from voiceagent.ports import ChatModel

if TYPE_CHECKING:
    from voiceagent.llm.server import LLMServer

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
    foreground: Foreground = field(default_factory=Foreground)
    """The turns under way on this model, whichever conversation (room) they are in: the
    assistants sharing it read ahead only when none is (agent/foreground.py)."""

    def pinned(self, index: int) -> ChatSetup:
        """The same model with every request of conversation `index` sent to one slot of our
        embedded server (llama.cpp `id_slot`), so each conversation keeps its own prompt in
        that slot's cache. Left to itself the server gives a request the free slot most like
        it, and with two rooms a room's question often went to the slot holding the other
        room's conversation: 340-460 tokens prefilled again, 6-10 s instead of 1 s."""
        if self.server is None or self.server.parallel < 2 or not isinstance(
                self.model, HTTPChat):
            return self
        model = copy.copy(self.model)  # shares the HTTP client, which outlives it
        model.extra_body = {**model.extra_body, "id_slot": index % self.server.parallel}
        return dataclasses.replace(self, model=model)


def build_chat(config: Config, stack: ExitStack, *, allow_demo: bool = True,
               standby: bool = False, share: Share = "") -> ChatSetup:
    """The configured chat model; for provider local, our own llama.cpp server if needed.

    A model that cannot be reached is an error (ask exits non-zero), or with `standby` (the
    run modes) a DeferredChat that answers "unavailable" and keeps trying to connect. The demo
    stands in only when no model is configured and the default one is not installed.
    `share`: "announce" a server we start for one-shot asks to use, or "reuse" one a running
    assistant announced (llm/registry.py).
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
        log.error("the language model is unavailable: %s; serving without it and trying "
                  "again in the background", exc)
        chat = DeferredChat(lambda retry_stack: _connect_chat(config, retry_stack, None, share),
                            background_retry=True, reason=str(exc).splitlines()[0])
        stack.callback(chat.close)
        return ChatSetup(chat, chat.recover, False)


def closed_at_exit(stack: ExitStack, model: ChatModel) -> ChatModel:
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
        return closed_at_exit(stack, make_chat_model(config.llm)), None
    from voiceagent.llm.discovery import ensure_server

    base_url, server = ensure_server(config, share=share)
    if server is None:
        return closed_at_exit(stack, make_chat_model(config.llm, base_url=base_url)), None
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

    return closed_at_exit(stack, make_chat_model(config.llm, base_url=base_url)), recover


def _no_model_configured(config: Config, exc: Exception) -> bool:
    """Provider local, no [llm] model or base_url set, and the default model not installed."""
    return (config.llm.provider == "local" and not config.llm.model
            and not config.llm.base_url and isinstance(exc, ModelError))



def connect_model(config: Config, stack: ExitStack, prompt: Prompt, *, share: Share = "",
                  allow_demo: bool = True, standby: bool = False,
                  lazy: bool = False) -> tuple[ChatModel, Recover | None]:
    """The model an agent with `prompt` talks to, and its Recover; our own server gets the
    prompt's prefix cached (no prefill on the first question). With `lazy` the model is a
    DeferredChat that connects on the first request that needs it, so a one-shot turn
    answered locally never starts the server."""

    def connect() -> tuple[ChatModel, Recover | None]:
        chat = build_chat(config, stack, allow_demo=allow_demo, standby=standby, share=share)
        if chat.server is not None:
            prime(chat.server, prompt, chat.model)
        return chat.model, chat.recover

    if not lazy:
        return connect()
    model = DeferredChat(lambda _own_stack: connect(), background_retry=False)
    return model, model.recover
