"""The provider table: which wire format, URL, model, price and key each provider uses.

Adding a provider that speaks an existing wire format is one entry in PROVIDERS. Keys are
read from the environment variable named in `[llm] api_key_env` (or the provider's default
variable) and only ever placed in request headers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

import httpx

from voiceagent.agent.messages import Price
from voiceagent.config import LLMConfig
from voiceagent.errors import ConfigError
from voiceagent.ports import ChatModel

Wire = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class Provider:
    """One row of the provider table."""

    wire: Wire
    """The request format the provider speaks."""
    base_url: str
    """Default server URL (ending in /v1); "" = given at run time (the embedded server)."""
    model: str
    """Default model name."""
    key_env: str = ""
    """Default environment variable for the API key; "" = no key needed."""
    prices: dict[str, Price] = field(default_factory=dict)
    """Known prices per model (list prices when written; check your provider's page)."""


PROVIDERS: dict[str, Provider] = {
    "local": Provider("openai", "", "qwen2.5-coder-1.5b"),
    "llamacpp": Provider("openai", "http://127.0.0.1:8080/v1", "default"),
    "ollama": Provider("openai", "http://127.0.0.1:11434/v1", "qwen2.5-coder:1.5b"),
    "lmstudio": Provider("openai", "http://127.0.0.1:1234/v1", "qwen2.5-coder-1.5b-instruct"),
    "vllm": Provider("openai", "http://127.0.0.1:8000/v1", "Qwen/Qwen2.5-1.5B-Instruct"),
    "openai": Provider("openai", "https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY",
                       {"gpt-4o-mini": Price(0.15, 0.60), "gpt-4o": Price(2.50, 10.00)}),
    "groq": Provider("openai", "https://api.groq.com/openai/v1", "llama-3.1-8b-instant",
                     "GROQ_API_KEY", {"llama-3.1-8b-instant": Price(0.05, 0.08)}),
    "deepseek": Provider("openai", "https://api.deepseek.com/v1", "deepseek-chat",
                         "DEEPSEEK_API_KEY", {"deepseek-chat": Price(0.28, 0.42)}),
    "anthropic": Provider("anthropic", "https://api.anthropic.com/v1", "claude-haiku-4-5",
                          "ANTHROPIC_API_KEY", {"claude-haiku-4-5": Price(1.00, 5.00)}),
}


def provider(name: str) -> Provider:
    """The table entry for `name`; ConfigError listing the known ones otherwise."""
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ConfigError(
            f"[llm] provider: unknown provider {name!r}; known: {', '.join(PROVIDERS)}"
        ) from None


def price_for(llm: LLMConfig) -> Price | None:
    """The price of the configured model, when the table knows it (enables the money cap)."""
    p = provider(llm.provider)
    return p.prices.get(llm.model or p.model)


def make_chat_model(
    llm: LLMConfig, *, base_url: str | None = None, transport: httpx.BaseTransport | None = None
) -> ChatModel:
    """The ChatModel for `[llm]`; `base_url` overrides (e.g. the embedded server's URL)."""
    p = provider(llm.provider)
    url = base_url or llm.base_url or p.base_url
    if not url:
        raise ConfigError(f"[llm] base_url: provider {llm.provider!r} needs a server URL")
    key = _api_key(llm, p)
    options = dict(api_key=key, timeout_s=llm.timeout_s, temperature=llm.temperature,
                   max_tokens=llm.max_reply_tokens, transport=transport)
    model = llm.model or p.model
    if p.wire == "anthropic":
        from voiceagent.agent.wire_anthropic import AnthropicChat

        return AnthropicChat(url, model, **options)  # type: ignore[arg-type]
    from voiceagent.agent.wire_openai import OpenAIChat

    return OpenAIChat(url, model, **options)  # type: ignore[arg-type]


def _api_key(llm: LLMConfig, p: Provider) -> str | None:
    env = llm.api_key_env or p.key_env
    if not env:
        return None
    key = os.environ.get(env, "").strip()
    if not key:
        raise ConfigError(
            f"[llm] provider {llm.provider!r} needs an API key: set the environment variable "
            f"{env} (or name another one in [llm] api_key_env)"
        )
    return key
