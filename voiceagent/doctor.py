"""`voiceagent doctor`: checks every component and names each problem with its fix."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError


def doctor(config: Config, config_path: Path | None) -> int:
    """Print one line per check; exit 1 when any check failed."""
    checks: list[tuple[str, Callable[[], str]]] = [
        ("config", lambda: f"{config_path or 'built-in defaults'} is valid"),
        ("models", lambda: _models(config)),
        ("speech to text", lambda: _stt(config)),
        ("text to speech", lambda: _tts(config)),
        ("audio devices", lambda: _devices(config)),
        ("language model", lambda: _llm(config)),
        ("tools", lambda: _tools(config)),
        ("wyoming services", lambda: _wyoming(config)),
    ]
    failed = 0
    for name, check in checks:
        try:
            print(f"ok    {name}: {check()}")
        except (VoiceAgentError, OSError) as exc:
            failed += 1
            print(f"FAIL  {name}: {exc}")
    print("all checks passed" if not failed else f"{failed} check(s) failed")
    return 1 if failed else 0


def _models(config: Config) -> str:
    from voiceagent import models

    statuses = models.verify(None, config.models_dir)
    bad = [s for s in statuses if s.state != "ok"]
    needed = {config.stt.model, config.tts.voice, config.llm.model or models.DEFAULT_LLM}
    problems = [f"{s.name}: {s.detail}" for s in bad if s.name in needed]
    if problems:
        raise VoiceAgentError("; ".join(problems))
    missing = f" (not installed, optional: {', '.join(s.name for s in bad)})" if bad else ""
    return f"{len(statuses) - len(bad)} verified by sha256{missing}"


def _stt(config: Config) -> str:
    from voiceagent.models import whisper_dir

    return f"{config.stt.model} at {whisper_dir(config.stt.model, config.models_dir)}"


def _tts(config: Config) -> str:
    from voiceagent.models import piper_voice

    return f"{config.tts.voice} at {piper_voice(config.tts.voice, config.models_dir)}"


def _devices(config: Config) -> str:
    from voiceagent.sound.devices import resolve

    mic = resolve(config.audio.input_device, "input")
    speaker = resolve(config.audio.output_device, "output")
    return f"microphone {mic.name!r}, speaker {speaker.name!r}"


def _llm(config: Config) -> str:
    from voiceagent.connect import build_chat

    with ExitStack() as stack:
        chat = build_chat(config, stack, allow_demo=False)
        reply = chat.model.complete("Answer with one word.", _hello(), [])
    return f"{config.llm.provider} answered {reply.text.strip()[:40]!r}"


def _hello() -> list:
    from voiceagent.agent.messages import Message

    return [Message("user", "Say hello.")]


def _tools(config: Config) -> str:
    from voiceagent.tools import ToolContext, build_tools

    toolbox = build_tools(config, ToolContext(data_dir=config.data_dir))
    try:
        if toolbox.warnings:
            raise VoiceAgentError("; ".join(toolbox.warnings))
        return f"{len(toolbox.registry)} tools: {', '.join(toolbox.registry.names)}"
    finally:
        toolbox.close()


def _wyoming(config: Config) -> str:
    from voiceagent.wyoming.client import check_remotes

    return check_remotes(config)
