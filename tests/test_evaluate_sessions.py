"""Multi-turn sessions and general questions after tool turns: the bundled files, the judging
on plain `Observed` values, runs through the real Assistant with a scripted model server, and
one short session through the real 0.5B."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from voiceagent.agent.messages import ToolCall
from voiceagent.bench.cases import ANY, NONE, Case
from voiceagent.bench.general import GENERAL, load_general, run_general
from voiceagent.bench.observed import Call, Observed, Pending
from voiceagent.bench.sessions import End, Session, end_problems, judge_session, load_sessions
from voiceagent.bench.sessions_run import SESSIONS, pick, rejudge, run_sessions
from voiceagent.cli import main
from voiceagent.config import Config, PathsConfig
from voiceagent.errors import VoiceAgentError
from voiceagent.testing import FakeLLMServer, openai_stream
from voiceagent.tools import ToolContext, build_tools

# --- the bundled sessions and questions -------------------------------------------------------


def test_the_bundled_sessions_are_many_styles_and_name_real_tools(tmp_path: Path) -> None:
    sessions = load_sessions(SESSIONS)
    assert len(sessions) >= 30 and sum(len(s.turns) for s in sessions) >= 80
    styles = {s.style for s in sessions}
    assert {"correction", "undo", "arithmetic", "pronoun", "general after tools",
            "refusal mid-session"} <= styles and len(styles) >= 10
    box = build_tools(Config(), ToolContext(tmp_path))
    try:
        specs = {s.name: s for s in box.registry.specs()}
        for session in sessions:
            assert len({s.name for s in sessions}) == len(sessions)
            for case in session.turns:
                for name in case.tools:
                    assert name in specs, (session.name, case.say)
                    assert set(case.args) <= set(specs[name].parameters["properties"])
            for step in session.setup:
                assert box.registry.validation_error(
                    ToolCall("s", step.tool, step.args)) is None, session.name
    finally:
        box.close()
    assert [s.style for s in pick(sessions, limit=len(styles))] == sorted(
        styles, key=[s.style for s in sessions].index)


def test_the_general_questions_and_priming_turns_are_bundled() -> None:
    questions, priming = load_general(GENERAL)
    assert len(questions) >= 15 and all(q.tool == NONE and q.answer for q in questions)
    assert len(priming) >= 20 and 5 <= sum(p.model for p in priming[:20]) <= 15


def test_a_malformed_session_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[[session]]\nname = "x"\nstlye = "typo"\n[[session.turn]]\nsay = "hi"\n')
    with pytest.raises(VoiceAgentError, match=r"session 1 \('x'\).*stlye"):
        load_sessions(path)


# --- judging a session ------------------------------------------------------------------------


def _add(items: str, result: str = "Added.") -> Call:
    return Call("add_to_list", {"list_name": "shopping", "items": items}, result, writes=True)


def _session(*turns: Case, **end: object) -> Session:
    return Session("s", "correction", turns, end=End(**end))  # type: ignore[arg-type]


def test_a_correction_is_judged_on_each_turn_and_the_end_state() -> None:
    session = _session(Case("Add butter to the list.", "correction", "add_to_list"),
                       Case("Sorry, I meant margarine, not butter.", "correction",
                            "add_to_list|remove_from_list"),
                       has=("margarine",), lacks=("butter",))
    first = Observed("Added butter.", (_add("butter"),), items_after=("butter",))
    fixed = Observed("Done.", (Call("remove_from_list", {"list_name": "shopping",
                                                         "items": "butter"}, "Removed."),
                               _add("margarine")), items_before=("butter",),
                     items_after=("margarine",))
    assert judge_session(session, [first, fixed]).ok
    kept = Observed("Added margarine.", (_add("margarine"),), items_before=("butter",),
                    items_after=("butter", "margarine"))
    v = judge_session(session, [first, kept])
    assert all(t.ok for t in v.turns) and v.end_problems == ("'butter' still on a list at "
                                                            "the end",)
    claimed = Observed("Sure, I'll swap butter for margarine.", items_before=("butter",),
                       items_after=("butter",))
    v = judge_session(session, [first, claimed])
    assert not v.turns[1].ok and v.turns[1].unbacked and not v.ok
    assert judge_session(session, [first]).end_problems == ("only 1 of 2 turns ran",)


def test_words_and_results_of_earlier_turns_count_in_a_session() -> None:
    session = _session(Case("We're out of coffee.", "pronoun", ANY),
                       Case("Put it on the list.", "pronoun", "add_to_list"), has=("coffee",))
    out = Observed("Should I add coffee to your shopping list?")
    put = Observed("Added coffee.", (_add("coffee"),), items_after=("coffee",))
    assert judge_session(session, [out, put]).ok  # "coffee" was said, one turn earlier
    read = Case("What's on it?", "x", "read_list")
    listed = Observed("Your shopping list has coffee.", (
        Call("read_list", {"list_name": "shopping"}, "Your shopping list has coffee."),))
    again = Observed("Your shopping list still has coffee.")
    v = judge_session(_session(read, Case("And now?", "x", ANY)), [listed, again])
    assert v.turns[1].unbacked == ()  # backed by the list read in the turn before
    # a value an earlier result gave, written down when pointed at, is no invention
    summed = Observed("510 divided by 3 is 170.", (
        Call("calculate", {"expression": "510 / 3"}, "510 divided by 3 is 170."),))
    noted = Observed("Noted.", (Call("add_note", {"text": "170 is everyone's share"}, "Noted.",
                                     writes=True),), notes_added=("170 is everyone's share",))
    v = judge_session(_session(Case("what's 510 divided by 3", "x", "calculate"),
                               Case("save that number as a note it's everyone's share", "x",
                                    "add_note")), [summed, noted])
    assert v.ok, v


def test_the_end_state_checks_timer_lengths_alarm_times_days_and_notes() -> None:
    now = time.time()
    at = time.localtime(now + 86400)
    tomorrow_7 = time.mktime((at.tm_year, at.tm_mon, at.tm_mday, 7, 0, 0, 0, 0, -1))
    day = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
           "sunday"][at.tm_wday]
    seen = Observed("", pending=(Pending("timer", "", now + 700, 720),
                                 Pending("alarm", "", tomorrow_7)), timers_after=2)
    assert end_problems(End(timers=(720,), alarms=("7:00", f"{day} 7:00"), timers_after=2),
                        seen, ["parked on level 4"]) == ()
    wrong = end_problems(End(timers=(600,), alarms=("7:30",), notes=("level 5",)), seen, [])
    assert len(wrong) == 3 and "timers of [720] s" in wrong[0] and "7:30" in wrong[1]


# --- runs through the real Assistant, the model scripted --------------------------------------


def _config(tmp_path: Path, url: str) -> Config:
    config = Config(paths=PathsConfig(data_dir=str(tmp_path / "data")))
    return replace(config, llm=replace(config.llm, base_url=url))


SESSION = '''
[[session]]
name = "margarine, not butter"
style = "correction"
has = ["margarine"]
lacks = ["butter"]
[[session.turn]]
say = "Add butter to the shopping list."
tool = "add_to_list"
[[session.turn]]
say = "Sorry, I meant margarine, not butter."
tool = "add_to_list|remove_from_list"
'''


def test_a_session_runs_in_one_conversation_and_is_judged_again_from_its_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sessions.toml"
    path.write_text(SESSION)
    with FakeLLMServer() as llm:
        llm.script(
            openai_stream(calls=[("c1", "add_to_list", json.dumps(
                {"list_name": "shopping", "items": "butter"}))]),
            openai_stream(calls=[("c2", "add_to_list", json.dumps(
                {"list_name": "shopping", "items": "margarine"}))]))
        lines: list[str] = []
        assert run_sessions(_config(tmp_path, llm.url), path, local="off",
                            json_path=str(tmp_path / "s.json"), out=lines.append) == 0
        second = llm.requests[-1].body["messages"]
    assert any("butter" in str(m.get("content")) for m in second[:-1])  # the conversation kept
    saved = json.loads((tmp_path / "s.json").read_text())
    (session,) = saved["runs"][0]["sessions"]
    assert [t["ok"] for t in session["turns"]] == [True, True]
    assert session["end_problems"] == ["'butter' still on a list at the end"]
    assert "| 0/1 (0 %) | 2/2 (100 %) | 0/1 (0 %) |" in saved["markdown"]
    assert rejudge([saved]) == 0
    assert "'butter' still on a list at the end" in capsys.readouterr().out


def test_a_session_of_a_day_is_asked_on_that_day(tmp_path: Path) -> None:
    """Answers that name a day ("what day was yesterday": Saturday) hold on the day the
    session was written for, whenever it runs (a bundle run that crossed midnight failed)."""
    path = tmp_path / "sessions.toml"
    path.write_text('[[session]]\nname = "yesterday"\ntoday = "2026-12-06"\n'
                    '[[session.turn]]\nsay = "what day was yesterday"\ntool = "get_time"\n'
                    'answer = ["saturday"]\n[[session.turn]]\nsay = "what\'s the date today"\n'
                    'tool = "get_time"\nanswer = ["december 6, 2026"]\n')
    with FakeLLMServer() as llm:
        assert run_sessions(_config(tmp_path, llm.url), path, local="on",
                            json_path=str(tmp_path / "s.json"), out=lambda _line: None) == 0
    (session,) = json.loads((tmp_path / "s.json").read_text())["runs"][0]["sessions"]
    assert [t["ok"] for t in session["turns"]] == [True, True]


def test_general_questions_are_asked_fresh_and_after_the_same_tool_turns(tmp_path: Path) -> None:
    path = tmp_path / "general.toml"
    path.write_text('priming = [{ say = "Add eggs to my shopping list." },\n'
                    '  { say = "Set a timer for five minutes.", model = true }]\n'
                    '[[question]]\nsay = "Who wrote Hamlet?"\nanswer = ["shakespeare"]\n')
    with FakeLLMServer() as llm:
        llm.script(openai_stream(calls=[("c0", "set_timer", '{"duration": "5 minutes"}')]),
                   openai_stream("Shakespeare wrote it."),  # fresh
                   openai_stream(calls=[("c1", "calculate", '{"expression": "hamlet"}')]),
                   openai_stream("Sorry, I couldn't do that."))  # after the tool turns
        lines: list[str] = []
        assert run_general(_config(tmp_path, llm.url), turns=2, local="on", path=path,
                           json_path=str(tmp_path / "g.json"), out=lines.append) == 0
    saved = json.loads((tmp_path / "g.json").read_text())
    run = saved["runs"][0]
    assert run["priming_local"] == 1 and run["priming_tool_turns"] == 2
    assert [r["ok"] for r in run["fresh"]] == [True] and [r["ok"] for r in run["after"]] == [False]
    assert "| 1/1 (100 %) | 0/1 (0 %) (N = 2) | 1/2 |" in saved["markdown"]
    after = llm.requests[-2].body["messages"]  # the question after the priming turns
    assert any("eggs" in str(m.get("content")) for m in after)
    with pytest.raises(VoiceAgentError, match="--general-after 3"):
        run_general(_config(tmp_path, "http://127.0.0.1:9/v1"), turns=3, path=path)


def test_the_command_line_names_bad_parts_and_files(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\ndata_dir = "{tmp_path}"\n')
    assert main(["--config", str(config), "evaluate", "--sessions", "--part", "3/2"]) == 1
    assert "--part '3/2'" in capsys.readouterr().err
    assert main(["--config", str(config), "evaluate", "--requests", str(tmp_path / "no")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["--config", str(config), "evaluate", "--rejudge", str(config)]) == 1
    assert "not a saved evaluation" in capsys.readouterr().err


# --- a short real session ---------------------------------------------------------------------


@pytest.mark.real
def test_a_two_turn_session_against_the_real_small_model(llm_base_url: str,
                                                         tmp_path: Path) -> None:
    """Both paths of the real turn in one session: local commands on (templates, no model
    request; these two are known commands, so right) and off (the 0.5B answers each turn;
    its quality is the evaluation's output, not asserted here)."""
    path = tmp_path / "sessions.toml"
    path.write_text('''
[[session]]
name = "eggs, then read"
style = "state over turns"
has = ["eggs"]
[[session.turn]]
say = "Add eggs to my shopping list."
tool = "add_to_list"
[[session.turn]]
say = "What's on my shopping list?"
tool = "read_list"
answer = ["egg"]
''')
    out = tmp_path / "s.json"
    lines: list[str] = []
    assert run_sessions(_config(tmp_path, llm_base_url), path, local="both", json_path=str(out),
                        out=lines.append) == 0
    on, off = json.loads(out.read_text())["runs"]
    (session,) = on["sessions"]
    assert session["ok"], session
    assert all(t["observed"]["local"] and t["observed"]["llm_requests"] == 0
               for t in session["turns"])
    (session,) = off["sessions"]
    assert len(session["turns"]) == 2
    for turn in session["turns"]:
        assert not turn["observed"]["local"] and turn["observed"]["llm_requests"] >= 1
        assert turn["observed"]["answer"]
    assert off["summary"]["turns"] == 2 and any("[all]" in x for x in lines)
