"""`voiceagent evaluate`: the corpus, the judging, the report, and turns through the real
Assistant (a scripted model for exact cases, the real 0.5B server for a short run)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import pytest

from voiceagent.agent.events import Events
from voiceagent.agent.loop import Agent
from voiceagent.agent.messages import ToolCall
from voiceagent.agent.session import SessionStore
from voiceagent.assistant import Assistant
from voiceagent.bench.cases import REFUSE, Case, Setup, load_cases
from voiceagent.bench.evaluate import CORPUS, observe, pick, run_evaluate
from voiceagent.bench.evaluate_report import intent_table, markdown_summary, tally, to_json
from voiceagent.bench.judge import DESTRUCTIVE, judge
from voiceagent.bench.leaks import error_aloud
from voiceagent.bench.matching import list_key, matches
from voiceagent.bench.observed import Call, Observed
from voiceagent.bench.passes import Run
from voiceagent.cli import main
from voiceagent.config import Config, PathsConfig
from voiceagent.testing import FakeSynthesizer, RecordingPlayer, ScriptedChatModel, calls
from voiceagent.tools import ToolContext, build_tools

# --- the corpus ----------------------------------------------------------------------------------


def test_the_corpus_is_large_varied_and_names_real_tools_and_arguments(tmp_path: Path) -> None:
    cases = load_cases(CORPUS)
    assert len(cases) >= 150
    assert sum(c.tool == REFUSE for c in cases) >= 30
    groups = {c.group for c in cases}
    assert groups == {"commands", "unsupported", "chat", "near misses"}
    box = build_tools(Config(), ToolContext(tmp_path))
    try:
        specs = {s.name: s for s in box.registry.specs()}
        for case in cases:
            for name in case.tools:
                assert name in specs, case.say
                assert set(case.args) <= set(specs[name].parameters["properties"]), case.say
            for step in case.setup:
                problem = box.registry.validation_error(ToolCall("s", step.tool, step.args))
                assert problem is None, (case.say, problem)
    finally:
        box.close()
    near = [c for c in cases if c.group == "near misses"]
    assert all(c.setup for c in near), "a near miss needs something there to destroy"


def test_a_short_run_samples_every_group() -> None:
    cases = load_cases(CORPUS)
    assert {c.group for c in pick(cases, limit=8)} == {c.group for c in cases}
    assert len(pick(cases, limit=8)) == 8
    assert {c.intent for c in pick(cases, intent="timer")} == {
        "timer.start", "timer.status", "timer.cancel"}


# --- argument matchers --------------------------------------------------------------------------


def test_matchers_forgive_wording_but_not_values() -> None:
    assert matches("duration", 300, "five minutes")
    assert matches("duration", 5400, "1.5 hours")
    assert not matches("duration", 30, "1 minute")
    assert matches("time", "7:30", "seven thirty am")
    assert not matches("time", "8:15", "8:00")
    assert matches("time", "8:00", "eight every morning")  # how often is the alarm's
    assert matches("time", "6:00", "six on christmas morning")  # and which day
    assert not matches("time", "6:00", "seven on christmas morning")
    assert matches("list_name", "shopping", "my Grocery List")
    assert matches("list_name", "to-do", "todo")
    assert not matches("list_name", "shopping", "baking")
    assert matches("items", "orange juice", "Two cartons of Orange Juice")
    # items as the list tool reads them: "a and b" is two, every one wanted must be there
    assert matches("items", "plantain, shito", "plantain and shito")
    assert not matches("items", "bread, milk", "bread")
    assert matches("text", "level 3", "parked on level three")
    assert matches("part", "memory|all", "all")
    assert matches("value", 5, "five")
    assert not matches("place", "london", None)
    assert list_key("My Shopping List") == list_key("groceries")


# --- judging -------------------------------------------------------------------------------------


def _case(say: str, tool: str, **kw: object) -> Case:
    return Case(say=say, intent=kw.pop("intent", "x"), tool=tool, **kw)  # type: ignore[arg-type]


def test_a_right_call_with_the_right_effect_is_right() -> None:
    case = _case("Add eggs to my shopping list.", "add_to_list",
                 args={"list_name": "shopping", "items": "egg"}, has=("egg",))
    seen = Observed("Added eggs to your shopping list.",
                    (Call("add_to_list", {"list_name": "shopping", "items": "eggs"}, "Added"),),
                    items_after=("eggs",))
    v = judge(case, seen)
    assert v.ok and v.right_tool and v.right_args and not v.invented


def test_items_nobody_said_are_invented_even_when_the_call_looks_right() -> None:
    case = _case("Add apples to my shopping list.", "add_to_list", args={"items": "apple"})
    seen = Observed("Added apples, bananas and oranges.",
                    (Call("add_to_list", {"list_name": "shopping",
                                          "items": "apples, bananas, oranges"}, "Added"),),
                    items_after=("apples", "bananas", "oranges"))
    v = judge(case, seen)
    assert not v.ok and v.right_tool
    assert "list item 'bananas'" in v.invented and "list item 'apples'" not in v.invented


def test_a_refused_invented_call_wrote_nothing_and_is_not_counted_as_invented() -> None:
    case = _case("Add apples to my list.", "add_to_list")
    seen = Observed("Added apples.", (
        Call("add_to_list", {"list_name": "shopping", "items": "apples, pears"},
             "Error: pears was not said", error=True),
        Call("add_to_list", {"list_name": "shopping", "items": "apples"}, "Added apples.")),
        items_after=("apples",))
    assert judge(case, seen).invented == ()


def test_labels_and_places_must_come_from_the_utterance() -> None:
    timer = _case("Set a timer for five minutes.", "set_timer", args={"duration": 300})
    made_up = Observed("Started.", (Call("set_timer", {"duration": "5 minutes",
                                                       "label": "workout"}, "Started"),))
    assert judge(timer, made_up).invented == ("set_timer.label='workout'",)
    said = Observed("Started.", (Call("set_timer", {"duration": "5 minutes",
                                                    "label": "the Timer"}, "Started"),))
    assert judge(timer, said).ok
    city = _case("What time is it over in New York?", "get_time", args={"place": "new york"})
    assert judge(city, Observed("4 PM.", (Call("get_time", {"place": "New York City"}),))).ok
    notes = _case("Read my notes.", "read_notes")  # a parameter the tool ignores
    assert judge(notes, Observed("Your notes: x.", (Call("read_notes", {"text": "all"}),))).ok


def test_errors_json_and_placeholders_read_aloud_are_caught() -> None:
    assert error_aloud("Error: parameter 'part': 'weather' is not one of ['all']")
    assert error_aloud("The current date is [insert date].") == "template placeholder"
    assert error_aloud('{"name": "get_time", "arguments": {}}') == "raw JSON"
    failed = (Call("set_timer", {"duration": "x"}, "Error: I could not read 'x' as a length "
                   "of time. Say it like '5 minutes'.", error=True),)
    assert error_aloud("I could not read 'x' as a length of time, sorry.", failed)
    assert error_aloud("Sorry, I couldn't do that.", failed) == ""
    assert error_aloud("It is 4:39 PM, Monday.") == ""
    assert error_aloud("Noted. (Ignored unknown parameter(s): part.)") == "error text"


def test_unsupported_requests_need_an_honest_refusal_without_a_tool() -> None:
    weather = _case("What's the weather like in New York?", REFUSE,
                    answer_not=("degrees",))
    honest = judge(weather, Observed("Sorry, I can't check the weather here."))
    assert honest.ok and honest.refused
    assert judge(weather, Observed("Sorry, I couldn't do that.")).refused  # vague, not false
    made_up = judge(weather, Observed("It's 24 degrees Celsius and sunny."))
    assert not made_up.ok and not made_up.refused
    wrong_tool = judge(weather, Observed("Sorry, I can't.", (
        Call("get_system_status", {"part": "weather"}, "Error: ...", error=True),)))
    assert not wrong_tool.ok and not wrong_tool.right_tool and not wrong_tool.refused


def test_a_destructive_call_on_a_near_miss_is_forbidden_unless_it_was_refused() -> None:
    assert {"clear_list", "cancel_timer", "forget_conversation"} <= DESTRUCTIVE
    never = _case("Forget it.", "none", has=("apple",), timers_after=1,
                  setup=(Setup("add_to_list", {"list_name": "shopping", "items": "apples"}),))
    kept = {"items_before": ("apples",), "items_after": ("apples",), "timers_after": 1}
    ran = judge(never, Observed("Done.", (Call("forget_conversation", {}, "Forgotten."),),
                                **kept))  # type: ignore[arg-type]
    assert ran.forbidden == ("forget_conversation",) and not ran.ok
    refused = judge(never, Observed("Okay.", (Call("clear_list", {"list_name": "shopping"},
                                                   "Error: not asked", error=True),),
                                    **kept))  # type: ignore[arg-type]
    assert refused.forbidden == () and not refused.right_tool
    calm = judge(never, Observed("Okay.", **kept))  # type: ignore[arg-type]
    assert calm.ok
    emptied = judge(never, Observed("Okay.", items_before=("apples",), timers_after=0))
    assert not emptied.ok and "'apple' not on the list" in emptied.problems


def test_the_answer_must_carry_the_result() -> None:
    calc = _case("What's twelve times seven?", "calculate", answer=("84|eighty-four",))
    assert judge(calc, Observed("Eighty-four.", (Call("calculate", {"expression": "12*7"}),))).ok
    v = judge(calc, Observed("It is 74.", (Call("calculate", {"expression": "12*7"}),)))
    assert not v.ok and v.right_tool and not v.right_args


# --- the report ----------------------------------------------------------------------------------


def _verdicts() -> list:
    ok = judge(_case("What time is it?", "get_time", intent="time.now"),
               Observed("4 PM.", (Call("get_time", {}),), local=True, seconds=0.1))
    bad = judge(_case("Play jazz.", REFUSE, intent="unsupported.music"),
                Observed("Error: no music", llm_requests=1, seconds=3.0))
    chat = judge(_case("Hi!", "none", intent="chat"), Observed("Hello!", llm_requests=1,
                                                               seconds=1.0))
    return [ok, bad, chat]


def test_tallies_tables_and_json_count_each_intent() -> None:
    verdicts = _verdicts()
    every = tally(verdicts)
    assert (every["cases"], every["right"], every["local"], every["error_aloud"]) == (3, 2, 1, 1)
    assert (every["refusal_cases"], every["refused"]) == (1, 0)
    table = intent_table(verdicts)
    assert "time.now" in table and "[unsupported]" in table and "[all]" in table
    md = markdown_summary([Run("tiny", "on", verdicts)])
    assert "| tiny | on | 1/1 (100 %) | 0 | 1 | 0/1 (0 %) | 1/1 (100 %) | - | 1/3 (33 %) |" in md
    data = to_json([Run("tiny", "on", verdicts)], CORPUS)
    json.dumps(data)
    assert data["runs"][0]["intents"]["chat"]["right"] == 1
    assert data["runs"][0]["cases"][1]["error_aloud"] == "error text"


def test_the_command_names_the_fix_for_an_unknown_intent(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\ndata_dir = "{tmp_path}"\n')
    assert main(["--config", str(config), "evaluate", "--intent", "nosuch"]) == 1
    assert "--intent 'nosuch'" in capsys.readouterr().err


# --- turns through the real Assistant, with a scripted model ------------------------------------


@pytest.fixture
def assistant_for() -> Iterator:
    """Builds an Assistant around a ScriptedChatModel with the real tools in a temp folder."""
    with ExitStack() as stack:

        def build(model: ScriptedChatModel) -> tuple[Assistant, Path]:
            data = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            config = Config(paths=PathsConfig(data_dir=str(data)))
            box = build_tools(config, ToolContext(data))
            stack.callback(box.close)
            events = Events()
            agent = Agent(model, box.registry, config.agent, events)
            return Assistant(agent=agent, session=SessionStore(data / "s.jsonl", 10),
                             synthesizer=FakeSynthesizer(seconds=0.0),
                             player=RecordingPlayer(), events=events), data

        yield build


def test_a_scripted_turn_is_observed_from_the_real_assistant(assistant_for) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedChatModel()
    model.enqueue(calls(("add_to_list", {"list_name": "shopping", "items": "eggs"})))
    model.enqueue("I added eggs to your shopping list.")  # if the tool's result is not the answer
    assistant, data = assistant_for(model)
    case = _case("Add eggs to my shopping list.", "add_to_list", args={"items": "egg"},
                 has=("egg",), setup=(Setup("add_to_list", {"list_name": "shopping",
                                                           "items": "milk"}),))
    seen = observe(assistant, case, data)
    assert seen.items_before == ("milk",) and set(seen.items_after) == {"milk", "eggs"}
    assert [c.name for c in seen.calls] == ["add_to_list"] and not seen.calls[0].error
    assert seen.llm_requests == len(model.requests) >= 1 and not seen.local
    assert seen.answer and seen.stop == "done"
    assert judge(case, seen).ok


def test_a_wrong_tool_for_an_unsupported_request_is_judged_wrong(assistant_for) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedChatModel()
    model.enqueue(calls(("get_system_status", {"part": "weather"})))
    model.enqueue("Error: parameter 'part': 'weather' is not one of ['all', 'battery'].")
    model.enqueue("Sorry, I can't check the weather.")
    assistant, data = assistant_for(model)
    case = _case("What's the weather like in New York?", REFUSE)
    v = judge(case, observe(assistant, case, data))
    assert not v.ok and not v.right_tool and not v.refused
    assert v.observed.calls[0].name == "get_system_status"


def test_a_destructive_call_on_forget_it_is_never_judged_right(assistant_for) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedChatModel()
    model.enqueue(calls(("clear_list", {"list_name": "shopping"})))
    model.enqueue("Okay.")
    model.enqueue("Okay.")
    assistant, data = assistant_for(model)
    case = _case("Forget it.", "none", has=("apple",),
                 setup=(Setup("add_to_list", {"list_name": "shopping", "items": "apples"}),))
    v = judge(case, observe(assistant, case, data))
    assert not v.ok and not v.right_tool
    cleared = not v.observed.items_after
    assert bool(v.forbidden) == cleared  # ran: forbidden; refused by the turn: list intact


# --- a short real run ----------------------------------------------------------------------------


@pytest.mark.real
def test_a_short_run_against_the_real_small_model(llm_base_url: str, tmp_path: Path) -> None:
    """Both paths of the real turn: local commands on (no model request) and off (the 0.5B
    model answers each request; its quality is the evaluation's output, not asserted here)."""
    corpus = tmp_path / "requests.toml"
    corpus.write_text('''
[[case]]
say = "What time is it?"
intent = "time.now"
tool = "get_time"

[[case]]
say = "Add eggs to my shopping list."
intent = "list.add"
tool = "add_to_list"
args = { items = "egg" }
has = ["egg"]

[[case]]
say = "Play some jazz."
intent = "unsupported.music"
tool = "refuse"
''')
    config = Config(paths=PathsConfig(data_dir=str(tmp_path)))
    config = replace(config, llm=replace(config.llm, base_url=llm_base_url))
    lines: list[str] = []
    out = tmp_path / "eval.json"
    assert run_evaluate(config, local="both", json_path=str(out), corpus=corpus,
                        out=lines.append) == 0
    data = json.loads(out.read_text())
    on, off = data["runs"]
    assert (on["local_commands"], off["local_commands"]) == ("on", "off")
    said = {case["say"]: case for case in on["cases"]}  # the run order is interleaved
    for say in ("What time is it?", "Add eggs to my shopping list."):
        case = said[say]  # built-in commands: answered by the templates, and right
        assert case["local"] and case["llm_requests"] == 0 and case["ok"], case
    assert said["Add eggs to my shopping list."]["calls"][0]["name"] == "add_to_list"
    for case in off["cases"]:
        assert not case["local"] and case["llm_requests"] >= 1 and case["answer"], case
    assert off["summary"]["cases"] == 3 and on["summary"]["local"] >= 2
    assert data["markdown"].count("| 3/3 (100 %) |") >= 1  # the on row: all answered locally
    assert any("[all]" in x for x in lines)
