"""Fixtures for the real embedded llama.cpp server with the small bundled model."""
