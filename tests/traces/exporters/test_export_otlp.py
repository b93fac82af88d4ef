"""The OTLP JSON exporter: deterministic output, GenAI spans, and the round trip through the otel
importer on every example trace (agents, event types and counts, token and cost totals)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from masrl.traces import resources, validate_document
from masrl.traces.exporters import EXPORTERS, otlp
from masrl.traces.importers import import_file

EXAMPLES = sorted(resources.EXAMPLES.glob("*.json"))


def load(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def spans_of(exported: dict) -> list[dict]:
    return [s for r in exported["resourceSpans"] for sc in r["scopeSpans"] for s in sc["spans"]]


def attributes(span: dict) -> dict:
    return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}


def test_registry_names_the_exporter():
    assert EXPORTERS["otlp"] is otlp


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_export_is_deterministic_and_ids_come_from_hashes(path):
    document = load(path)
    first, second = otlp.export(document), otlp.export(load(path))
    assert json.dumps(first) == json.dumps(second)
    spans = spans_of(first)
    assert len({s["spanId"] for s in spans}) == len(spans)
    assert all(len(s["spanId"]) == 16 and len(s["traceId"]) == 32 for s in spans)
    renamed = dict(document, trace_id=document["trace_id"] + "-other")
    assert {s["spanId"] for s in spans_of(otlp.export(renamed))}.isdisjoint(
        {s["spanId"] for s in spans})


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_round_trip_keeps_agents_event_types_counts_tokens_and_cost(path, tmp_path):
    document = load(path)
    out = tmp_path / "otlp.json"
    out.write_text(json.dumps(otlp.export(document)), encoding="utf-8")
    result = import_file("otel", out)
    back = result.trace
    assert validate_document(back).errors == []
    events = document["events"]
    tools = {e["agent"] for e in events if e["type"] == "tool_result"} - {
        e["agent"] for e in events if e["type"] != "tool_result"}
    assert {e["agent"] for e in back["events"]} == {e["agent"] for e in events} - tools
    assert Counter(e["type"] for e in back["events"]) == Counter(e["type"] for e in events)
    assert back["costs"]["tokens"] == sum(e.get("tokens", 0) for e in events)
    assert back["costs"]["usd"] == pytest.approx(sum(e.get("cost_usd", 0) for e in events))
    assert back["costs"]["wall_clock_s"] == pytest.approx(document["costs"]["wall_clock_s"])
    assert back["system"] == document["system"]
    assert dict(result.skipped) == {}


def test_spawned_agents_nest_in_their_spawner_and_tools_are_execute_tool_spans():
    document = load(resources.example("hierarchical"))
    spans = spans_of(otlp.export(document))
    by_agent = {attributes(s).get("gen_ai.agent.name"): s for s in spans
                if attributes(s).get("gen_ai.operation.name") == "invoke_agent"}
    assert by_agent["analyst_finance_1"]["parentSpanId"] == by_agent["lead_finance"]["spanId"]
    assert by_agent["lead_finance"]["parentSpanId"] == by_agent["director"]["spanId"]
    assert by_agent["director"]["parentSpanId"] == ""
    tools = [s for s in spans if attributes(s).get("gen_ai.operation.name") == "execute_tool"]
    assert len(tools) == 4 and all(attributes(s).get("gen_ai.tool.name") for s in tools)


def test_events_without_a_genai_span_carry_their_type():
    document = load(resources.example("harness"))
    kinds = Counter(attributes(s).get("masrl.event.type") for s in spans_of(otlp.export(document)))
    assert kinds["human_intervention"] == 2 and kinds["safety_event"] == 1
    assert kinds["orchestrator_decision"] == 2
