"""`voiceagent bench --live`: mouth to ear, as a person in front of the kiosk waits for it.

Each recorded request (`--clips [GROUP=]DIR`, default the bench's own questions) is played
into the sound server (a sink the microphone hears), and the microphone and the speaker are
recorded, while the kiosk runs exactly as `voiceagent run --mode kiosk` builds it
(modes.open_kiosk), so what changes in the cutter, the speech to text, the wake gate or the
turn is measured here the day it lands. The clock starts when the words end *at the
microphone* and stops at sounds *in the speaker recording*; the stages in between come from
the turn's own events (live_turn.py).

One LLM server serves the whole run; before the first kiosk it is restarted cold with its
prompt prefix restored, so the unscored warm-up request is a real "first request after
start". Then, each after its own warm-up request: the clips (per `--local-commands` setting);
with `--wake-clips`, the same requests glued behind a real recording of the wake word at each
`--wake-gaps` gap, and false wakes over `--not-wake` speech fed offline through that kiosk's
own gate (false_wakes.py); with `--peer VENV`, pipecat's local pipeline on the same clips and
devices (peer.py). Method: docs/latency-live.md.
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

from voiceagent.agent.events import Events
from voiceagent.audio import write_wav
from voiceagent.bench.capture import Capture
from voiceagent.bench.clips import Clip, glue, load_clips, sample
from voiceagent.bench.live_report import render_live, summarize_live, typical_turns
from voiceagent.bench.live_turn import EventClock, Rig, measure_kiosk
from voiceagent.bench.run import bench_config
from voiceagent.bench.spoken_questions import QUESTIONS_DIR
from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError

TURN_LIMIT_S = 300.0
"""[agent] max_seconds during the bench: a busy machine must slow a turn, not cut it off."""


@dataclass(frozen=True)
class LiveOptions:
    """What `bench --live` plays, where, and against what."""

    feed_sink: str = "@DEFAULT_SINK@"
    """Sink the requests are played into: one the microphone hears."""
    mic_source: str = "@DEFAULT_SOURCE@"
    """Source the assistant listens to, recorded to place the end of the words."""
    speaker_source: str = "@DEFAULT_MONITOR@"
    """Monitor of the sink the assistant speaks into."""
    clips: tuple[str, ...] = ()
    """Folders of recordings, "[GROUP=]DIR" (clips.py); () = the bench's own questions."""
    limit: int = 0
    """At most this many clips per folder, spread over it (0: all)."""
    local_commands: str = "config"
    """config, on, off or both: the [agent] local_commands settings measured."""
    model: str = ""
    """LLM: a bundled name or a .gguf path ("" = [llm] model, else the default model)."""
    peer: str = ""
    """The peer's venv (scripts/peer/install.sh); "" = no peer."""
    wake_clips: str = ""
    """Recordings of the wake word to glue before the requests; "" = no wake-word part."""
    wake_word: str = ""
    """The wake word for that part ("" = [trigger] wake_word)."""
    wake_gaps: tuple[float, ...] = (0.0, 0.15, 0.3)
    wake_limit: int = 0
    """Requests glued to the wake word, spread over all clips (0: all)."""
    not_wake: tuple[str, ...] = ()
    """Folders of speech that is not the wake word, for false wakes per hour (offline)."""
    plain: bool = True
    """Play the requests without a wake word too (off: only the wake-word part)."""


def run_live(config: Config, options: LiveOptions, *, json_path: str | None,
             plot_path: str | None) -> int:
    """Measure mouth to ear over the clips; print the tables, write JSON and PNG."""
    from voiceagent.models import DEFAULT_LLM

    specs = options.clips or (str(QUESTIONS_DIR),)
    clips = [c for spec in specs for c in load_clips(spec, limit=options.limit)]
    wake_word = options.wake_word or config.trigger.wake_word
    if options.wake_clips and not wake_word:
        raise VoiceAgentError("--wake-clips needs a wake word: --wake-word NAME or [trigger] "
                              "wake_word")
    records: list[dict[str, Any]] = []
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="voiceagent-live-")))
        slot_dir = config.data_dir / "prompt-cache"  # shared with `run`: a warm start helps both
        model = options.model or config.llm.model or DEFAULT_LLM
        config = dataclasses.replace(config, llm=dataclasses.replace(config.llm, model=model))
        config = bench_config(config, tmp / "data")
        config = dataclasses.replace(config, agent=dataclasses.replace(
            config.agent, max_seconds=max(config.agent.max_seconds, TURN_LIMIT_S)),
            trigger=dataclasses.replace(config.trigger, wake_word=""))
        rig = Rig(options.feed_sink, Capture(options.mic_source),
                  Capture(options.speaker_source))
        stack.callback(rig.mic.close)
        stack.callback(rig.speaker.close)
        rig.mic.wait_started()
        rig.speaker.wait_started()
        progress(f"loading models (LLM {model}) ...")
        config, server = _start_llm(config, stack, slot_dir)
        setup: dict[str, Any] = {
            "llm": model, "stt": config.stt.model, "tts": config.tts.voice,
            "silence_ms": config.audio.silence_ms, "chime": config.audio.chime,
            "clips": len(clips), "folders": list(specs), "variants": [],
            "load_average_at_start": round(os.getloadavg()[0], 2),
            "cpus": len(os.sched_getaffinity(0))}
        first = True
        for label, variant in _variants(config, options.local_commands) if options.plain else []:
            setup["variants"].append(label)
            records += _kiosk_pass(variant, label, clips, tmp, rig, server, setup, first=first)
            first = False
        if options.wake_clips:
            records += _wake_pass(config, options, wake_word, clips, tmp, rig, server, setup,
                                  first=first)
        if options.peer:
            records += _peer_pass(config, options, clips, tmp, rig, setup)
        setup["load_average_at_end"] = round(os.getloadavg()[0], 2)
    report = summarize_live(records, setup=setup)
    print(render_live(report))
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
    if plot_path:
        from voiceagent.bench.plot import draw_timeline

        draw_timeline(typical_turns(records), plot_path,
                      title="Mouth to ear in kiosk mode: one typical turn per path")
    return 1 if any(r["stop"] == "error" for r in records if r["system"] == "voiceagent") \
        else 0


def _variants(config: Config, which: str) -> list[tuple[str, Config]]:
    """(label, config) per [agent] local_commands setting measured."""
    values = {"both": [False, True], "on": [True], "off": [False],
              "config": [config.agent.local_commands]}[which]
    return [("local on" if value else "local off",
             dataclasses.replace(config, agent=dataclasses.replace(config.agent,
                                                                   local_commands=value)))
            for value in values]


def _kiosk_pass(config: Config, label: str, clips: list[Clip], tmp: Path, rig: Rig,
                server: Any, setup: dict[str, Any], *, first: bool,
                after: Any = None) -> list[dict[str, Any]]:
    """One kiosk built as `run` builds it, a warm-up request, then every clip; `after(kiosk)`
    runs once the kiosk has stopped listening."""
    from voiceagent.modes import open_kiosk

    results = []
    with ExitStack() as stack:
        events = Events()
        clock = EventClock()
        events.subscribe(clock)
        kiosk = open_kiosk(config, stack, events)
        if server is not None:
            from voiceagent.build import prompt_of
            from voiceagent.llm.prompt_cache import prime

            agent = kiosk.assistant.agent
            setup.setdefault("prefix_cache", prime(server, prompt_of(agent), agent.model))
            if first:  # a fresh server process: what `run` starts with
                server.restart()
                start = time.monotonic()
                setup["prefix_restore"] = prime(server, prompt_of(agent), agent.model)
                setup["prefix_restore_s"] = round(time.monotonic() - start, 3)
        stop = threading.Event()
        runner = threading.Thread(target=kiosk.front.run, args=(stop,), name="kiosk",
                                  daemon=True)
        runner.start()
        time.sleep(1.5)  # the listener's stream is open and its VAD has settled
        for n, clip in enumerate([clips[0], *clips]):
            record = measure_kiosk(clip, _wav(clip, tmp), rig, clock)
            record.update(variant=label, role="warmup" if n == 0 else "",
                          first_after_start=first and n == 0)
            results.append(record)
            progress(line(record))
            time.sleep(0.8)  # the kiosk resumes listening after its answer
        stop.set()
        runner.join(15)
        if after is not None:
            after(kiosk)
    return results


def _wake_pass(config: Config, options: LiveOptions, wake_word: str, clips: list[Clip],
               tmp: Path, rig: Rig, server: Any, setup: dict[str, Any], *,
               first: bool) -> list[dict[str, Any]]:
    """The requests behind a real recording of the wake word, at each gap; false wakes."""
    requests = sample(clips, options.wake_limit)
    spoken = Path(wake_word).stem.replace("_", " ")
    wakes = [dataclasses.replace(w, text=spoken) for w in load_clips(
        options.wake_clips, limit=len(requests))]
    glued = [glue(wakes[i % len(wakes)], r, gap) for gap in options.wake_gaps
             for i, r in enumerate(requests)]
    config = dataclasses.replace(config, trigger=dataclasses.replace(config.trigger,
                                                                     wake_word=wake_word))
    label = f"wake {spoken}"
    setup["variants"].append(label)
    setup["wake"] = {"word": wake_word, "recordings": options.wake_clips,
                     "gaps": list(options.wake_gaps), "requests": len(requests)}

    def offline(kiosk: Any) -> None:
        if options.not_wake:
            from voiceagent.bench.false_wakes import count_false_wakes
            from voiceagent.speech.wakegate import WakeGate

            gate = next(p for p in kiosk.recorder.processors if isinstance(p, WakeGate))
            progress(f"false wakes of {wake_word!r}, offline through the kiosk's gate ...")
            setup["false_wakes"] = count_false_wakes(
                kiosk.recorder.processors, lambda: gate.wakes,
                [Path(f) for f in options.not_wake], progress)

    return _kiosk_pass(config, label, glued, tmp, rig, server, setup, first=first,
                       after=offline)


def _peer_pass(config: Config, options: LiveOptions, clips: list[Clip], tmp: Path, rig: Rig,
               setup: dict[str, Any]) -> list[dict[str, Any]]:
    """pipecat's pipeline on the same clips, after its own warm-up request; skipped (and
    said so) when its venv is not there."""
    from voiceagent.bench.peer import Peer, measure_peer, peer_python
    from voiceagent.models import piper_voice, whisper_dir

    python = peer_python(Path(options.peer))
    if python is None:
        setup["peer"] = f"skipped: no pipecat venv at {options.peer} (scripts/peer/install.sh)"
        progress(f"peer {setup['peer']}")
        return []
    progress("starting the peer (pipecat) ...")
    peer = Peer(python, whisper_model=whisper_dir("tiny.en", config.models_dir),
                piper_voice=piper_voice(config.tts.voice, config.models_dir),
                llm_url=config.llm.base_url, log_path=tmp / "peer.log")
    results = []
    try:
        peer.wait_ready()
        time.sleep(3.0)  # PEER READY comes before its pipeline has opened the devices
        setup["peer"] = "pipecat 1.14 local pipeline (scripts/peer/peer_pipecat.py)"
        for n, clip in enumerate([clips[0], *clips]):
            record = measure_peer(clip, _wav(clip, tmp), rig, peer)
            record.update(variant="pipecat", role="warmup" if n == 0 else "",
                          first_after_start=False)
            results.append(record)
            progress(line(record))
            time.sleep(0.8)
    finally:
        peer.stop()
    return results


def _start_llm(config: Config, stack: ExitStack, slot_dir: Path) -> tuple[Config, Any]:
    """Our own server (to restart it cold and restore its prefix), reused by every pass."""
    if config.llm.provider != "local":
        return config, None
    from voiceagent.llm.server import LLMServer

    server = LLMServer.from_config(config)
    server.slot_dir = slot_dir
    stack.callback(server.stop)
    url = server.start()
    return dataclasses.replace(config, llm=dataclasses.replace(config.llm, base_url=url)), server


def _wav(clip: Clip, tmp: Path) -> Path:
    path = tmp / "clips" / f"{clip.name.replace('/', '__')}.wav"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_wav(path, clip.audio)
    return path


def line(record: dict[str, Any]) -> str:
    """One clip's progress line."""
    t = record["timings"]

    def f(key: str) -> str:
        v = t.get(key)
        return f"{v:5.2f}" if isinstance(v, (int, float)) else "  -  "

    answered = "answered" if record["answered"] else "NOT answered"
    return (f"{record['variant']:9} {record['clip'][-40:]:40} {record['role'] or '':6} "
            f"{record['path']:5} cut {f('endpoint')} reply {f('reply_onset')} s {answered}; "
            f"heard {record['transcript']!r} -> {record['answer'][:50]!r}")


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
