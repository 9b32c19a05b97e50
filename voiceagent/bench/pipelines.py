"""The bench's two pipelines: the same real `Assistant` turn twice, the sequential one given
a chat model that passes the reply on only once it is complete, and what records their
turns."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from voiceagent.agent.events import Events
from voiceagent.agent.messages import Message, Reply, ToolChoice, ToolSpec
from voiceagent.assistant import Assistant
from voiceagent.bench.machine import cpu_seconds
from voiceagent.bench.report import turn_figures, word_errors
from voiceagent.bench.spoken_questions import Question
from voiceagent.bench.timing import PacedPlayer, StageLog, TimedSynthesizer, TurnLog
from voiceagent.config import Config
from voiceagent.ports import ChatModel


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


def build_bench(config: Config, stack: ExitStack, server_pid: int | None) -> Bench:
    """Both assistants over one voice and one event stream, the sequential one's model held
    back to whole replies."""
    from voiceagent.build import build_assistant, build_synthesizer
    from voiceagent.front_end import BENCH

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
            dataclasses.replace(config, session=session), stack, front_end=BENCH,
            player=PacedPlayer(stages), events=events, synthesizer=synthesizer,
            allow_demo=False)
    sequential = assistants["sequential"].agent
    sequential.model = WholeReply(sequential.model)
    return Bench(assistants, turn_log, stages, server_pid)
