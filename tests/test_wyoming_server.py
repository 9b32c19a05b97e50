"""`voiceagent wyoming` as Home Assistant meets it: the `wyoming` library's own client against
the real command, with real Whisper, piper and the 0.5B model; then bad clients."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import Event, async_write_event
from wyoming.handle import Handled
from wyoming.info import Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop

from tests.fixtures_audio import words
from tests.wyoming_servers import QUESTIONS, describe, free_port, running
from voiceagent.audio import Audio, concat, read_wav

pytestmark = pytest.mark.real


class Server:
    def __init__(self, port: int, log: Path) -> None:
        self.port, self.log = port, log

    def lines(self, text: str) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if text in line]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, llm_base_url: str) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("wyoming")
    port = free_port()
    config = root / "config.toml"
    config.write_text(
        f'[llm]\nmodel = "qwen2.5-coder-0.5b"\nbase_url = "{llm_base_url}"\ntimeout_s = 600.0\n'
        f'[paths]\ndata_dir = "{root / "data"}"\n'
        f'[agent]\nlocal_commands = false\n'  # the clock question goes to the model
        f'max_seconds = 600.0\n'  # a cold prompt on a busy 2-core machine can take minutes
        f'[tools]\nenabled = ["clock", "shell"]\n'
        f'[wyoming]\nuri = "tcp://127.0.0.1:{port}"\nzeroconf = false\n'
    )
    log = root / "server.log"
    with running(["-m", "voiceagent", "--config", str(config), "wyoming"], port, log):
        yield Server(port, log)
    assert "Wyoming server stopped" in log.read_text()


async def exchange(port: int, *events: Event, until: str) -> list[Event]:
    """Send `events`, then read until an event of type `until` (or the server closes)."""
    async with AsyncTcpClient("127.0.0.1", port, read_timeout=600) as client:
        for event in events:
            await client.write_event(event)
        received: list[Event] = []
        while (event := await client.read_event()) is not None:
            received.append(event)
            if event.type == until:
                break
        return received


def audio_request(pcm: bytes, rate: int, width: int, channels: int) -> list[Event]:
    step = 1024 * width * channels
    return [Transcribe(language="en").event(),
            AudioStart(rate=rate, width=width, channels=channels).event(),
            *(AudioChunk(rate=rate, width=width, channels=channels, audio=pcm[i:i + step]).event()
              for i in range(0, len(pcm), step)),
            AudioStop().event()]


def wav_request(path: Path) -> list[Event]:
    with wave.open(str(path), "rb") as wav:
        return audio_request(wav.readframes(wav.getnframes()), wav.getframerate(),
                             wav.getsampwidth(), wav.getnchannels())


def question(n: int) -> tuple[Path, str]:
    return QUESTIONS / f"q{n:02d}.wav", (QUESTIONS / f"q{n:02d}.txt").read_text().strip()


def transcript_of(events: list[Event]) -> str:
    [final] = [e for e in events if Transcript.is_type(e.type)]
    return Transcript.from_event(final).text


def heard_fraction(said: str, heard: str) -> float:
    said_words, heard_words = words(said), set(words(heard))
    return sum(w in heard_words for w in said_words) / len(said_words)


def received_audio(events: list[Event]) -> Audio:
    chunks = [AudioChunk.from_event(e) for e in events if AudioChunk.is_type(e.type)]
    assert chunks and {(c.width, c.channels) for c in chunks} == {(2, 1)}
    pcm = b"".join(c.audio for c in chunks)
    return Audio(np.frombuffer(pcm, "<i2").astype(np.float32) / 32768, chunks[0].rate)


def test_describe_offers_speech_to_text_speech_and_the_assistant(server: Server) -> None:
    info: Info = describe(server.port)
    [asr], [tts], [handle] = info.asr, info.tts, info.handle
    assert asr.installed and asr.supports_transcript_streaming
    assert [(m.name, m.languages, m.installed) for m in asr.models] == [("tiny.en", ["en"], True)]
    assert tts.installed and tts.supports_synthesize_streaming
    assert [(v.name, v.languages, v.installed) for v in tts.voices] == [
        ("en_US-joe-medium", ["en_US"], True)]
    assert handle.installed and handle.models[0].installed
    assert handle.models[0].name == "qwen2.5-coder-0.5b"
    assert server.lines("the shell tool is not offered over Wyoming")


def test_a_spoken_question_is_transcribed_with_streaming_events(server: Server) -> None:
    wav, said = question(1)
    events = asyncio.run(exchange(server.port, *wav_request(wav), until="transcript-stop"))
    assert [e.type for e in events] == [
        "transcript-start", "transcript-chunk", "transcript", "transcript-stop"]
    assert heard_fraction(said, transcript_of(events)) == 1.0
    assert events[1].data["text"] == transcript_of(events)


def test_audio_in_another_rate_width_and_channel_count_is_converted(server: Server) -> None:
    wav, said = question(6)
    clip = read_wav(wav).resampled(44100)  # 44.1 kHz, 32-bit, stereo
    ints = (np.clip(clip.samples, -1, 1) * (2**31 - 1)).astype("<i4")
    pcm = np.repeat(ints, 2).tobytes()
    events = asyncio.run(exchange(server.port, *audio_request(pcm, 44100, 4, 2),
                                  until="transcript-stop"))
    assert heard_fraction(said, transcript_of(events)) >= 0.8


def test_several_clients_are_served_at_once(server: Server) -> None:
    async def three() -> list[list[Event]]:
        return await asyncio.gather(*(
            exchange(server.port, *wav_request(question(n)[0]), until="transcript")
            for n in (1, 5, 6)))

    results = asyncio.run(three())
    for n, events in zip((1, 5, 6), results, strict=True):
        assert heard_fraction(question(n)[1], transcript_of(events)) >= 0.8


def test_text_is_synthesised_and_the_audio_is_heard_back(server: Server) -> None:
    said = "Set a timer for ten minutes."
    events = asyncio.run(exchange(server.port, Synthesize(text=said).event(), until="audio-stop"))
    assert [e.type for e in events][0] == "audio-start" and events[-1].type == "audio-stop"
    spoken = received_audio(events)
    assert spoken.rate == 22050 and 1.0 < spoken.seconds < 6.0
    padded = concat([Audio.silence(0.5, spoken.rate), spoken, Audio.silence(0.5, spoken.rate)])
    back = asyncio.run(exchange(server.port, *audio_request(
        padded.int16_bytes(), spoken.rate, 2, 1), until="transcript"))
    assert heard_fraction(said, transcript_of(back)) == 1.0


def test_streamed_text_is_spoken_sentence_by_sentence(server: Server) -> None:
    pieces = ["The moon is ", "bright tonight", ". Sleep well", "."]
    events = asyncio.run(exchange(
        server.port, SynthesizeStart().event(),
        *(SynthesizeChunk(text=p).event() for p in pieces),
        Synthesize(text="".join(pieces)).event(),  # sent for old servers; must be ignored
        SynthesizeStop().event(), until="synthesize-stopped"))
    kinds = [e.type for e in events if e.type != "audio-chunk"]
    assert kinds == ["audio-start", "audio-stop", "audio-start", "audio-stop",
                     "synthesize-stopped"]
    assert received_audio(events).seconds > 1.5


def test_the_assistant_answers_a_transcript_with_the_clock_tool(server: Server) -> None:
    events = asyncio.run(exchange(server.port, Transcript(text="What time is it?").event(),
                                  until="handled"))
    assert [e.type for e in events] == ["handled"]
    answer = Handled.from_event(events[0]).text or ""
    told = re.search(r"\b(\d{1,2}):(\d{2})\b", answer)
    assert told, answer
    now = time.localtime()
    assert int(told.group(1)) % 12 in {now.tm_hour % 12, (now.tm_hour - 1) % 12}


async def raw(port: int, data: bytes, *, close: bool = True) -> bytes:
    """Write raw bytes; return everything the server sends until it closes (or 2 s pass)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        if close:
            writer.close()


def test_garbage_gets_an_error_event_one_log_line_and_the_server_keeps_serving(
        server: Server) -> None:
    before = len(server.lines("WARNING"))
    answer = asyncio.run(raw(server.port, b"\x00\xff\xfe GET / HTTP/1.1\r\n\r\n"))
    assert answer.startswith(b'{"type": "error"') and b"not a Wyoming event" in answer
    answer = asyncio.run(raw(server.port, b'{"type": "audio-chunk", "payload_length": -5}\n'))
    assert b"payload_length" in answer
    assert len(server.lines("WARNING")) == before + 2
    assert describe(server.port).asr


def test_audio_the_server_cannot_use_is_refused_with_an_error_event(server: Server) -> None:
    odd = asyncio.run(exchange(server.port, AudioChunk(rate=16000, width=2, channels=1,
                                                       audio=b"\x01\x02\x03").event(),
                               until="error"))
    assert odd[-1].type == "error" and "not whole frames" in odd[-1].data["text"]
    wide = asyncio.run(exchange(server.port, AudioChunk(rate=16000, width=3, channels=1,
                                                        audio=b"\x00" * 300).event(),
                                until="error"))
    assert wide[-1].data["code"] == "bad-audio" and "width 3" in wide[-1].data["text"]


def test_clients_that_vanish_mid_request_cost_nothing(server: Server) -> None:
    async def vanish_then_serve() -> list[Event]:
        # one announces a payload it never finishes, one stops sending audio half way
        short_r, short_w = await asyncio.open_connection("127.0.0.1", server.port)
        short_w.write(b'{"type": "audio-chunk", "data": {"rate": 16000, "width": 2, '
                      b'"channels": 1}, "payload_length": 64000}\n' + b"\x00" * 100)
        half_r, half_w = await asyncio.open_connection("127.0.0.1", server.port)
        for event in wav_request(question(1)[0])[:5]:
            await async_write_event(event, half_w)
        served = await exchange(server.port, *wav_request(question(5)[0]), until="transcript")
        short_w.close()
        half_w.close()
        await asyncio.sleep(0.5)
        return served

    before = len(server.lines("went away"))
    served = asyncio.run(vanish_then_serve())
    assert heard_fraction(question(5)[1], transcript_of(served)) >= 0.8
    assert len(server.lines("went away")) == before + 1  # the half payload; the other: nothing
    assert describe(server.port).tts



def test_wyoming_bench_measures_our_server_without_a_failure(
        server: Server, tmp_path: Path) -> None:
    """The ecosystem's benchmark as a third-party client: both STT paths and both TTS paths."""
    for n in (1, 7):
        for ext in ("wav", "txt"):
            (tmp_path / f"q{n:02d}.{ext}").write_bytes((QUESTIONS / f"q{n:02d}.{ext}").read_bytes())
    bench = str(Path(sys.executable).with_name("wyoming-bench"))
    target = f"127.0.0.1:{server.port}"
    stt = subprocess.run([bench, "stt", target, "--corpus", str(tmp_path), "--rounds", "1",
                          "--warmup", "0"], capture_output=True, text=True, timeout=300)
    assert stt.returncode == 0, stt.stdout + stt.stderr
    assert stt.stdout.count("ok=2 fail=0") == 2  # non-streaming and streaming
    tts = subprocess.run([bench, "tts", target, "--texts", "It is half past four. Goodbye.",
                          "--rounds", "1", "--warmup", "0"],
                         capture_output=True, text=True, timeout=300)
    assert tts.returncode == 0, tts.stdout + tts.stderr
    assert tts.stdout.count("ok=1 fail=0") == 2


def test_a_port_in_use_is_one_clear_line_before_any_model_loads(server: Server) -> None:
    done = subprocess.run([sys.executable, "-m", "voiceagent", "wyoming", "--uri",
                           f"tcp://127.0.0.1:{server.port}"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"voiceagent: cannot listen on tcp://127.0.0.1:{server.port}: Address already in use; "
        "stop what uses it or choose another address with --uri or [wyoming] uri"]
