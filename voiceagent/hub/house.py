"""The house: every room, the one language model and the speech models they share.

One LLM server answers every room: the embedded llama.cpp server gets `[hub] llm_slots`
slots (two rooms asking at once are answered side by side, each slot holding its room's
conversation in its cache: room N's requests all go to slot N, connect.ChatSetup.pinned) and
the prompt prefix restored into each. Whisper and piper are
loaded once; each serves one request at a time (their own locks), which is short next to the
model's answer. A room's failure, barge-in or lost satellite stays in that room: each has its
own threads, conversation and connection.

A timer set by no room (`voiceagent ask`) rings in every room; a room's own rings only there.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
import threading
from contextlib import ExitStack

from voiceagent.build import build_synthesizer, prompt_of
from voiceagent.config import Config
from voiceagent.connect import build_chat
from voiceagent.errors import ConfigError
from voiceagent.hub.discovery import Discovery, Place, parse_satellites, same_address
from voiceagent.hub.room import Room, Shared

log = logging.getLogger(__name__)


def hub_config(config: Config) -> Config:
    """The config the hub runs with: the embedded server serves `llm_slots` at once."""
    server = dataclasses.replace(config.server, parallel=config.hub.llm_slots)
    return dataclasses.replace(config, server=server)


class House:
    """The rooms (added from the config at start, and as zeroconf finds satellites)."""

    def __init__(self, config: Config, stack: ExitStack, rooms: list[str] | None = None) -> None:
        config = hub_config(config)
        self.config = config
        self._stack = stack
        chat = build_chat(config, stack, standby=True, share="announce")
        self.shared = Shared(config, chat, build_synthesizer(config), rooms=list(rooms or []))
        self.rooms: dict[str, Room] = {}
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        if "timers" in config.tools.enabled:  # timers of no room (`voiceagent ask`) ring in all
            from voiceagent.tools.timer_store import Bell, Timers
            from voiceagent.wallclock import clock_for

            everywhere = Timers(config.data_dir / "timers.json",
                                clock_for(config.tools.timezone)[0])
            stack.callback(Bell(everywhere, self.announce_everywhere).close)

    def add(self, place: Place) -> Room | None:
        """Build the room for `place` and start listening; None if that satellite already
        has a room (found twice) or the name is taken by another satellite."""
        with self._lock:
            for room in self.rooms.values():
                if same_address(room.link.place, place):
                    log.debug("%s at %s is already the %s satellite", place.room,
                              place.address, room.name)
                    return None
            if place.room in self.rooms:
                log.warning("a second satellite calls itself %r (at %s); give it another "
                            "name or area, or list it in [hub] satellites", place.room,
                            place.address)
                return None
            room = Room(place, self.shared, self._stack, index=len(self.rooms))
            first = not self.rooms
            self.rooms[room.name] = room
            self.shared.announcers[room.name] = room.assistant.announce
        if first:
            self._prime(room)
        room.start(self.stop)
        log.info("%s: a room for the satellite at %s (%s)", room.name, place.address,
                 place.found_by)
        return room

    def _prime(self, room: Room) -> None:
        """The server's cache gets the prompt prefix once, in every slot."""
        server = self.shared.chat.server
        if server is not None:
            from voiceagent.llm.prompt_cache import prime

            prime(server, prompt_of(room.assistant.agent), self.shared.chat.model)

    def announce_everywhere(self, text: str) -> None:
        """Say `text` in every room at once (a timer that belongs to no room)."""
        threads = [threading.Thread(target=room.assistant.announce, args=(text,), daemon=True)
                   for room in list(self.rooms.values())]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    async def run(self) -> None:
        """Keep every satellite connected, and look for more, until cancelled."""
        for room in list(self.rooms.values()):
            self._connect(room)
        discovery = None
        if self.config.hub.zeroconf:
            discovery = Discovery(self._found)
            if not await discovery.start():
                discovery = None
        if not self.rooms and discovery is None:
            raise ConfigError("no satellites: list them in [hub] satellites, e.g. "
                              "[\"kitchen=tcp://kitchen.local:10700\"], or turn on [hub] "
                              "zeroconf")
        try:
            await asyncio.Event().wait()
        finally:
            if discovery is not None:
                await discovery.stop()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            self.stop.set()
            for room in self.rooms.values():
                room.assistant.interrupt()
                room.join()

    async def _found(self, place: Place) -> None:
        room = await asyncio.to_thread(self.add, place)
        if room is not None:
            self._connect(room)

    def _connect(self, room: Room) -> None:
        task = asyncio.create_task(room.link.run(), name=f"link-{room.name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def serve(config: Config, *, satellites: list[str] | None = None, verbose: bool = False) -> int:
    """`voiceagent hub`: build the rooms, then serve until SIGINT or SIGTERM."""
    from voiceagent.stderr_limit import limit_native_stderr
    from voiceagent.view import setup_logging

    limit_native_stderr()
    setup_logging(verbose)
    places = parse_satellites([*config.hub.satellites, *(satellites or [])], config.source)
    if not places and not config.hub.zeroconf:
        raise ConfigError(f"{config.source}: hub.satellites: no satellites and zeroconf is off; "
                          "add e.g. satellites = [\"kitchen=tcp://kitchen.local:10700\"]")
    with ExitStack() as stack:
        house = House(config, stack, rooms=[p.room for p in places])
        for place in places:
            house.add(place)
        log.info("voiceagent hub ready: %s", ", ".join(house.rooms) or "waiting for satellites")
        asyncio.run(_main(house))
    return 0


async def _main(house: House) -> None:
    task = asyncio.create_task(house.run())
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        log.info("voiceagent hub stopped")
