"""The `info` answer to `describe`: what this server offers, every model marked installed.

Home Assistant reads the languages to decide which pipelines may use each service, so they are
the ones the configured models really handle.
"""

from __future__ import annotations

import json
import logging

from wyoming.info import (
    AsrModel,
    AsrProgram,
    Attribution,
    HandleModel,
    HandleProgram,
    Info,
    TtsProgram,
    TtsVoice,
)

from voiceagent import __version__
from voiceagent.config import Config

log = logging.getLogger(__name__)

ATTRIBUTION = Attribution(name="voiceagent", url="https://pypi.org/project/voiceagent/")
PROGRAM = "voiceagent"
"""The program name in every domain (clients may select programs by name)."""


def build_info(config: Config, *, handle: bool = True) -> Info:
    """asr, tts and (with `handle`) the assistant as an intent handler."""
    info = Info(
        asr=[AsrProgram(
            name=PROGRAM, attribution=ATTRIBUTION, installed=True, version=__version__,
            description=f"voiceagent speech to text (Whisper {config.stt.model})",
            models=[AsrModel(
                name=config.stt.model, attribution=ATTRIBUTION, installed=True,
                description=f"Whisper {config.stt.model}", version=None,
                languages=stt_languages(config),
            )],
            supports_transcript_streaming=True,
        )],
        tts=[TtsProgram(
            name=PROGRAM, attribution=ATTRIBUTION, installed=True, version=__version__,
            description=f"voiceagent text to speech (piper {config.tts.voice})",
            voices=[TtsVoice(
                name=config.tts.voice, attribution=ATTRIBUTION, installed=True,
                description=f"piper {config.tts.voice}", version=None,
                languages=[voice_language(config)],
            )],
            supports_synthesize_streaming=True,
        )],
    )
    if handle:
        model = config.llm.model or config.llm.provider
        info.handle = [HandleProgram(
            name=PROGRAM, attribution=ATTRIBUTION, installed=True, version=__version__,
            description="voiceagent: the assistant with its tools answers",
            models=[HandleModel(
                name=model, attribution=ATTRIBUTION, installed=True,
                description=f"{config.llm.provider} {model}", version=None,
                languages=[config.stt.language or "en"],
            )],
            supports_handled_streaming=False,  # Home Assistant only reads one `handled`
            supports_home_control=False,
        )]
    return info


def stt_languages(config: Config) -> list[str]:
    """The configured language; an English-only model says "en"; else all Whisper's."""
    if config.stt.language:
        return [config.stt.language]
    if config.stt.model.endswith(".en"):
        return ["en"]
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    return sorted(_LANGUAGE_CODES)


def voice_language(config: Config) -> str:
    """The voice's language code from its piper JSON (en_US); "en" if it cannot be read."""
    try:
        from voiceagent.models import piper_voice

        path = piper_voice(config.tts.voice, config.models_dir)
        with open(f"{path}.json", encoding="utf-8") as f:
            return str(json.load(f)["language"]["code"])
    except Exception as exc:  # a remote engine, a custom voice without language: still serve
        log.debug("voice language unknown (%s); announcing en", exc)
        return "en"
