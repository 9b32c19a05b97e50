"""What a person sees: the terminal view and the log view, fed typed events directly."""

from __future__ import annotations

import io
import logging

import pytest

from voiceagent.agent.events import (
    AudioStart,
    Cap,
    Error,
    Final,
    LocalCommand,
    Misheard,
    Request,
    SttDone,
    ToolCallStart,
    ToolResult,
    TurnEnd,
)
from voiceagent.view import LogView, TerminalView

TURN = [
    SttDone("what time is it", 1.2),
    Request(1, 1, 3),
    ToolCallStart("c1", "get_time", {"zone": "Europe/Zürich"}),
    ToolResult("c1", "get_time", "It is 12:30.", False, 0.01),
    AudioStart("It is half past twelve."),
    AudioStart("Anything else?"),
    Final("It is half past twelve. Anything else?", "done"),
    TurnEnd("done"),
]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_turn_on_a_plain_stream_reads_as_a_transcript() -> None:
    out = io.StringIO()
    view = TerminalView(out, key_hint="enter")
    view.state("idle")
    for event in TURN:
        view(event)
    view.answered({"first_audio": 1.234})
    view.answered({})  # no audio (a text-only turn): no figure
    assert out.getvalue().splitlines() == [
        "[idle - press enter to talk, q to quit]",
        "you: what time is it",
        '  -> get_time({"zone": "Europe/Zürich"})',
        "  <- It is 12:30.",
        "[speaking - press enter to interrupt]",  # once per turn, not per sentence
        "assistant: It is half past twelve. Anything else?",
        "  answered in 1.23 s",
    ]


def test_the_next_turn_shows_speaking_again_and_faults_are_marked() -> None:
    out = io.StringIO()
    view = TerminalView(out)
    for event in [*TURN, SttDone("", 0.4), Misheard("wot", "avg_logprob"),
                  LocalCommand("timer_start", "set_timer"), AudioStart("Done."),
                  Error("model", "HTTP 500: boom"), Cap("steps", 6)]:
        view(event)
    assert out.getvalue().splitlines()[-6:] == [
        "you: (nothing heard)",
        "  ? not sure I heard that right: 'wot'",
        "  (local: timer_start)",
        "[speaking - press space to interrupt]",
        "  ! HTTP 500: boom",
        "  ! stopped: steps cap (6)",
    ]


def test_a_long_tool_result_is_cut_for_the_screen() -> None:
    out = io.StringIO()
    TerminalView(out)(ToolResult("c1", "read_file", "x" * 500, False, 0.0))
    assert out.getvalue() == "  <- " + "x" * 120 + "\n"


def test_the_level_meter_draws_on_a_terminal_only() -> None:
    plain, tty = io.StringIO(), Terminal()
    TerminalView(plain).level(0.05)
    TerminalView(tty).level(0.05)
    TerminalView(tty).level(1.0)
    assert plain.getvalue() == ""
    assert tty.getvalue() == "\r  mic " + "#" * 15 + " " * 15 + "\r  mic " + "#" * 30


def test_on_a_terminal_each_line_clears_the_meter_first() -> None:
    tty = Terminal()
    TerminalView(tty).state("thinking")
    assert tty.getvalue() == "\r\033[K[thinking]\n"


@pytest.mark.parametrize("verbose", [False, True])
def test_log_view_writes_one_line_per_milestone(caplog: pytest.LogCaptureFixture,
                                                 verbose: bool) -> None:
    caplog.set_level(logging.DEBUG, logger="voiceagent")
    view = LogView(verbose)
    for event in [*TURN, Error("tool", "disk full"), Cap("seconds", 60)]:
        view(event)
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    milestones = [
        ("INFO", "heard: what time is it"),
        ("INFO", 'tool get_time {"zone": "Europe/Z\\u00fcrich"}'),
        ("INFO", "answered: It is half past twelve. Anything else?"),
        ("INFO", "turn over (done)"),
        ("WARNING", "error in tool: disk full"),
        ("WARNING", "cap: seconds (60)"),
    ]
    assert [line for line in lines if line[0] != "DEBUG"] == milestones
    debug = [message for level, message in lines if level == "DEBUG"]
    if verbose:  # everything else as its JSON trace line
        assert [m.split('"type": "')[1].split('"')[0] for m in debug] == [
            "request", "tool_result", "audio_start", "audio_start"]
    else:
        assert debug == []
