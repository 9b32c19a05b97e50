"""The fixed prompt prefix (system prompt, tool list, worked example) kept as a saved KV cache.

Prefilling that prefix (~1,000-1,400 tokens) takes tens of seconds on a small CPU, and the
first question after every start (and every cold `voiceagent ask`) used to pay it. Instead the
server's slot 0 is saved to a file once (llama.cpp `/slots/0?action=save`) and restored at the
next start in milliseconds. The file is keyed by the model file and the exact prompt text the
server renders for the prefix, so a changed template, tool list, description or system prompt
gets a new file. This only works because everything before the user's turn is byte-stable:
no clock or other changing values in the system prompt, tools or example.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from voiceagent.agent.loop import Agent
from voiceagent.agent.messages import Message
from voiceagent.errors import ChatError
from voiceagent.llm_server import LLMServer
from voiceagent.ports import ChatModel

log = logging.getLogger(__name__)

PROBE = "hi"
"""The user turn the warm-up request sends after the prefix (as Agent.warm_up does)."""


@dataclass(frozen=True)
class Prefix:
    """The rendered prompt prefix of one agent on one server, and its cache file name."""

    text: str
    """The prompt the server builds for everything before the user's turn."""
    tokens: int
    """Its length in the model's tokens."""
    filename: str
    """`<model>-<sha256 of model identity and text>.bin`, inside the server's slot_dir."""


def describe(server: LLMServer, agent: Agent, model: ChatModel | None = None) -> Prefix | None:
    """The agent's prefix as this server renders it for `model` (default: the agent's); None
    when the model client cannot say what it sends (not an OpenAI-compatible client)."""
    body = _request(agent, model or agent.model)
    if body is None:
        return None
    prompt = str(_post(server, "/apply-template", {"messages": body["messages"],
                                                  "tools": body.get("tools", [])})["prompt"])
    text = prompt[: prompt.rfind(PROBE)]
    tokens = len(_post(server, "/tokenize", {"content": text, "add_special": False})["tokens"])
    gguf = server.model
    size = gguf.stat().st_size if gguf.exists() else 0
    digest = hashlib.sha256(f"{gguf.name}\n{size}\n{text}".encode()).hexdigest()[:16]
    return Prefix(text, tokens, f"{gguf.stem}-{digest}.bin")


def prime(server: LLMServer, agent: Agent, model: ChatModel | None = None) -> str:
    """Put the agent's prefix into the server's cache: restore the saved file, or prefill it
    once and save it. `model` talks to `server` (default: the agent's own, which may not be
    connected yet). Returns "restored", "saved", or "off" (nothing could be done)."""
    model = model or agent.model
    if server.slot_dir is None:
        return "off"
    try:
        prefix = describe(server, agent, model)
    except ChatError as exc:
        log.info("prompt cache off: %s", exc)
        return "off"
    if prefix is None:
        return "off"
    path = server.slot_dir / prefix.filename
    if path.is_file():
        try:
            n = server.restore_slot(prefix.filename)
            log.info("prompt prefix (%d tokens) restored from %s", n, path)
            _fill_other_slots(server, prefix)
            return "restored"
        except ChatError as exc:
            log.warning("%s; prefilling the prompt prefix again", exc)
            path.unlink(missing_ok=True)
    log.info("prefilling the prompt prefix (%d tokens) once; it is saved for the next start",
             prefix.tokens)
    _prefill(agent, model)
    if not _save(server, prefix):
        return "off"
    _fill_other_slots(server, prefix, first=0)  # it was saved from whichever slot had it
    for stale in server.slot_dir.glob(f"{server.model.stem}-*.bin"):
        if stale.name != prefix.filename:
            stale.unlink(missing_ok=True)
    return "saved"


def _fill_other_slots(server: LLMServer, prefix: Prefix, first: int = 1) -> None:
    """A server with several slots (the hub: one question per room at once) gets the prefix
    in each, so the second room's first question does not prefill it either."""
    for slot in range(first, server.parallel if server.parallel > 1 else 0):
        try:
            server.restore_slot(prefix.filename, slot)
        except ChatError as exc:  # that slot prefills on its first question instead
            log.info("prompt prefix not restored into slot %d: %s", slot, exc)


def _save(server: LLMServer, prefix: Prefix) -> bool:
    """Save the warm-up's slot once its cancelled request has let go of it (with several
    slots, whichever one the server gave the request: the first that holds the prefix)."""
    saved = 0
    for _attempt in range(20):
        try:
            for slot in range(server.parallel):
                saved = server.save_slot(prefix.filename, slot)
                if saved >= prefix.tokens:
                    return True
        except ChatError as exc:  # the slot may still be finishing the warm-up request
            last = exc
            time.sleep(0.1)
            continue
        log.info("warm-up left %d of %d prefix tokens cached; not saved", saved, prefix.tokens)
        assert server.slot_dir is not None
        (server.slot_dir / prefix.filename).unlink(missing_ok=True)
        return False
    log.warning("could not save the prompt prefix: %s", last)
    return False


def _prefill(agent: Agent, model: ChatModel) -> None:
    """The warm-up request (prefix + PROBE), stopped at its first token: by then the prompt is
    in the slot's cache."""
    enough = threading.Event()
    try:
        model.complete(agent.config.system_prompt, [*agent.prefix, Message("user", PROBE)],
                       agent.tools.specs(), on_text=lambda _: enough.set(), cancel=enough)
    except ChatError as exc:
        log.info("prefilling the prompt prefix failed: %s", exc)


def _request(agent: Agent, model: ChatModel) -> dict[str, Any] | None:
    request_body = getattr(model, "request_body", None)
    if request_body is None:
        return None
    messages = [*agent.prefix, Message("user", PROBE)]
    return dict(request_body(agent.config.system_prompt, messages, agent.tools.specs()))


def _post(server: LLMServer, path: str, body: dict[str, Any]) -> dict[str, Any]:
    url = server.base_url.removesuffix("/v1") + path
    try:
        reply = httpx.post(url, json=body, timeout=30.0)
        reply.raise_for_status()
        return dict(reply.json())
    except (httpx.HTTPError, ValueError) as exc:
        raise ChatError(f"{url}: {exc}") from exc
