"""The ATIF exporter: every example trace becomes a trajectory the atif models accept, the same
bytes twice, and comes back through the importer with its agents, events, tokens and costs;
what does not survive is stated (and measured) here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from atif import Trajectory

from masrl import paths
from masrl.traces import InvalidTraceError, resources, validate_document
from masrl.traces.exporters import EXPORTERS, atif
from masrl.traces.importers import dumps, import_file

EXAMPLES = sorted(resources.EXAMPLES.glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def round_trip(document: dict, tmp_path: Path) -> dict:
    target = tmp_path / "trajectory.json"
    target.write_text(json.dumps(atif.export(document)), encoding="utf-8")
    return import_file("atif", target).trace


def plain(event: dict) -> str:
    return json.dumps({k: v for k, v in event.items() if not k.startswith("x_")},
                      sort_keys=True)


def steps(trajectory: dict) -> int:
    return len(trajectory["steps"]) + sum(steps(s) for s in
                                          trajectory.get("subagent_trajectories", []))


def test_registered():
    assert EXPORTERS["atif"] is atif


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_export_is_a_valid_deterministic_trajectory(path):
    document = load(path)
    out = atif.export(document)
    assert Trajectory.model_validate(out).to_json_dict() == out
    assert json.dumps(atif.export(load(path))) == json.dumps(out)
    assert out["schema_version"] == "ATIF-v1.8"
    # one step per event, except tool results and returns carried by their call or spawn
    carried = sum(len(s.get("observation", {}).get("results", [])) for s in iter_steps(out)
                  if s["source"] == "agent")
    assert steps(out) + carried - spawns_without_return(document) == len(document["events"])


def iter_steps(trajectory: dict):
    yield from trajectory["steps"]
    for sub in trajectory.get("subagent_trajectories", []):
        yield from iter_steps(sub)


def spawns_without_return(document: dict) -> int:
    """Spawn steps whose observation references the sub-agent but carries no return."""
    out = atif.export(document)
    return sum(1 for s in iter_steps(out) for r in s.get("observation", {}).get("results", [])
               if "subagent_trajectory_ref" in r and "extra" not in r)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_round_trip_keeps_agents_events_tokens_and_costs(path, tmp_path):
    document = load(path)
    back = round_trip(document, tmp_path)
    assert validate_document(back).problems == []
    assert sorted(map(plain, back["events"])) == sorted(map(plain, document["events"]))
    assert {e["agent"] for e in back["events"]} == {e["agent"] for e in document["events"]}
    assert Counter(e["type"] for e in back["events"]) == Counter(
        e["type"] for e in document["events"])
    assert sum(e.get("tokens", 0) for e in back["events"]) == sum(
        e.get("tokens", 0) for e in document["events"])
    assert (back["costs"], back["rewards"], back["topology"], back["trace_id"]) == (
        document["costs"], document["rewards"], document["topology"], document["trace_id"])


EDGES_KEPT = {  # example -> (edges, rebuilt edges, edges in both)
    "centralized": (21, 20, 12), "debate": (25, 17, 7), "harness": (18, 18, 18),
    "hierarchical": (29, 26, 23), "planner_executor_critic": (26, 22, 17), "swarm": (43, 38, 33),
}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_round_trip_rebuilds_the_edges(path, tmp_path):
    """What does not survive: the edges. ATIF has no dependency graph, so the importer rebuilds
    one from the order of steps; every spawn, tool call and return keeps an edge to what it
    starts or answers, but edges between agents that are not spawner and spawned are lost."""
    document = load(path)
    back = round_trip(document, tmp_path)
    kinds = {e["type"] for e in back["edges"]}
    assert kinds <= {"spawn", "tool_dependency", "return", "causal", "message"}
    original = {(e["src"], e["dst"]) for e in document["edges"]}
    rebuilt = {(e["src"], e["dst"]) for e in back["edges"]}
    assert (len(original), len(rebuilt), len(original & rebuilt)) == EDGES_KEPT[path.stem]
    answered = {(e["src"], e["dst"]) for e in document["edges"]
                if e["type"] == "tool_dependency"}
    assert answered <= rebuilt


def test_native_reading_without_our_extras(tmp_path):
    """An ATIF reader that ignores extra.masrl sees the agents, the tool calls and their
    results, the spawns and returns; other event types read as messages."""
    document = load(resources.EXAMPLES / "centralized.json")
    out = atif.export(document)

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "extra" or "masrl" not in v}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    target = tmp_path / "t.json"
    target.write_text(json.dumps(strip(out)), encoding="utf-8")
    back = import_file("atif", target).trace
    assert validate_document(back).problems == []
    types = Counter(e["type"] for e in back["events"])
    assert types["tool_call"] == 4 and types["spawn"] == 3 and types["return"] == 3
    assert "orchestrator_decision" not in types and "aggregate" not in types
    assert sum(e.get("tokens", 0) for e in back["events"]) == sum(
        e.get("tokens", 0) for e in document["events"] if e["type"] not in ("tool_result",
                                                                            "return"))


def test_invalid_trace_is_refused():
    document = load(EXAMPLES[0])
    document["edges"].append({"src": "nope", "dst": "nada", "type": "causal"})
    with pytest.raises(InvalidTraceError):
        atif.export(document)


def test_imported_claude_code_session_exports(tmp_path):
    trace = import_file("claude-code", paths.REPO_ROOT / "tests" / "fixtures" / "importers"
                        / "claude_code" / "s1.jsonl").trace
    out = atif.export(trace)
    Trajectory.model_validate(out)
    assert [s["trajectory_id"] for s in out["subagent_trajectories"]] == [
        "agent-b1", "agent-acompact-c1"]
    assert dumps(round_trip(trace, tmp_path)["costs"]) == dumps(trace["costs"])
