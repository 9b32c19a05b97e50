"""voiceagent: a local, offline voice assistant."""

__version__ = "0.1.0"
