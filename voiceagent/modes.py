"""`voiceagent run`: builds a front end for the chosen mode and runs it until told to stop.

SIGINT/SIGTERM stop cleanly (playback stopped, server stopped, session saved: every turn is
saved at its end, and the ExitStack stops what was started); SIGHUP reloads the config when
the new file loads, and otherwise logs why and keeps running on the old one. Audio devices
are checked first, so a missing one is reported within seconds, before any model loads.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Events
from voiceagent.build import build_assistant, build_parts, build_synthesizer
from voiceagent.config import Config
from voiceagent.config_file import load_config
from voiceagent.errors import DeviceError, VoiceAgentError
from voiceagent.front_end import KIOSK, RUN_MODES, FrontEnd
from voiceagent.frontends import KeyedFrontEnd, KioskFrontEnd, Replies, VoiceApprover
from voiceagent.speaking import speak
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
    front_end = RUN_MODES[mode]
    while True:
        _run_once(config, front_end=front_end, keys=keys, verbose=verbose, stop=stop)
        if not reload.is_set():
            return 0
        reload.clear()
        stop.clear()
        config = fresh[0]


@dataclasses.dataclass
class Kiosk:
    """The kiosk as `run --mode kiosk` runs it: `front.run(stop)` serves until `stop`."""

    front: KioskFrontEnd
    assistant: Any
    """The Assistant its turns run on."""
    recorder: Any
    """The MicRecorder it listens with; its `processors` hold the echo canceller and the
    wake gate, in the order the microphone's blocks go through them."""


def open_kiosk(config: Config, stack: ExitStack, events: Events) -> Kiosk:
    """Everything `run --mode kiosk` builds, and nothing more, for callers that drive or
    measure the real kiosk (`bench --live`): what changes in it is measured there too."""
    player, recorder, assistant, replies = _parts(config, stack, events, front_end=KIOSK)
    return Kiosk(build_kiosk(config, assistant, recorder, player, replies), assistant,
                 recorder)


def _parts(config: Config, stack: ExitStack, events: Events, *, front_end: FrontEnd,
           on_level: Any = None) -> tuple[Any, Any, Any, Replies]:
    """Player, recorder (devices checked), assistant (its warm-up started) and the kiosk's
    Replies, as every front end of `run` has them."""
    from voiceagent.sound.player import SoundPlayer
    from voiceagent.sound.recorder import MicRecorder

    player = SoundPlayer(config.audio)
    stack.callback(player.stop)
    listening = config.audio
    if front_end.hands_free and config.trigger.wake_word:  # the gate keeps the name from
        listening = dataclasses.replace(listening, pause_grace_ms=0)  # the cutter: no grace
    recorder = MicRecorder(listening, on_level=on_level)
    stack.callback(recorder.close)
    check_devices(config, recorder, keep_open=not front_end.hands_free)  # before models load
    synthesizer = build_synthesizer(config)
    parts = build_parts(config, stack, front_end=front_end)
    replies = Replies(config.audio.listen_timeout_s)  # the kiosk's mic has one reader
    approver = VoiceApprover(replies if front_end.hands_free else recorder, parts.transcriber,
                             functools.partial(speak, synthesizer, player, events))
    assistant = build_assistant(config, stack, front_end=front_end, parts=parts,
                                player=player, events=events, synthesizer=synthesizer,
                                approve=approver, standby=True)
    threading.Thread(target=assistant.agent.warm_up, name="warm-up", daemon=True).start()
    return player, recorder, assistant, replies


def _run_once(config: Config, *, front_end: FrontEnd, keys: str | None, verbose: bool,
              stop: threading.Event) -> None:
    events = Events()
    interactive = front_end.view and sys.stdout.isatty()
    view = TerminalView(key_hint=config.trigger.key) if interactive else None
    events.subscribe(view if view is not None else LogView(verbose))
    with ExitStack() as stack:
        player, recorder, assistant, replies = _parts(
            config, stack, events, front_end=front_end, on_level=view.level if view else None)
        watcher = threading.Thread(target=_interrupt_on_stop, args=(stop, assistant.interrupt),
                                   daemon=True)
        watcher.start()
        log.info("voiceagent %s mode ready (config: %s)", front_end.name, config.source)
        if front_end.hands_free:
            build_kiosk(config, assistant, recorder, player, replies).run(stop)
            return
        early_end(config, assistant, recorder)
        recorder.open()  # one stream kept open: no device start-up lost at each key press
        source = _key_source(config, front_end, keys)
        stack.callback(source.close)
        from voiceagent.sound.player import SoundPlayer

        chime = _chime(config, SoundPlayer(config.audio))  # its own: never stops the answer
        KeyedFrontEnd(assistant, recorder.record, source.start(), view=view,
                      chime=chime).run(stop)


def build_kiosk(config: Config, assistant: Any, recorder: Any, player: Any,
                replies: Replies) -> KioskFrontEnd:
    """The kiosk: the echo canceller and the wake gate become the recorder's per-block
    processors, in that order; the player's tap feeds the canceller what was played."""
    from voiceagent.sound.player import SoundPlayer

    trigger, audio = config.trigger, config.audio
    wake_phrase = "" if trigger.wake_word else trigger.wake_phrase
    early_end(config, assistant, recorder, wake_phrase=wake_phrase)
    chimes = SoundPlayer(audio)  # its own: a chime never clears the answer's stop flag
    canceller = None
    if audio.echo_cancel:
        from voiceagent.sound.echo import EchoCanceller, Reference

        reference = Reference()
        player.tap = chimes.tap = reference.played
        canceller = EchoCanceller(reference)
        recorder.processors.append(canceller)
    gate = wake_gate(config, recorder, canceller, assistant.transcriber)
    if gate is not None:
        recorder.processors.append(gate)
    return KioskFrontEnd(
        assistant, recorder, gate=gate, half_duplex=not audio.echo_cancel,
        wake_phrase=wake_phrase,
        chime=_chime(config, chimes), follow_up_s=trigger.follow_up_s, replies=replies)


def wake_gate(config: Config, recorder: Any, canceller: Any = None,
              transcriber: Any = None) -> Any:
    """The kiosk's wake gate for `recorder` (None when neither a wake word nor echo
    cancellation needs one); `canceller` is the echo canceller before it, if any;
    `transcriber` gives a doubtful run-on wake word a second opinion. Shared by the kiosk
    and the measurements that feed it recordings."""
    from voiceagent.speech.cutter import UtteranceCutter
    from voiceagent.speech.vad import SileroVAD
    from voiceagent.speech.wakegate import WakeGate

    trigger, audio = config.trigger, config.audio
    if not (trigger.wake_word or canceller is not None):
        return None
    wake: Any = None
    if trigger.wake_word:
        from voiceagent.speech.wakeword import WakeOverEcho, WakeWord

        def make() -> WakeWord:
            return wake_detector(trigger.wake_word, config, transcriber)

        wake = make()
        if canceller is not None:  # over an answer: the raw mic too, unless it said it
            wake = WakeOverEcho(make, lambda: canceller.last_raw, lambda: canceller.last_far,
                                refractory_s=trigger.wake_refractory_s)
        log.info("waiting for the wake word %r", wake.name)
    vad = SileroVAD()
    # the watch only keeps the gate open: it must never close it at a pause the recorder's
    # own cutter would still wait through (a held pause after "set a timer for ...")
    patient = {"silence_ms": audio.silence_ms + audio.hold_ms, "turn_end_ms": 0}

    def watch(**changes: Any) -> UtteranceCutter:
        vad.reset()
        return UtteranceCutter.from_config(vad, dataclasses.replace(audio, **{**patient,
                                                                              **changes}))

    echo_only = (lambda: False) if canceller is None else (lambda: canceller.echo_only)
    return WakeGate(wake, watch, listen_s=audio.listen_timeout_s,
                    deaf=lambda: bool(recorder.is_paused), echo_only=echo_only)


def wake_detector(name: str, config: Config, transcriber: Any = None) -> Any:
    """The wake word `name` with [trigger]'s cut-off and refractory time, and, given a
    `transcriber`, its second opinion on a doubtful run-on (speech/wake_confirm.py), or on
    every wake ([trigger] wake_check): the kiosk's and a hub room's."""
    from voiceagent.speech.wake_confirm import heard_by
    from voiceagent.speech.wakeword import SPEECH_LIKE, WakeWord

    check = config.trigger.wake_check
    detector = WakeWord(name, cutoff=config.trigger.wake_cutoff,
                        refractory_s=config.trigger.wake_refractory_s,
                        check_every=check == "always" or (check == "auto"
                                                          and name in SPEECH_LIKE))
    if transcriber is not None:
        detector.confirm = heard_by(transcriber, detector.name)
    return detector


def early_end(config: Config, assistant: Any, recorder: Any, *, wake_phrase: str = "") -> None:
    """Let the recorder judge each pause from the words so far (drafted with the assistant's
    transcriber) and the turn model, so a finished request ends sooner than silence_ms and an
    unfinished one is waited for (speech/drafts.py). The request itself is transcribed by
    the assistant's transcriber from the whole utterance, started at the pause the utterance
    ends with (speech/read_ahead.py); those words are prefilled as soon as they are ready
    (Assistant.prefill, after `wake_phrase` as the front end answers them)."""
    from pathlib import Path

    from voiceagent.speech.drafts import Drafts
    from voiceagent.speech.turn import load_turn_model

    audio, trigger = config.audio, config.trigger
    if not audio.turn_end_ms or assistant.transcriber is None:
        return
    local = getattr(assistant.agent, "local", None)
    command = None if local is None else (lambda text: local.match(text) is not None)
    wake = Path(trigger.wake_word).stem.replace("_", " ") if trigger.wake_word else ""
    from voiceagent.speech.read_ahead import ReadAhead
    from voiceagent.speech.stt import WhisperTranscriber

    drafting = assistant.transcriber  # a Whisper of our own drafts on the cheap short window
    if isinstance(drafting, WhisperTranscriber):
        drafting = drafting.drafting()
    ahead = assistant.transcriber = ReadAhead(
        assistant.transcriber, on_ready=lambda text: assistant.prefill(
            text, wake_phrase=wake_phrase))
    recorder.drafts = Drafts(drafting, load_turn_model(audio.turn_model, config.models_dir),
                             threshold=audio.turn_threshold, command=command,
                             names=[n for n in (wake, trigger.wake_phrase) if n],
                             read_ahead=ahead.start)


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


def _key_source(config: Config, front_end: FrontEnd, keys: str | None) -> KeySource:
    """Terminal keys for ptt, /dev/input for the daemon; stdin lines when neither works."""
    choice = keys or front_end.keys or "terminal"
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
