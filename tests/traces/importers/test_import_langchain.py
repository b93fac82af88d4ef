"""The LangChain importer on hand-written records: a run tree of a two-node graph (usage in
the three places runs keep it, overlapping tool runs, glue runs and an unknown run type), flat
LangSmith runs of two traces (two trace files, never merged) and astream_events records; a
supervisor's worker subgraph, named by the worker in both."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from importer_helpers import FIXTURES, assert_source_error

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file, import_traces
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "langchain"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["type"], e["agent"], e.get("tool"), e["t"], e.get("t_end"))
            for e in trace["events"]]


def test_a_run_tree_gives_each_node_its_model_and_tool_runs():
    result = import_file("auto", FOLDER / "run_tree.json")
    trace = result.trace
    assert shape(trace) == [
        ("r3", "message", "planner", None, 0.2, 1.9),
        ("r5", "message", "researcher", None, 2.2, 3.0),
        ("r6.c", "tool_call", "researcher", "timetable", 3.1, 4.0),  # until its result
        ("r7.c", "tool_call", "researcher", "fares", 3.15, 5.5),
        ("r6.r", "tool_result", "researcher", "timetable", 4.0, None),
        ("r7.r", "tool_result", "researcher", "fares", 5.5, None),
        ("r8", "message", "researcher", None, 5.6, 8.8),
    ]
    by_id = {e["id"]: e for e in trace["events"]}
    # usage from the run's own counts, the generated message, and llm_output
    assert [by_id[i]["x_usage"] for i in ("r3", "r5", "r8")] == [
        {"input": 400, "output": 30}, {"input": 520, "output": 25}, {"input": 610, "output": 12}]
    assert by_id["r3"]["cost_usd"] == 0.0021 and by_id["r3"]["x_model"] == "invented-model"
    assert by_id["r7.r"]["x_error"] is True
    edges = [(e["src"], e["dst"], e["type"]) for e in trace["edges"]]
    # the overlapping tool runs were issued together: both wait on the model call
    assert ("r5", "r6.c", "causal") in edges and ("r5", "r7.c", "causal") in edges
    assert result.skipped == {"chain run: structure, its children carry the turns": 3,
                              "prompt run: formatting, not a turn": 1,
                              "unknown record type: invented_kind": 1}
    assert result.time_origin == "2026-05-01T10:00:00.000000Z"  # a time without offset is UTC
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_runs_of_two_traces_give_two_traces():
    results = import_traces("auto", FOLDER / "runs_two_traces.jsonl")
    assert [r.trace["trace_id"] for r in results] == ["langchain:runs_two_traces:a1",
                                                      "langchain:runs_two_traces:b1"]
    assert [figures(r.trace)["tokens_in"] for r in results] == [50, 80]
    assert figures(results[1].trace)["tool_calls"] == 1  # run_type written TOOL (API v2)
    with pytest.raises(SourceError, match="holds 2 traces"):
        import_file("langchain", FOLDER / "runs_two_traces.jsonl")


def test_callback_events():
    result = import_file("auto", FOLDER / "astream_events.json")
    trace = result.trace
    assert [(e["type"], e["agent"], e.get("tool")) for e in trace["events"]] == [
        ("message", "agent", None), ("tool_call", "tools", "add"),
        ("tool_result", "tools", "add"), ("message", "agent", None)]
    assert figures(trace)["model_calls"] == 2
    assert (figures(trace)["tokens_in"], figures(trace)["tokens_out"]) == (165, 21)
    # the model's start is carried by its end; chunks, chains and custom events are counted
    assert trace["provenance"]["records"] == {"unit": "callback event", "read": 9,
                                              "mapped": 5, "skipped": 4}
    assert conservation_problems(trace) == []


def test_callback_events_of_a_worker_subgraph_name_the_worker_not_its_inner_nodes():
    """Under a supervisor, a worker built as a graph (a ReAct agent) runs its model in a node
    "agent" and its tools in "tools": the worker is the enclosing graph's node, which
    langgraph_checkpoint_ns names before the inner node (or checkpoint_ns alone names)."""
    result = import_file("auto", FOLDER / "supervisor_worker_events.json")
    assert [(e["type"], e["agent"], e.get("tool")) for e in result.trace["events"]] == [
        ("message", "planner", None),
        ("message", "scout", None), ("tool_call", "scout", "atlas"),
        ("tool_result", "scout", "atlas"),
        ("message", "scout", None),  # checkpoint_ns only: "scout:ns-s1" around node "agent"
        ("message", "planner", None)]  # checkpoint_ns only: the node's own, at the top
    assert conservation_problems(result.trace) == []


def test_runs_of_a_worker_subgraph_name_the_worker_not_its_inner_nodes():
    """The same rule for traced runs (a LangChain tracer's or LangSmith's): the runs of the
    worker's inner "agent" and "tools" nodes belong to the worker "scout"."""
    result = import_file("auto", FOLDER / "runs_worker_subgraph.jsonl")
    assert [(e["type"], e["agent"], e.get("tool")) for e in result.trace["events"]] == [
        ("message", "planner", None), ("message", "scout", None),
        ("tool_call", "scout", "atlas"), ("tool_result", "scout", "atlas"),
        ("message", "scout", None)]
    assert conservation_problems(result.trace) == []


def test_a_bad_time_names_the_run(tmp_path):
    assert_source_error("langchain", tmp_path / "r.json",
                        '[{"id": "x", "run_type": "llm", "start_time": "soon"}]',
                        "[0]", 'start_time must be an ISO 8601 time, found the string "soon"')


class _CountingRuns(dict):
    """``by_id`` that counts the parent look-ups made through it."""

    lookups = 0

    def get(self, key, default=None):
        self.lookups += 1
        return super().get(key, default)


def _naive_agent(run: dict, by_id: dict, root_name: str) -> str:
    """The agent rule walked from each run to the top, with no memory: the reference."""
    seen = set()
    while isinstance(run, dict):
        for holder in ((run.get("extra") or {}).get("metadata"), run.get("metadata")):
            if isinstance(holder, dict) and isinstance(holder.get("langgraph_node"), str):
                return holder["langgraph_node"]
        parent = run.get("parent_run_id")
        if not isinstance(parent, str) or parent in seen:
            break
        seen.add(parent)
        run = by_id.get(parent)
    return root_name


def test_a_deep_run_tree_walks_each_parent_once():
    """Each run's agent is looked up its parents; the answers of one trace are kept, so a
    chain of 400 runs costs about 400 look-ups, not 80,000 (quadratic in the depth)."""
    from masrl.traces.importers.turns.langchain import _agent

    runs = [{"id": f"d{i}", "parent_run_id": f"d{i - 1}" if i else None} for i in range(400)]
    by_id = _CountingRuns((run["id"], run) for run in runs)
    known: dict = {}
    assert [_agent(run, by_id, "root", known) for run in runs] == ["root"] * 400
    assert by_id.lookups <= 2 * len(runs)


@given(st.lists(st.tuples(st.integers(-1, 11), st.sampled_from([None, "n1", "n2"])),
                min_size=1, max_size=12), st.permutations(range(12)))
def test_the_kept_agents_equal_a_walk_from_each_run(links, order):
    """Forests, chains, cycles and self-parents, with nodes named anywhere: the agents found
    with the trace's memory, in any order, are those of a walk from each run."""
    from masrl.traces.importers.turns.langchain import _agent

    runs = [{"id": f"r{i}", "parent_run_id": f"r{parent}" if parent >= 0 else None,
             **({"metadata": {"langgraph_node": node}} if node else {})}
            for i, (parent, node) in enumerate(links)]
    by_id = {run["id"]: run for run in runs}
    known: dict = {}
    for k in (k for k in order if k < len(runs)):
        assert _agent(runs[k], by_id, "root", known) == _naive_agent(runs[k], by_id, "root")
