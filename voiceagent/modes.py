"""`voiceagent run`: builds a front end for the chosen mode and runs it until told to stop.

SIGINT/SIGTERM stop cleanly (playback stopped, server stopped, session saved: every turn is
saved at its end, and the ExitStack stops what was started); SIGHUP reloads the config when
the new file loads, and otherwise logs why and keeps running on the old one. Audio devices
are checked first, so a missing one is reported within seconds, before any model loads.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import sys
import threading
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Events
from voiceagent.build import build_assistant, build_synthesizer
from voiceagent.config import Config, load_config
from voiceagent.errors import DeviceError, VoiceAgentError
from voiceagent.frontends import KeyedFrontEnd, KioskFrontEnd, Replies, VoiceApprover
from voiceagent.triggers import EvdevKeys, KeySource, LineKeys, TerminalKeys
from voiceagent.view import LogView, TerminalView, setup_logging

log = logging.getLogger(__name__)


def run_mode(config: Config, *, mode: str, keys: str | None, verbose: bool,
             config_path: Path | None) -> int:
    """Run until SIGINT/SIGTERM or quit; rebuild everything on SIGHUP."""
    from voiceagent.stderr_limit import limit_native_stderr

    limit_native_stderr()  # before logging: a native library's flood must not fill the disk
    setup_logging(verbose)
    stop = threading.Event()
    reload = threading.Event()

    def on_stop(signum: int, _frame: Any) -> None:
        log.info("received %s, stopping", signal.Signals(signum).name)
        stop.set()

    fresh: list[Config] = []

    def on_hup(_signum: int, _frame: Any) -> None:
        log.info("received SIGHUP, reloading %s", config_path or "the config")
        try:  # checked before anything stops: a broken file must not take the kiosk down
            fresh[:] = [load_config(config_path)]
        except VoiceAgentError as exc:
            log.error("not reloading, keeping the running config: %s", exc)
            return
        reload.set()
        stop.set()

    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)
    signal.signal(signal.SIGHUP, on_hup)
    while True:
        _run_once(config, mode=mode, keys=keys, verbose=verbose, stop=stop)
        if not reload.is_set():
            return 0
        reload.clear()
        stop.clear()
        config = fresh[0]


@dataclass
class Kiosk:
    """The kiosk as `run --mode kiosk` runs it: `front.run(stop)` serves until `stop`."""

    front: KioskFrontEnd
    assistant: Any
    """The Assistant its turns run on."""
    recorder: Any
    """The MicRecorder it listens with; its `processors` hold the echo canceller and the
    wake gate, in the order the microphone's blocks go through them."""


def build_kiosk(config: Config, stack: ExitStack, events: Events) -> Kiosk:
    """Everything `run --mode kiosk` builds, and nothing more, for callers that drive or
    measure the real kiosk (`bench --live`): what changes in it is measured there too."""
    player, recorder, assistant, replies = _parts(config, stack, events, mode="kiosk")
    return Kiosk(_kiosk(config, assistant, recorder, player, replies), assistant, recorder)


def _parts(config: Config, stack: ExitStack, events: Events, *, mode: str,
           on_level: Any = None) -> tuple[Any, Any, Any, Replies]:
    """Player, recorder, assistant (its warm-up started) and the kiosk's Replies."""
    from voiceagent.sound.player import SoundPlayer
    from voiceagent.sound.recorder import MicRecorder

    player = SoundPlayer(config.audio)
    stack.callback(player.stop)
    recorder = MicRecorder(config.audio, on_level=on_level)
    stack.callback(recorder.close)
    check_devices(config, recorder, keep_open=mode != "kiosk")  # before models load
    synthesizer = build_synthesizer(config)
    replies = Replies(config.audio.listen_timeout_s)  # the kiosk's mic has one reader
    approver = VoiceApprover(replies if mode == "kiosk" else recorder)
    assistant = build_assistant(config, stack, mode=mode, player=player, events=events,
                                synthesizer=synthesizer, approve=approver, standby=True)
    approver.assistant = assistant
    threading.Thread(target=assistant.agent.warm_up, name="warm-up", daemon=True).start()
    return player, recorder, assistant, replies


def _run_once(config: Config, *, mode: str, keys: str | None, verbose: bool,
              stop: threading.Event) -> None:
    events = Events()
    interactive = mode == "ptt" and sys.stdout.isatty()
    view = TerminalView(key_hint=config.trigger.key) if interactive else None
    events.subscribe(view if view is not None else LogView(verbose))
    with ExitStack() as stack:
        if mode == "kiosk":
            kiosk = build_kiosk(config, stack, events)
            _ready(config, mode, stop, kiosk.assistant)
            kiosk.front.run(stop)
            return
        player, recorder, assistant, _replies = _parts(config, stack, events, mode=mode,
                                                       on_level=view.level if view else None)
        _ready(config, mode, stop, assistant)
        early_end(config, assistant, recorder)
        recorder.open()  # one stream kept open: no device start-up lost at each key press
        source = _key_source(config, mode, keys)
        stack.callback(source.close)
        from voiceagent.sound.player import SoundPlayer

        chime = _chime(config, SoundPlayer(config.audio))  # its own: never stops the answer
        KeyedFrontEnd(assistant, recorder.record, source.start(), view=view,
                      chime=chime).run(stop)


def _ready(config: Config, mode: str, stop: threading.Event, assistant: Any) -> None:
    threading.Thread(target=_interrupt_on_stop, args=(stop, assistant.interrupt),
                     daemon=True).start()
    log.info("voiceagent %s mode ready (config: %s)", mode, config.source)


def _kiosk(config: Config, assistant: Any, recorder: Any, player: Any,
           replies: Replies) -> KioskFrontEnd:
    """The kiosk: the echo canceller and the wake gate become the recorder's per-block
    processors, in that order; the player's tap feeds the canceller what was played."""
    from voiceagent.sound.player import SoundPlayer
    from voiceagent.speech.cutter import UtteranceCutter
    from voiceagent.speech.vad import SileroVAD
    from voiceagent.speech.wakegate import WakeGate

    trigger, audio = config.trigger, config.audio
    early_end(config, assistant, recorder)
    chimes = SoundPlayer(audio)  # its own: a chime never clears the answer's stop flag
    echo_only = lambda: False  # noqa: E731
    if audio.echo_cancel:
        from voiceagent.sound.echo import EchoCanceller, Reference

        reference = Reference()
        player.tap = chimes.tap = reference.played
        canceller = EchoCanceller(reference)
        recorder.processors.append(canceller)
        echo_only = lambda: canceller.echo_only  # noqa: E731
    gate = None
    if trigger.wake_word or audio.echo_cancel:
        wake: Any = None
        if trigger.wake_word:
            from voiceagent.speech.wakeword import WakeOverEcho, WakeWord

            def make() -> WakeWord:
                return WakeWord(trigger.wake_word, cutoff=trigger.wake_cutoff,
                                refractory_s=trigger.wake_refractory_s)

            wake = make()
            if audio.echo_cancel:  # over an answer: the raw mic too, unless it said it
                wake = WakeOverEcho(make, lambda: canceller.last_raw,
                                    lambda: canceller.last_far,
                                    refractory_s=trigger.wake_refractory_s)
            log.info("waiting for the wake word %r", wake.name)
        vad = SileroVAD()

        def watch(**changes: Any) -> UtteranceCutter:
            vad.reset()
            return UtteranceCutter.from_config(vad, dataclasses.replace(audio, **changes))

        gate = WakeGate(wake, watch, listen_s=audio.listen_timeout_s,
                        deaf=lambda: bool(recorder.is_paused), echo_only=echo_only)
        recorder.processors.append(gate)
    return KioskFrontEnd(
        assistant, recorder, gate=gate, half_duplex=not audio.echo_cancel,
        wake_phrase="" if trigger.wake_word else trigger.wake_phrase,
        chime=_chime(config, chimes), follow_up_s=trigger.follow_up_s, replies=replies)


def early_end(config: Config, assistant: Any, recorder: Any) -> None:
    """Let the recorder end an utterance as soon as its words sound finished, sooner still
    when they are a whole local command: it drafts transcripts with the assistant's
    transcriber, which then reuses them (speech/drafts.py)."""
    from voiceagent.speech.drafts import Drafts

    if config.audio.early_end_ms and assistant.transcriber is not None:
        local = getattr(assistant.agent, "local", None) if config.audio.command_end_ms else None
        command = None if local is None else (lambda text: local.match(text) is not None)
        drafts = Drafts(assistant.transcriber, command)
        assistant.transcriber = recorder.drafts = drafts


def check_devices(config: Config, recorder: Any, *, keep_open: bool) -> None:
    """Open the microphone and resolve the speaker now: a DeviceError naming the devices that
    exist comes before models load or the LLM server starts, not half a minute later."""
    from voiceagent.sound import devices

    recorder.open()
    if not keep_open:  # the kiosk's listener opens its own, with no stale audio queued
        recorder.close()
    speaker = devices.resolve(config.audio.output_device, "output")
    sd = devices.sounddevice()
    with devices.portaudio_errors(f"checking speaker {speaker.name!r}"):
        sd.check_output_settings(device=speaker.index, channels=1,
                                 samplerate=speaker.default_rate)
    log.info("audio devices ok (speaker %r)", speaker.name)


def _interrupt_on_stop(stop: threading.Event, interrupt: Any) -> None:
    stop.wait()
    interrupt()


def _key_source(config: Config, mode: str, keys: str | None) -> KeySource:
    """Terminal keys for ptt, /dev/input for the daemon; stdin lines when neither works."""
    choice = keys or ("evdev" if mode == "daemon" else "terminal")
    if choice == "evdev":
        try:
            return EvdevKeys(config.trigger.evdev_key)
        except DeviceError as exc:
            log.error("%s", exc)
            log.warning("falling back to key presses from stdin (one line = one press)")
            return LineKeys()
    if choice == "terminal" and sys.stdin.isatty():
        return TerminalKeys(config.trigger.key)
    return LineKeys()


def _chime(config: Config, player: Any) -> Any:
    if not config.audio.chime:
        return None
    from voiceagent.sound.chime import chime

    return lambda which: player.play(chime(which))
