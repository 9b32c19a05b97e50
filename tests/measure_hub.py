"""Two rooms at once vs one: reply onset through real wyoming-satellite processes and
`voiceagent hub`, on the PulseAudio test devices (not a test: it prints figures).

    flock /work/heavy.lock .venv/bin/python -m tests.measure_hub --model qwen2.5-coder-0.5b \
        --slots 1 2 --rounds 3

For each [hub] llm_slots given: one hub, two satellites (kitchen, bedroom), real recordings
(tests/data/real): a built-in command ("set a timer for 5 minutes", answered from the
templates) and a request for the model ("Picovoice, make me a large coffee"), and a question
for the model (the bench's piper "Tell me a fun fact about the moon."). Each round asks each
kind in the kitchen alone, in the bedroom alone, and in both rooms at once; then the built-in
command in one room and the question in the other, at once ("mixed"). Reply onset =
seconds from the end of the words at the room's microphone sink to the first sound of the
answer at its speaker sink (both captured on this process's clock, bench/capture.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.pulse import PulseServer
from tests.satellites import Hub, Satellite, free_port
from voiceagent.audio import Audio, concat, load_audio, write_wav
from voiceagent.bench.capture import RATE, Capture
from voiceagent.bench.onset import first_sound, speech_span

REAL = Path(__file__).parent / "data" / "real"
QUESTION = Path(__file__).parent.parent / "voiceagent" / "bench" / "questions" / "q06.wav"
"""A question for the model ("Tell me a fun fact about the moon.", piper: no real recording
of a general question is shared)."""
ROOMS = ("kitchen", "bedroom")
KINDS = {"built-in": REAL / "set_a_timer_for_5_minutes.flac",
         "model": REAL / "picovoice_make_me_a_large_coffee.flac",
         "question": QUESTION}
MIXED = (("built-in", "question"), ("question", "built-in"))
"""Mixed rounds: the kitchen's kind and the bedroom's, spoken at once."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--slots", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default="")
    parser.add_argument("--speech-only", action="store_true",
                        help="only what two rooms share for a built-in command: the transcript "
                             "and the first sentence's audio, one room vs two at once, no devices")
    args = parser.parse_args()
    if args.speech_only:
        print(json.dumps(_speech_only(args.rounds), indent=1))
        return
    root = Path(tempfile.mkdtemp(prefix="measure-hub-"))
    (root / "pulse").mkdir()
    pulse = PulseServer(root / "pulse")
    pulse.start()
    os.environ.update(pulse.env)  # the captures' parec finds this server
    results: dict[str, object] = {}
    try:
        for room in ROOMS:
            pulse.add_room(room)
        clips = {kind: _wav(root, kind, path) for kind, path in KINDS.items()}
        for slots in args.slots:
            results[f"slots={slots}"] = _run(pulse, root / f"slots{slots}", clips, slots,
                                             args.model, args.rounds)
    finally:
        pulse.stop()
    print(json.dumps(results, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


def _speech_only(rounds: int) -> dict[str, object]:
    """Seconds from a room's request to its first sentence's audio (transcribe the real timer
    request, synthesize "Timer set for 5 minutes."), for one room and for two at once, through
    the one Whisper and the one piper voice the hub shares (each behind its own lock)."""
    import threading

    from voiceagent.config import Config
    from voiceagent.speech.stt import WhisperTranscriber
    from voiceagent.speech.tts import PiperSynthesizer

    config = Config()
    stt = WhisperTranscriber(config.stt, config.models_dir)
    tts = PiperSynthesizer(config.tts, config.models_dir)
    clip = load_audio(KINDS["built-in"])

    def room(out: list[float]) -> None:
        start = time.monotonic()
        stt.transcribe(clip)
        next(iter(tts.synthesize("Timer set for 5 minutes.")))
        out.append(time.monotonic() - start)

    room([])  # warm-up
    alone: list[float] = []
    together: list[float] = []
    for _ in range(rounds):
        room(alone)
        pair: list[float] = []
        threads = [threading.Thread(target=room, args=(pair,)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        together.append(max(pair))  # the room that waited
    a, t = statistics.median(alone), statistics.median(together)
    return {"alone (s)": round(a, 3), "the later of two at once (s)": round(t, 3),
            "ratio": round(t / a, 2), "raw": {"alone": alone, "together": together}}


def _wav(root: Path, kind: str, source: Path) -> Path:
    """The clip with silence around it."""
    clip = concat([Audio.silence(0.5), load_audio(source), Audio.silence(1.5)])
    path = root / f"{kind}.wav"
    write_wav(path, clip)
    return path


def _run(pulse: PulseServer, root: Path, clips: dict[str, Path], slots: int,
         model: str, rounds: int) -> dict[str, object]:
    root.mkdir()
    (root / "data").mkdir()
    (root / "data" / "prompt-cache").symlink_to(_shared_cache(root.parent))  # prefill once
    satellites = [Satellite(pulse, room, free_port(), root).start() for room in ROOMS]
    hub = Hub(root, satellites, hub={"llm_slots": slots}, llm={"model": model})
    caps = {room: (Capture(f"{room}_mic.monitor"), Capture(f"{room}_speaker.monitor"))
            for room in ROOMS}
    onsets: dict[str, list[float]] = {}
    try:
        hub.start(ready_rooms=len(ROOMS), timeout_s=600)
        for mic, speaker in caps.values():
            mic.wait_started()
            speaker.wait_started()
        for kind, clip in clips.items():
            _ask(pulse, hub, caps, {"kitchen": clip})  # warm-up, not counted
            for _ in range(rounds):
                for rooms in (("kitchen",), ("bedroom",), ROOMS):
                    got = _ask(pulse, hub, caps, dict.fromkeys(rooms, clip))
                    label = "alone" if len(rooms) == 1 else "together"
                    for room, onset in got.items():
                        onsets.setdefault(f"{kind} {room} {label}", []).append(onset)
                    print(kind, rooms, got, flush=True)
        for _ in range(rounds):
            for kinds in MIXED:
                kind_of = dict(zip(ROOMS, kinds, strict=True))
                got = _ask(pulse, hub, caps, {room: clips[kind] for room, kind in kind_of.items()})
                for room, onset in got.items():
                    onsets.setdefault(f"{kind_of[room]} {room} mixed", []).append(onset)
                print("mixed", kinds, got, flush=True)
    finally:
        for mic, speaker in caps.values():
            mic.close()
            speaker.close()
        hub.stop()
        for satellite in satellites:
            satellite.kill()
    table = {k: round(statistics.median(v), 2) for k, v in sorted(onsets.items())}
    ratios = {f"{kind} {room} {label}": round(table[f"{kind} {room} {label}"]
                                              / table[f"{kind} {room} alone"], 2)
              for kind in KINDS for room in ROOMS for label in ("together", "mixed")
              if f"{kind} {room} {label}" in table and f"{kind} {room} alone" in table}
    return {"median reply onset (s)": table, "at once / alone": ratios, "raw": onsets}


def _shared_cache(parent: Path) -> Path:
    path = parent / "prompt-cache"
    path.mkdir(exist_ok=True)
    return path


def _ask(pulse: PulseServer, hub: Hub, caps: dict[str, tuple[Capture, Capture]],
         asks: dict[str, Path]) -> dict[str, float]:
    """Play each room's clip into it at once; each room's reply onset after its words end
    (found in what its microphone sink carried)."""
    turns = {room: hub.log().count(f"{room}: turn over") for room in asks}
    started = {}
    procs = []
    for room, wav in asks.items():
        started[room] = time.monotonic()
        procs.append(pulse.play_into(f"{room}_mic", wav))
    for proc in procs:
        proc.wait()
    for room in asks:
        hub.wait_for(f"{room}: turn over", count=turns[room] + 1, timeout_s=600)
    time.sleep(1.0)
    (hub.root / "data" / "timers.json").write_text("[]")  # the 5-minute timers never ring
    onsets = {}
    for room in asks:
        mic, speaker = caps[room]
        heard, t_mic = mic.window(started[room] - 0.5, started[room] + 10)
        _start, b = speech_span(heard, RATE)
        end = t_mic + b
        played, t_played = speaker.window(end, time.monotonic())
        first = first_sound(played, RATE)
        if first is not None:
            onsets[room] = round(t_played + first - end, 3)
    return onsets


if __name__ == "__main__":
    main()
