"""The exception hierarchy; every message is written for the person who must fix it.

    VoiceAgentError
    ├── ConfigError     a config file key, type or value is wrong
    ├── DeviceError     an audio device is missing or failed (message lists the devices)
    ├── ModelError      a model file is missing or corrupt (message names the path and the fix)
    ├── ChatError       the LLM server is unreachable or answered with an error
    │   └── ServerDown  nothing answers at the URL
    ├── ToolError       raised by tools; the message goes back to the model as the tool result
    ├── PluginError     a [tools] modules entry could not be loaded (the message says why)
    └── MCPError        an MCP server failed to start or answer (names the server and cause)
"""


class VoiceAgentError(Exception):
    """Base of every error voiceagent reports to a user without a traceback."""


class ConfigError(VoiceAgentError):
    """A config key, type or value is wrong."""


class DeviceError(VoiceAgentError):
    """An audio device does not exist or failed."""


class ModelError(VoiceAgentError):
    """A model file is missing, incomplete or corrupt."""


class ChatError(VoiceAgentError):
    """The LLM server answered with an error or could not be reached."""


class ServerDown(ChatError):
    """Nothing answers at the LLM server's URL."""


class ToolError(VoiceAgentError):
    """A tool could not do what was asked; the message is written for the model."""


class PluginError(VoiceAgentError):
    """A tool module could not be loaded; the message says why, for the user."""


class MCPError(VoiceAgentError):
    """An MCP server failed to start or answer; the message names the server and the cause."""
