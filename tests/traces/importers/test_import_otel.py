"""The OpenTelemetry importer on a hand-written any-agent export (parallel tools, a nested agent,
a non-GenAI span, an error status) and an OTLP/JSON export (a missing parent)."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from importer_helpers import FIXTURES, assert_source_error, changed_text, source_file

from masrl.traces import replay, validate_document
from masrl.traces.importers import dumps, import_file
from masrl.traces.importers._kit.common import TRUNCATED

FOLDER = FIXTURES / "otel"
ANY_AGENT = FOLDER / "any_agent.json"
OTLP = FOLDER / "otlp.json"
RAW = json.loads(ANY_AGENT.read_text(encoding="utf-8"))


def sid(n: int) -> str:
    return f"{n:016x}"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["t"], e.get("t_end"), e["type"], e["agent"], e.get("to") or e.get("tool"),
             e.get("tokens"), e.get("cost_usd")) for e in trace["events"]]


def edges(trace: dict) -> set[tuple]:
    return {(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]}


def test_any_agent_events():
    trace = import_file("otel", ANY_AGENT).trace
    assert shape(trace) == [
        (sid(2), 0.01, 0.1, "message", "planner", None, 110, 0.0015),
        (f"{sid(3)}.call", 0.11, 0.3, "tool_call", "planner", "search", None, None),
        (f"{sid(3)}.result", 0.3, None, "tool_result", "planner", "search", None, None),
        (f"{sid(4)}.call", 0.12, 0.2, "tool_call", "planner", "fetch", None, None),
        (f"{sid(4)}.result", 0.2, None, "tool_result", "planner", "fetch", None, None),
        (f"{sid(5)}.spawn", 0.31, None, "spawn", "planner", "helper", None, None),
        (f"{sid(5)}.return", 0.6, None, "return", "helper", "planner", None, None),
        (sid(6), 0.32, 0.5, "message", "helper", None, 55, None),
        (f"{sid(8)}.call", 0.52, 0.53, "tool_call", "helper", "calc", None, None),
        (f"{sid(8)}.result", 0.53, None, "tool_result", "helper", "calc", None, None),
        (sid(9), 0.7, 0.85, "message", "planner", None, 220, 0.003),
    ]


def test_any_agent_edges_come_from_time_within_each_agent():
    trace = import_file("otel", ANY_AGENT).trace
    call, result = f"{sid(3)}.call", f"{sid(3)}.result"
    assert edges(trace) == {
        (call, result, "tool_dependency", "blocking"),
        (f"{sid(4)}.call", f"{sid(4)}.result", "tool_dependency", "blocking"),
        (f"{sid(8)}.call", f"{sid(8)}.result", "tool_dependency", "blocking"),
        (sid(2), call, "causal", None),  # both tools follow the model call ...
        (sid(2), f"{sid(4)}.call", "causal", None),  # ... and overlap each other: no edge
        (result, f"{sid(5)}.spawn", "causal", None),
        (f"{sid(4)}.result", f"{sid(5)}.spawn", "causal", None),
        (f"{sid(5)}.spawn", sid(6), "spawn", None),
        (sid(6), f"{sid(8)}.call", "causal", None),  # through the skipped HTTP span
        (f"{sid(8)}.result", f"{sid(5)}.return", "causal", None),
        (f"{sid(5)}.return", sid(9), "causal", None),
    }


def test_any_agent_run_fields_skips_and_metrics():
    result = import_file("otel", ANY_AGENT)
    trace = result.trace
    assert (trace["trace_id"], trace["task_id"], trace["system"], trace["topology"]) == (
        "otel:0000000000000000000000000000004d", "otel:0000000000000000000000000000004d",
        "any-agent 0.0-test", "unknown")
    assert trace["costs"] == {"tokens": 385, "wall_clock_s": 0.9, "tool_calls": 3,
                              "messages": 3, "usd": 0.0045}
    assert dict(result.skipped) == {"span: no GenAI operation attribute": 1}
    assert dict(result.repairs) == {}
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id[sid(9)]["x_error"] is True
    assert by_id[sid(2)]["x_usage"] == {"input": 100, "output": 10}
    assert by_id[sid(2)]["x_model"] == "model-z"
    assert by_id[f"{sid(3)}.call"]["content_ref"] == (
        "sha256:" + hashlib.sha256(b'{"q": "tides"}').hexdigest())
    report = validate_document(trace)
    assert report.problems == []
    metrics = replay(report.trace).metrics
    assert (metrics["critical_steps"], metrics["spawn_depth"], metrics["max_concurrency"]) == (
        9, 1, 1)
    assert "tides" not in dumps(trace) and "an invented answer" not in dumps(trace)


def test_otlp_export_with_a_missing_parent():
    result = import_file("otel", OTLP)
    trace = result.trace
    assert sorted(shape(trace)) == [  # the orphan chat span is a root, inside solo's time
        ("00000000000000a2", 0.01, 0.2, "message", "solo", None, 37, None),
        ("00000000000000a3.call", 0.25, 0.3, "tool_call", "solo", "lookup", None, None),
        ("00000000000000a3.result", 0.3, None, "tool_result", "solo", "lookup", None, None),
    ]
    assert edges(trace) == {
        ("00000000000000a3.call", "00000000000000a3.result", "tool_dependency", "blocking"),
        ("00000000000000a2", "00000000000000a3.call", "causal", None),
    }
    assert trace["system"] == "svc-test"
    assert trace["costs"] == {"tokens": 37, "wall_clock_s": 0.4, "tool_calls": 1, "messages": 1}
    assert dict(result.skipped) == {"span: embeddings": 1}
    assert dict(result.repairs) == {
        "span whose parent span is not in the file (made a root)": 1}
    assert {e["id"]: e.get("x_error") for e in trace["events"]}["00000000000000a3.call"] is True
    assert validate_document(trace).problems == []


def test_provenance_records_the_file_and_the_counts():
    none = {"tokens_in": 0, "tokens_out": 0, "cost_usd": 0}
    provenance = import_file("otel", ANY_AGENT).trace["provenance"]
    assert provenance["usage"]["source"]["cost_usd"] == pytest.approx(0.0045)  # 0.0015 + 0.003
    provenance["usage"]["source"]["cost_usd"] = 0.0045
    assert provenance == {
        "format": "otel",
        "recognised": {"evidence": "span kinds read by GenAI operation name (8)",
                       "shape": "any-agent AgentTrace", "system": "any-agent 0.0-test"},
        "records": {"unit": "span", "read": 9, "mapped": 8, "skipped": 1},
        "repaired": {},
        "skipped": {"span: no GenAI operation attribute": 1},
        "sources": [source_file(ANY_AGENT, "any_agent.json")],
        "time_origin": "1970-01-01T00:00:01.000000Z",  # the fixture's first start, 10^9 ns
        "usage": {"source": {"tokens_in": 100 + 50 + 200, "tokens_out": 10 + 5 + 20,
                             "cost_usd": 0.0045}, "skipped": none},
    }
    assert import_file("otel", OTLP).trace["provenance"] == {
        "format": "otel",
        "recognised": {"evidence": "span kinds read by GenAI operation name (4); "
                       "instrumentation test", "shape": "OTLP JSON", "system": "svc-test"},
        "records": {"unit": "span", "read": 4, "mapped": 3, "skipped": 1},
        "repaired": {"span whose parent span is not in the file (made a root)": 1},
        "skipped": {"span: embeddings": 1},
        "sources": [source_file(OTLP, "otlp.json")],
        "time_origin": "1970-01-01T00:00:05.000000Z",
        "usage": {"source": {"tokens_in": 30, "tokens_out": 7, "cost_usd": 0}, "skipped": none},
    }


def test_a_second_invocation_of_an_agent_is_a_second_agent(tmp_path):
    document = copy.deepcopy(RAW)
    helper = document["spans"][4]
    again = copy.deepcopy(helper)
    again["context"]["span_id"] = 10
    again["start_time"], again["end_time"] = 1610000000, 1690000000
    document["spans"].append(again)
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    trace = import_file("otel", path).trace
    spawns = [(e["agent"], e["to"]) for e in trace["events"] if e["type"] == "spawn"]
    assert spawns == [("planner", "helper"), ("planner", "helper#2")]
    assert validate_document(trace).valid


def mutated(change) -> str:
    return changed_text(RAW, change)


def set_in(span: int, key: str, value):
    def change(document):
        document["spans"][span][key] = value
    return change


def context(span: int, **values):
    def change(document):
        document["spans"][span]["context"].update(values)
    return change


def parent(span: int, span_id):
    def change(document):
        document["spans"][span]["parent"]["span_id"] = span_id
    return change


def only_root(document):
    document["spans"] = document["spans"][:1]


@pytest.mark.parametrize("text, where, message", [
    ('{"spans": [', "1:12", "not JSON: Expecting value" + TRUNCATED),
    ('{"traces": []}', None, ("expected OpenTelemetry spans: OTLP JSON ({'resourceSpans': "
     "[...]}), {'spans': [...]}, a list of spans or span objects; found an object with keys "
     "traces")),
    ('{"spans": []}', None, "the file holds no spans"),
    (mutated(set_in(2, "start_time", "soon")), "spans[2]",
     'start_time must be an ISO 8601 time or an epoch number of 0 or more (or its digits), '
     'found the string "soon"'),
    (mutated(set_in(2, "end_time", 1000)), "spans[2]",
     "span ends before it starts: end_time (1970-01-01T00:00:00.000001Z) is before start_time "
     "(1970-01-01T00:00:01.110000Z)"),
    (mutated(context(3, span_id=3)), "spans[3]",
     "span id 0000000000000003 is used by two different records (the other is spans[2])"),
    (mutated(context(3, trace_id=78)), None,
     ("spans of 2 traces (0000000000000000000000000000004d, 0000000000000000000000000000004e); "
     "a file of several runs imports as one trace per run (masrl import otel FILE -o DIR)")),
    (mutated(context(3, span_id="four")), "spans[3]",
     "context.span_id must be an integer or a hex string like '0x0000000000000001', found "
     'a string "four"'),
    (mutated(set_in(3, "parent", {"span_id": "one"})), "spans[3]",
     "parent.span_id must be an integer or a hex string like '0x0000000000000001', found "
     'a string "one"'),
    (mutated(lambda d: d["spans"].__setitem__(3, "not a span")), "spans[3]",
     "must be a span (a JSON object), found a string"),
    (mutated(only_root), None,
     "no span maps to an event (no model call, tool call, handoff or nested agent); its 1 "
     "spans: 1 agent span with no work (no model, tool, handoff or sub-agent span is its own)"),
])
def test_bad_input_is_an_error_naming_the_place(tmp_path, text, where, message):
    assert_source_error("otel", tmp_path / "trace.json", text, where, message)


def test_any_agent_of_may_2025_states_its_cost_as_cost_prompt_and_cost_completion(tmp_path):
    """any-agent's traces of May 2025 count tokens with OpenInference names and the dollars of a
    call as ``cost_prompt`` and ``cost_completion``: the call costs their sum (it read as not
    recorded), and a call that states neither stays unpriced."""
    raw = copy.deepcopy(RAW)
    call = next(s for s in raw["spans"] if s["context"]["span_id"] == 2)
    call["attributes"] = {"gen_ai.operation.name": "call_llm", "llm.token_count.prompt": 120,
                          "llm.token_count.completion": 8, "cost_prompt": 0.0004,
                          "cost_completion": 0.0001}
    for span in raw["spans"]:
        if span is not call:
            for name in ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost"):
                span["attributes"].pop(name, None)
    log = tmp_path / "may_2025.json"
    log.write_text(json.dumps(raw), encoding="utf-8")
    trace = import_file("otel", log).trace
    priced = {e["id"]: (e.get("tokens"), e.get("cost_usd")) for e in trace["events"]
              if "x_model_call" in e}
    assert priced[sid(2)] == (128, pytest.approx(0.0005))
    assert [cost for tokens, cost in priced.values() if cost is None] != []  # others: unpriced
    assert validate_document(trace).problems == []
