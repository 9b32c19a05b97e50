"""The saved prompt prefix: a cold server restores it instead of prefilling it again.

Checked with the real 0.5B server through what the server itself reports for each request
(timings.prompt_n: prompt tokens it had to process), never wall time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from voiceagent.agent.events import Events
from voiceagent.agent.example import worked_example
from voiceagent.agent.loop import Agent
from voiceagent.agent.messages import Message
from voiceagent.agent.wire_openai import OpenAIChat
from voiceagent.build import prompt_of
from voiceagent.config import Config
from voiceagent.config_file import config_from_dict
from voiceagent.llm.prompt_cache import describe, prime
from voiceagent.llm.server import LLMServer
from voiceagent.tools import ToolContext, build_tools

QUESTION = "What is seventeen plus twenty-five?"


def _agent(config: Config, base_url: str, stack: ExitStack) -> Agent:
    """The default tools, system prompt and worked example, as the assistant sends them."""
    toolbox = build_tools(config, ToolContext(data_dir=config.data_dir))
    stack.callback(toolbox.close)
    chat = OpenAIChat(base_url, "qwen2.5-coder-0.5b", timeout_s=600, temperature=0.0)
    stack.callback(chat.close)
    agent_config = dataclasses.replace(config.agent, max_seconds=600)
    return Agent(chat, toolbox.registry, agent_config, Events(),
                 prefix=worked_example(toolbox.registry))


def _prompt_n(server: LLMServer, agent: Agent, text: str) -> int:
    """Prompt tokens the server processed (not taken from its cache) for one question."""
    assert isinstance(agent.model, OpenAIChat)
    body = agent.model.request_body(agent.config.system_prompt,
                                    [*agent.prefix, Message("user", text)], agent.tools.specs())
    body.update(stream=False, max_tokens=1)
    body.pop("stream_options", None)
    reply = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=600).json()
    return int(reply["timings"]["prompt_n"])


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return config_from_dict({"paths": {"data_dir": str(tmp_path / "data")}})


@pytest.fixture
def slot_server(test_gguf: Path, tmp_path: Path) -> Iterator[LLMServer]:
    server = LLMServer(test_gguf, slot_dir=tmp_path / "slots")
    yield server
    server.stop()


@pytest.mark.real
def test_a_cold_server_restores_the_saved_prefix_instead_of_prefilling_it(
        slot_server: LLMServer, config: Config) -> None:
    with ExitStack() as stack:
        slot_server.start()
        agent = _agent(config, slot_server.base_url, stack)
        prefix = describe(slot_server, prompt_of(agent), agent.model)
        assert prefix is not None and prefix.tokens > 300

        cold = _prompt_n(slot_server, agent, QUESTION)
        assert prime(slot_server, prompt_of(agent), agent.model) == "saved"
        assert slot_server.slot_dir is not None
        assert (slot_server.slot_dir / prefix.filename).is_file()
        warm = _prompt_n(slot_server, agent, QUESTION)

        slot_server.restart()  # a fresh process: nothing cached in memory
        assert prime(slot_server, prompt_of(agent), agent.model) == "restored"
        restored = _prompt_n(slot_server, agent, QUESTION)

    assert cold >= prefix.tokens  # the whole prefix was prefilled the first time
    assert warm < 40 and restored <= warm + 2, (cold, warm, restored)


@pytest.mark.real
def test_the_prefix_is_byte_stable_and_keyed_by_what_is_in_it(
        slot_server: LLMServer, config: Config) -> None:
    """Built twice (the clock has moved), the prefix is the same file; another system prompt
    gets another file."""
    with ExitStack() as stack:
        slot_server.start()
        agents = [_agent(config, slot_server.base_url, stack) for _ in range(3)]
        agents[2].config = dataclasses.replace(agents[2].config, system_prompt="Be brief.")
        first, second, other = (describe(slot_server, prompt_of(a), a.model) for a in agents)
    assert first is not None and second is not None and other is not None
    assert first == second
    assert other.filename != first.filename and other.tokens < first.tokens
