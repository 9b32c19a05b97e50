"""Judging real people's requests (SLURP format): the claim check, the intent table, the
sample, each judgement on plain `Observed` values, and a run through the real Assistant with
a scripted model server."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from voiceagent.bench.claims import unbacked
from voiceagent.bench.observed import Call, Observed, Pending
from voiceagent.bench.phrases import load_phrases, refuses
from voiceagent.bench.slurp import (
    INTENTS,
    Request,
    expectation_for,
    judge_request,
    load_expectations,
    load_requests,
    sample,
)
from voiceagent.bench.slurp_run import rejudge, run_requests
from voiceagent.config import Config, PathsConfig
from voiceagent.errors import VoiceAgentError
from voiceagent.testing import FakeLLMServer, openai_stream
from voiceagent.tools import ToolContext, build_tools

# --- claims nothing backs -----------------------------------------------------------------------


def test_claims_of_things_done_need_a_tool_that_did_them() -> None:
    assert unbacked("Sure, I'll add naan bread to the shopping list.", said="add naan bread",
                    calls=()) == ("added: Sure, I'll add naan bread to the shopping list.",)
    assert unbacked("Okay, I'll stop the alarms.", said="i dont want any alarms", calls=())
    assert unbacked("Got it.", said="pause timer", calls=())
    assert unbacked("I told Susan that I was going to the store.", said="what did i tell susan",
                    calls=())
    done = (Call("add_to_list", {"items": "naan bread"}, "Added naan bread.", writes=True),)
    assert unbacked("Sure, I'll add naan bread to the list.", said="x", calls=done) == ()
    failed = (Call("add_to_list", {"items": "naan"}, "Error: no", error=True, writes=True),)
    assert unbacked("I've added naan bread.", said="x", calls=failed)  # it did not run
    # what the user had done, earlier in the session: "what did i just add"
    added = (Call("add_to_list", {"items": "lentils"}, "Added lentils.", writes=True),)
    assert unbacked("You just added lentils to your shopping list.", said="what did i just add",
                    calls=(), earlier=added) == ()
    assert unbacked("You just added lentils to your shopping list.", said="what did i just add",
                    calls=())  # nothing was added


def test_live_state_needs_the_clock_or_words_someone_said() -> None:
    assert unbacked("The current month is October.", said="what month is today", calls=())
    clock = (Call("get_time", {}, "It is 4:39 PM, Monday, December 1."),)
    assert unbacked("It's 4:39 PM on Monday.", said="what time is it", calls=clock) == ()
    assert unbacked("Today is Tuesday.", said="is it tuesday today", calls=()) == ()  # said
    assert unbacked("Today is Tuesday.", said="is it monday today", calls=())
    assert unbacked("Christmas is on December 25.", said="when is christmas", calls=()) == ()
    assert unbacked("Shakespeare wrote Hamlet around 1600.", said="hamlet", calls=()) == ()


def test_refusals_offers_questions_and_tool_results_claim_nothing() -> None:
    for answer in ("Sorry, I can't check the weather here.", "I can set a timer if you like.",
                   "Would you like me to add it to your shopping list?",
                   "I haven't added anything yet.",
                   "Start by adding the flour, then the eggs are added and mixed.",
                   # the assistant's own closing sentence, about itself
                   "Sorry, I kept repeating the same step, so I stopped."):
        assert unbacked(answer, said="x", calls=()) == (), answer
    listed = (Call("read_list", {"list_name": "shopping"}, "Your shopping list has 2 items: "
                   "milk and eggs."),)
    assert unbacked("Your shopping list has milk and eggs.", said="what's on it", calls=())
    assert unbacked("Your shopping list has milk and eggs.", said="x", calls=(),
                    earlier=listed) == ()  # the conversation's result backs a list's content
    assert unbacked("Done.", said="tell me a joke", calls=(), asked_action=False) == ()


def test_the_phrases_are_data_and_a_bad_entry_names_its_key(tmp_path: Path) -> None:
    assert refuses("Sorry, I can’t do that here.") and not refuses("It is 4 PM.")
    bad = tmp_path / "phrases.toml"
    bad.write_text('refusal = "cannot"\n')
    with pytest.raises(ValueError, match="refusal must be a list"):
        load_phrases(bad)
    wild = tmp_path / "wild.toml"
    wild.write_text('[claims.x]\nterms = ["added ** to your"]\n')
    assert load_phrases(wild).claims[0].terms == (("added", "**", "to", "your"),)


# --- the intents and the sample ---------------------------------------------------------------

SCENARIOS = ("alarm audio calendar cooking datetime email general hue iot lists music news play "
             "qa recommendation social takeaway transport weather").split()


def test_every_scenario_has_an_expectation_and_act_tools_exist(tmp_path: Path) -> None:
    per_intent, words, per_scenario = load_expectations()
    for scenario in SCENARIOS:
        assert expectation_for(f"{scenario}_something", per_intent, per_scenario).expect
    assert expectation_for("qa_factoid", per_intent, per_scenario).expect == "answer"
    assert expectation_for("qa_stock", per_intent, per_scenario).expect == "refuse"
    assert expectation_for("lists_createoradd", per_intent, per_scenario).setup == ()
    assert "today" in words.implied and "am" in words.equivalent["morning"]
    with pytest.raises(VoiceAgentError, match="slurp.toml"):
        expectation_for("teleport_now", per_intent, per_scenario)
    box = build_tools(Config(), ToolContext(tmp_path))
    try:
        for exp in [*per_intent.values(), *per_scenario.values()]:
            assert set(exp.tools) <= set(box.registry.names), exp
            for step in exp.setup:
                from voiceagent.agent.messages import ToolCall
                assert box.registry.validation_error(ToolCall("s", step.tool, step.args)) is None
    finally:
        box.close()
    assert INTENTS.name == "slurp.toml"


def _rows(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_requests_are_read_with_their_entities_and_a_bad_line_is_named(tmp_path: Path) -> None:
    path = _rows(tmp_path, [{"id": 1, "sentence": "wake me at seven am thursday",
                             "intent": "alarm_set",
                             "annotation": "wake me at [time : seven am] [date : Thursday]"}])
    (req,) = load_requests(path)
    assert req.entities == (("time", "seven am"), ("date", "thursday"))
    assert req.scenario == "alarm"
    path.write_text('{"id": 1}\n')
    with pytest.raises(VoiceAgentError, match=r"requests.jsonl:1"):
        load_requests(path)


def test_the_sample_is_seeded_spread_over_scenarios_and_its_start_samples_each() -> None:
    reqs = [Request(i, f"s{i}", intent) for i, intent in enumerate(
        ["weather_query"] * 50 + ["alarm_set"] * 5 + ["alarm_query"] * 5 + ["qa_factoid"] * 20)]
    picked = sample(reqs, 21, seed=3)
    assert picked == sample(reqs, 21, seed=3) and picked != sample(reqs, 21, seed=4)
    scenarios = [r.scenario for r in picked]
    assert sorted(set(scenarios[:3])) == ["alarm", "qa", "weather"]
    assert {s: scenarios.count(s) for s in set(scenarios)} == {"alarm": 7, "qa": 7, "weather": 7}
    assert {r.intent for r in picked if r.scenario == "alarm"} == {"alarm_set", "alarm_query"}
    assert len(sample(reqs)) == len(reqs) and len(set(sample(reqs))) == len(reqs)


# --- judging one request ----------------------------------------------------------------------


def _judge(sentence: str, intent: str, seen: Observed, entities: tuple = ()) -> list[str]:
    per_intent, words, per_scenario = load_expectations()
    exp = expectation_for(intent, per_intent, per_scenario)
    j = judge_request(Request(1, sentence, intent, entities), exp, seen, words)
    return [tag for tag, _ in j.problems]


def _alarm(days: int, hour: int, now: float) -> Pending:
    at = time.localtime(now + days * 86400)
    due = time.mktime((at.tm_year, at.tm_mon, at.tm_mday, hour, 0, 0, 0, 0, -1))
    return Pending("alarm", "", due)


def test_every_entity_said_must_reach_the_call_and_the_alarm_made() -> None:
    now = time.time()
    said = (("date", "thursday"), ("time", "seven am"))
    thursday = (3 - time.localtime(now).tm_wday - 1) % 7 + 1
    call = (Call("set_alarm", {"time": "7 am thursday"}, "Alarm set.", writes=True),)
    right = Observed("Alarm set for 7:00 AM on Thursday.", call, at=now,
                     pending=(_alarm(thursday, 7, now),))
    assert _judge("set wake up thursday seven am", "alarm_set", right, said) == []
    dropped = Observed("Alarm set for 7:00 AM tomorrow.", (
        Call("set_alarm", {"time": "7 am"}, "Alarm set.", writes=True),), at=now,
        pending=(_alarm(1 if thursday != 1 else 2, 7, now),))
    assert _judge("set wake up thursday seven am", "alarm_set", dropped, said) == ["dropped"]
    wrong_time = Observed("Alarm set.", call, at=now, pending=(_alarm(thursday, 8, now),))
    assert _judge("x", "alarm_set", replace(wrong_time, calls=(
        Call("set_alarm", {"time": "8 am thursday"}, "Alarm set.", writes=True),)),
        said) == ["dropped"]
    listed = Observed("Your shopping list has milk.", (
        Call("read_list", {"list_name": "my Groceries"}, "Your shopping list has milk."),))
    assert _judge("what's on my grocery list", "lists_query", listed,
                  (("list_name", "grocery"),)) == []
    other = replace(listed, calls=(Call("read_list", {"list_name": "to-do"}, "Empty."),))
    assert _judge("what's on my grocery list", "lists_query", other,
                  (("list_name", "grocery"),)) == ["dropped"]
    clock = Observed("It is 4 PM.", (Call("get_time", {}, "It is 4 PM."),))
    assert _judge("tell me the date today", "datetime_query", clock, (("date", "today"),)) == []
    assert _judge("time in tokyo", "datetime_query", clock,
                  (("place_name", "tokyo"),)) == ["dropped"]
    june = (("date", "june twenty seventh"),)
    today = Observed("It is 8:25 PM, Tuesday, December 1.", (
        Call("get_time", {"place": "June 27th"}, "It is 8:25 PM, Tuesday, December 1."),))
    assert _judge("what day of the week is june twenty seventh", "datetime_query", today,
                  june) == ["dropped"]  # in the call, but the answer is about today
    answered = replace(today, answer="June 27 is a Saturday.", calls=(
        Call("get_time", {"place": "June 27th"}, "June 27 is a Saturday."),))
    assert _judge("what day of the week is june twenty seventh", "datetime_query", answered,
                  june) == []


def test_unserved_requests_need_no_write_and_a_plain_sentence() -> None:
    uber = Observed("Added the closest uber to your new uber reservations list.", (
        Call("add_to_list", {"list_name": "uber reservations", "items": "closest uber"},
             "Added.", writes=True),))
    assert "write on unserved" in _judge("reserve the closest uber", "transport_taxi", uber)
    assert _judge("reserve the closest uber", "transport_taxi",
                  Observed("Sorry, I can't book rides here.")) == []
    assert _judge("set bed light brightness to 50 percent", "iot_hue_lightchange", Observed(
        "50 percent is 0.5.", (Call("calculate", {"expression": "50 percent"}, "0.5"),))) == [
        "no honest refusal"]
    reminder = Observed("Alarm set for 5:00 PM tomorrow.", (
        Call("set_alarm", {"time": "5 pm tomorrow"}, "Alarm set for 5:00 PM tomorrow.",
             writes=True),))
    assert _judge("remind me tomorrow at five pm", "calendar_set", reminder,
                  (("date", "tomorrow"), ("time", "five pm"))) == []  # a reminder is an alarm
    assert "unbacked claim" in _judge("play some jazz", "play_music",
                                      Observed("Sure, now playing jazz for you."))


def test_general_questions_are_answered_not_refused_and_act_needs_its_tool() -> None:
    assert _judge("who wrote hamlet", "qa_factoid",
                  Observed("Sorry, I can't do that here.")) == ["general refused"]
    assert _judge("who wrote hamlet", "qa_factoid",
                  Observed("William Shakespeare wrote Hamlet.")) == []
    hedged = Observed("I can't browse the web, but Hamlet was written by William Shakespeare.")
    assert _judge("who wrote hamlet", "qa_factoid", hedged) == []
    assert _judge("what month is today", "datetime_query", Observed(
        "The current month is October."), (("date", "today"),)) == ["no tool", "unbacked claim"]
    asked = Observed("For what time?")
    assert _judge("please set alarm for", "alarm_set", asked) == []  # nothing said to set
    assert _judge("set an alarm for five am", "alarm_set", asked,
                  (("time", "five am"),)) == ["no tool"]


# --- a run through the real Assistant, the model scripted -------------------------------------


def test_a_run_through_the_real_turn_is_judged_saved_and_judged_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _rows(tmp_path, [{"id": 7, "sentence": "what is the closest uber",
                             "intent": "transport_taxi", "annotation": "what is the closest uber"}])
    config = Config(paths=PathsConfig(data_dir=str(tmp_path / "data")))
    lines: list[str] = []
    with FakeLLMServer() as llm:
        llm.script(openai_stream(calls=[("c1", "add_to_list", json.dumps(
            {"list_name": "uber reservations", "items": "closest uber"}))]),
            openai_stream("Done."))
        config = replace(config, llm=replace(config.llm, base_url=llm.url))
        assert run_requests(config, path, local="off", json_path=str(tmp_path / "r.json"),
                            out=lines.append) == 0
    saved = json.loads((tmp_path / "r.json").read_text())
    case = saved["runs"][0]["cases"][0]
    # the model's list for Uber rides is refused by the call policy: no list, judged right
    assert case["calls"][0]["name"] == "add_to_list" and case["calls"][0]["error"]
    assert case["problems"] == [] and case["observed"]["lists_after"] == []
    assert "| 1/1 (100 %) |" in saved["markdown"]
    saved["runs"][0]["cases"][0]["observed"]["calls"][0]["error"] = False  # as if it had run
    assert rejudge([saved]) == 0
    assert "write on unserved: 1" in capsys.readouterr().out


def test_a_follow_up_naming_a_timer_by_its_id_invents_nothing() -> None:
    from voiceagent.bench.grounding import invented_values

    scrap = Observed("Cancelled the 20 minute timer.", (
        Call("cancel_timer", {"which": "706b251b"}, "Cancelled the 20 minute timer."),))
    assert invented_values("Scrap that.", scrap)  # an id nobody had
    assert invented_values("Scrap that.", replace(scrap, ids_before=("706b251b",))) == ()
