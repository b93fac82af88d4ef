"""The OpenTelemetry importer on every shape spans are exported in (hand-written fixtures) and on
the repairs of the span tree: exact duplicates, orphans, self-parents, cycles; wrong container
types are errors naming the place."""

from __future__ import annotations

import base64
import copy
import json

import pytest
from importer_helpers import FIXTURES, assert_source_error, changed_text

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, dumps, import_file
from masrl.traces.importers._kit.common import TRUNCATED
from masrl.traces.importers.spans.tree import CYCLE, DUPLICATE, ORPHAN, SELF_PARENT, WRAPPER

FOLDER = FIXTURES / "otel"
RAW = json.loads((FOLDER / "any_agent.json").read_text(encoding="utf-8"))
SHAPES = ["any_agent.json", "otlp.json", "console_exporter.log", "openinference.json",
          "otlp_collector.jsonl", "vercel_ai.json", "mastra.jsonl", "phoenix_spans.json",
          "flat_spans.json", "js_no_ids.json", "mlflow_trace.json"]


def events(trace: dict) -> list[tuple]:
    return sorted((e["id"], e["t"], e.get("t_end"), e["type"], e["agent"],
                   e.get("to") or e.get("tool"), e.get("tokens"), e.get("cost_usd"),
                   e.get("x_error", False)) for e in trace["events"])


def edges(trace: dict) -> set[tuple]:
    return {(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]}


@pytest.mark.parametrize("name", SHAPES)
def test_every_shape_gives_a_valid_trace_the_same_bytes_twice(name):
    path = FOLDER / name
    first, second = import_file("otel", path), import_file("otel", path)
    assert validate_document(first.trace).problems == []
    assert dumps(first.trace) == dumps(second.trace)
    assert first.trace["provenance"]["sources"][0]["name"] == name


def test_python_console_exporter_hex_ids_iso_times_and_error_status():
    result = import_file("otel", FOLDER / "console_exporter.log")
    assert events(result.trace) == [
        ("00000000000000b2", 0.1, 0.9, "message", "triage", None, 17, None, False),
        ("00000000000000b3.call", 0.95, 1.3, "tool_call", "triage", "lookup", None, None, True),
        ("00000000000000b3.result", 1.3, None, "tool_result", "triage", "lookup", None, None,
         True),
    ]
    assert result.trace["trace_id"] == "otel:5b8aa5a2d2c872e8321cf37308d69df2"
    assert result.trace["system"] == "triage-svc"
    assert dict(result.skipped) == {"span: no GenAI operation attribute": 1}  # the HTTP span


def test_openinference_kinds_and_a_handoff_between_agents():
    result = import_file("otel", FOLDER / "openinference.json")
    trace = result.trace
    assert events(trace) == [
        ("00000000000000c3", 0.02, 1.0, "message", "Triage", None, 50, None, False),
        ("00000000000000c4", 1.1, None, "orchestrator_decision", "Triage", "Billing", None, None,
         False),
        ("00000000000000c6.call", 1.7, 2.5, "tool_call", "Billing", "refund", None, None, False),
        ("00000000000000c6.result", 2.5, None, "tool_result", "Billing", "refund", None, None,
         False),
        ("00000000000000c7", 2.6, 4.8, "message", "Billing", None, 30, 0.0006, False),
    ]
    decision = next(e for e in trace["events"] if e["type"] == "orchestrator_decision")
    assert decision["decision"] == "delegate"
    assert ("00000000000000c4", "00000000000000c6.call", "message", "handoff") in edges(trace)
    assert ("00000000000000c3", "00000000000000c4", "causal", None) in edges(trace)
    assert dict(result.skipped) == {"span: openinference CHAIN": 1}
    assert trace["costs"]["usd"] == 0.0006 and trace["costs"]["tokens"] == 80


def test_mlflow_trace_json_span_types_json_text_attributes_usage_and_cost():
    """MLflow's Trace.to_json(): spans under data.spans, mlflow.spanType and the usage written
    as JSON text; the span's name is the agent's or the tool's."""
    result = import_file("otel", FOLDER / "mlflow_trace.json")
    trace = result.trace
    assert [(e["type"], e["agent"], e.get("tool") or e.get("to"), e.get("tokens"),
             e.get("cost_usd"), e.get("x_model"))
            for e in sorted(trace["events"], key=lambda e: e["t"])] == [
        ("message", "planner", None, 135, 0.000027, "gpt-4o-mini"),
        ("tool_call", "planner", "lookup_docs", None, None, None),
        ("tool_result", "planner", "lookup_docs", None, None, None),
        ("spawn", "planner", "coder", None, None, None),
        ("message", "coder", None, 283, None, "gpt-4o-mini"),
        ("return", "coder", "planner", None, None, None),
    ]
    usage = [e["x_usage"] for e in trace["events"] if e["type"] == "message"]
    assert usage == [{"input": 120, "output": 15}, {"input": 250, "output": 33}]
    assert dict(result.skipped) == {"span: mlflow CHAIN": 1}
    assert trace["system"] == "MLflow"
    assert result.recognised["evidence"].startswith("span kinds read by MLflow span type (6)")


@pytest.mark.parametrize("usage, where, message", [
    ('"[1, 2]"', "attributes.mlflow.chat.tokenUsage", "must be a JSON object, found an array"),
    ('"{\\"input_tokens\\": -4}"', "attributes.mlflow.chat.tokenUsage.input_tokens", None),
])
def test_mlflow_usage_that_is_no_object_or_no_count_is_refused_naming_the_field(
        tmp_path, usage, where, message):
    text = (FOLDER / "mlflow_trace.json").read_text(encoding="utf-8")
    stated = '"{\\"input_tokens\\": 250, \\"output_tokens\\": 33, \\"total_tokens\\": 283}"'
    assert stated in text
    path = tmp_path / "mlflow.json"
    path.write_text(text.replace(stated, usage), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("otel", path)
    assert caught.value.where == "data.spans[5]"
    assert where in caught.value.message or where in str(caught.value)
    if message:
        assert message in caught.value.message


def test_otlp_json_lines_base64_ids_old_scope_key_and_an_exact_duplicate():
    result = import_file("otel", FOLDER / "otlp_collector.jsonl")
    trace = result.trace
    assert events(trace) == [
        ("00f067aa0ba902b3.return", 2.5, None, "return", "researcher", "lead", None, None, False),
        ("00f067aa0ba902b3.spawn", 0.7, None, "spawn", "lead", "researcher", None, None, False),
        ("00f067aa0ba902b4.call", 0.8, 1.4, "tool_call", "researcher", "search", None, None,
         False),
        ("00f067aa0ba902b4.result", 1.4, None, "tool_result", "researcher", "search", None,
         None, False),
        ("00f067aa0ba902b5", 1.5, 2.4, "message", "researcher", None, 75, 0.00125, True),
        ("00f067aa0ba902b7", 0.1, 0.6, "message", "lead", None, 120, None, False),  # old names
    ]
    assert dict(result.repairs) == {}
    assert result.skipped[DUPLICATE] == 1  # a record that gives no event, its usage not stated
    message = next(e for e in trace["events"] if e["id"] == "00f067aa0ba902b7")
    assert message["x_usage"] == {"input": 100, "output": 20}


def test_vercel_ai_sdk_spans_with_hrtime_and_ai_attributes():
    result = import_file("otel", FOLDER / "vercel_ai.json")
    assert events(result.trace) == [
        ("6e0c63257de34c93", 0.01, 1.0, "message", "next-app", None, 39, None, False),
        ("6e0c63257de34c94.call", 1.1, 1.9, "tool_call", "next-app", "weather", None, None,
         False),
        ("6e0c63257de34c94.result", 1.9, None, "tool_result", "next-app", "weather", None,
         None, False),
        ("6e0c63257de34c95", 2.0, 3.4, "message", "next-app", None, 52, None, False),
    ]
    assert dict(result.skipped) == {WRAPPER: 1}  # the outer ai.generateText: no double count
    assert result.trace["costs"]["tokens"] == 91


def test_mastra_json_lines_with_millisecond_times_and_a_sub_agent():
    trace = import_file("otel", FOLDER / "mastra.jsonl").trace
    spawn = next(e for e in trace["events"] if e["type"] == "spawn")
    assert (spawn["agent"], spawn["to"], spawn["t"]) == ("supervisor", "writer", 0.9)
    assert {e["agent"] for e in trace["events"]} == {"supervisor", "writer"}
    assert trace["costs"] == {"tokens": 154, "wall_clock_s": 4.0, "tool_calls": 1,
                              "messages": 3}


# ---------------------------------------------------------------------------------- repairs

def written(tmp_path, change) -> dict:
    document = copy.deepcopy(RAW)
    change(document)
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = import_file("otel", path)
    assert validate_document(result.trace).errors == []
    return result


def test_byte_identical_copies_are_dropped_and_counted(tmp_path):
    original = written(tmp_path, lambda d: None)

    def copies(document):  # the two parallel tool calls recorded three times each
        document["spans"] += [copy.deepcopy(document["spans"][k]) for k in (2, 3, 2, 3)]

    result = written(tmp_path, copies)
    assert dict(result.repairs) == {}
    assert result.skipped[DUPLICATE] == 4
    assert result.trace["provenance"]["records"] == {"unit": "span", "read": 9 + 4,
                                                     "mapped": 8, "skipped": 1 + 4}
    assert result.trace["provenance"]["usage"] == original.trace["provenance"]["usage"]
    assert events(result.trace) == events(original.trace)
    assert edges(result.trace) == edges(original.trace)


def test_orphans_become_roots_even_with_several_roots_or_none(tmp_path):
    original = written(tmp_path, lambda d: None)

    def two_roots(document):  # a second root, and a model call whose parent is missing
        document["spans"][4]["parent"]["span_id"] = None
        document["spans"][1]["parent"]["span_id"] = 99

    result = written(tmp_path, two_roots)
    assert result.repairs[ORPHAN] == 1
    by_id = {e["id"]: e for e in result.trace["events"]}
    assert by_id["0000000000000002"]["agent"] == "planner"  # inside planner's time
    assert "0000000000000005.spawn" not in by_id  # helper is now a top-level agent

    def no_root(document):
        document["spans"][0]["parent"]["span_id"] = 98

    result = written(tmp_path, no_root)
    assert dict(result.repairs) == {ORPHAN: 1}
    assert events(result.trace) == events(original.trace)


def test_a_span_that_is_its_own_parent_is_counted_not_lost(tmp_path):
    original = written(tmp_path, lambda d: None)
    result = written(tmp_path, lambda d: d["spans"][0]["parent"].update(span_id=1))
    assert dict(result.repairs) == {SELF_PARENT: 1}
    assert events(result.trace) == events(original.trace)


def test_a_cycle_of_parents_is_cut_at_its_earliest_span(tmp_path):
    original = written(tmp_path, lambda d: None)
    result = written(tmp_path, lambda d: d["spans"][0]["parent"].update(span_id=5))
    assert dict(result.repairs) == {CYCLE: 1}
    assert events(result.trace) == events(original.trace)


# ---------------------------------------------------------------------------------- errors

def otlp(spans=None, **resource) -> str:
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "x", "startTimeUnixNano": "1",
            "endTimeUnixNano": "2", "attributes": []}
    body = {"scopeSpans": [{"spans": [span] if spans is None else spans}], **resource}
    return json.dumps({"resourceSpans": [body]})


def any_agent(change) -> str:
    return changed_text(RAW, change)


@pytest.mark.parametrize("text, where, message", [
    ('{"spans": {"a": 1}}', "spans", "spans must be a list, found an object"),
    ('{"resourceSpans": {}}', "resourceSpans", "resources must be a list, found an object"),
    (otlp(spans={}), "resourceSpans[0].scopeSpans[0].spans", ("spans must be a list, found an "
     "object")),
    (otlp(resource={"attributes": {"service.name": "x"}}), "resourceSpans[0].resource.attributes",
     "attributes must be a list, found an object"),
    (otlp(spans=[{"traceId": "ab" * 16, "spanId": "cd" * 8, "startTimeUnixNano": "1",
                  "endTimeUnixNano": "2", "attributes": [{"value": {}}]}]),
     "resourceSpans[0].scopeSpans[0].spans[0].attributes[0]",
     "an attribute must be {key, value}, found an object"),
    (otlp(spans=[{"traceId": "ab" * 16, "spanId": "xyz", "startTimeUnixNano": "1",
                  "endTimeUnixNano": "2"}]), "resourceSpans[0].scopeSpans[0].spans[0]",
     "spanId 'xyz' is neither 16 hex digits nor base64 of 8 bytes"),
    (otlp(spans=[{"traceId": "ab" * 16, "spanId": "cd" * 8, "startTimeUnixNano": True,
                  "endTimeUnixNano": "2"}]), "resourceSpans[0].scopeSpans[0].spans[0]",
     "startTimeUnixNano must be an epoch number of 0 or more (or its digits), found true"),
    (any_agent(lambda d: d["spans"][1].update(attributes=["a"])), "spans[1].attributes",
     "must be an object (a JSON object), found an array"),
    (any_agent(lambda d: d["spans"][1].update(context="0x01")), "spans[1].context",
     "must be an object (a JSON object), found a string"),
    (any_agent(lambda d: d["spans"][1].update(status="ok")), "spans[1].status",
     "must be an object (a JSON object), found a string"),
    ('[{"traceId": "' + "ab" * 16 + '", "spanId": 7}]', "[0]",
     "spanId must be a hex string of up to 16 digits, found a number 7"),
    (('{"context": {"trace_id": "0x1", "span_id": "0x2"}, "start_time": "2025-02-30T00:00:00Z",'
     ' "end_time": "2025-03-01T00:00:00Z"}'), None,
     ('start_time must be an ISO 8601 time or an epoch number of 0 or more (or its digits), '
     'found the string "2025-02-30T00:00:00Z"')),
    ('{"spans": []}\n{"spans": [', "2:12", "not JSON: Expecting value" + TRUNCATED),
    ("[1]", "[0]", "must be a span (a JSON object), found a number"),
])
def test_wrong_types_are_errors_naming_the_place(tmp_path, text, where, message):
    assert_source_error("otel", tmp_path / "trace.json", text, where, message)


def test_base64_and_hex_ids_of_one_span_agree():
    hex_id = "00f067aa0ba902b4"
    assert base64.b64decode(base64.b64encode(bytes.fromhex(hex_id))).hex() == hex_id
    trace = import_file("otel", FOLDER / "otlp_collector.jsonl").trace
    assert f"{hex_id}.call" in {e["id"] for e in trace["events"]}


def test_the_javascript_console_exporter_writes_microseconds(tmp_path):
    """The JavaScript ConsoleSpanExporter prints ``timestamp`` and ``duration`` in
    microseconds (``hrTimeToMicroseconds``); read as milliseconds they put the run in the year
    56334, a date no datetime holds (an internal error before)."""
    spans = [{"traceId": "ab" * 16, "parentId": None, "name": "invoke_agent helper",
              "id": "0000000000000001", "kind": 0, "timestamp": 1_720_000_000_000_000,
              "duration": 2_000_000, "attributes": {"gen_ai.operation.name": "invoke_agent",
                                                    "gen_ai.agent.name": "helper"},
              "status": {"code": 0}},
             {"traceId": "ab" * 16, "parentId": "0000000000000001", "name": "chat",
              "id": "0000000000000002", "kind": 0, "timestamp": 1_720_000_000_250_000,
              "duration": 1_500_000.5, "attributes": {"gen_ai.operation.name": "chat"},
              "status": {"code": 0}}]
    path = tmp_path / "console.json"
    path.write_text(json.dumps(spans), encoding="utf-8")
    result = import_file("otel", path)
    assert result.time_origin == "2024-07-03T09:46:40.000000Z"
    call = result.trace["events"][0]
    assert (call["agent"], call["t"], call["t_end"]) == ("helper", 0.25, 1.7500005)
    spans[1]["timestamp"] *= 1000  # nanoseconds where microseconds belong
    path.write_text(json.dumps(spans), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("otel", path)
    assert str(caught.value) == (
        f"{path}:[1]: timestamp must be a time between 1970 and the year 9999 (it is past the "
        "year 9999 read as microseconds: is it in another unit?), found the number "
        "1720000000250000000")
