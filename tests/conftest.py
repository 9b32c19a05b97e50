"""Shared fixtures live in one module per concern, registered here."""

pytest_plugins = ["tests.fixtures_audio", "tests.fixtures_llm"]
