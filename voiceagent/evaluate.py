"""Tool-call hit rate: how often a model calls the right tool, with the right arguments.

Each request in a table (tests/data/tool_requests.toml) is sent on its own, the way the
assistant sends it (system prompt, worked example, the real built-in tools, the OpenAI wire
client with its recovery). A hit is the expected tool with matching key arguments that the real
tool accepts (no error) and, where given, a result containing the expected text; for plain
chat, a spoken answer with no tool call. The
tool's result is then sent back and the follow-up must be a spoken answer, not another call.

    python -m voiceagent.evaluate --model qwen2.5-coder-0.5b [--markdown]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voiceagent.agent.example import worked_example
from voiceagent.agent.messages import Message, ToolCall
from voiceagent.agent.tools import ToolRegistry
from voiceagent.config import Config
from voiceagent.errors import ChatError

CASES = Path(__file__).resolve().parent.parent / "tests" / "data" / "tool_requests.toml"


@dataclass(frozen=True)
class Case:
    """One spoken request and what must happen."""

    say: str
    tool: str | None = None
    """The expected tool; None = the model must answer without one."""
    args: dict[str, Any] = field(default_factory=dict)
    """Key arguments: a string must appear in the value, a list gives alternatives."""
    result: str = ""
    """Text the tool's real result must contain."""


@dataclass(frozen=True)
class Outcome:
    """What the model did with one case."""

    case: Case
    called: str
    """The first tool called, '' for none."""
    args: dict[str, Any]
    hit: bool
    answered: bool | None
    """After the tool result: a spoken answer without another call (None: no tool step)."""
    seconds: float
    """Time of the first request."""
    note: str = ""


def load_cases(path: Path = CASES) -> list[Case]:
    """The [[request]] tables of a case file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Case(r["say"], r.get("tool"), dict(r.get("args", {})), r.get("result", ""))
            for r in data["request"]]


def matches(expected: dict[str, Any], args: dict[str, Any]) -> bool:
    """Every expected key is present and its value contains the (any) expected text."""
    for key, want in expected.items():
        got = " ".join(str(args.get(key, "")).lower().split())
        options = want if isinstance(want, list) else [want]
        if not any(str(o).lower() in got for o in options):
            return False
    return True


def run_case(chat: Any, system: str, prefix: Sequence[Message], tools: ToolRegistry,
             case: Case) -> Outcome:
    """Send one case (and, after a tool call, its result) and judge the replies."""
    messages = [*prefix, Message("user", case.say)]
    started = time.monotonic()
    try:
        reply = chat.complete(system, messages, tools.specs())
    except ChatError as exc:
        return Outcome(case, "", {}, False, None, time.monotonic() - started, f"error: {exc}")
    seconds = time.monotonic() - started
    if not reply.calls:  # a JSON text reply is a failed call, not an answer
        spoken = not reply.text.lstrip().startswith(("{", "[", "```"))
        return Outcome(case, "", {}, case.tool is None and spoken, None, seconds,
                       reply.text[:80])
    call: ToolCall = reply.calls[0]
    problem = tools.validation_error(call)
    text, is_error = tools.run(call) if problem is None else (problem, True)
    hit = (call.name == case.tool and not is_error and matches(case.args, call.args)
           and case.result in text)
    messages += [Message("assistant", reply.text, calls=(call,)),
                 Message("tool", text, call_id=call.id, name=call.name)]
    try:
        follow = chat.complete(system, messages, tools.specs())
        answered = bool(follow.text.strip()) and not follow.calls
        note = follow.text[:80] if answered else f"then called {[c.name for c in follow.calls]}"
    except ChatError as exc:
        answered, note = False, f"follow-up error: {exc}"
    return Outcome(case, call.name, call.args, hit, answered, seconds, note)


def evaluate(chat: Any, config: Config, cases: Sequence[Case], *, example: bool = True,
             progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Every case against `chat` with the real built-in tools in a throwaway data dir."""
    from voiceagent.tools import ToolContext, build_tools

    with tempfile.TemporaryDirectory(prefix="voiceagent-eval-") as tmp:
        config = dataclasses.replace(config, paths=dataclasses.replace(config.paths,
                                                                       data_dir=tmp))
        box = build_tools(config, ToolContext(Path(tmp)))
        try:
            prefix = worked_example(box.registry) if example else ()
            outcomes = []
            for case in cases:
                outcomes.append(run_case(chat, config.agent.system_prompt, prefix, box.registry,
                                         case))
                if progress is not None:
                    progress(outcomes[-1])
            return outcomes
        finally:
            box.close()


def summary(outcomes: Sequence[Outcome]) -> dict[str, str]:
    """Hit rates as 'hits/total (percent)' for tool requests, plain chat, all, follow-ups."""
    def rate(items: Sequence[bool]) -> str:
        return f"{sum(items)}/{len(items)} ({100 * sum(items) / max(len(items), 1):.0f} %)"

    tool = [o.hit for o in outcomes if o.case.tool]
    chat = [o.hit for o in outcomes if not o.case.tool]
    follow = [bool(o.answered) for o in outcomes if o.answered is not None]
    return {"tool requests": rate(tool), "plain chat (no tool)": rate(chat),
            "all": rate([o.hit for o in outcomes]), "answer after the result": rate(follow)}


def _line(o: Outcome) -> str:
    mark = "ok  " if o.hit else "MISS"
    want = o.case.tool or "(none)"
    got = f"{o.called}({_short(o.args)})" if o.called else "(none)"
    after = {None: "", True: "answered", False: "NO ANSWER"}[o.answered]
    return f"{mark} {o.seconds:5.1f}s  {o.case.say!r}: want {want}, got {got} {after} {o.note!r}"


def _short(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())[:70]


def main(argv: list[str] | None = None) -> int:
    from voiceagent.agent.wire_openai import OpenAIChat
    from voiceagent.llm_server import LLMServer
    from voiceagent.models import gguf_path

    parser = argparse.ArgumentParser(prog="python -m voiceagent.evaluate",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b",
                        help="bundled model name or .gguf path (started on a free port)")
    parser.add_argument("--base-url", help="use this running server instead of starting one")
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--no-example", action="store_true", help="leave out the worked example")
    parser.add_argument("--markdown", action="store_true", help="print the summary as a table")
    args = parser.parse_args(argv)
    config = Config()
    cases = load_cases(args.cases)
    server = None
    if args.base_url:
        url = args.base_url
    else:
        server = LLMServer(gguf_path(args.model, config.models_dir))
        url = server.start()
    chat = OpenAIChat(url, args.model, timeout_s=300, temperature=config.llm.temperature,
                      max_tokens=config.llm.max_reply_tokens)
    try:
        outcomes = evaluate(chat, config, cases, example=not args.no_example,
                            progress=lambda o: print(_line(o), flush=True))
    finally:
        chat.close()
        if server is not None:
            server.stop()
    result = summary(outcomes)
    if args.markdown:
        print(f"\n| {args.model} | " + " | ".join(result.values()) + " |")
    else:
        for name, value in result.items():
            print(f"{name}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
