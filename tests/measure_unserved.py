"""Which real requests are refused at once, without the model (Topics.cannot), by what a
request should get (bench/slurp.toml): the refusals it makes right, and the requests to be
answered in words that it refuses too.

    .venv/bin/python -m tests.measure_unserved [../shared/requests/slurp_devel.jsonl]

Text only, no model: it reads every request of the file in a second or two.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from voiceagent.bench.slurp import expectation_for, load_expectations
from voiceagent.language.topics import topics_of

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "requests" / (
        "slurp_devel.jsonl")
    per_intent, _words, per_scenario = load_expectations()
    topics = topics_of()
    counts: collections.Counter[tuple[str, bool]] = collections.Counter()
    wrong: list[tuple[str, str, str]] = []
    for line in path.read_text().splitlines():
        request = json.loads(line)
        expect = expectation_for(request["intent"], per_intent, per_scenario).expect
        refused = topics.cannot(request["sentence"])
        counts[(expect, refused is not None)] += 1
        if refused is not None and expect != "refuse":
            wrong.append((expect, request["intent"], request["sentence"]))
    for expect in sorted({e for e, _ in counts}):
        total = counts[(expect, True)] + counts[(expect, False)]
        print(f"{expect:8} {counts[(expect, True)]:5} of {total:5} refused without the model")
    print("\nrefused, but to be answered or acted on:")
    for expect, intent, sentence in wrong:
        print(f"  {expect:7} {intent:22} {sentence}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
