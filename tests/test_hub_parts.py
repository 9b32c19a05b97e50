"""The hub's parts without devices or models: its config, timers that remember their room,
the satellite stream's audio conversion, and a link that loses its satellite and gets it back
(against a real loopback socket speaking Wyoming)."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import numpy as np
import pytest
from wyoming.audio import AudioChunk
from wyoming.event import async_read_event, async_write_event
from wyoming.info import Describe, Info, Satellite
from wyoming.pipeline import PipelineStage, RunPipeline
from wyoming.satellite import RunSatellite

from voiceagent.config_file import config_from_dict
from voiceagent.errors import ConfigError
from voiceagent.hub.discovery import Place, parse_satellites, place_of, room_name, same_address
from voiceagent.hub.link import SatelliteLink
from voiceagent.hub.stream import SatelliteMic
from voiceagent.testing import FakeClock
from voiceagent.tools.timer_store import Entry, Timers


def test_satellites_are_name_equals_uri() -> None:
    places = parse_satellites(["kitchen=tcp://kitchen.local:10700",
                               "Living Room=tcp://192.168.1.7:10700"], "hub.toml")
    assert places == [Place("kitchen", "kitchen.local", 10700),
                      Place("living-room", "192.168.1.7", 10700)]
    config = config_from_dict({"hub": {"satellites": ["kitchen=tcp://127.0.0.1:10700"]}})
    assert config.hub.satellites == ["kitchen=tcp://127.0.0.1:10700"]


@pytest.mark.parametrize("entry", ["kitchen", "kitchen=kitchen.local:10700",
                                   "=tcp://a:1", "kitchen=tcp://kitchen.local"])
def test_a_bad_satellite_entry_names_the_key_and_the_form(entry: str) -> None:
    with pytest.raises(ConfigError, match=r"hub.toml: hub.satellites\[0\]: expected "
                                          r"NAME=tcp://HOST:PORT"):
        parse_satellites([entry], "hub.toml")


def test_a_room_named_twice_is_refused() -> None:
    with pytest.raises(ConfigError, match="named twice"):
        parse_satellites(["kitchen=tcp://a:1", "Kitchen=tcp://b:2"], "hub.toml")


def test_one_satellite_found_twice_is_the_same_address() -> None:
    assert same_address(Place("kitchen", "localhost", 10700),
                        Place("x", "127.0.0.1", 10700, "zeroconf"))
    assert not same_address(Place("kitchen", "127.0.0.1", 10700),
                            Place("x", "127.0.0.1", 10701))


def test_a_described_satellite_is_named_by_its_area_and_other_services_are_not_rooms() -> None:
    satellite = Info(satellite=Satellite(name="pi zero 3", area="Kitchen", description="",
                                         attribution=None, installed=True,  # type: ignore
                                         version=None))
    assert place_of(satellite, "10.0.0.3", 10700, "abc._wyoming._tcp.local.") == \
        Place("kitchen", "10.0.0.3", 10700, "zeroconf")
    assert place_of(Info(), "10.0.0.4", 10300, "whisper._wyoming._tcp.local.") is None
    assert room_name("  Kid's Room ") == "kid-s-room"


def test_a_timer_rings_only_in_the_room_that_set_it(tmp_path: Path) -> None:
    said: dict[str, list[str]] = {"kitchen": [], "bedroom": []}
    path, clock = tmp_path / "timers.json", FakeClock(1_000_000.0)
    Timers(path, clock, room="kitchen").add(Entry("timer", "pasta", clock.time() + 5, 5))
    assert Timers(path, clock).pending()[0].room == "kitchen"  # the entry remembers its room
    bedroom = Timers(path, clock, room="bedroom")
    kitchen = Timers(path, clock, room="kitchen")
    clock.advance(10)
    bedroom.ring(said["bedroom"].append)
    kitchen.ring(said["kitchen"].append)
    bedroom.ring(said["bedroom"].append)
    assert said["kitchen"] == ["Your 5 second pasta timer is done."]
    assert said["bedroom"] == []


def test_the_mic_stream_turns_any_chunk_format_into_16_khz_blocks() -> None:
    paused = threading.Event()
    mic = SatelliteMic("kitchen satellite", paused)
    tone = (np.sin(np.arange(22050) / 22050 * 2 * np.pi * 440) * 8000).astype("<i2")
    stereo = np.repeat(tone, 2).tobytes()
    mic.feed(AudioChunk(rate=22050, width=2, channels=2, audio=stereo).event())
    paused.set()
    mic.feed(AudioChunk(rate=22050, width=2, channels=2, audio=stereo).event())
    blocks = [mic.read(0) for _ in range(mic.queued())]
    assert all(b is not None and len(b[0]) == 512 for b in blocks)
    assert 58 <= len(blocks) <= 63  # two seconds at 16 kHz, less the resampler's delay
    assert blocks[0] is not None and not blocks[0][1] and blocks[-1] is not None
    assert blocks[-1][1]  # tagged as heard while paused
    assert 0.15 < float(np.abs(blocks[20][0]).max()) < 0.3  # the tone, mixed to mono


class FakeRoom:
    def __init__(self) -> None:
        self.events: list[str] = []
        self.ups = 0
        self.downs = 0

    def connected(self) -> None:
        self.ups += 1

    def event(self, event) -> None:
        self.events.append(event.type)

    def disconnected(self) -> None:
        self.downs += 1


def test_a_lost_satellite_is_one_log_line_and_it_is_connected_again(
        caplog: pytest.LogCaptureFixture) -> None:
    """A Wyoming server on 127.0.0.1 that answers as wyoming-satellite does, goes away (the
    connection closes, then connections are refused for a while: several tries fail), and
    comes back on the same port."""
    caplog.set_level(logging.INFO, logger="voiceagent.hub.link")
    room = FakeRoom()

    async def main() -> list[str]:
        got: list[str] = []

        async def satellite(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while (event := await async_read_event(reader)) is not None:
                got.append(event.type)
                if Describe.is_type(event.type):
                    await async_write_event(Info().event(), writer)
                elif RunSatellite.is_type(event.type):
                    await async_write_event(RunPipeline(start_stage=PipelineStage.WAKE,
                                                        end_stage=PipelineStage.TTS).event(),
                                            writer)
                    if got.count("run-satellite") == 1:  # the first time it then dies
                        await asyncio.sleep(3.0)
                        break
            writer.close()

        server = await asyncio.start_server(satellite, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        link = SatelliteLink(Place("kitchen", "127.0.0.1", port), room, reconnect_max_s=1)
        task = asyncio.create_task(link.run())
        while link.connections < 1:
            await asyncio.sleep(0.05)
        server.close()  # no new connections: the tries after the loss are refused
        while room.downs < 1:
            await asyncio.sleep(0.05)
        await asyncio.sleep(2.5)
        server = await asyncio.start_server(satellite, "127.0.0.1", port)  # it is back
        while link.connections < 2:
            await asyncio.sleep(0.05)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        server.close()
        return got

    got = asyncio.run(main())
    assert got[:2] == ["describe", "run-satellite"] and got.count("run-satellite") == 2
    assert room.events.count("run-pipeline") == 2
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert sum("lost the satellite" in line for line in lines) == 1, lines
    assert sum("connected again to the satellite" in line for line in lines) == 1, lines
    assert not any("cannot use" in line for line in lines), lines  # the tries were quiet


def test_a_timer_set_for_another_room_rings_there(tmp_path: Path) -> None:
    from voiceagent.agent.tools import ToolRegistry
    from voiceagent.hub.room_timer import add_room_timer
    from voiceagent.tools import timers

    registry = ToolRegistry(timers.make_tools(Timers(tmp_path / "timers.json",
                                                     room="kitchen")))
    add_room_timer(registry, tmp_path, "kitchen", ["kitchen", "bedroom"])
    made = registry.get("set_timer_in_room")
    assert made is not None
    assert made.spec.parameters["properties"]["room"]["enum"] == ["kitchen", "bedroom"]
    answer = made(room="bedroom", duration="10 minutes", label="nap")
    assert answer == "Timer set for 10 minutes: nap, in the bedroom."
    [entry] = Timers(tmp_path / "timers.json").pending()
    assert (entry.room, entry.label, entry.seconds) == ("bedroom", "nap", 600)
    one_room = ToolRegistry(timers.make_tools(Timers(tmp_path / "t.json")))
    add_room_timer(one_room, tmp_path, "kitchen", ["kitchen"])
    assert "set_timer_in_room" not in one_room  # a house of one room has no other room


def test_each_room_keeps_its_conversation_in_one_slot_of_our_server() -> None:
    from types import SimpleNamespace

    from voiceagent.agent.wire_openai import OpenAIChat
    from voiceagent.connect import ChatSetup

    model = OpenAIChat("http://127.0.0.1:9/v1", "m")
    ours = ChatSetup(model, None, False, server=SimpleNamespace(parallel=2))  # type: ignore[arg-type]
    bodies = [ours.pinned(i).model.request_body("s", [], []) for i in range(3)]
    assert [b["id_slot"] for b in bodies] == [0, 1, 0]
    assert "id_slot" not in model.request_body("s", [], [])  # the shared model is unchanged
    # a server that is not ours (its slots unknown) or has one slot: sent as before
    assert ChatSetup(model, None, False).pinned(1).model is model
    one = ChatSetup(model, None, False, server=SimpleNamespace(parallel=1))  # type: ignore[arg-type]
    assert one.pinned(1).model is model


def test_a_broadcast_is_said_in_every_other_room(tmp_path: Path) -> None:
    import threading

    from voiceagent.agent.tools import ToolRegistry
    from voiceagent.hub.broadcast import add_broadcast
    from voiceagent.intents import LocalCommands
    from voiceagent.tools import timers

    heard: dict[str, list[str]] = {}
    done = threading.Semaphore(0)

    def announcer(room: str):
        def say(text: str) -> None:
            heard.setdefault(room, []).append(text)
            done.release()
        return say

    rooms = ["kitchen", "bedroom", "hall"]
    announcers = {room: announcer(room) for room in rooms}
    registry = ToolRegistry(timers.make_tools(Timers(tmp_path / "timers.json")))
    add_broadcast(registry, "kitchen", rooms, announcers)
    found = LocalCommands(registry).match("broadcast that dinner is ready")
    assert found is not None and found.tool == "broadcast", found
    made = registry.get("broadcast")
    assert made is not None
    assert made(**found.args) == "Said in the bedroom and the hall: Dinner is ready."
    for _ in range(2):
        assert done.acquire(timeout=10)
    assert heard == {"bedroom": ["Dinner is ready."], "hall": ["Dinner is ready."]}
    # a house of one room (or a kiosk) has no one to tell: the plain sentence, no tool
    one_room = ToolRegistry(timers.make_tools(Timers(tmp_path / "t.json")))
    add_broadcast(one_room, "kitchen", ["kitchen"], announcers)
    assert "broadcast" not in one_room
    refused = LocalCommands(one_room).match("broadcast that dinner is ready")
    assert refused is not None and refused.intent == "unsupported_calls", refused
