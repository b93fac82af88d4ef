"""The LangGraph importer on hand-written outputs of a graph: a supervisor's update stream
(handoffs, a subgraph namespace, a node that repeats history, an interrupt), a debug stream
(tasks and their results, a checkpoint, a task that never finished), a state history (newest
first, read oldest first through its writes) and a saved checkpoint of dumpd messages."""

from __future__ import annotations

import pytest
from importer_helpers import FIXTURES, assert_source_error

from masrl.traces import validate_document
from masrl.traces.importers import import_file
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "langgraph"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["type"], e["agent"], e.get("to") or e.get("tool"), e.get("decision"))
            for e in trace["events"]]


def test_a_supervisor_stream_hands_off_and_back():
    result = import_file("auto", FOLDER / "supervisor_updates.json")
    trace = result.trace
    assert (result.format, result.recognised["shape"]) == ("langgraph", "updates")
    assert shape(trace) == [
        ("g1.c0", "orchestrator_decision", "supervisor", "researcher", "delegate"),
        ("g3.c0", "tool_call", "researcher", "almanac", None),
        ("g4", "message", "user", None, None),  # the task, repeated in the worker's history
        ("g5", "tool_result", "researcher", "almanac", None),
        ("g6", "message", "researcher", None, None),
        ("g7.c0", "orchestrator_decision", "researcher", "supervisor", "delegate"),
        ("g9", "message", "supervisor", None, None),
    ]
    edges = [(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]]
    assert ("g1.c0", "g3.c0", "message", "handoff") in edges
    assert ("g7.c0", "g9", "message", "handoff") in edges
    assert result.skipped == {
        "transfer acknowledgement: the tool message answering a handoff": 2,
        "message read before: the node repeats history": 1,
        "interrupt: the graph waits for a human": 1,
        "update without a turn (interrupts or empty updates)": 1}
    # the repeated AI message is read once: its tokens are counted once
    assert (figures(trace)["tokens_in"], figures(trace)["tokens_out"]) == (1190, 49)
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_a_debug_stream_times_each_node_from_its_task_to_its_result():
    result = import_file("auto", FOLDER / "debug_stream.jsonl")
    trace = result.trace
    assert shape(trace) == [("g1", "message", "planner", None, None),
                            ("g2", "message", "scale", None, None)]
    planner, scale = trace["events"]
    assert (planner["t"], planner["t_end"], scale["t"], scale["t_end"]) == (0.1, 2.6, 2.7, 3.2)
    # the run lasts until the scale's result (09:00:03.2), not until its task began (2.7)
    assert trace["costs"]["wall_clock_s"] == 3.2
    assert planner["x_usage"] == {"input": 150, "output": 20}
    assert result.time_origin == "2026-02-01T09:00:00.000000Z"
    assert trace["provenance"]["records"] == {"unit": "chunk", "read": 6, "mapped": 4,
                                              "skipped": 2}
    assert result.skipped == {"checkpoint: the state after a step (repeats the writes)": 1,
                              "task without a result: the node did not finish": 1}


def test_a_debug_stream_of_subgraphs_reads_writes_given_as_an_object():
    """LangGraph 1.x gives a task's writes as {channel: value}, and subgraphs=True streams
    [namespace, record] pairs: the inner node's messages count once, the outer repeat not."""
    result = import_file("auto", FOLDER / "debug_subgraphs.json")
    trace = result.trace
    assert result.recognised["shape"] == "debug"
    assert shape(trace) == [("g1.c0", "orchestrator_decision", "coordinator", "analyst",
                             "delegate"),
                            ("g3.c0", "tool_call", "analyst", "abacus", None),
                            ("g4", "tool_result", "analyst", "abacus", None),
                            ("g5", "message", "coordinator", None, None)]
    call = trace["events"][1]
    assert (call["t"], call["t_end"], call["x_usage"]) == (1.2, 2.0, {"input": 90,
                                                                      "output": 11})
    assert trace["costs"]["tokens"] == 76 + 101 + 128
    assert result.skipped["message read before: the node repeats history"] == 2
    assert conservation_problems(trace) == []


def test_auto_reads_json_lines_of_namespace_record_pairs():
    """With subgraphs=True each streamed line is a [namespace, chunk] array, no object: auto
    recognises the stream (the sample keeps array lines) and the worker's inner nodes speak
    by their messages' names."""
    result = import_file("auto", FOLDER / "updates_subgraphs.jsonl")
    assert (result.format, result.recognised["shape"]) == ("langgraph", "updates")
    assert shape(result.trace) == [
        ("g1.c0", "orchestrator_decision", "coordinator", "surveyor", "delegate"),
        ("g3.c0", "tool_call", "surveyor", "measure", None),
        ("g4", "tool_result", "surveyor", "measure", None),
        ("g5", "message", "surveyor", None, None),
        ("g6", "message", "coordinator", None, None)]
    assert result.trace["costs"]["tokens"] == 71 + 61 + 90 + 116  # m-s3 repeated: once
    assert conservation_problems(result.trace) == []


def test_a_state_history_is_read_oldest_first_through_its_writes():
    result = import_file("auto", FOLDER / "state_history.json")
    trace = result.trace
    assert shape(trace) == [("g1", "message", "user", None, None),
                            ("g2.c0", "tool_call", "agent", "weather", None),
                            ("g3", "tool_result", "agent", "weather", None)]
    assert [e["t"] for e in trace["events"]] == [0.1, 2.1, 3.6]
    assert result.skipped == {
        "snapshot without writes (the start, or a step that wrote nothing)": 1}


def test_a_checkpoint_is_read_through_its_messages():
    result = import_file("auto", FOLDER / "checkpoint.json")
    assert result.recognised["shape"] == "checkpoint"
    assert shape(result.trace) == [("g1", "message", "user", None, None),
                                   ("g2", "message", "assistant", None, None)]
    assert figures(result.trace)["model_calls"] == 1


@pytest.mark.parametrize("text, where, message", [
    ('[{"agent": {"messages": [3]}}]', "[0].agent.messages[0]",
     "a message must be an object, found a number"),
    ('{"type": "task_result", "timestamp": "later", "step": 1, "payload": {}}', None,
     'timestamp must be an ISO 8601 time with a UTC offset, found the string "later"'),
    ('[{"alpha": 1}]', None, "expected LangGraph update chunks ({node: {messages}}), debug "
     "records ({type, step, payload}), state snapshots ({values, next, metadata}) or a "
     "checkpoint ({channel_values})"),
])
def test_bad_streams_are_errors_that_name_the_place(tmp_path, text, where, message):
    assert_source_error("langgraph", tmp_path / "g.json", text, where, message)
