"""`voiceagent bench --live`: mouth to ear, as a person in front of the kiosk waits for it.

Each question recording is played into the sound server (a sink the microphone hears), and
the microphone and the speaker are recorded, while the assistant runs exactly as
`voiceagent run --mode kiosk` does: MicRecorder.utterances, KioskFrontEnd, Assistant. The
clock starts when the words end *at the microphone* and stops at sounds *in the speaker
recording*; the stages in between come from the turn's own events.

The LLM server is started once, its prompt prefix primed from the saved KV cache and then
restarted cold and restored, so the first question is a real "first question after start";
the same question is asked again at the end, warm. The questions run with `[agent]
local_commands` off (every turn through the LLM; the first/warm pair is measured there) and
then on, so built-in commands are compared with the LLM path in the same run.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Event, Events
from voiceagent.audio import STT_RATE, write_wav
from voiceagent.bench.capture import RATE, Capture, play
from voiceagent.bench.live_report import render_live, summarize_live, typical_turns
from voiceagent.bench.onset import LOUD, envelope, first_sound, speech_span
from voiceagent.bench.report import turn_figures, word_errors
from voiceagent.bench.run import QUESTIONS_DIR, Question, bench_config, load_questions
from voiceagent.config import Config

TURN_TIMEOUT_S = 300.0
"""Longest a question may take from the end of its words to the end of the turn."""
HEARD_TIMEOUT_S = 10.0
"""A question whose turn has not started this long after its words ended was not heard."""
QUIET_S = 0.6
"""Speaker silence that means the reply is over."""


@dataclass(frozen=True)
class LiveOptions:
    """What `bench --live` plays, where, and how often."""

    feed_sink: str = "@DEFAULT_SINK@"
    """Sink the questions are played into: one the microphone hears."""
    mic_source: str = "@DEFAULT_SOURCE@"
    """Source the assistant listens to, recorded to find where the words end."""
    speaker_source: str = "@DEFAULT_MONITOR@"
    """Monitor of the sink the assistant speaks into."""
    turns: int = 0
    """Questions per variant (0: all)."""
    local_commands: str = "both"
    """both, on or off: the [agent] local_commands settings to measure."""


class EventClock:
    """Every event with its monotonic time, across turns."""

    def __init__(self) -> None:
        self.events: list[tuple[float, Event]] = []
        self._t0 = 0.0
        self._lock = threading.Lock()
        self.turn_ended = threading.Event()

    def __call__(self, event: Event) -> None:
        with self._lock:
            if event.type == "turn_start":
                self._t0 = time.monotonic() - event.t
            self.events.append((self._t0 + event.t, event))
        if event.type == "turn_end":
            self.turn_ended.set()

    def turns_after(self, t: float) -> list[tuple[float, list[Event]]]:
        """(monotonic start, events) of each turn that started after `t`."""
        turns: list[tuple[float, list[Event]]] = []
        with self._lock:
            for at, event in self.events:
                if event.type == "turn_start" and at >= t:
                    turns.append((at - event.t, []))
                if turns and at >= turns[-1][0]:
                    turns[-1][1].append(event)
        return turns


def run_live(config: Config, options: LiveOptions, *, wav_dir: Path | None,
             json_path: str | None, plot_path: str | None) -> int:
    """Measure mouth to ear over the questions; print the table, write JSON and PNG."""
    questions = load_questions(wav_dir or QUESTIONS_DIR)
    questions = questions[: options.turns or len(questions)]
    turns: list[dict[str, Any]] = []
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="voiceagent-live-")))
        slot_dir = config.data_dir / "prompt-cache"  # shared with `run`: a warm start helps both
        config = bench_config(config, tmp / "data")
        # a busy machine must slow a turn down, not cut it off: the figures are the point
        config = dataclasses.replace(config, agent=dataclasses.replace(
            config.agent, max_seconds=max(config.agent.max_seconds, TURN_TIMEOUT_S)))
        wavs = _write_wavs(questions, tmp)
        mic, speaker = Capture(options.mic_source), Capture(options.speaker_source)
        stack.callback(mic.close)
        stack.callback(speaker.close)
        mic.wait_started()
        speaker.wait_started()
        _progress(f"loading models (LLM {config.llm.model or config.llm.provider}) ...")
        config, server = _start_llm(config, stack, slot_dir)
        variants = _variants(config, options.local_commands)
        setup: dict[str, Any] = {"llm": config.llm.model or config.llm.provider,
                                 "stt": config.stt.model, "tts": config.tts.voice,
                                 "silence_ms": config.audio.silence_ms,
                                 "chime": config.audio.chime, "variants": [],
                                 "questions": len(questions),
                                 "load_average_at_start": round(os.getloadavg()[0], 2),
                                 "cpus": len(os.sched_getaffinity(0))}
        for n, (label, variant) in enumerate(variants):
            setup["variants"].append(label)
            plan = [(q, "first" if n == 0 and i == 0 else "") for i, q in enumerate(questions)]
            if n == 0:
                plan.append((questions[0], "repeat"))
            turns += _run_variant(variant, label, plan, wavs, options, mic, speaker, server,
                                  setup, first=n == 0)
        setup["load_average_at_end"] = round(os.getloadavg()[0], 2)
    report = summarize_live(turns, setup=setup)
    print(render_live(report))
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
    if plot_path:
        from voiceagent.bench.plot import draw_timeline

        draw_timeline(typical_turns(turns), plot_path,
                      title="Mouth to ear in kiosk mode: one typical turn per path")
    return 1 if any(t["stop"] in ("error", "not_heard") for t in turns) else 0


def _variants(config: Config, which: str) -> list[tuple[str, Config]]:
    """(label, config) per local_commands setting measured; LLM path only when the config
    has no such key."""
    if not hasattr(config.agent, "local_commands"):
        return [("llm", config)]
    values = {"both": [False, True], "on": [True], "off": [False]}[which]
    return [("local on" if value else "local off",
             dataclasses.replace(config, agent=dataclasses.replace(config.agent,
                                                                   local_commands=value)))
            for value in values]


def _run_variant(config: Config, label: str, plan: list[tuple[Question, str]],
                 wavs: dict[str, Path], options: LiveOptions, mic: Capture, speaker: Capture,
                 server: Any, setup: dict[str, Any], *, first: bool) -> list[dict[str, Any]]:
    from voiceagent.build import build_assistant, build_synthesizer, prompt_of
    from voiceagent.front_end import KIOSK
    from voiceagent.frontends import Replies
    from voiceagent.llm.prompt_cache import prime
    from voiceagent.modes import build_kiosk  # the very front end `run --mode kiosk` builds
    from voiceagent.sound.player import SoundPlayer
    from voiceagent.sound.recorder import MicRecorder

    results = []
    with ExitStack() as stack:
        events = Events()
        clock = EventClock()
        events.subscribe(clock)
        player = SoundPlayer(config.audio)
        stack.callback(player.stop)
        recorder = MicRecorder(config.audio)
        stack.callback(recorder.close)
        assistant = build_assistant(config, stack, front_end=KIOSK, player=player, events=events,
                                    synthesizer=build_synthesizer(config), allow_demo=False)
        if server is not None:
            start = time.monotonic()
            setup.setdefault("prefix_cache", prime(server, prompt_of(assistant.agent),
                                                      assistant.agent.model))
            if first:  # a fresh server process: what `run` or a cold `ask` starts with
                server.restart()
                start = time.monotonic()
                setup["prefix_restore"] = prime(server, prompt_of(assistant.agent),
                                                 assistant.agent.model)
                setup["prefix_restore_s"] = round(time.monotonic() - start, 3)
        front = build_kiosk(config, assistant, recorder, player,
                            Replies(config.audio.listen_timeout_s))
        stop = threading.Event()
        runner = threading.Thread(target=front.run, args=(stop,), name="kiosk", daemon=True)
        runner.start()
        stack.callback(runner.join, 10)
        stack.callback(stop.set)
        time.sleep(1.5)  # the listener's stream is open and its VAD has settled
        for q, role in plan:
            turn = _measure(q, wavs[q.name], options.feed_sink, mic, speaker, clock)
            turn.update(variant=label, role=role)
            results.append(turn)
            _progress(_line(turn))
            time.sleep(0.8)  # the kiosk resumes listening after its answer
    return results


def _measure(q: Question, wav: Path, sink: str, mic: Capture, speaker: Capture,
             clock: EventClock) -> dict[str, Any]:
    """Play one question and time what the microphone and the speaker show."""
    a, b = speech_span(q.audio.samples, q.audio.rate)
    clock.turn_ended.clear()
    played = play(wav, sink)
    heard_by = time.monotonic() + HEARD_TIMEOUT_S
    while not clock.turns_after(played) and time.monotonic() < heard_by:
        time.sleep(0.05)
    if clock.turns_after(played):
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while time.monotonic() < deadline and not _all_ended(clock.turns_after(played)):
            clock.turn_ended.wait(0.1)
        _wait_quiet(speaker)
    samples, t_mic = mic.window(played, played + q.audio.seconds + 1.0)
    onset, _end = speech_span(samples, RATE)
    words_end = t_mic + onset + (b - a)
    return _figures(q, words_end, clock.turns_after(played), speaker)


def _all_ended(turns: list[tuple[float, list[Event]]]) -> bool:
    return bool(turns) and all(any(e.type == "turn_end" for e in events) for _, events in turns)


def _wait_quiet(speaker: Capture, limit_s: float = 30.0) -> None:
    """Until the speaker has been silent for QUIET_S (the last words have been played)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        now = time.monotonic()
        recent, _ = speaker.window(now - QUIET_S, now)
        if len(recent) >= 0.8 * QUIET_S * RATE and not (envelope(recent, RATE) > LOUD).any():
            return
        time.sleep(0.1)


def _figures(q: Question, words_end: float, turns: list[tuple[float, list[Event]]],
             speaker: Capture) -> dict[str, Any]:
    """One question's figures, in seconds since the end of its words."""
    base: dict[str, Any] = {"question": q.name, "expected": q.expected}
    if not turns:
        return {**base, "stop": "not_heard", "transcript": "", "answer": "", "timings": {},
                "stages": {}, "path": "none"}
    t0, events = turns[0]
    shift = t0 - words_end  # event times count from the cut; ours from the end of the words
    figures = turn_figures(events, t0, [])
    timings = {k: round(v + shift, 3) for k, v in figures["timings"].items()
               if isinstance(v, (int, float))}
    timings["endpoint"] = round(shift, 3)
    stages = {k: [[round(s[0] + shift, 3), round(s[1] + shift, 3), *s[2:]] for s in spans]
              for k, spans in figures["stages"].items()}
    stages["endpoint"] = [[0.0, round(shift, 3)]]
    first_audio_event = timings.get("first_audio")
    if first_audio_event is not None and "first_sentence" in timings:  # its synthesis
        stages["tts"] = [[timings["first_sentence"], first_audio_event]]
    sound, t_sound = speaker.window(words_end, time.monotonic())
    first = first_sound(sound, RATE)
    if first is not None:
        timings["first_sound"] = round(t_sound - words_end + first, 3)
    if first_audio_event is not None:
        from_ = max(0.0, first_audio_event - 0.15)
        skip = int(from_ * RATE)
        onset = first_sound(sound[skip:], RATE)
        if onset is not None:
            timings["reply_onset"] = round(from_ + onset, 3)
            env = envelope(sound[skip:], RATE)
            stages["playback"] = [[timings["reply_onset"],
                                   round(from_ + (len(env) - 1) * 0.01, 3)]]
    text = next((e.fields.get("text", "") for e in events if e.type == "stt_done"), "")
    answer = next((e.fields.get("text", "") for e in events if e.type == "final"), "")
    stop = next((e.fields.get("stop", "") for e in events if e.type == "turn_end"), "timeout")
    local = any(e.type == "local_command" for e in events)
    errors, n_words = word_errors(q.expected, text)
    return {**base, "stop": stop, "transcript": text, "answer": answer, "timings": timings,
            "stages": stages, "path": "local" if local else "llm", "turns": len(turns),
            "llm_first_token_s": figures["llm_first_token_s"],
            "tokens_per_s": figures["tokens_per_s"], "word_errors": errors, "words": n_words}


def _start_llm(config: Config, stack: ExitStack, slot_dir: Path) -> tuple[Config, Any]:
    """Our own server (to restart it cold and restore its prefix), reused by every variant."""
    if config.llm.provider != "local":
        return config, None
    from voiceagent.llm.server import LLMServer

    server = LLMServer.from_config(config)
    server.slot_dir = slot_dir
    stack.callback(server.stop)
    url = server.start()
    return dataclasses.replace(config, llm=dataclasses.replace(config.llm, base_url=url)), server


def _write_wavs(questions: list[Question], tmp: Path) -> dict[str, Path]:
    out = {}
    for q in questions:
        out[q.name] = tmp / f"{q.name}.wav"
        write_wav(out[q.name], q.audio.resampled(STT_RATE) if q.audio.rate != STT_RATE
                  else q.audio)
    return out


def _line(turn: dict[str, Any]) -> str:
    t = turn["timings"]

    def f(key: str) -> str:
        v = t.get(key)
        return f"{v:5.2f}" if isinstance(v, (int, float)) else "  -  "

    return (f"{turn['variant']:9} {turn['question']} {turn['role'] or '':6} {turn['path']:5} "
            f"cut {f('endpoint')}  first sound {f('first_sound')}  reply {f('reply_onset')} s"
            f"  heard {turn['transcript']!r} -> {turn['answer'][:50]!r}")


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)

