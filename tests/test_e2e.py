"""End to end, as users run it: the `voiceagent` command on the real models, the real
llama.cpp server and the PulseAudio test devices."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures_audio import words
from voiceagent.agent.session import SessionStore
from voiceagent.audio import read_wav, write_wav

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.real


def write_config(tmp_path: Path, base_url: str = "", extra: str = "") -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[llm]\nmodel = "qwen2.5-coder-0.5b"\nbase_url = "{base_url}"\n'
        'timeout_s = 600.0\n'  # a hang guard: a slow machine must slow a test, not fail it
        f'[paths]\ndata_dir = "{tmp_path / "data"}"\n'
        f'[audio]\nchime = false\n{extra}'
    )
    return config


def voiceagent(config: Path, *args: str, timeout: float = 300,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "voiceagent", "--config", str(config), *args],
        capture_output=True, text=True, timeout=timeout, cwd=REPO,
        env={**os.environ, **(env or {})},
    )


def processes_marked(mark: str) -> list[int]:
    """Live processes whose environment holds VOICEAGENT_TEST_MARK=mark (children inherit it)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"VOICEAGENT_TEST_MARK={mark}".encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def overlap(said: str, heard: str) -> float:
    """Share of the words of `said` found in `heard`."""
    said_words, heard_words = words(said), set(words(heard))
    return sum(w in heard_words for w in said_words) / max(1, len(said_words))


def test_ask_what_time_starts_its_own_server_uses_the_clock_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    # the model path (a local command would answer without starting the server)
    config = write_config(tmp_path, extra="[agent]\nlocal_commands = false\n")
    trace = tmp_path / "t.jsonl"
    mark = tmp_path.name
    result = voiceagent(config, "ask", "what time is it", "--no-speak", "--json",
                        "--trace", str(trace), env={"VOICEAGENT_TEST_MARK": mark})
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert [c["name"] for c in answer["tool_calls"]] == ["get_time"]
    told = re.search(r"\b(\d{1,2}):\d{2}\b", answer["tool_calls"][0]["result"])
    assert told and int(told.group(1)) % 12 in {int(time.strftime("%I")) % 12,
                                                (int(time.strftime("%I")) - 1) % 12}
    assert told.group(0) in answer["answer"]  # the answer says the time the clock gave
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    types = [e["type"] for e in events]
    assert types.index("tool_call") < types.index("tool_result") < types.index("final")
    assert answer["timings"]["first_token"] > 0
    assert (tmp_path / "data" / "llm-server.log").exists()  # it did start its own server
    assert processes_marked(mark) == []  # and nothing it started is left


def test_lists_across_two_turns(tmp_path: Path, llm_base_url: str) -> None:
    config = write_config(tmp_path, llm_base_url)
    first = voiceagent(config, "ask", "add apples to my shopping list", "--no-speak", "--json")
    assert first.returncode == 0, first.stderr
    shopping = (tmp_path / "data" / "lists" / "shopping.txt").read_text().lower()
    assert "apple" in shopping
    second = voiceagent(config, "ask", "what's on my shopping list", "--no-speak", "--json")
    assert second.returncode == 0, second.stderr
    assert "apple" in json.loads(second.stdout)["answer"].lower()
    history = SessionStore(tmp_path / "data" / "sessions" / "default.jsonl", 20).load()
    assert [m.text for m in history if m.role == "user"] == [
        "add apples to my shopping list", "what's on my shopping list"]


def test_ask_a_spoken_question_and_write_the_spoken_reply(
    tmp_path: Path, llm_base_url: str, speech, transcriber
) -> None:
    question = tmp_path / "question.wav"
    write_wav(question, speech("What is twelve times seven?"))
    reply = tmp_path / "reply.wav"
    result = voiceagent(write_config(tmp_path, llm_base_url), "ask", "--wav", str(question),
                        "--out", str(reply), "--json")
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert words(outcome["transcript"])[-3:] == ["twelve", "times", "seven"]
    assert "84" in outcome["answer"] or "eighty" in outcome["answer"].lower()
    heard = transcriber.transcribe(read_wav(reply))
    assert overlap(outcome["answer"], heard) >= 0.6, (outcome["answer"], heard)


def test_transcribe_and_say_commands(tmp_path: Path, transcriber) -> None:
    config = write_config(tmp_path)
    out = tmp_path / "hi.wav"
    said = voiceagent(config, "say", "Hello there, how can I help you today?", "--out", str(out))
    assert said.returncode == 0, said.stderr
    result = voiceagent(config, "transcribe", str(out))
    assert result.returncode == 0, result.stderr
    assert words(result.stdout)[-5:] == ["how", "can", "i", "help", "you"] or \
        overlap("Hello there, how can I help you today?", result.stdout) >= 0.8
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF....WAVEjunk")
    broken = voiceagent(config, "transcribe", str(bad))
    assert broken.returncode == 1 and "bad.wav" in broken.stderr
    assert "Traceback" not in broken.stderr


class Running:
    """`voiceagent run` as a child process, its log lines collected as they come."""

    def __init__(self, config: Path, *args: str, env: dict[str, str],
                 verbose: bool = False) -> None:
        """`verbose` (-v) logs every event (first_token, audio_start...), not just the turn."""
        flags = ["-v"] if verbose else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "voiceagent", *flags, "--config", str(config), "run", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            cwd=REPO, env={**os.environ, **env},
        )
        self.lines: list[str] = []
        self._new: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())
            self._new.put(line.rstrip())

    def wait_for(self, pattern: str, timeout: float = 240) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._new.get(timeout=1)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no line matching {pattern!r}; output:\n" + "\n".join(self.lines))

    def press(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


@pytest.fixture
def running(pulse) -> Iterator[list[Running]]:
    started: list[Running] = []
    yield started
    for r in started:
        if r.proc.poll() is None:
            r.proc.kill()
        r.proc.wait()
        r.reader.join(timeout=10)
        for pipe in (r.proc.stdin, r.proc.stdout):
            if pipe is not None:
                pipe.close()


@pytest.mark.audio
def test_push_to_talk_hears_the_mic_and_speaks_the_answer(
    tmp_path: Path, llm_base_url: str, pulse, speech, transcriber, running
) -> None:
    app = Running(write_config(tmp_path, llm_base_url), "--mode", "ptt", "--keys", "stdin",
                  env=pulse.env)
    running.append(app)
    app.wait_for("ptt mode ready")
    with pulse.record_speaker() as spoken:
        app.press()
        pulse.play_into_mic(speech("What time is it?"))
        app.press()
        heard = app.wait_for("heard: ")
        app.wait_for("tool get_time")
        answer = app.wait_for("answered: ").split("answered: ", 1)[1]
        app.wait_for("turn over")  # logged once the last sample was played
        time.sleep(0.5)
    assert words(heard.split("heard: ", 1)[1])[-4:] == ["what", "time", "is", "it"]
    assert overlap(answer, transcriber.transcribe(read_wav(spoken))) >= 0.6
    app.proc.stdin.write("q\n")  # type: ignore[union-attr]
    app.proc.stdin.flush()  # type: ignore[union-attr]
    assert app.proc.wait(timeout=30) == 0


@pytest.mark.audio
def test_kiosk_answers_two_questions_in_order_and_not_itself(
    tmp_path: Path, llm_base_url: str, pulse, speech, running
) -> None:
    app = Running(write_config(tmp_path, llm_base_url, '[trigger]\nmode = "kiosk"\n'),
                  env=pulse.env)
    running.append(app)
    app.wait_for("kiosk mode ready")
    pulse.play_into_mic(speech("What is five plus three?"))
    app.wait_for("answered: ")
    app.wait_for("turn over")  # it has finished speaking; half duplex listens again
    time.sleep(1.0)
    pulse.play_into_mic(speech("Please add milk to my shopping list."))
    app.wait_for("answered: ")
    app.wait_for("turn over")
    time.sleep(3)  # time to (wrongly) hear its own answer, if it could
    assert app.stop() == 0
    heard = [line.split("heard: ", 1)[1] for line in app.lines if "heard: " in line]
    assert len(heard) == 2, app.lines
    assert "plus" in words(heard[0]) and "milk" in words(heard[1])
    assert "milk" in (tmp_path / "data" / "lists" / "shopping.txt").read_text().lower()


@pytest.mark.audio
def test_daemon_sigterm_mid_answer_exits_cleanly_with_a_valid_session(
    tmp_path: Path, llm_base_url: str, pulse, speech, running
) -> None:
    app = Running(write_config(tmp_path, llm_base_url), "--mode", "daemon", "--keys", "stdin",
                  env=pulse.env)
    running.append(app)
    app.wait_for("daemon mode ready")
    app.press()
    pulse.play_into_mic(speech("Tell me a long story about a dragon and a knight."))
    app.press()
    app.wait_for("heard: ")
    time.sleep(1.0)
    assert app.stop() == 0
    SessionStore(tmp_path / "data" / "sessions" / "default.jsonl", 20).load()  # valid or empty
    assert not list((tmp_path / "data" / "sessions").glob("*.corrupt*"))


def test_systemd_units_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is part of systemd (apt install systemd)"
    for mode in ("kiosk", "daemon"):
        text = (REPO / "systemd" / f"voiceagent-{mode}.service").read_text()
        unit = tmp_path / f"voiceagent-{mode}.service"
        unit.write_text(text.replace("@REPO@", str(REPO)).replace("@USER@", "root")
                        .replace("@UID@", "0").replace("@HOME@", "/root"))
        result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
        problems = [line for line in result.stderr.splitlines() if str(unit) in line]
        assert result.returncode == 0 and not problems, result.stderr
