"""`voiceagent bench`: the streaming pipeline measured against a sequential baseline.

Both pipelines are the real `Assistant` turn (`answer_audio`), sharing the LLM server, the
voice and the spoken questions; the sequential one is given a chat model that hands the
reply on only once it is complete. Every turn starts from an empty conversation (each turn
asks the assistant to forget it at its end), so both send identical prompts, and which
pipeline goes first alternates per question, so the server's prompt cache favours neither.
Playback keeps real-time pace but is discarded: "first audio" is when the first sample
would be heard. `bench --live` (live.py) measures the same turn on real sound devices.
The pipelines are built in pipelines.py, timed by timing.py and machine.py.

streaming:  STT -> LLM text streamed into sentences -> TTS -> playback, all overlapping
sequential: STT -> the complete LLM reply -> TTS sentence by sentence -> playback
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from voiceagent.bench.machine import peak_rss_mb
from voiceagent.bench.pipelines import build_bench
from voiceagent.bench.report import render_table, summarize, typical_pair
from voiceagent.bench.spoken_questions import QUESTIONS_DIR, load_questions
from voiceagent.config import Config

BENCH_MODEL = "qwen2.5-coder-0.5b"
"""The LLM the bench uses when [llm] model is empty: a few minutes on 2 cores."""


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
        bench = build_bench(config, stack, server_pid)
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
    from voiceagent.llm.discovery import ensure_server

    base_url, server = ensure_server(config)
    if server is not None:
        stack.callback(server.stop)
    llm = dataclasses.replace(config.llm, base_url=base_url)
    return dataclasses.replace(config, llm=llm), server.pid if server is not None else None


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
