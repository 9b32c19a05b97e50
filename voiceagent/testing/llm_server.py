"""FakeLLMServer: a real HTTP server on loopback (threads, a real socket) answering with
scripted OpenAI-shape or Anthropic-shape responses, streamed or not, or with faults (HTTP
errors, stalls for timeouts, streams cut off mid-reply); it records every request. The response
builders for both wire formats are here too."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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
