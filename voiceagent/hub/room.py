"""One room: a satellite's stream, its own assistant and conversation, the kiosk's turn loop.

A room is the kiosk with the satellite as its microphone and speaker: the same recorder
(the utterance cutter, drafts that end a finished request early), the same wake gate, the
same front end (turns on a worker thread, approvals asked and answered by voice in this
room, follow-up questions) and the same Assistant, whose conversation is the session
`<[hub] session>-<room>`. Lists and notes are the house's (one data directory); timers
remember the room that set them and ring there.

What the satellite is told on the way, as Home Assistant tells it: `detection` when the hub's
wake word fires, `voice-stopped` at the end of the words, `transcript` when they are read
(a satellite with its own wake word then stops streaming and listens for it again),
`synthesize` with the answer's text, and the answer's audio (stream.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from wyoming.asr import Transcript
from wyoming.audio import AudioChunk, AudioStop
from wyoming.error import Error as ErrorEvent
from wyoming.event import Event
from wyoming.pipeline import PipelineStage, RunPipeline
from wyoming.tts import Synthesize
from wyoming.vad import VoiceStopped
from wyoming.wake import Detection

from voiceagent.agent.events import (
    AudioEnd,
    Error,
    Events,
    Final,
    LocalCommand,
    Sentence,
    SpeechEnd,
    SttDone,
    TurnEnd,
    TurnStart,
)
from voiceagent.agent.events import Event as TurnEvent
from voiceagent.agent.tools import ToolRegistry
from voiceagent.assistant import Assistant
from voiceagent.build import build_assistant, build_parts
from voiceagent.config import Config
from voiceagent.connect import ChatSetup
from voiceagent.front_end import ROOM
from voiceagent.frontends import KioskFrontEnd, Replies, VoiceApprover
from voiceagent.hub.broadcast import add_broadcast
from voiceagent.hub.discovery import Place
from voiceagent.hub.link import SatelliteLink
from voiceagent.hub.room_timer import add_room_timer
from voiceagent.hub.stream import SatelliteMic, SatelliteSpeaker
from voiceagent.modes import early_end, wake_detector
from voiceagent.ports import Synthesizer, Transcriber
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speaking import speak
from voiceagent.speech.cutter import UtteranceCutter
from voiceagent.speech.vad import SileroVAD
from voiceagent.speech.wakegate import WakeGate
from voiceagent.wyoming.wire import BadAudio

log = logging.getLogger(__name__)


@dataclass
class Shared:
    """What every room uses: the config, the one model, the speech models."""

    config: Config
    chat: ChatSetup
    synthesizer: Synthesizer
    transcriber: Transcriber | None = None
    """Loaded by the first room (biased to the house's list names), then shared."""
    rooms: list[str] = dataclasses.field(default_factory=list)
    """The rooms known at start: a timer may be set for any of them ("in the bedroom")."""
    announcers: dict[str, Callable[[str], None]] = dataclasses.field(default_factory=dict)
    """Every room's `announce`, as rooms are added: what a broadcast says goes there."""


def room_config(config: Config, room: str) -> Config:
    """The config a room's assistant runs with: its own conversation."""
    session = dataclasses.replace(config.session, name=f"{config.hub.session}-{room}")
    return dataclasses.replace(config, session=session)


class Room:
    """One satellite's room (see the module docstring). `link` is its connection; the event
    loop calls `connected`, `event` and `disconnected` on it."""

    def __init__(self, place: Place, shared: Shared, stack: ExitStack, index: int = 0) -> None:
        config = shared.config
        self.name = place.room
        self.link = SatelliteLink(place, self, reconnect_max_s=config.hub.reconnect_max_s)
        self.mic: SatelliteMic | None = None
        self.speaker = SatelliteSpeaker(self.link)
        self._bad_audio = False
        self._listen_s = config.audio.listen_timeout_s
        self._release_s = config.audio.listen_timeout_s + config.audio.max_utterance_s
        """After a satellite's wake word, how long until an empty transcript releases it."""
        self._pipelines = 0
        self._transcribed = 0
        self.recorder = MicRecorder(config.audio, source=self._open_mic)
        events = Events()
        events.subscribe(RoomLog(self.name))
        events.subscribe(self._tell_satellite)
        replies = Replies(config.audio.listen_timeout_s)

        def house_tools(tools: ToolRegistry) -> None:
            add_room_timer(tools, config.data_dir, self.name, shared.rooms)
            add_broadcast(tools, self.name, shared.rooms, shared.announcers)

        parts = build_parts(room_config(config, self.name), stack, front_end=ROOM,
                            transcriber=shared.transcriber, room=self.name,
                            more_tools=house_tools)
        say_now = functools.partial(speak, shared.synthesizer, self.speaker, events)
        approver = VoiceApprover(replies, parts.transcriber, say_now)
        self.assistant: Assistant = build_assistant(
            room_config(config, self.name), stack, front_end=ROOM, parts=parts,
            player=self.speaker, events=events, synthesizer=shared.synthesizer,
            approve=approver, standby=True, chat=shared.chat.pinned(index))
        if shared.transcriber is None:
            shared.transcriber = parts.transcriber
        early_end(config, self.assistant, self.recorder)
        self.gate = self._gate(config)
        self.recorder.processors.append(self.gate)
        self.kiosk = KioskFrontEnd(self.assistant, self.recorder, gate=self.gate,
                                   half_duplex=True, follow_up_s=config.trigger.follow_up_s,
                                   replies=replies)
        self._woken = self.gate.on_wake  # the kiosk's: stop an answer, listen
        self.gate.on_wake = self._detected
        self._thread: threading.Thread | None = None

    def _gate(self, config: Config) -> WakeGate:
        """The hub's own wake word for this room ([hub] wake_word), or none."""
        wake: Any = None
        if config.hub.wake_word:
            wake = wake_detector(config.hub.wake_word, config, self.assistant.transcriber)
        vad = SileroVAD()
        audio = config.audio

        def watch(**changes: Any) -> UtteranceCutter:
            vad.reset()
            return UtteranceCutter.from_config(vad, dataclasses.replace(audio, **changes))

        self.wake_name = wake.name if wake is not None else ""
        return WakeGate(wake, watch, listen_s=audio.listen_timeout_s,
                        deaf=lambda: bool(self.recorder.is_paused))

    def _open_mic(self, paused: threading.Event) -> SatelliteMic:
        self.mic = SatelliteMic(f"{self.name} satellite", paused)
        return self.mic

    def start(self, stop: threading.Event) -> None:
        """Listen and answer on a thread of its own until `stop` is set."""
        self._thread = threading.Thread(target=self.kiosk.run, args=(stop,),
                                        name=f"room-{self.name}", daemon=True)
        self._thread.start()

    def join(self, timeout: float = 5.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the link's calls (in the event loop) --------------------------------------------------

    def connected(self) -> None:
        self._bad_audio = False

    def disconnected(self) -> None:
        """An answer playing here stops; other rooms are not touched."""
        self.speaker.stop()
        self.gate.close()

    def event(self, event: Event) -> None:
        if AudioChunk.is_type(event.type):
            self._audio(event)
        elif RunPipeline.is_type(event.type):
            run = RunPipeline.from_event(event)
            if run.start_stage == PipelineStage.ASR:  # its own wake word fired
                log.info("%s: the satellite heard its wake word", self.name)
                self._listen_after_satellite_wake()
        elif Detection.is_type(event.type):  # newer satellites also report their wake word
            self.gate.open(self._listen_s)
        elif AudioStop.is_type(event.type):
            log.debug("%s: the satellite stopped streaming", self.name)
        elif ErrorEvent.is_type(event.type):
            log.warning("%s: the satellite reports: %s", self.name,
                        ErrorEvent.from_event(event).text)
        else:
            log.debug("%s: ignored %s from the satellite", self.name, event.type)

    def _listen_after_satellite_wake(self) -> None:
        """The request needs no wake word of ours. A satellite streams until it is sent a
        transcript: if nothing is heard, it gets an empty one (as the gate gives up), so it
        listens for its wake word again instead of streaming on."""
        self.gate.open(self._listen_s)
        self._pipelines += 1
        asyncio.get_running_loop().call_later(self._release_s, self._release, self._pipelines)

    def _release(self, pipeline: int) -> None:
        if self._transcribed < pipeline:
            log.info("%s: nothing was said after the satellite's wake word", self.name)
            self.link.post(Transcript(text="").event())

    def _audio(self, event: Event) -> None:
        if self.mic is None:
            return  # the room is not listening yet
        try:
            self.mic.feed(event)
        except BadAudio as exc:  # said once per connection, not once per chunk
            if not self._bad_audio:
                log.warning("%s: unusable audio from the satellite: %s", self.name, exc)
            self._bad_audio = True

    # -- what the satellite is told ------------------------------------------------------------

    def _detected(self) -> None:
        """The hub's wake word fired in this room: the kiosk listens, the satellite is told."""
        self._woken()
        self.link.post(Detection(name=self.wake_name or None).event())

    def _tell_satellite(self, event: TurnEvent) -> None:
        if isinstance(event, SpeechEnd):
            self.link.post(VoiceStopped().event())
        elif isinstance(event, SttDone):
            self._transcribed = self._pipelines
            self.link.post(Transcript(text=event.text).event())
        elif isinstance(event, Final) and event.text:
            self.link.post(Synthesize(text=event.text).event())


class RoomLog:
    """A room's turns and announcements as log lines, each starting with the room's name."""

    def __init__(self, room: str) -> None:
        self.room = room
        self._in_turn = False

    def __call__(self, event: TurnEvent) -> None:
        if isinstance(event, TurnStart):
            self._in_turn = True
        elif isinstance(event, TurnEnd):
            self._in_turn = False
            log.info("%s: turn over (%s)", self.room, event.stop)
        elif isinstance(event, Sentence) and not self._in_turn:
            log.info("%s: announcing %r", self.room, event.text)
        elif isinstance(event, AudioEnd) and not self._in_turn:
            log.info("%s: announced", self.room)
        elif isinstance(event, SttDone):
            log.info("%s: heard %r", self.room, event.text)
        elif isinstance(event, LocalCommand):
            log.info("%s: local command %s", self.room, event.intent)
        elif isinstance(event, Final):
            log.info("%s: answered %r (%s)", self.room, event.text, event.stop)
        elif isinstance(event, Error):
            log.warning("%s: error in %s: %s", self.room, event.where, event.message)
