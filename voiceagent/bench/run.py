"""`voiceagent bench`: the streaming pipeline measured against a sequential baseline.

Both pipelines are the real `Assistant` turn (`answer_audio`), sharing the LLM server, the
voice and the spoken questions; the sequential one is given a chat model that hands the
reply on only once it is complete. Every turn starts from an empty conversation (each turn
asks the assistant to forget it at its end), so both send identical prompts, and which
pipeline goes first alternates per question, so the server's prompt cache favours neither.
Playback keeps real-time pace but is discarded: "first audio" is when the first sample
would be heard. `bench --live` (live.py) measures the same turn on real sound devices.

streaming:  STT -> LLM text streamed into sentences -> TTS -> playback, all overlapping
sequential: STT -> the complete LLM reply -> TTS sentence by sentence -> playback
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import re
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Event, Events
from voiceagent.agent.messages import Message, Reply, ToolChoice, ToolSpec
from voiceagent.assistant import Assistant
from voiceagent.audio import Audio, load_audio
from voiceagent.bench.report import render_table, summarize, turn_figures, typical_pair, word_errors
from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError
from voiceagent.ports import ChatModel, Synthesizer

BENCH_MODEL = "qwen2.5-coder-0.5b"
"""The LLM the bench uses when [llm] model is empty: a few minutes on 2 cores."""
QUESTIONS_DIR = Path(__file__).resolve().parent / "questions"
"""The bundled spoken questions (qNN.wav with the expected transcript in qNN.txt)."""


@dataclass(frozen=True)
class Question:
    """One spoken question and what was said in it."""

    name: str
    audio: Audio
    expected: str


def load_questions(directory: Path) -> list[Question]:
    """Every NAME.wav in `directory` with its transcript NAME.txt, in name order."""
    wavs = sorted(directory.glob("*.wav"))
    if not wavs:
        raise VoiceAgentError(f"{directory}: no .wav questions found; --wav-dir takes a folder "
                              "of WAV files, each with its expected transcript in NAME.txt")
    questions = []
    for wav in wavs:
        txt = wav.with_suffix(".txt")
        if not txt.is_file():
            raise VoiceAgentError(f"{txt}: missing; write what is said in {wav.name} into it")
        questions.append(Question(wav.stem, load_audio(wav), txt.read_text("utf-8").strip()))
    return questions


class StageLog:
    """Start and end (monotonic seconds) of each synthesis and playback in the current turn."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float, float]] = []
        """(stage, start, end, seconds of audio)."""
        self._lock = threading.Lock()

    def add(self, stage: str, start: float, audio_s: float) -> None:
        with self._lock:
            self.spans.append((stage, start, time.monotonic(), audio_s))

    def take(self) -> list[tuple[str, float, float, float]]:
        with self._lock:
            spans, self.spans = self.spans, []
        return spans


class TimedSynthesizer:
    """Wraps a Synthesizer to log how long each clip took to make (the TTS real-time factor)."""

    def __init__(self, inner: Synthesizer, log: StageLog) -> None:
        self._inner = inner
        self._log = log

    def synthesize(self, text: str) -> Iterator[Audio]:
        clips = iter(self._inner.synthesize(text))
        while True:
            start = time.monotonic()
            clip = next(clips, None)
            if clip is None:
                return
            self._log.add("tts", start, clip.seconds)
            yield clip


class PacedPlayer:
    """A Player that takes as long as the clip would sound, and discards it."""

    def __init__(self, log: StageLog) -> None:
        self._log = log
        self._stop = threading.Event()

    def play(self, audio: Audio) -> None:
        self._stop.clear()
        start = time.monotonic()
        self._stop.wait(audio.seconds)
        self._log.add("playback", start, audio.seconds)

    def stop(self) -> None:
        self._stop.set()


class WholeReply:
    """A ChatModel that passes text on only once the reply is complete (the sequential
    baseline). The first delta is still reported, empty, so the wait for it is timed."""

    def __init__(self, inner: ChatModel) -> None:
        self._inner = inner

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 on_text: Callable[[str], None] | None = None,
                 cancel: threading.Event | None = None,
                 tool_choice: ToolChoice = "auto") -> Reply:
        if on_text is None:
            return self._inner.complete(system, messages, tools, cancel=cancel,
                                        tool_choice=tool_choice)
        parts: list[str] = []

        def hold(delta: str) -> None:
            if not parts:
                on_text("")
            parts.append(delta)

        reply = self._inner.complete(system, messages, tools, on_text=hold, cancel=cancel,
                                     tool_choice=tool_choice)
        if parts:
            on_text("".join(parts))
        return reply

    def __getattr__(self, name: str) -> Any:  # close() and the like
        return getattr(self._inner, name)


class TurnLog:
    """Every event of the current turn, and the monotonic time its clock started."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.t0 = 0.0

    def __call__(self, event: Event) -> None:
        if event.type == "turn_start":
            self.t0 = time.monotonic() - event.t
            self.events = []
        self.events.append(event)


@dataclass
class Bench:
    """The two assistants (one per pipeline) and what records their turns."""

    assistants: dict[str, Assistant]
    """"streaming" and "sequential"."""
    turn_log: TurnLog
    stages: StageLog
    server_pid: int | None

    def turn(self, pipeline: str, q: Question) -> tuple[str, str, str]:
        """One real turn; the assistant forgets it at its end, so every turn starts empty."""
        assistant = self.assistants[pipeline]
        assistant.request_reset()
        outcome = assistant.answer_audio(q.audio)
        return outcome.transcript or "", outcome.answer, outcome.stop

    def measure(self, pipeline: str, q: Question, order: int) -> dict[str, Any]:
        self.stages.take()
        before = cpu_seconds(self.server_pid)
        transcript, answer, stop = self.turn(pipeline, q)
        after = cpu_seconds(self.server_pid)
        others = (after[0] - before[0]) - (after[1] - before[1]) - (after[2] - before[2])
        errors, n_words = word_errors(q.expected, transcript)
        return {
            "question": q.name, "pipeline": pipeline, "order": order, "stop": stop,
            "expected": q.expected, "transcript": transcript, "answer": answer,
            "word_errors": errors, "words": n_words, "audio_s": round(q.audio.seconds, 3),
            "other_cpu_s": round(max(others, 0.0), 2),
            **turn_figures(self.turn_log.events, self.turn_log.t0, self.stages.take()),
        }


def bench_config(config: Config, data_dir: Path) -> Config:
    """The config to measure: a throwaway data dir (sessions, lists, timers), greedy sampling
    (both pipelines then get the same reply to the same prompt), and, for the embedded server
    with no model chosen, the small model."""
    llm = dataclasses.replace(config.llm, temperature=0.0)
    if llm.provider == "local" and not llm.model:
        llm = dataclasses.replace(llm, model=BENCH_MODEL)
    paths = dataclasses.replace(config.paths, data_dir=str(data_dir),
                                models_dir=str(config.models_dir))
    return dataclasses.replace(config, llm=llm, paths=paths)


def peak_rss_mb(pid: int | None = None) -> float | None:
    """Peak resident memory of this process, or of `pid` and its children (/proc VmHWM)."""
    if pid is None:
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    total_kb = 0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        for p in [pid, *map(int, children)]:
            status = Path(f"/proc/{p}/status").read_text()
            match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
            total_kb += int(match.group(1)) if match else 0
    except OSError:
        return None
    return round(total_kb / 1024, 1)


def cpu_seconds(server_pid: int | None) -> tuple[float, float, float]:
    """CPU seconds used so far by the whole machine, this process, and the LLM server: the
    difference is what other programs took from the bench (a shared machine is noisy)."""
    tick = os.sysconf("SC_CLK_TCK")
    busy = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    machine = sum(map(int, busy)) - int(busy[3]) - int(busy[4])  # minus idle and iowait
    mine = sum(os.times()[:2]) * tick
    server = 0
    if server_pid is not None:
        try:
            fields = Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()
            server = int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return machine / tick, mine / tick, server / tick


def run_bench(config: Config, turns: int, wav_dir: Path | None, json_path: str | None,
              plot_path: str | None) -> int:
    """Measure both pipelines over the questions; print the table, write JSON and PNG."""
    questions = load_questions(wav_dir or QUESTIONS_DIR)
    n = turns or len(questions)
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="voiceagent-bench-")))
        config = bench_config(config, tmp)
        # both pipelines are about the model's reply: a built-in command answered without it
        # would make them the same turn (bench --live compares local commands with the LLM)
        config = dataclasses.replace(config, agent=dataclasses.replace(config.agent,
                                                                       local_commands=False))
        _progress(f"loading models (LLM {config.llm.model or config.llm.provider}) ...")
        config, server_pid = _start_llm(config, stack)
        bench = _build(config, stack, server_pid)
        load = os.getloadavg()[0]
        if load > 0.5 * len(os.sched_getaffinity(0)):
            _progress(f"note: the machine is busy (load average {load:.1f}); figures will be "
                      "slower and noisier than on an idle machine")
        _progress("warm-up turn (not counted): loads caches and the server's prompt prefix")
        bench.measure("streaming", questions[0], 0)
        results = []
        for i in range(n):
            q = questions[i % len(questions)]
            order = ("streaming", "sequential") if i % 2 == 0 else ("sequential", "streaming")
            for position, pipeline in enumerate(order, 1):
                turn = {"turn": i + 1, **bench.measure(pipeline, q, position)}
                results.append(turn)
                _progress(_turn_line(turn))
        memory = {"assistant": peak_rss_mb(), "llm_server": peak_rss_mb(server_pid)
                  if server_pid else None}
    setup = {**_setup(config, n, len(questions)), "load_average_at_start": round(load, 2)}
    report = summarize(results, setup=setup, memory=memory)
    print(render_table(report))
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
    if plot_path:
        from voiceagent.bench.plot import draw_timeline

        draw_timeline(typical_pair(results), plot_path)
    return 1 if any(t["stop"] == "error" for t in results) else 0


def _start_llm(config: Config, stack: ExitStack) -> tuple[Config, int | None]:
    """Start the embedded server here, to know its process id; the assistant then reuses it."""
    if config.llm.provider != "local":
        return config, None
    from voiceagent.llm_server import ensure_server

    base_url, server = ensure_server(config)
    if server is not None:
        stack.callback(server.stop)
    llm = dataclasses.replace(config.llm, base_url=base_url)
    return dataclasses.replace(config, llm=llm), server.pid if server is not None else None


def _build(config: Config, stack: ExitStack, server_pid: int | None) -> Bench:
    from voiceagent.build import build_assistant, build_synthesizer

    stages = StageLog()
    events = Events()
    turn_log = TurnLog()
    events.subscribe(turn_log)
    synthesizer = TimedSynthesizer(build_synthesizer(config), stages)
    assistants = {}
    for pipeline in ("streaming", "sequential"):
        # one session each: a session file is locked by the assistant that uses it
        session = dataclasses.replace(config.session, name=f"bench-{pipeline}")
        assistants[pipeline] = build_assistant(
            dataclasses.replace(config, session=session), stack, mode="bench",
            player=PacedPlayer(stages), events=events, synthesizer=synthesizer,
            allow_demo=False)
    sequential = assistants["sequential"].agent
    sequential.model = WholeReply(sequential.model)
    return Bench(assistants, turn_log, stages, server_pid)


def _setup(config: Config, turns: int, questions: int) -> dict[str, Any]:
    return {
        "llm": config.llm.model or config.llm.provider, "llm_provider": config.llm.provider,
        "stt": config.stt.model, "tts": config.tts.voice,
        "cpus": len(os.sched_getaffinity(0)), "machine": platform.machine(),
        "turns_per_pipeline": turns, "questions": questions, "warmup_turns": 1,
    }


def _turn_line(turn: dict[str, Any]) -> str:
    t = turn["timings"]
    first = t.get("first_audio")
    heard = f"{first:5.2f}" if first is not None else "  -  "
    return (f"{turn['question']} {turn['pipeline']:10} first audio {heard} s, total "
            f"{t.get('total', 0):5.2f} s  heard {turn['transcript']!r} -> "
            f"{turn['answer'][:60]!r}")


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
