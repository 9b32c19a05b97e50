"""The HTTP and SSE plumbing both wire formats share: one streaming POST, errors made plain.

Every failure becomes a `ChatError` a user can act on: `ServerDown` when nothing answers at the
URL (so the caller can start or restart a server), `ServerError` when the server answered with
an error status (its message kept, so a wire adapter can tell a model's fault from a real one).
API keys travel only in headers and are scrubbed from every message.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from collections.abc import Generator, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from voiceagent.errors import ChatError, ServerDown


class ServerError(ChatError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, *, status: int, detail: str) -> None:
        super().__init__(message)
        self.status = status
        """The HTTP status code."""
        self.detail = detail
        """The server's own error message (from its error JSON when there is one)."""


class StreamCancelled(Exception):
    """The caller's cancel event was set while the reply was streaming."""


@dataclass(frozen=True)
class SSEEvent:
    """One server-sent event."""

    event: str
    """The `event:` field; "message" when absent."""
    data: str
    """The joined `data:` lines."""

    def json(self) -> Any:
        return json.loads(self.data)


class HTTPClient:
    """A small sync httpx client for one server, with a transport seam for tests."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float,
        headers: dict[str, str] | None = None,
        secret: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self._secret = secret
        self._client = httpx.Client(
            headers=headers or {},
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
            transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def scrub(self, text: str) -> str:
        """`text` with the API key (if any) replaced, for messages and logs."""
        return text.replace(self._secret, "***") if self._secret else text

    def post_json(self, path: str, body: dict[str, Any]) -> Any:
        """POST and return the decoded JSON answer."""
        url = self.base_url + path
        with self._errors(url):
            response = self._client.post(url, json=body)
            self._check(url, response)
            return response.json()

    @contextmanager
    def stream(
        self, path: str, body: dict[str, Any], cancel: threading.Event | None = None
    ) -> Iterator[Iterator[SSEEvent]]:
        """POST and yield the server-sent events as they arrive.

        With `cancel`, the HTTP reads run in a helper thread, so setting it raises
        StreamCancelled at once, even while the server is still reading the prompt.
        """
        lines = self._lines(self.base_url + path, body)
        if cancel is None:
            with closing(lines):
                yield _sse(lines, None)
            return
        pump = _Pump(lines, cancel)
        try:
            yield _sse(iter(pump), cancel)
        finally:
            pump.close()

    def _lines(self, url: str, body: dict[str, Any]) -> Generator[str, None, None]:
        with self._errors(url), self._client.stream("POST", url, json=body) as response:
            if response.status_code >= 400:
                response.read()
            self._check(url, response)
            yield from response.iter_lines()

    @contextmanager
    def _errors(self, url: str) -> Iterator[None]:
        try:
            yield
        except httpx.ConnectError:
            raise ServerDown(f"nothing answers at {url}: is the LLM server running?") from None
        except httpx.TimeoutException:
            raise ChatError(
                f"{url} did not answer within {self.timeout_s:g} s (llm.timeout_s)"
            ) from None
        except (httpx.RemoteProtocolError, httpx.ReadError):
            raise ChatError(f"the connection to {url} dropped in the middle of a reply") from None
        except httpx.HTTPError as exc:
            raise ChatError(self.scrub(f"request to {url} failed: {exc}")) from None

    def _check(self, url: str, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        detail = error_message(response.text) or response.reason_phrase
        detail = self.scrub(detail)
        raise ServerError(
            f"{url} answered HTTP {response.status_code}: {detail}",
            status=response.status_code,
            detail=detail,
        )


def error_message(body: str) -> str:
    """The message in an error JSON ({"error": {"message": ...}} or {"error": "..."})."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:300]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        return str(error.get("message") or error)[:300]
    return str(error)[:300]


def _sse(lines: Iterator[str], cancel: threading.Event | None) -> Iterator[SSEEvent]:
    event = ""
    data: list[str] = []
    for line in lines:
        if cancel is not None and cancel.is_set():
            raise StreamCancelled
        if not line:
            if data:
                yield SSEEvent(event or "message", "\n".join(data))
            event, data = "", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
            elif name == "error":  # llama.cpp writes stream errors as `error: {...}`
                yield SSEEvent("error", value)
    if data:
        yield SSEEvent(event or "message", "\n".join(data))


class _Pump:
    """Reads lines in a helper thread; the reader polls `cancel` while it waits for them.

    An abandoned read ends at the server's next line (or the timeout), closing the response,
    which also tells llama.cpp to stop generating.
    """

    def __init__(self, lines: Generator[str, None, None], cancel: threading.Event) -> None:
        self._lines = lines
        self._cancel = cancel
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        threading.Thread(target=self._run, name="llm-stream", daemon=True).start()

    def _run(self) -> None:
        try:
            for line in self._lines:
                if self._stop.is_set():
                    break
                self._queue.put(("line", line))
            self._queue.put(("end", None))
        except BaseException as exc:  # handed to the reader, raised there
            self._queue.put(("error", exc))
        finally:
            self._lines.close()

    def __iter__(self) -> Iterator[str]:
        while True:
            try:
                kind, value = self._queue.get(timeout=0.05)
            except queue.Empty:
                if self._cancel.is_set():
                    raise StreamCancelled from None
                continue
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value

    def close(self) -> None:
        self._stop.set()


class HTTPChat:
    """What both wire adapters share: the model's settings and one HTTP client.

    Subclasses say how the API key travels (`auth_headers`) and speak their wire format.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        temperature: float = 0.2,
        max_tokens: int = 300,
        transport: httpx.BaseTransport | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self._http = HTTPClient(base_url, timeout_s=timeout_s, headers=self.auth_headers(api_key),
                                secret=api_key, transport=transport)
        self._replies = itertools.count(1)

    @staticmethod
    def auth_headers(api_key: str | None) -> dict[str, str]:
        """The request headers carrying the key (and any the API always wants)."""
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return self._http.base_url

    def close(self) -> None:
        self._http.close()
