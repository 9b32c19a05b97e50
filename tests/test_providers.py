"""The provider table: every entry builds a working adapter; keys come from the environment."""

from __future__ import annotations

import subprocess
import sys

import pytest

from voiceagent.agent.messages import Message, Price, Usage
from voiceagent.agent.providers import PROVIDERS, Provider, make_chat_model, price_for
from voiceagent.agent.wire_anthropic import AnthropicChat
from voiceagent.agent.wire_openai import OpenAIChat
from voiceagent.config import LLMConfig
from voiceagent.errors import ConfigError
from voiceagent.testing import FakeLLMServer, anthropic_stream, openai_stream


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_every_provider_builds_its_wire_adapter(name, monkeypatch):
    entry = PROVIDERS[name]
    if entry.key_env:
        monkeypatch.setenv(entry.key_env, "k-123")
    base_url = "http://127.0.0.1:5/v1" if not entry.base_url else None
    model = make_chat_model(LLMConfig(provider=name), base_url=base_url)
    expected = AnthropicChat if entry.wire == "anthropic" else OpenAIChat
    assert type(model) is expected and model.model == entry.model
    model.close()


def test_unknown_provider_lists_the_known_ones():
    with pytest.raises(ConfigError, match="unknown provider 'olama'; known: local, llamacpp"):
        make_chat_model(LLMConfig(provider="olama"))


def test_a_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set the environment variable OPENAI_API_KEY"):
        make_chat_model(LLMConfig(provider="openai"))
    with pytest.raises(ConfigError, match="MY_GROQ_KEY"):
        make_chat_model(LLMConfig(provider="groq", api_key_env="MY_GROQ_KEY"))


def test_local_needs_the_embedded_servers_url():
    with pytest.raises(ConfigError, match="needs a server URL"):
        make_chat_model(LLMConfig(provider="local"))


def test_prices_are_known_per_model():
    assert price_for(LLMConfig(provider="openai")) == Price(0.15, 0.60)
    assert price_for(LLMConfig(provider="openai", model="some-new-model")) is None
    assert price_for(LLMConfig(provider="ollama")) is None
    assert Price(1.0, 5.0).cost(Usage(1_000_000, 200_000)) == pytest.approx(2.0)


def test_ollama_by_changing_base_url_only():
    with FakeLLMServer() as server:
        server.script(openai_stream("Hi from Ollama."))
        model = make_chat_model(LLMConfig(provider="ollama", base_url=server.url))
        reply = model.complete("sys", [Message("user", "hi")], ())
        model.close()
    req = server.requests[0]
    assert reply.text == "Hi from Ollama."
    assert (req.path, req.body["model"]) == ("/v1/chat/completions", "qwen2.5-coder:1.5b")
    assert "authorization" not in req.headers


def test_keys_go_in_the_providers_header(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    with FakeLLMServer() as server:
        server.script(openai_stream("a"), anthropic_stream("b"))
        for name in ("openai", "anthropic"):
            model = make_chat_model(LLMConfig(provider=name), base_url=server.url)
            model.complete("sys", [Message("user", "hi")], ())
            model.close()
    assert server.requests[0].headers["authorization"] == "Bearer sk-openai"
    assert server.requests[1].headers["x-api-key"] == "sk-ant"


def test_a_new_provider_is_one_table_entry(monkeypatch):
    monkeypatch.setitem(PROVIDERS, "mycloud",
                        Provider("openai", "http://127.0.0.1:7/v1", "tiny", "MYCLOUD_KEY"))
    monkeypatch.setenv("MYCLOUD_KEY", "x")
    model = make_chat_model(LLMConfig(provider="mycloud"))
    assert isinstance(model, OpenAIChat) and model.base_url == "http://127.0.0.1:7/v1"
    model.close()


def test_the_core_imports_no_http_client() -> None:
    """The loop and the assistant work with any ChatModel; httpx comes with the adapters."""
    code = ("import sys, voiceagent.agent.loop, voiceagent.assistant; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'httpx'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
