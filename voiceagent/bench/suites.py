"""Which evaluation `voiceagent evaluate` runs: the bundled corpus (the default), real
people's requests, multi-turn sessions, general questions after tool turns, or a saved run
judged again."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from voiceagent.config import Config
from voiceagent.errors import VoiceAgentError


def run_suite(args: argparse.Namespace, config: Config) -> int:
    """Run the evaluation the command line asks for."""
    common = {"model": args.model, "local": args.local_commands, "json_path": args.json}
    if getattr(args, "rejudge", None):
        return rejudge([Path(p) for p in args.rejudge])
    if getattr(args, "requests", None):
        from voiceagent.bench.slurp_run import run_requests

        return run_requests(config, Path(args.requests), limit=args.limit, seed=args.seed,
                            intent=args.intent, part=part(args.part), **common)
    if getattr(args, "sessions", None) is not None:
        from voiceagent.bench.sessions_run import SESSIONS, run_sessions

        return run_sessions(config, Path(args.sessions) if args.sessions else SESSIONS,
                            limit=args.limit, style=args.intent, part=part(args.part),
                            **common)
    if getattr(args, "general_after", None) is not None:
        from voiceagent.bench.general import run_general

        return run_general(config, turns=args.general_after, limit=args.limit, **common)
    from voiceagent.bench.evaluate import run_evaluate

    return run_evaluate(config, limit=args.limit, intent=args.intent, **common)


def part(text: str) -> tuple[int, int]:
    """'2/5' -> (2, 5): the second of five interleaved parts."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise VoiceAgentError(f"--part {text!r}: give K/N with 1 <= K <= N, e.g. 2/5")
    return k, n


def rejudge(paths: list[Path]) -> int:
    """Saved --requests or --sessions runs (the parts of one run), judged again."""
    saved = []
    for path in paths:
        try:
            saved.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise VoiceAgentError(f"--rejudge {path}: not a saved evaluation ({exc})") from None
    if all("requests" in d for d in saved):
        from voiceagent.bench.slurp_run import rejudge as again
    elif all("sessions" in d for d in saved):
        from voiceagent.bench.sessions_run import rejudge as again
    else:
        raise VoiceAgentError("--rejudge: give saved --requests runs or saved --sessions runs "
                              "(only those keep what each turn did), not both")
    return again(saved)
