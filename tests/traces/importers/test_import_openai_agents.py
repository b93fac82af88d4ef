"""The OpenAI Agents SDK importer on a backend-exporter payload (a handoff between two top-level
agents, guardrails, a response span, an error, an open span) and on JSON Lines records (an agent
run as a tool); bad input names the place."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES, assert_source_error, changed_text

from masrl.traces import validate_document
from masrl.traces.importers import dumps, import_file
from masrl.traces.importers._kit.common import TRUNCATED
from masrl.traces.importers.spans.openai_agents import NO_END

FOLDER = FIXTURES / "openai_agents"
PAYLOAD = FOLDER / "backend_payload.json"
RAW = json.loads(PAYLOAD.read_text(encoding="utf-8"))


def test_handoff_is_a_delegation_between_agents():
    result = import_file("openai-agents", PAYLOAD)
    trace = result.trace
    assert [(e["type"], e["agent"], e.get("to") or e.get("tool"), e.get("tokens"))
            for e in trace["events"]] == [
        ("message", "Triage", None, 135),
        ("orchestrator_decision", "Triage", "Refunds", None),
        ("message", "Refunds", None, 230),
        ("tool_call", "Refunds", "issue_refund", None),
        ("tool_result", "Refunds", "issue_refund", None),
        ("safety_event", "Refunds", None, None),  # the guardrail that triggered
        ("message", "Refunds", None, None),
    ]
    decision = trace["events"][1]
    assert decision["decision"] == "delegate"
    handoffs = [e for e in trace["edges"] if e.get("mode") == "handoff"]
    assert handoffs == [{"src": decision["id"], "dst": "span_resp00000000000000006",
                         "type": "message", "mode": "handoff"}]
    assert trace["events"][-1]["x_error"] is True
    assert dict(result.skipped) == {"span: custom": 1, "span: guardrail": 1}
    assert dict(result.repairs) == {NO_END: 1}
    assert (trace["system"], trace["task_id"]) == ("OpenAI Agents SDK: Customer service",
                                                   "openai-agents:conv_42")
    assert validate_document(trace).problems == []
    assert "an invented" not in dumps(trace)


def test_json_lines_records_with_an_agent_run_as_a_tool():
    trace = import_file("openai-agents", FOLDER / "processor.jsonl").trace
    spawn = next(e for e in trace["events"] if e["type"] == "spawn")
    assert (spawn["agent"], spawn["to"]) == ("Orchestrator", "Researcher")
    assert trace["costs"]["tokens"] == 180  # prompt/completion and input/output usage keys
    assert validate_document(trace).problems == []


def changed(change) -> str:
    return changed_text(RAW, change)


@pytest.mark.parametrize("text, where, message", [
    ('{"data": {}}', "data", "data must be a list of records, found an object"),
    ('{"data": [{"object": "trace", "id": "t"}]}', None,
     "the file holds no spans (records with object 'trace.span')"),
    ('{"data": [1]}', "data[0]", "a record must be an object, found a number"),
    (changed(lambda d: d["data"][2].update(span_data="x")), "data[2]",
     "span span_guard000000000000002: span_data must be an object with a type, found a string"),
    (changed(lambda d: d["data"][3].update(started_at=5)), "data[3]",
     "span span_gen00000000000000003: started_at must be an ISO 8601 time, found the number "
     "5"),
    (changed(lambda d: d["data"][3].update(ended_at="2020-01-01T00:00:00Z")), "data[3]",
     "span span_gen00000000000000003 ends (2020-01-01T00:00:00Z) before it starts "
     "(2025-05-13T09:37:40.050000+00:00)"),
    (changed(lambda d: d["data"][3].update(trace_id="trace_other")), None,
     ("spans of 2 traces (trace_5a1b2c3d4e5f60718293a4b5c6d7e8f9, trace_other); a file of "
     "several runs imports as one trace per run (masrl import openai-agents FILE -o DIR)")),
    ('{"object": "trace.span"}\n{"object": ', "2:12", "not JSON: Expecting value" + TRUNCATED),
])
def test_bad_input_is_an_error_naming_the_place(tmp_path, text, where, message):
    assert_source_error("openai-agents", tmp_path / "trace.json", text, where, message)


def test_a_record_of_an_unknown_object_is_counted_never_dropped(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(changed(lambda d: d["data"][2].update(object="trace.event")),
                    encoding="utf-8")
    result = import_file("openai-agents", path)
    records = result.trace["provenance"]["records"]
    whole = import_file("openai-agents", PAYLOAD).trace["provenance"]["records"]
    assert dict(result.skipped) == {"span: custom": 1,  # the guardrail record data[2] is gone
                                    "unknown record type: object 'trace.event'": 1}
    assert (records["read"], records["skipped"]) == (whole["read"], whole["skipped"])
    assert records["read"] == records["mapped"] + records["skipped"]


def test_a_file_of_two_runs_gives_two_traces(tmp_path):
    from masrl.traces.importers import import_traces
    path = tmp_path / "two.jsonl"
    other = changed(lambda d: [r.update(trace_id="trace_b") for r in d["data"]
                               if r.get("object") == "trace.span"]
                    + [r.update(id="trace_b") for r in d["data"] if r.get("object") == "trace"])
    path.write_text(PAYLOAD.read_text(encoding="utf-8").replace("\n", " ") + "\n"
                    + other.replace("\n", " ") + "\n", encoding="utf-8")
    results = import_traces("openai-agents", path)
    assert [r.trace["trace_id"] for r in results] == [
        "openai-agents:trace_5a1b2c3d4e5f60718293a4b5c6d7e8f9", "openai-agents:trace_b"]
    one = import_file("openai-agents", PAYLOAD).trace
    for result in results:  # the same run twice: the same events, never merged
        assert [e["id"] for e in result.trace["events"]] == [e["id"] for e in one["events"]]
