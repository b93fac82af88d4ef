"""Reconstruction of the run: agents, their spawns, ends, roles and depths; the result object."""

from __future__ import annotations

import json

import pytest
from trace_helpers import FIXTURES, event

from masrl.traces import InvalidTraceError, load_trace, replay, resources
from masrl.traces.validate import validate_document

EXAMPLES = resources.EXAMPLES


def test_agents_of_the_small_trace():
    run = replay(load_trace(FIXTURES / "small.json")).run
    assert list(run.agents) == ["root", "a", "search", "b"]  # order of first appearance
    a = run.agents["a"]
    assert (a.parent, a.depth, a.role, a.spawn_event, a.spawned_at, a.ended_at) == (
        "root", 1, "worker", "e2", 1.0, 5.0)
    root = run.agents["root"]
    assert (root.parent, root.depth, root.role, root.children) == (None, 0, "lead", ["a", "b"])
    assert run.subtree("root") == ["root", "a", "b"]
    assert run.trace_end == 8.0


def test_timeline_orders_by_time_then_file_order():
    run = replay(load_trace(FIXTURES / "small.json")).run
    assert [run.trace.events.ids[i] for i in run.timeline] == [
        "e1", "e2", "e3", "e4", "e6", "e5", "e7", "e8", "e9"]


def test_role_comes_from_the_spawn_else_from_the_agent_own_events(small):
    small["events"][1].pop("role")
    small["events"][3]["role"] = "searcher"
    report = validate_document(small)
    assert replay(report.trace).run.agents["a"].role == "searcher"


def test_first_spawn_counts_and_spawned_agents_without_events_are_listed(small):
    small["events"].append(event("again", 7.5, "spawn", "b", to="a"))
    small["events"].append(event("ghost", 7.6, "spawn", "root", to="idle"))
    small["edges"] += [{"src": "e9", "dst": "ghost", "type": "spawn"}]
    run = replay(validate_document(small).trace).run
    assert run.agents["a"].parent == "root"
    assert run.agents["idle"].parent == "root" and run.agents["idle"].ended_at is None


def test_to_dict_has_the_documented_keys():
    result = replay(load_trace(FIXTURES / "small.json")).to_dict()
    assert list(result) == [
        "trace_id", "task_id", "topology", "schema_version", "clock", "events", "edges",
        "event_types", "decisions", "edge_types", "edge_modes", "tool_calls", "messages",
        "critical_steps", "critical_path", "parallelism", "spawn_depth", "spawn_tree",
        "max_concurrency", "wall_clock", "busy_time", "speedup", "tokens", "cost_usd",
        "cost_usd_estimated", "credit", "not_recorded"]
    json.dumps(result, allow_nan=False)


def test_load_trace_refuses_an_invalid_trace(write_trace, small):
    small["edges"].append({"src": "e9", "dst": "e1", "type": "causal"})
    with pytest.raises(InvalidTraceError) as caught:
        load_trace(write_trace(small))
    assert [p.code for p in caught.value.report.errors] == ["time-order", "cycle"]
    assert "time-order" not in str(caught.value) and "starts before source" in str(caught.value)


@pytest.mark.parametrize(("name", "depth", "concurrency", "steps"), [
    ("centralized", 1, 2, 14), ("planner_executor_critic", 1, 3, 19), ("debate", 1, 4, 9),
    ("swarm", 1, 6, 9), ("hierarchical", 2, 6, 11), ("harness", 1, 1, 19)])
def test_examples_show_their_topology(name, depth, concurrency, steps):
    m = replay(load_trace(EXAMPLES / f"{name}.json")).metrics
    assert (m["spawn_depth"], m["max_concurrency"], m["critical_steps"]) == (
        depth, concurrency, steps)


ADDED_KEYS = {"clock", "cost_usd_estimated", "not_recorded"}  # issue 26; CHANGELOG 0.2.0
# an agent none of whose events records tokens (a dollar cost) has a null figure, not 0
PER_AGENT_NULLS = ("tokens", "cost_usd")


@pytest.mark.parametrize("name", ["centralized", "planner_executor_critic", "debate", "swarm",
                                  "hierarchical", "harness"])
def test_the_examples_replay_as_before_but_for_the_added_keys(name, capsys):
    """``masrl replay --json`` on each example is what 0.2.0 printed before unknown figures
    became null (``fixtures/traces/replay_examples``), with three keys more: nothing the
    examples record was dropped, changed or nulled."""
    from masrl.commands import main

    assert main(["replay", str(EXAMPLES / f"{name}.json"), "--json"]) == 0
    now = json.loads(capsys.readouterr().out)
    before = json.loads((FIXTURES / "replay_examples" / f"{name}.json").read_text())
    assert set(now) - set(before) == ADDED_KEYS and not set(before) - set(now)
    assert isinstance(now["cost_usd"].pop("model_calls_without_cost"), int)  # a key added
    for key in PER_AGENT_NULLS:  # only a zero that no event recorded became null
        for name, value in now[key]["per_agent"].items():
            if value is None:
                assert before[key]["per_agent"][name] == 0.0, (key, name)
                assert f"{key}.per_agent.{name}" in now["not_recorded"]
                before[key]["per_agent"][name] = None
    assert {key: now[key] for key in before} == before
    assert now["clock"] == "seconds"
