"""`voiceagent ask`: one turn from text or a WAV, spoken, written to a WAV, or silent."""

from __future__ import annotations

import sys
from contextlib import ExitStack

from voiceagent.agent.events import Events, TraceFile
from voiceagent.assistant import TurnOutcome
from voiceagent.audio import load_audio
from voiceagent.build import build_assistant, build_synthesizer
from voiceagent.config import Config
from voiceagent.front_end import ASK
from voiceagent.ports import Player, Synthesizer
from voiceagent.speaking import NoSpeech
from voiceagent.view import LogView, setup_logging


def ask(
    config: Config,
    *,
    text: str | None,
    wav: str | None,
    out: str | None,
    speak: bool,
    trace: str | None,
    verbose: bool,
) -> TurnOutcome:
    """Answer one question; the conversation continues the configured session."""
    setup_logging(verbose)
    events = Events()
    if verbose:
        events.subscribe(LogView(verbose=True))
    with ExitStack() as stack:
        if trace:
            trace_file = TraceFile(trace)
            stack.callback(trace_file.close)
            events.subscribe(trace_file)
        player, synthesizer = _output(config, stack, out=out, speak=speak)
        audio = load_audio(wav) if wav else None
        assistant = build_assistant(
            config, stack, front_end=ASK, player=player, events=events, synthesizer=synthesizer,
            approve=terminal_approver if sys.stdin.isatty() else None,
            with_transcriber=audio is not None, lazy_model=True,
        )
        if audio is not None:
            return assistant.answer_audio(audio)
        assert text is not None
        return assistant.answer_text(text)


def _output(config: Config, stack: ExitStack, *, out: str | None,
            speak: bool) -> tuple[Player, Synthesizer]:
    if out:
        from voiceagent.sound.player import WavFilePlayer

        wav_player = WavFilePlayer(out)
        stack.callback(wav_player.close)
        return wav_player, build_synthesizer(config)
    if not speak:
        from voiceagent.sound.player import NullPlayer

        return NullPlayer(), NoSpeech()
    from voiceagent.sound.player import SoundPlayer

    return SoundPlayer(config.audio), build_synthesizer(config)


def terminal_approver(name: str, args: dict[str, object]) -> bool:
    """Asks at the terminal before an irreversible tool runs."""
    answer = input(f"Allow {name} {args}? [y/N] ")
    return answer.strip().lower() in ("y", "yes")
