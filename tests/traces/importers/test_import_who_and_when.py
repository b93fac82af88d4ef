"""The Who&When importer on hand-written Magentic-One and CaptainAgent logs."""

from __future__ import annotations

import hashlib
import json

import pytest
from importer_helpers import FIXTURES, assert_source_error, source_file

from masrl.traces import validate_document
from masrl.traces.importers import dumps, import_file
from masrl.traces.importers._kit.common import TRUNCATED

FOLDER = FIXTURES / "who_and_when"


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["type"], e["agent"], e.get("to"), e.get("decision"), e.get("role"))
            for e in trace["events"]]


def edges(trace: dict) -> list[tuple]:
    return [(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]]


def test_magentic_one_events():
    trace = import_file("who-and-when", FOLDER / "magentic_one.json").trace
    assert shape(trace) == [
        ("h0", "message", "human", "Orchestrator", None, "human"),
        ("h1", "orchestrator_decision", "Orchestrator", None, None, None),
        ("h2", "orchestrator_decision", "Orchestrator", "WebSurfer", "delegate", None),
        ("h3", "orchestrator_decision", "Orchestrator", None, None, None),
        ("h4", "message", "WebSurfer", "Orchestrator", None, None),
        ("h5", "orchestrator_decision", "Orchestrator", None, None, None),
        ("h6", "orchestrator_decision", "Orchestrator", "FileSurfer", "delegate", None),
        ("h7", "message", "FileSurfer", "Orchestrator", None, None),
        ("h8", "orchestrator_decision", "Orchestrator", None, "stop", None),
    ]
    assert {e["t"] for e in trace["events"]} == {0}
    assert [e["x_source"] for e in trace["events"]] == [f"history[{k}]" for k in range(9)]


def test_magentic_one_edges():
    trace = import_file("who-and-when", FOLDER / "magentic_one.json").trace
    assert edges(trace) == [
        ("h0", "h1", "message", None),
        ("h1", "h2", "causal", None),
        ("h2", "h3", "causal", None),
        ("h3", "h4", "temporal", None),
        ("h2", "h4", "message", "blocking"),  # the delegation reaches WebSurfer past a ledger
        ("h4", "h5", "message", None),
        ("h5", "h6", "causal", None),
        ("h6", "h7", "message", "blocking"),
        ("h7", "h8", "message", None),
    ]


def test_magentic_one_run_level_fields_and_labels():
    document = json.loads((FOLDER / "magentic_one.json").read_text(encoding="utf-8"))
    trace = import_file("who-and-when", FOLDER / "magentic_one.json").trace
    assert (trace["trace_id"], trace["task_id"], trace["system"], trace["topology"]) == (
        "who-and-when:magentic-one:magentic_one", "q-magentic-1", "Magentic-One", "centralized")
    assert trace["rewards"] == {"team": 0.0}
    assert trace["costs"] == {"tokens": 0, "wall_clock_s": 0, "messages": 3}
    labelled = [e for e in trace["events"] if e.get("x_mistake_step")]
    assert [e["id"] for e in labelled] == ["h4"]
    assert labelled[0]["x_mistake_agent"] == "WebSurfer"
    assert labelled[0]["x_mistake_reason_ref"] == sha(document["mistake_reason"])


def test_content_is_hashed_never_copied():
    document = json.loads((FOLDER / "magentic_one.json").read_text(encoding="utf-8"))
    result = import_file("who-and-when", FOLDER / "magentic_one.json")
    refs = [e["content_ref"] for e in result.trace["events"]]
    assert refs == [sha(record["content"]) for record in document["history"]]
    text = dumps(result.trace)
    for record in document["history"]:
        assert record["content"] not in text
    assert document["question"] not in text
    # the gold labels are kept on purpose (schema 1.2): the reason only there
    without_labels = dumps({k: v for k, v in result.trace.items() if k != "labels"})
    assert document["mistake_reason"] not in without_labels
    assert [label["value"] for label in result.trace["labels"]
            if label["name"] == "mistake_reason"] == [document["mistake_reason"]]


def test_captain_agent_group_chat():
    result = import_file("who-and-when", FOLDER / "captain_agent.json")
    trace = result.trace
    assert shape(trace) == [
        ("h0", "message", "Math_Expert", None, None, "expert"),
        ("h1", "message", "Computer_terminal", None, None, None),
        ("h2", "message", "Math_Expert", None, None, "expert"),
        ("h3", "message", "Math_Expert", None, None, "expert"),
        ("h4", "message", "Checking_Expert", None, None, "expert"),
    ]
    assert edges(trace) == [("h0", "h1", "message", None), ("h1", "h2", "message", None),
                            ("h2", "h3", "causal", None), ("h3", "h4", "message", None)]
    assert (trace["trace_id"], trace["system"], trace["topology"]) == (
        "who-and-when:captain-agent:captain_agent", "CaptainAgent (AG2 group chat)", "unknown")
    assert [e["id"] for e in trace["events"] if e.get("x_mistake_step")] == ["h2"]
    assert result.summary()["agents"] == 3


@pytest.mark.parametrize("name", ["magentic_one.json", "captain_agent.json"])
def test_fixtures_give_traces_without_any_problem(name):
    report = validate_document(import_file("who-and-when", FOLDER / name).trace)
    assert report.problems == []


@pytest.mark.parametrize("name, records", [("magentic_one.json", 9), ("captain_agent.json", 5)])
def test_provenance_names_the_log_and_nothing_is_skipped_or_repaired(name, records):
    provenance = import_file("who-and-when", FOLDER / name).trace["provenance"]
    assert provenance.pop("recognised")["system"] == name.removesuffix(".json").replace("_", "-")
    no_usage = {"cost_usd": 0, "tokens_in": 0, "tokens_out": 0}
    assert provenance == {
        "format": "who-and-when",
        "records": {"unit": "history entry", "read": records, "mapped": records, "skipped": 0},
        "repaired": {},
        "skipped": {},
        "sources": [source_file(FOLDER / name, name)],
        "usage": {"source": no_usage, "skipped": no_usage},
    }


def magentic(history: list, **fields) -> dict:
    return {"question_ID": "q", "mistake_agent": "Orchestrator", "mistake_step": "0",
            "history": history, **fields}


THOUGHT = {"role": "Orchestrator (thought)", "content": "x"}


@pytest.mark.parametrize("text, where, message", [
    ('{"history": [', "1:14", "not JSON: Expecting value" + TRUNCATED),
    ("[]", None, "expected a JSON object with a 'history' list, found an array"),
    (json.dumps({"history": []}), "history",
     "must be a non-empty list of chat records, found an empty list"),
    (json.dumps(magentic([THOUGHT, "hello"])), "history[1]",
     "a chat record must be a JSON object, found 'hello' (a string)"),
    (json.dumps(magentic([THOUGHT, {"role": "WebSurfer"}])), "history[1].content",
     "must be a string, found nothing (the key is missing)"),
    (json.dumps(magentic([THOUGHT, {"role": "Orchestrator (musing)", "content": "x"}])),
     "history[1]", ("unknown record type: role 'Orchestrator (musing)' (expected 'X', "
     "'X (thought)', 'X (-> Y)' or 'X (termination condition)')")),
    (json.dumps(magentic([THOUGHT, {"role": "user", "name": "A", "content": "x"}])),
     "history[1]", ("records mix the group-chat form (with 'name') and the Magentic-One form "
     "(without)")),
    (json.dumps(magentic([THOUGHT], mistake_step="9")), "mistake_step",
     "9 is outside the history (0..0)"),
    (json.dumps(magentic([THOUGHT], mistake_step="early")), "mistake_step",
     "must be a step index (an integer, or a string of the digits 0-9), found 'early' (a "
     "string)"),
    (json.dumps({"history": [{"role": "user", "name": 3, "content": "x"}]}), "history[0].name",
     "must be a non-empty string, found 3 (a number)"),
    ('{"history": [{"role": "human", "content": NaN}]}', None,
     "not JSON: NaN is not a JSON number (at /history/0/content)"),
])
def test_bad_input_is_an_error_naming_the_place(tmp_path, text, where, message):
    assert_source_error("who-and-when", tmp_path / "log.json", text, where, message)


def test_a_run_without_labels_or_verdict_imports(tmp_path):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps({"history": [THOUGHT]}), encoding="utf-8")
    trace = import_file("who-and-when", path).trace
    assert trace["rewards"] == {}
    assert trace["task_id"] == "plain"
    assert not any(key.startswith("x_mistake") for key in trace["events"][0])


# --- issue 9: wrong types are errors, never silent labels or rewards ------------------------------

def captain(history: list, **fields) -> dict:
    return {"question_ID": "q", "mistake_agent": "A", "mistake_step": "0", "history": history,
            **fields}


SAID = {"role": "assistant", "name": "A", "content": "x"}


@pytest.mark.parametrize(("verdict", "shown"), [
    ('"False"', "'False' (a string)"), ('"true"', "'true' (a string)"), ("0", "0 (a number)"),
    ("1", "1 (a number)"), ("null", "null"), ('["x"]', "an array"), ('{"v": true}', "an object"),
])
@pytest.mark.parametrize("key", ["is_correct", "is_corrected"])
def test_a_verdict_that_is_not_a_boolean_is_an_error(tmp_path, key, verdict, shown):
    text = json.dumps(magentic([THOUGHT])).replace('"history"', f'"{key}": {verdict}, "history"')
    assert_source_error("who-and-when", tmp_path / "log.json", text, key,
                        f"must be true or false, found {shown}")


@pytest.mark.parametrize("verdict, reward", [("true", 1.0), ("false", 0.0)])
def test_a_boolean_verdict_gives_the_team_reward(tmp_path, verdict, reward):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(magentic([THOUGHT])).replace(
        '"history"', f'"is_corrected": {verdict}, "history"'), encoding="utf-8")
    assert import_file("who-and-when", path).trace["rewards"] == {"team": reward}


def test_two_verdicts_that_disagree_are_an_error(tmp_path):
    text = json.dumps(magentic([THOUGHT], is_correct=True, is_corrected=False))
    assert_source_error("who-and-when", tmp_path / "log.json", text, "is_corrected",
                        "disagrees with 'is_correct' (false against true)")


@pytest.mark.parametrize(("step", "shown"), [
    (2.5, "2.5 (a number)"), ("2.5", "'2.5' (a string)"), ("\u0663", "'\u0663' (a string)"),
    (True, "true (a boolean)"), (False, "false (a boolean)"), (-1, "-1 (a number)"),
    ("-1", "'-1' (a string)"), (" 2", "' 2' (a string)"), ("2 ", "'2 ' (a string)"),
    ("", "'' (a string)"), ("+2", "'+2' (a string)"), ("\u00b2", "'\u00b2' (a string)"),
    (None, "null"), ([2], "an array"), ({"k": 2}, "an object"),
])
def test_a_mistake_step_that_is_not_a_step_index_is_an_error(tmp_path, step, shown):
    history = [THOUGHT, THOUGHT, THOUGHT]
    text = json.dumps(magentic(history, mistake_step=step), ensure_ascii=False)
    assert_source_error("who-and-when", tmp_path / "log.json", text, "mistake_step",
                        f"must be a step index (an integer, or a string of the digits 0-9), "
                        f"found {shown}")


@pytest.mark.parametrize("step", [2, "2", "02"])
def test_a_mistake_step_may_be_an_integer_or_a_digit_string(tmp_path, step):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(magentic([THOUGHT, THOUGHT, THOUGHT], mistake_step=step)),
                    encoding="utf-8")
    events = import_file("who-and-when", path).trace["events"]
    assert [e["id"] for e in events if e.get("x_mistake_step")] == ["h2"]


@pytest.mark.parametrize("fields, where, message", [
    ({"history": {"0": THOUGHT}}, "history", "must be a non-empty list of chat records, found an "
     "object"),
    ({"history": "text"}, "history", "must be a non-empty list of chat records, found 'text' (a "
     "string)"),
    ({"history": []}, "history", "must be a non-empty list of chat records, found an empty list"),
    ({"history": [THOUGHT, 7]}, "history[1]", "a chat record must be a JSON object, found 7 (a "
     "number)"),
    ({"history": [THOUGHT, {"role": "WebSurfer", "content": ["x"]}]}, "history[1].content",
     "must be a string, found an array"),
    ({"history": [THOUGHT, {"role": "WebSurfer"}]}, "history[1].content",
     "must be a string, found nothing (the key is missing)"),
    ({"history": [THOUGHT, {"role": "", "content": "x"}]}, "history[1].role",
     "must be a non-empty string, found '' (a string)"),
    ({"history": [THOUGHT, {"role": None, "content": "x"}]}, "history[1].role",
     "must be a non-empty string, found null"),
    ({"mistake_agent": 3}, "mistake_agent", "must be a string, found 3 (a number)"),
    ({"mistake_reason": ["x"]}, "mistake_reason", "must be a string, found an array"),
    ({"question_ID": 7}, "question_ID", "must be a string, found 7 (a number)"),
])
def test_wrong_types_anywhere_are_errors_naming_the_place(tmp_path, fields, where, message):
    document = {**magentic([THOUGHT]), **fields}
    assert_source_error("who-and-when", tmp_path / "log.json", json.dumps(document), where,
                        message)


def test_a_group_chat_with_a_system_prompt_that_is_not_an_object_is_an_error(tmp_path):
    text = json.dumps(captain([SAID], system_prompt=["You add."]))
    assert_source_error("who-and-when", tmp_path / "log.json", text, "system_prompt",
                        "must be an object (agent name -> prompt), found an array")


def test_a_file_without_history_says_what_it_has(tmp_path):
    text = json.dumps({"question": "q", "messages": []})
    assert_source_error("who-and-when", tmp_path / "log.json", text, None,
                        "no 'history' key: a Who&When log holds its chat records in 'history' "
                        "(this file has keys: messages, question)")


def test_a_document_that_is_not_an_object_says_what_it_is(tmp_path):
    assert_source_error("who-and-when", tmp_path / "log.json", "[1, 2]", None,
                        "expected a JSON object with a 'history' list, found an array")


def test_every_record_becomes_one_event(tmp_path):
    history = [THOUGHT, {"role": "WebSurfer", "content": ""}, {"role": "human", "content": " "},
               {"role": "Orchestrator (-> WebSurfer)", "content": "x"}, THOUGHT]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(magentic(history)), encoding="utf-8")
    result = import_file("who-and-when", path)
    assert [e["x_source"] for e in result.trace["events"]] == [
        f"history[{k}]" for k in range(len(history))]
    assert (result.skipped, result.repairs) == ({}, {})
