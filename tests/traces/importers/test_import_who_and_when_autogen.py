"""Issue 10: Magentic-One logs from AutoGen 0.4 in the Who&When shape (every record has a
``name``, plural ``system_prompts``, ``created_at`` times) are recognised as Magentic-One, with
orchestrator decisions and their times; how each log was recognised is recorded in the trace."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES, assert_source_error

from masrl import paths
from masrl.commands import main
from masrl.traces import validate_document
from masrl.traces.importers import import_file

FOLDER = FIXTURES / "who_and_when"
AUTOGEN = FOLDER / "magentic_one_autogen.json"
ORCH = "MagenticOneOrchestrator"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["type"], e["agent"], e.get("to"), e.get("decision"), e.get("role"))
            for e in trace["events"]]


def test_autogen_log_is_magentic_one_with_orchestrator_decisions():
    trace = import_file("who-and-when", AUTOGEN).trace
    assert (trace["trace_id"], trace["system"], trace["topology"]) == (
        "who-and-when:magentic-one:magentic_one_autogen", "Magentic-One", "centralized")
    assert shape(trace) == [
        ("h0", "message", "user", ORCH, None, "human"),
        ("h1", "orchestrator_decision", ORCH, None, None, None),  # the task ledger
        ("h2", "orchestrator_decision", ORCH, "WebSurfer", "delegate", None),
        ("h3", "message", "WebSurfer", ORCH, None, None),
        ("h4", "orchestrator_decision", ORCH, "Coder", "delegate", None),
        ("h5", "message", "Coder", ORCH, None, None),
        ("h6", "orchestrator_decision", ORCH, "ComputerTerminal", "delegate", None),
        ("h7", "message", "ComputerTerminal", ORCH, None, None),
        ("h8", "orchestrator_decision", ORCH, None, "stop", None),  # the final answer
    ]
    assert [(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]] == [
        ("h0", "h1", "message", None), ("h1", "h2", "causal", None),
        ("h2", "h3", "message", "blocking"), ("h3", "h4", "message", None),
        ("h4", "h5", "message", "blocking"), ("h5", "h6", "message", None),
        ("h6", "h7", "message", "blocking"), ("h7", "h8", "message", None)]
    assert [e["id"] for e in trace["events"] if e.get("x_mistake_step")] == ["h3"]
    assert validate_document(trace).problems == []


def test_autogen_log_keeps_its_times():
    trace = import_file("who-and-when", AUTOGEN).trace
    assert [e["t"] for e in trace["events"]] == [0.0, 4.25, 5.5, 21.0, 23.75, 31.0, 32.0,
                                                 33.125, 40.0]
    assert trace["costs"] == {"tokens": 0, "wall_clock_s": 40.0, "messages": 4}


def test_how_each_log_was_recognised_is_in_its_provenance_and_summary():
    expected = {
        "magentic_one_autogen.json": ("magentic-one", "autogen-0.4",
                                      "every record has a 'name' and 'MagenticOneOrchestrator' "
                                      "(the orchestrator of AutoGen 0.4's MagenticOneGroupChat) "
                                      "speaks, first in history[1]"),
        "magentic_one.json": ("magentic-one", "roles",
                              "no record has a 'name': the agent is read from 'role', as in "
                              "Who&When's hand-crafted Magentic-One logs"),
        "captain_agent.json": ("captain-agent", "ag2-group-chat",
                               "every record has a 'name' and none is from "
                               "'MagenticOneOrchestrator': an AG2 group chat, as in Who&When's "
                               "algorithm-generated CaptainAgent logs"),
    }
    for name, (system, form, evidence) in expected.items():
        result = import_file("who-and-when", FOLDER / name)
        recognised = {"evidence": evidence, "shape": form, "system": system, "content": "text"}
        assert result.trace["provenance"]["recognised"] == recognised
        assert result.summary()["recognised"] == recognised


def test_the_import_command_says_how_the_log_was_recognised(tmp_path, capsys):
    assert main(["import", "who-and-when", str(AUTOGEN), "-o", str(tmp_path / "t.json")]) == 0
    assert ("  recognised as magentic-one (autogen-0.4 shape): every record has a 'name' and "
            "'MagenticOneOrchestrator'") in capsys.readouterr().err


def test_a_record_earlier_than_the_one_it_follows_is_raised_and_counted(tmp_path, edit_file,
                                                                         fixture_copy):
    path = fixture_copy("who_and_when") / "magentic_one_autogen.json"
    edit_file(path, "2025-03-01T10:00:23.750000Z", "2025-03-01T10:00:20.000000Z")
    result = import_file("who-and-when", path)
    times = {e["id"]: e["t"] for e in result.trace["events"]}
    assert (times["h3"], times["h4"]) == (21.0, 21.0)
    assert result.repairs == {"event time raised to the time of an event it depends on": 1}
    assert result.trace["provenance"]["repaired"] == dict(result.repairs)


def document(**changes) -> dict:
    found = json.loads(AUTOGEN.read_text(encoding="utf-8"))
    found.update(changes)
    return found


@pytest.mark.parametrize("value", ["yesterday", "2025-03-01T10:00:00", 1740823200, None])
def test_a_time_that_is_not_an_iso_time_with_an_offset_is_an_error(tmp_path, value):
    log = document()
    log["history"][2]["created_at"] = value
    shown = {"yesterday": ', found the string "yesterday"',
             "2025-03-01T10:00:00": ' (e.g. 2025-03-01T10:00:00Z), found the string '
                                    '"2025-03-01T10:00:00"',
             1740823200: ", found the number 1740823200", None: ", found null"}[value]
    assert_source_error("who-and-when", tmp_path / "log.json", json.dumps(log),
                        "history[2]", "created_at must be an ISO 8601 time with a UTC offset"
                        + shown)


def test_times_on_some_records_only_are_an_error(tmp_path):
    log = document()
    del log["history"][4]["created_at"]
    assert_source_error("who-and-when", tmp_path / "log.json", json.dumps(log),
                        "history[4].created_at", "missing, while other records have one "
                        "(history[0]): give every record a time or none")


def test_the_autogen_shape_without_its_orchestrator_is_an_error_not_a_guess(tmp_path):
    log = document()
    for record in log["history"]:
        if record["name"] == ORCH:
            record["name"] = "Planner"
    assert_source_error("who-and-when", tmp_path / "log.json", json.dumps(log), "system_prompts",
                        "the AutoGen 0.4 Magentic-One shape, but no record is from "
                        "'MagenticOneOrchestrator': cannot tell which system wrote this log")


def test_system_prompts_that_are_not_an_object_are_an_error(tmp_path):
    assert_source_error("who-and-when", tmp_path / "log.json",
                        json.dumps(document(system_prompts="You browse.")), "system_prompts",
                        "must be an object (agent name -> prompt), found 'You browse.' (a "
                        "string)")


def test_a_failed_execution_is_marked_without_its_text(tmp_path):
    log = json.loads((FOLDER / "captain_agent.json").read_text(encoding="utf-8"))
    log["history"][1]["content"] = "exitcode: 1 (execution failed)\nCode output: boom"
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    events = import_file("who-and-when", path).trace["events"]
    assert [(e["id"], e.get("x_exit_code")) for e in events] == [
        ("h0", None), ("h1", 1), ("h2", None), ("h3", None), ("h4", None)]
    fixture = import_file("who-and-when", FOLDER / "captain_agent.json").trace["events"]
    assert fixture[1]["x_exit_code"] == 0


# ------------------------------------------------- AutoGen message reprs (issue 18: variants)

REPRS = FOLDER / "magentic_one_reprs.json"


def test_records_written_as_autogen_message_reprs_give_usage_times_and_skips():
    """mas-failure-attribution writes each history record as ``str()`` of the AutoGen
    message: the importer reads the id, the source's model usage and the creation time from
    it, and counts the TaskResult record and the runner's closing note as skipped."""
    result = import_file("who-and-when", REPRS)
    trace = result.trace
    assert result.recognised["content"] == "autogen-message-reprs"
    assert shape(trace) == [
        ("h0", "message", "user", ORCH, None, "human"),
        ("h1", "orchestrator_decision", ORCH, None, None, None),
        ("h2", "orchestrator_decision", ORCH, "WebSurfer", "delegate", None),
        ("h3", "message", "WebSurfer", ORCH, None, None),
        ("h4", "orchestrator_decision", ORCH, None, "stop", None),  # last mapped record
    ]
    web = trace["events"][3]
    assert (web["x_usage"], web["tokens"], web["x_model_call"], web["x_message_id"]) == (
        {"input": 820, "output": 45}, 865, "r-4", "r-4")
    assert [e["t"] for e in trace["events"]] == [0.0, 6.5, 8.0, 30.25, 41.0]
    assert result.time_origin == "2026-01-05T14:00:00.000000Z"
    assert trace["provenance"]["records"] == {"unit": "history entry", "read": 7, "mapped": 5,
                                              "skipped": 2}
    assert result.skipped == {"task result: repeats the run's messages": 1,
                              "runner note: not an AutoGen message of the run": 1}
    assert trace["costs"]["tokens"] == 865


def test_a_label_on_a_skipped_record_is_an_error(tmp_path):
    log = json.loads(REPRS.read_text(encoding="utf-8"))
    log["mistake_step"] = "5"
    assert_source_error("who-and-when", tmp_path / "log.json", json.dumps(log), "mistake_step",
                        "5 labels history[5], a record that gives no event (a task result or "
                        "a runner note)")


SHARED = paths.public_logs_dir()
VARIANTS = [
    ("who-and-when/hand-crafted/1.json", "roles", "text"),
    ("who-and-when/algorithm-generated/1.json", "ag2-group-chat", "text"),
    ("real-logs/who-and-when/yuyueryuyu__mas-failure-attribution/b61c6c12/runs/result_example/"
     "log.json", "autogen-0.4", "autogen-message-reprs"),
]


@pytest.mark.parametrize("name, form, content", VARIANTS)
def test_each_variant_is_recognised_in_a_real_log(name, form, content):
    path = SHARED / name
    if not path.is_file():
        pytest.skip(f"real log not available at {path} (a fresh clone has no ../shared)")
    recognised = import_file("auto", path).recognised
    assert (recognised["shape"], recognised["content"]) == (form, content)
