"""Fakes shipped with the package, so the core is tested without models or servers.

- ScriptedChatModel (chat.py): a ChatModel you `enqueue()` replies into; it records every
  request and `assert_consumed()` checks nothing scripted was left over.
- FakeLLMServer (llm_server.py): a real HTTP server on loopback (threads, a real socket)
  answering with scripted OpenAI-shape or Anthropic-shape responses, streamed or not, or with
  faults (HTTP errors, stalls for timeouts, streams cut off mid-reply); it records every
  request.
- FakeSynthesizer, RecordingPlayer, FakeTranscriber (speech.py): speech without piper,
  Whisper or a sound card.
- ScriptedKeys, ScriptedListen, FakeBlockSource (devices.py): key presses, recordings and
  microphone blocks for the front ends and the recorder.
- FakeClock (clock.py): the Clock port at a time the test sets.
"""

from voiceagent.testing.chat import ChatRequest, ScriptedChatModel, calls
from voiceagent.testing.clock import FakeClock
from voiceagent.testing.devices import FakeBlockSource, ScriptedKeys, ScriptedListen
from voiceagent.testing.llm_server import (
    FakeLLMServer,
    Recorded,
    Response,
    anthropic_stream,
    error_response,
    openai_stream,
    unused_url,
)
from voiceagent.testing.speech import FakeSynthesizer, FakeTranscriber, RecordingPlayer

__all__ = [
    "ChatRequest", "FakeBlockSource", "FakeClock", "FakeLLMServer", "FakeSynthesizer",
    "FakeTranscriber", "Recorded", "RecordingPlayer", "Response", "ScriptedChatModel",
    "ScriptedKeys", "ScriptedListen", "anthropic_stream", "calls", "error_response",
    "openai_stream", "unused_url",
]
