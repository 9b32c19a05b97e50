"""Fixtures for the real PulseAudio test devices and real speech models."""
