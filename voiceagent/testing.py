"""Fakes shipped with the package, so the core is tested without models or servers.

- ScriptedChatModel: a ChatModel you `enqueue()` replies into; it records every request and
  `assert_consumed()` checks nothing scripted was left over.
- FakeLLMServer: a real HTTP server on loopback (threads, a real socket) answering with scripted
  OpenAI-shape or Anthropic-shape responses, streamed or not, or with faults (HTTP errors,
  stalls for timeouts, streams cut off mid-reply); it records every request.
- FakeSynthesizer and RecordingPlayer: speech output without piper or a sound card.
- ScriptedKeys and ScriptedListen: key presses and recordings for the keyed front end.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from voiceagent.agent.messages import Message, Reply, ToolCall, ToolChoice, ToolSpec
from voiceagent.audio import Audio
from voiceagent.triggers import KeyEvent, KeySource

# --- a scripted chat model -------------------------------------------------------------------


@dataclass(frozen=True)
class ChatRequest:
    """What the loop sent to the model in one request."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tool_choice: str = "auto"


@dataclass(frozen=True)
class _Scripted:
    reply: Reply | BaseException
    deltas: tuple[str, ...]
    during: Callable[[], None] | None
    pace: float


class ScriptedChatModel:
    """A ChatModel answering from a queue; `enqueue` replies, then `assert_consumed()`."""

    def __init__(self) -> None:
        self._queue: deque[_Scripted] = deque()
        self.requests: list[ChatRequest] = []

    def enqueue(
        self,
        reply: Reply | str | BaseException,
        *,
        deltas: Sequence[str] | None = None,
        during: Callable[[], None] | None = None,
        pace: float = 0.0,
    ) -> ScriptedChatModel:
        """Queue one reply: a Reply, a plain text answer, or an exception to raise.

        `deltas` are the text pieces streamed to on_text (default: the whole text at once);
        `during` runs after the first piece, e.g. to set the cancel event mid-stream;
        `pace` is the pause in seconds before each further piece (a slow model).
        """
        if isinstance(reply, str):
            reply = Reply(reply)
        if deltas is None:
            deltas = (reply.text,) if isinstance(reply, Reply) and reply.text else ()
        self._queue.append(_Scripted(reply, tuple(deltas), during, pace))
        return self

    def complete(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> Reply:
        self.requests.append(ChatRequest(system, tuple(messages), tuple(tools), tool_choice))
        if not self._queue:
            raise AssertionError(f"ScriptedChatModel: no reply left for request "
                                 f"{len(self.requests)}")
        scripted = self._queue.popleft()
        said: list[str] = []
        for i, delta in enumerate(scripted.deltas):
            if i and scripted.pace:
                time.sleep(scripted.pace)
            if cancel is not None and cancel.is_set():
                return Reply("".join(said))
            if on_text is not None:
                on_text(delta)
            said.append(delta)
            if i == 0 and scripted.during is not None:
                scripted.during()
        if not scripted.deltas and scripted.during is not None:
            scripted.during()
        if isinstance(scripted.reply, BaseException):
            raise scripted.reply
        if cancel is not None and cancel.is_set():
            return Reply("".join(said), (), scripted.reply.usage)
        return scripted.reply

    def assert_consumed(self) -> None:
        assert not self._queue, f"ScriptedChatModel: {len(self._queue)} reply(s) never asked for"


def calls(*calls: tuple[str, dict[str, Any]] | ToolCall, text: str = "") -> Reply:
    """A reply calling tools: calls(("get_time", {}), ("add", {"a": 1})) with ids c1, c2..."""
    made = tuple(
        c if isinstance(c, ToolCall) else ToolCall(f"c{i}", c[0], c[1])
        for i, c in enumerate(calls, 1)
    )
    return Reply(text, made)


# --- a scripted LLM server on loopback --------------------------------------------------------


@dataclass(frozen=True)
class Response:
    """One scripted answer of the fake server."""

    status: int = 200
    body: Any = None
    """A JSON answer (when `events` is None)."""
    events: Sequence[tuple[str, str]] | None = None
    """Server-sent events as (event name or "", data); streamed with chunked encoding."""
    drop_after: int | None = None
    """Cut the connection after this many events, without ending the stream."""
    stall_s: float = 0.0
    """Wait this long before answering (to provoke client timeouts)."""


@dataclass(frozen=True)
class Recorded:
    """A request the fake server received."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any


@dataclass
class FakeLLMServer:
    """A scripted LLM server on 127.0.0.1; use as a context manager."""

    requests: list[Recorded] = field(default_factory=list)
    unscripted: int = 0
    """Requests that arrived when nothing was scripted (answered with HTTP 500)."""
    busy_s: float = 0.0
    """GET requests (/models, /health) are answered only this many seconds after start: a
    server that is alive but busy (prefilling a long prompt on a small CPU)."""

    def __post_init__(self) -> None:
        self._busy_until = time.monotonic() + self.busy_s
        self._script: deque[Response] = deque()
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """The base URL, ending in /v1 like the real servers'."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *responses: Response) -> FakeLLMServer:
        """Queue answers for the next POST requests, in order."""
        self._script.extend(responses)
        return self

    def assert_consumed(self) -> None:
        assert not self._script, f"FakeLLMServer: {len(self._script)} response(s) not asked for"
        assert not self.unscripted, f"FakeLLMServer: {self.unscripted} unscripted request(s)"

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeLLMServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next(self, recorded: Recorded) -> Response | None:
        with self._lock:
            self.requests.append(recorded)
            if self._script:
                return self._script.popleft()
            self.unscripted += 1
            return None


def _handler(fake: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            if fake._closing.wait(max(0.0, fake._busy_until - time.monotonic())):
                self.close_connection = True
                return
            if self.path.endswith("/health"):
                self._json(200, {"status": "ok"})
            else:
                self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode(errors="replace")
            headers = {k.lower(): v for k, v in self.headers.items()}
            response = fake._next(Recorded("POST", self.path, headers, body))
            if response is None:
                self._json(500, {"error": {"code": 500, "message": "nothing scripted"}})
                return
            if response.stall_s and fake._closing.wait(response.stall_s):
                self.close_connection = True
                return
            try:
                if response.events is None:
                    self._json(response.status, response.body)
                else:
                    self._sse(response)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                self.close_connection = True

        def _json(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _sse(self, response: Response) -> None:
            self.send_response(response.status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i, (name, data) in enumerate(response.events or ()):
                if response.drop_after is not None and i >= response.drop_after:
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                text = (f"event: {name}\n" if name else "") + f"data: {data}\n\n"
                chunk = text.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler


def unused_url() -> str:
    """A loopback URL nothing listens on (for ServerDown)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# --- response builders for both wire formats --------------------------------------------------


def error_response(status: int, message: str) -> Response:
    """An error in the shape llama.cpp, OpenAI and Anthropic share: {"error": {...}}."""
    return Response(status, {"error": {"code": status, "message": message, "type": "error"}})


def openai_stream(
    text: str = "",
    calls: Iterable[tuple[str, str, str]] = (),
    *,
    usage: tuple[int, int] = (10, 5),
    piece: int = 4,
    done: bool = True,
    drop_after: int | None = None,
) -> Response:
    """An OpenAI-shape SSE reply: text in `piece`-character deltas, then each call
    (id, name, argument JSON text) as llama.cpp streams it: id and name first, args in pieces."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[str, str]:
        return "", json.dumps({"object": "chat.completion.chunk", "model": "fake",
                               "choices": [{"index": 0, "delta": delta,
                                            "finish_reason": finish}]})

    events = [chunk({"role": "assistant", "content": None})]
    events += [chunk({"content": text[i:i + piece]}) for i in range(0, len(text), piece)]
    calls = list(calls)
    for index, (call_id, name, args) in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": index,
                                          "function": {"arguments": args[i:i + piece]}}]})
                   for i in range(0, len(args), piece)]
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    events.append(("", json.dumps({"object": "chat.completion.chunk", "choices": [],
                                   "usage": {"prompt_tokens": usage[0],
                                             "completion_tokens": usage[1]}})))
    if done:
        events.append(("", "[DONE]"))
    return Response(events=events, drop_after=drop_after)


def anthropic_stream(
    text: str = "",
    calls: Iterable[tuple[str, str, str]] = (),
    *,
    usage: tuple[int, int] = (10, 5),
    piece: int = 4,
    drop_after: int | None = None,
) -> Response:
    """An Anthropic-shape SSE reply (message_start, content blocks with text_delta and
    input_json_delta, message_delta with usage, message_stop)."""

    def ev(name: str, data: dict[str, Any]) -> tuple[str, str]:
        return name, json.dumps({"type": name, **data})

    events = [ev("message_start", {"message": {
        "id": "msg_fake", "type": "message", "role": "assistant", "content": [],
        "model": "fake", "stop_reason": None,
        "usage": {"input_tokens": usage[0], "output_tokens": 1}}}), ev("ping", {})]
    index = 0
    if text:
        events.append(ev("content_block_start", {"index": 0,
                                                 "content_block": {"type": "text", "text": ""}}))
        events += [ev("content_block_delta", {"index": 0, "delta": {
            "type": "text_delta", "text": text[i:i + piece]}}) for i in range(0, len(text), piece)]
        events.append(ev("content_block_stop", {"index": 0}))
        index = 1
    calls = list(calls)
    for n, (call_id, name, args) in enumerate(calls, index):
        events.append(ev("content_block_start", {"index": n, "content_block": {
            "type": "tool_use", "id": call_id, "name": name, "input": {}}}))
        events += [ev("content_block_delta", {"index": n, "delta": {
            "type": "input_json_delta", "partial_json": args[i:i + piece]}})
            for i in range(0, len(args), piece)]
        events.append(ev("content_block_stop", {"index": n}))
    events.append(ev("message_delta", {
        "delta": {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": usage[1]}}))
    events.append(ev("message_stop", {}))
    return Response(events=events, drop_after=drop_after)


# --- speech fakes: a synthesizer and a player that keep what they were given --------------------


class FakeSynthesizer:
    """A Synthesizer making one short tone clip per sentence; `texts` keeps what it was asked."""

    def __init__(self, seconds: float = 0.05, rate: int = 22050) -> None:
        self.seconds = seconds
        self.rate = rate
        self.texts: list[str] = []

    def synthesize(self, text: str) -> Iterator[Audio]:
        self.texts.append(text)
        n = int(self.seconds * self.rate)
        yield Audio(np.full(n, 0.1, dtype=np.float32), self.rate)


class RecordingPlayer:
    """A Player that keeps every clip and takes real time to "play" it (so stop() matters)."""

    def __init__(self) -> None:
        self.played: list[Audio] = []
        self._stop = threading.Event()

    def play(self, audio: Audio) -> None:
        self._stop.clear()
        self.played.append(audio)
        self._stop.wait(audio.seconds)

    def stop(self) -> None:
        self._stop.set()


class FakeTranscriber:
    """A Transcriber answering from a list of transcripts, one per call."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.heard: list[Audio] = []

    def transcribe(self, audio: Audio) -> str:
        self.heard.append(audio)
        return self.texts.pop(0)


# --- keys and a listener for the keyed front end -----------------------------------------------


class ScriptedKeys(KeySource):
    """A KeySource the test presses: `press()`, `release()` and `quit()` queue key events;
    no thread reads a device. `holds` picks hold-to-talk (True) or press to start and stop."""

    def __init__(self, *, holds: bool = False) -> None:
        super().__init__()
        self.holds = holds

    def press(self) -> None:
        self.events.put(KeyEvent("down"))

    def release(self) -> None:
        self.events.put(KeyEvent("up"))

    def quit(self) -> None:
        self.events.put(KeyEvent("quit"))

    def _run(self) -> None:
        self._closed.wait()


class ScriptedListen:
    """The front end's `listen(stop, end_on_silence=...)` without a microphone: each call
    "records" until the front end sets `stop` and returns the next clip of its script.

    `listening` is set while a recording runs (a test presses the next key only then);
    `silence_ends` makes a hold-to-talk recording end by itself, as a pause would.
    """

    def __init__(self, *clips: Audio, silence_ends: bool = False) -> None:
        self._clips = deque(clips)
        self.silence_ends = silence_ends
        self.listening = threading.Event()
        self.calls: list[bool] = []
        """end_on_silence of each call, in order."""

    def __call__(self, stop: threading.Event, *, end_on_silence: bool) -> Audio:
        self.calls.append(end_on_silence)
        self.listening.set()
        try:
            if not (end_on_silence and self.silence_ends):
                stop.wait(10)
            return self._clips.popleft() if self._clips else Audio.silence(0)
        finally:
            self.listening.clear()


# --- a microphone without a device -----------------------------------------------------------


class FakeBlockSource:
    """A microphone for MicRecorder(source=...) and cutter tests: plays a script of 16 kHz
    clips as 512-sample blocks, one per read(), with no device and no waiting.

    Callables in the script run when reached (e.g. `mic.pause`), so a test says exactly
    which audio arrives while paused. Each block carries the pause flag as it was when the
    block was read (for a real device: when it was captured). After the script, `done` is
    set and read() returns None.
    """

    name = "fake microphone"

    def __init__(self, *script: Audio | Callable[[], object], paused: threading.Event | None = None,
                 done: threading.Event | None = None, block: int = 512) -> None:
        self._script: deque[Audio | Callable[[], object]] = deque(script)
        self._paused = paused or threading.Event()
        self.done = done or threading.Event()
        self._block = block
        self._pending = np.zeros(0, dtype=np.float32)
        self.closed = False
        self.blocks_read = 0

    def read(self, timeout: float = 0.1) -> tuple[np.ndarray, bool] | None:
        while len(self._pending) < self._block:
            if not self._script:
                self.done.set()
                return None
            item = self._script.popleft()
            if isinstance(item, Audio):
                self._pending = np.concatenate([self._pending, item.samples.astype(np.float32)])
            else:
                item()
        block, self._pending = self._pending[: self._block], self._pending[self._block:]
        self.blocks_read += 1
        return block, self._paused.is_set()

    def drain(self, keep: int = 0) -> list[tuple[np.ndarray, bool]]:
        return []

    def queued(self) -> int:
        """Nothing waits unread: a script plays as fast as it is read (stream time stands
        still while the listener works, whatever the machine's speed)."""
        return 0

    def close(self) -> None:
        self.closed = True


class FakeClock:
    """The Clock port at a time the test sets: `advance(seconds)` moves it, nothing sleeps.

    `at` is epoch seconds or an ISO datetime ("2026-12-01 08:00", read in `zone`)."""

    def __init__(self, at: float | str = 1_000_000_000.0, zone: str = "UTC") -> None:
        from voiceagent.wallclock import zone_named

        self._zone = zone_named(zone)
        self.at = (at if isinstance(at, float | int)
                   else datetime.fromisoformat(at).replace(tzinfo=self._zone).timestamp())

    @property
    def zone(self) -> tzinfo | None:
        return self._zone

    def time(self) -> float:
        return float(self.at)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.at, self._zone)

    def advance(self, seconds: float) -> None:
        self.at += seconds
