"""The real embedded llama.cpp server with the 0.5B model: lifecycle and real tool_calls."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from voiceagent.agent.example import worked_example
from voiceagent.agent.wire_openai import to_wire
from voiceagent.config_file import config_from_dict
from voiceagent.errors import ChatError
from voiceagent.llm import registry as llm_registry
from voiceagent.llm.discovery import ensure_server
from voiceagent.llm.health import free_port
from voiceagent.llm.server import LLMServer

pytestmark = pytest.mark.real

CLOCK = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Use when the user asks what time it is or today's date.",
        "parameters": {"type": "object", "properties": {
            "place": {"type": "string", "description": "a city; empty for here"}}},
    },
}
# The system prompt and the worked example, as the assistant sends them.
START = to_wire("You are a voice assistant. Answer in one short sentence. Use a tool whenever "
                "the request needs one.", worked_example({"get_time"}))
ASK_TIME = {"role": "user", "content": "What time is it?"}


def _chat(url: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {"messages": messages, "tools": [CLOCK], "temperature": 0, "max_tokens": 80, **extra}
    response = httpx.post(f"{url}/chat/completions", json=body, timeout=900)  # hang guard
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]


def _gone(pid: int) -> bool:
    """True when no live process has this id (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.1)
    return False


def test_health_and_models(llm_server: LLMServer, llm_base_url: str) -> None:
    root = llm_base_url.removesuffix("/v1")
    assert httpx.get(f"{root}/health", timeout=5).json() == {"status": "ok"}
    assert httpx.get(f"{llm_base_url}/models", timeout=5).status_code == 200
    assert llm_server.is_alive()


def test_a_tool_call_comes_back_as_real_tool_calls_then_the_answer_uses_the_result(
        llm_base_url: str) -> None:
    message = _chat(llm_base_url, [*START, ASK_TIME])
    [call] = message["tool_calls"]
    assert call["function"]["name"] == "get_time"
    assert isinstance(json.loads(call["function"]["arguments"]), dict)
    follow = _chat(llm_base_url, [
        *START, ASK_TIME,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"],
         "content": "It is 9:41 PM, Sunday, November 29, 2026."},
    ])
    assert not follow.get("tool_calls")
    assert "9:41" in follow["content"]


def test_streaming_with_tools_sends_the_call_in_deltas(llm_base_url: str) -> None:
    body = {"messages": [*START, ASK_TIME], "tools": [CLOCK], "temperature": 0,
            "max_tokens": 80, "stream": True}
    pieces: list[dict[str, Any]] = []
    with httpx.stream("POST", f"{llm_base_url}/chat/completions", json=body,
                      timeout=900) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                for choice in json.loads(line[6:]).get("choices", []):
                    pieces += choice.get("delta", {}).get("tool_calls") or []
    assert pieces, "no tool_call deltas were streamed"
    assert pieces[0]["id"] and pieces[0]["function"]["name"] == "get_time"
    arguments = "".join(p["function"].get("arguments") or "" for p in pieces)
    assert isinstance(json.loads(arguments), dict)


def test_a_second_start_on_a_taken_port_is_refused_and_ensure_server_reuses(
        llm_server: LLMServer, test_gguf: Path) -> None:
    with pytest.raises(ChatError, match="already in use by a running LLM server"):
        LLMServer(test_gguf, port=llm_server.port).start()
    config = config_from_dict({"server": {"port": llm_server.port}})
    url, ours = ensure_server(config)
    assert (url, ours) == (llm_server.base_url, None)


def test_stop_leaves_no_process_and_a_killed_server_is_restarted(test_gguf: Path) -> None:
    server = LLMServer(test_gguf)
    with server:
        url, first = server.base_url, server.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        assert _wait_gone(first)
        assert not server.is_alive()
        assert server.restart() == url  # the same port, so clients keep their URL
        assert server.is_alive() and server.pid != first
        second = server.pid
    assert second is not None and _wait_gone(second, seconds=0.5)
    assert not server.is_alive()


def test_the_server_dies_with_its_parent(test_gguf: Path) -> None:
    script = ("import sys, pathlib\n"
              "from voiceagent.llm.server import LLMServer\n"
              "s = LLMServer(pathlib.Path(sys.argv[1])); s.start()\n"
              "print(s.pid, flush=True)\n"
              "import time; time.sleep(600)\n")
    with subprocess.Popen([sys.executable, "-c", script, str(test_gguf)],
                          stdout=subprocess.PIPE, text=True) as parent:
        try:
            assert parent.stdout is not None
            child = int(parent.stdout.readline())
            assert not _gone(child)
        finally:
            parent.kill()
    assert _wait_gone(child), f"the server (pid {child}) outlived its parent"


def test_serve_forever_runs_until_sigterm_and_takes_the_server_down(test_gguf: Path,
                                                                    tmp_path: Path) -> None:
    toml = tmp_path / "config.toml"
    toml.write_text(f"[llm]\nmodel = {json.dumps(str(test_gguf))}\n"
                    f"[paths]\ndata_dir = {json.dumps(str(tmp_path))}\n")
    with subprocess.Popen([sys.executable, "-m", "voiceagent", "--config", str(toml), "server"],
                          stdout=subprocess.PIPE, text=True) as fg:
        assert fg.stdout is not None
        line = fg.stdout.readline()
        url = line.split(" at ", 1)[1].split(";")[0]
        assert httpx.get(f"{url}/models", timeout=5).status_code == 200
        # a one-shot ask with the same data directory and model uses it, loads nothing
        config = config_from_dict({"llm": {"model": str(test_gguf)},
                                   "paths": {"data_dir": str(tmp_path)}})
        assert ensure_server(config, share="reuse") == (url, None)
        # and its cache already holds the prompt prefix an ask sends (saved for next time)
        assert list((tmp_path / "prompt-cache").glob("*.bin"))
        fg.send_signal(signal.SIGTERM)
        assert fg.wait(30) == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/models", timeout=5)
    assert not (tmp_path / llm_registry.FILE_NAME).exists()  # withdrawn with the server


def test_only_a_live_process_serving_the_same_model_is_announced(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    llm_registry.announce(tmp_path, "http://127.0.0.1:1/v1", model)
    assert llm_registry.announced(tmp_path, model) == "http://127.0.0.1:1/v1"
    assert llm_registry.announced(tmp_path, tmp_path / "other.gguf") is None
    record = json.loads((tmp_path / llm_registry.FILE_NAME).read_text())
    with subprocess.Popen([sys.executable, "-c", "pass"]) as gone:
        gone.wait()
    record["pid"] = gone.pid  # its process exited (a crash left the file behind)
    (tmp_path / llm_registry.FILE_NAME).write_text(json.dumps(record))
    assert llm_registry.announced(tmp_path, model) is None
    llm_registry.withdraw(tmp_path)  # not ours: stays
    assert (tmp_path / llm_registry.FILE_NAME).exists()
    (tmp_path / llm_registry.FILE_NAME).write_text("{garbage")
    assert llm_registry.announced(tmp_path, model) is None


def test_ensure_server_starts_ours_when_nothing_answers(test_gguf: Path, tmp_path: Path) -> None:
    silent = f"http://127.0.0.1:{free_port('127.0.0.1')}/v1"
    config = config_from_dict({"llm": {"base_url": silent, "model": str(test_gguf)},
                               "paths": {"data_dir": str(tmp_path)}})
    url, ours = ensure_server(config)
    assert ours is not None
    try:
        assert url == ours.base_url != silent
        assert ours.is_alive()
    finally:
        ours.stop()


def test_a_repeated_prefix_comes_from_the_servers_cache(llm_base_url: str) -> None:
    """What the agent's warm-up relies on: the same prefix is not computed twice."""
    system = {"role": "system", "content": f"You are voice assistant number {os.getpid()}-"
              f"{time.time_ns()}. Use a tool whenever the request needs one."}

    def prompt_tokens(text: str) -> tuple[int, int]:
        body = {"messages": [system, {"role": "user", "content": text}], "tools": [CLOCK],
                "temperature": 0, "max_tokens": 1}
        response = httpx.post(f"{llm_base_url}/chat/completions", json=body, timeout=900)
        data = response.json()
        return data["usage"]["prompt_tokens"], data["timings"]["prompt_n"]

    total, computed = prompt_tokens("Hello")
    assert computed > total * 0.8  # a new prefix is computed (all but a shared start)
    total, computed = prompt_tokens("What time is it?")
    assert computed < total / 3, f"{computed} of {total} prompt tokens were computed again"


def test_a_broken_model_fails_start_with_the_servers_own_words(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    server = LLMServer(broken, log_path=tmp_path / "server.log")
    with pytest.raises(ChatError, match=r"exited with code \S+ while starting:\n(.|\n)*\S"):
        server.start()
    assert server.pid is None


FAKE_LLAMA_SERVER = '''#!{python}
"""Stands in for a native llama-server: checks its arguments, answers /health with its pid."""
import argparse, json, os, pathlib
from http.server import BaseHTTPRequestHandler, HTTPServer
p = argparse.ArgumentParser()
for flag in ("--model", "--host", "--port", "--threads", "--ctx-size", "--chat-template-file"):
    p.add_argument(flag, required=True)
p.add_argument("--jinja", action="store_true", required=True)
args = p.parse_args()
template = pathlib.Path(args.chat_template_file).read_text()
class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({{"status": "ok", "pid": os.getpid(),
                           "bare_json_calls": '"arguments"' in template}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
HTTPServer((args.host, int(args.port)), Handler).serve_forever()
'''


def native(tmp_path: Path) -> LLMServer:
    """An LLMServer supervising the stand-in llama-server binary."""
    binary = tmp_path / "llama-server"
    binary.write_text(FAKE_LLAMA_SERVER.format(python=sys.executable))
    binary.chmod(0o755)
    return LLMServer(tmp_path / "m.gguf", engine="llama-server", binary=str(binary))


def health(server: LLMServer) -> dict:
    return httpx.get(server.base_url.removesuffix("/v1") + "/health", timeout=5).json()


def test_engine_llama_server_runs_the_binary_with_the_template_and_stops_it(
        tmp_path: Path) -> None:
    with native(tmp_path) as server:
        child = health(server)
        assert child["bare_json_calls"]
        wrapper = server.pid
        assert wrapper is not None and child["pid"] != wrapper
    assert _wait_gone(child["pid"]) and _wait_gone(wrapper)


def test_engine_llama_server_dies_with_its_supervisor(tmp_path: Path) -> None:
    with native(tmp_path) as server:
        child = health(server)
        assert server.pid is not None
        os.kill(server.pid, signal.SIGKILL)
        assert _wait_gone(child["pid"]), "llama-server outlived the process supervising it"


def test_a_dead_native_server_ends_its_supervisor(tmp_path: Path) -> None:
    with native(tmp_path) as server:
        child = health(server)
        wrapper = server.pid
        assert wrapper is not None
        os.kill(child["pid"], signal.SIGKILL)
        assert _wait_gone(wrapper), "the supervisor kept running without its llama-server"


def test_engine_llama_server_missing_binary_says_what_to_install(tmp_path: Path) -> None:
    server = LLMServer(tmp_path / "m.gguf", engine="llama-server",
                       binary=str(tmp_path / "no-such-llama-server"))
    with pytest.raises(ChatError, match="not an executable on PATH; install llama.cpp"):
        server.start()
