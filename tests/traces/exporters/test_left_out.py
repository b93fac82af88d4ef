"""What ``masrl export`` says a format leaves out (``exporters.left_out`` and each exporter's
``LEFT_OUT``), counted on the trace at hand."""

from __future__ import annotations

import json

from masrl.traces import resources
from masrl.traces.exporters import EXPORTERS
from masrl.traces.exporters.left_out import said

SWARM = json.loads((resources.EXAMPLES / "swarm.json").read_text(encoding="utf-8"))


def test_atif_names_edges_x_fields_and_the_run_members_it_has_no_place_for():
    document = json.loads(json.dumps(SWARM))
    assert said(EXPORTERS["atif"].LEFT_OUT, document) == [
        "43 edges (ATIF has no dependency graph: an import rebuilds edges from the order of "
        "steps)"]
    document["events"][0]["x_source"] = "log.jsonl:1"
    document["events"][1]["x_model"] = "m"
    document["provenance"] = {"format": "codex"}
    document["labels"] = []  # empty: nothing left out
    document["edges"] = document["edges"][:1]
    assert said(EXPORTERS["atif"].LEFT_OUT, document) == [
        "1 edge (ATIF has no dependency graph: an import rebuilds edges from the order of "
        "steps)", "the x_ fields of 2 events", "the trace's provenance"]


def test_otlp_counts_what_its_spans_cannot_hold():
    document = json.loads(json.dumps(SWARM))
    tools = ({e["agent"] for e in document["events"] if e["type"] == "tool_result"}
             - {e["agent"] for e in document["events"] if e["type"] != "tool_result"})
    hashed = sum("content_ref" in e for e in document["events"])
    phrases = said(EXPORTERS["otlp"].LEFT_OUT, document)
    assert phrases[0] == f"{len(tools)} tool names (a tool's result is written on its call's span)"
    assert f"the ids of {len(document['events'])} events (span ids stand for them)" in phrases
    assert f"the content hashes of {hashed} events" in phrases
    assert phrases[-1] == "the trace's costs, rewards"
    for event in document["events"]:
        event["x_usage"] = {"input": 1, "output": 1}  # written as span attributes: kept
    assert not any("x_ fields" in p for p in said(EXPORTERS["otlp"].LEFT_OUT, document))


def test_every_exporter_declares_what_it_leaves_out():
    for name, module in EXPORTERS.items():
        assert module.LEFT_OUT and all(callable(part) for part in module.LEFT_OUT), name
