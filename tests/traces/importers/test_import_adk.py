"""The Google ADK importer on hand-written sessions and events: a camelCase session with a
transfer between agents and parallel function calls, snake_case JSON Lines with a partial
event and code execution, and a listing of two sessions (two traces)."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES, assert_source_error

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file, import_traces
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "adk"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["type"], e["agent"], e.get("to") or e.get("tool"), e.get("decision"))
            for e in trace["events"]]


def edges(trace: dict) -> list[tuple]:
    return [(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]]


def test_a_session_with_a_transfer_and_parallel_calls():
    result = import_file("adk", FOLDER / "session_transfer.json")
    trace = result.trace
    assert shape(trace) == [
        ("a0.0", "message", "user", None, None),
        ("a1.1", "orchestrator_decision", "coordinator", "rail_agent", "delegate"),
        ("a3.0", "tool_call", "rail_agent", "timetable", None),
        ("a3.1", "tool_call", "rail_agent", "fares", None),
        ("a4.0", "tool_result", "rail_agent", "fares", None),
        ("a4.1", "tool_result", "rail_agent", "timetable", None),
        ("a6.0", "message", "rail_agent", None, None),
    ]
    assert edges(trace) == [
        ("a0.0", "a1.1", "temporal", None),
        ("a1.1", "a3.0", "message", "handoff"), ("a1.1", "a3.1", "message", "handoff"),
        ("a3.1", "a4.0", "tool_dependency", "blocking"),
        ("a3.0", "a4.1", "tool_dependency", "blocking"),
        ("a4.0", "a6.0", "causal", None), ("a4.1", "a6.0", "causal", None)]
    assert result.skipped == {
        "thought part: reasoning text of a model call": 1,
        "transfer acknowledgement: the response to transfer_to_agent": 1,
        "actions only: a state or artifact update, no turn": 1}
    # the transfer's response event is carried by the call's decision: mapped, not skipped
    assert trace["provenance"]["records"] == {"unit": "event", "read": 7, "mapped": 6,
                                              "skipped": 1}
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id["a1.1"]["x_usage"] == {"input": 600, "output": 49, "reasoning_output": 40}
    assert by_id["a3.1"]["x_usage"] == {"input": 700, "output": 20, "cached_input": 512}
    assert by_id["a3.1"]["x_model_call"] == "ev-04"
    assert [by_id[i]["t"] for i in ("a0.0", "a1.1", "a6.0")] == [0.0, 1.25, 4.625]
    assert result.time_origin == "2025-10-09T08:53:20.250000Z"
    assert (trace["system"], result.recognised["shape"], result.recognised["keys"]) == (
        "Google ADK (travel_desk)", "session", "camelCase")
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_snake_case_lines_with_a_partial_event_and_code_execution():
    result = import_file("auto", FOLDER / "run_events_snake.jsonl")
    trace = result.trace
    assert (result.format, result.recognised["keys"]) == ("adk", "snake_case")
    assert shape(trace) == [("a0.0", "message", "user", None, None),
                            ("a2.0", "tool_call", "calculator", "code_execution", None),
                            ("a3.0", "tool_result", "calculator", "code_execution", None),
                            ("a4.0", "message", "calculator", None, None)]
    assert ("a2.0", "a3.0", "tool_dependency", "blocking") in edges(trace)
    assert trace["events"][-1]["x_escalate"] is True
    # the partial event's usage is stated and counted as skipped; its whole event follows
    usage = trace["provenance"]["usage"]
    assert (usage["source"]["tokens_in"], usage["skipped"]["tokens_in"]) == (300, 90)
    assert figures(trace)["model_calls"] == 2  # the code's result is not the model's
    assert result.skipped["unknown record type: an event without author"] == 1


def test_a_listing_of_sessions_gives_one_trace_each():
    results = import_traces("auto", FOLDER / "sessions_listing.json")
    assert [r.trace["trace_id"] for r in results] == [
        "adk:sessions_listing:s-a", "adk:sessions_listing:s-b"]
    assert [figures(r.trace)["tokens_in"] for r in results] == [30, 31]
    with pytest.raises(SourceError, match="holds 2 sessions"):
        import_file("adk", FOLDER / "sessions_listing.json")


@pytest.mark.parametrize("change, where, message", [
    (lambda d: d["events"][1].__setitem__("content", "text"), "events[1].content",
     "must be an object {role, parts}, found a string"),
    (lambda d: d["events"][1]["content"].__setitem__("parts", {"text": "x"}),
     "events[1].content.parts", "must be a list of parts (objects), found an object"),
    (lambda d: d["events"][2].__setitem__("timestamp", "noon"), "events[2]",
     'timestamp must be an ISO 8601 time or an epoch number of 0 or more (or its digits), '
     'found the string "noon"'),
    (lambda d: d.__setitem__("events", {}), "events", "must be a list of events, found an "
     "object"),
])
def test_bad_sessions_are_errors_that_name_the_place(tmp_path, change, where, message):
    document = json.loads((FOLDER / "session_transfer.json").read_text(encoding="utf-8"))
    change(document)
    assert_source_error("adk", tmp_path / "s.json", json.dumps(document), where, message)


def test_a_run_sse_stream_is_read_as_its_events():
    """The ``/run_sse`` answer itself (``data: {...}`` between blank lines), not only its
    payloads copied one a line."""
    result = import_file("auto", FOLDER / "run_sse.txt")
    assert (result.format, result.recognised["shape"]) == ("adk", "event-stream")
    found = figures(result.trace)
    assert (found["agents"], found["tool_calls"], found["model_calls"], found["tokens_in"],
            found["tokens_out"]) == (1, 1, 2, 310 + 340, 7 + 9 + 4)  # thoughts are output
    assert result.trace["provenance"]["records"] == {"unit": "event", "read": 3, "mapped": 3,
                                                     "skipped": 0}
    assert validate_document(result.trace).errors == []
    assert conservation_problems(result.trace) == []


def test_a_session_as_adk_saves_it_is_read():
    """``{id, context, events}`` with snake_case events: recognised, its app from the context,
    the model's name and usage on each model call, a tool call lasting until its response."""
    path = FOLDER / "saved_session.json"
    result = import_file("auto", path)
    trace = result.trace
    assert result.detected == "an ADK session as ADK saves it: an id and events with authors"
    assert trace["system"] == "Google ADK (quill_helpdesk)"
    assert trace["task_id"] == "b6d0c1e2-7a3f-4c55-9e10-0000000000a1"
    assert shape(trace) == [
        ("a0.0", "message", "user", None, None),
        ("a1.0", "orchestrator_decision", "helpdesk", "refunds", "delegate"),
        ("a3.0", "tool_call", "refunds", "lookup_order", None),
        ("a4.0", "tool_result", "refunds", "lookup_order", None),
        ("a5.0", "message", "refunds", None, None)]
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id["a3.0"]["t_end"] == by_id["a4.0"]["t"] == 3.275
    assert by_id["a5.0"]["x_model"] == "gemini-invented-1"
    assert by_id["a5.0"]["x_usage"] == {"input": 470, "output": 21}
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_counts_written_as_text_are_read_and_counted(tmp_path):
    document = json.loads((FOLDER / "saved_session.json").read_text(encoding="utf-8"))
    document["events"][5]["usage_metadata"]["prompt_token_count"] = "470"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = import_file("adk", path)
    assert result.trace["events"][-1]["x_usage"] == {"input": 470, "output": 21}
    assert result.repairs == {"count written as text (read as the number its digits spell)": 1}
    document["events"][5]["usage_metadata"]["prompt_token_count"] = -470
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("adk", path)
    assert str(caught.value) == (f"{path}:events[5]: usage_metadata.prompt_token_count must be "
                                 "a count of 0 or more, found the number -470")


def test_parallel_branches_start_together_and_join():
    """A ParallelAgent's sub-agents write events in branches ``counters.apple_counter`` and
    ``counters.pear_counter``, interleaved: each branch follows the person's message, not the
    other branch, and the next event outside the branches (the tally) follows both."""
    result = import_file("auto", FOLDER / "parallel_branches.json")
    trace = result.trace
    assert [(e["id"], e["type"], e["agent"], e.get("x_branch")) for e in trace["events"]] == [
        ("a0.0", "message", "user", None),
        ("a1.0", "tool_call", "apple_counter", "counters.apple_counter"),
        ("a2.0", "message", "pear_counter", "counters.pear_counter"),
        ("a3.0", "tool_result", "apple_counter", "counters.apple_counter"),
        ("a4.0", "message", "apple_counter", "counters.apple_counter"),
        ("a5.0", "message", "tally", None)]
    assert sorted((src, dst) for src, dst, _, _ in edges(trace)) == [
        ("a0.0", "a1.0"), ("a0.0", "a2.0"), ("a1.0", "a3.0"), ("a2.0", "a5.0"),
        ("a3.0", "a4.0"), ("a4.0", "a5.0")]
    assert trace["costs"]["tokens"] == 89 + 81 + 102 + 130
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_parallel_nodes_of_a_workflow_run_side_by_side():
    """ADK 2's Workflow gives each node it runs in parallel a branch ``name@1`` (no dot); the
    join node's event (an output, no content) is skipped, and the next node follows both."""
    result = import_file("auto", FOLDER / "workflow_branches.jsonl")
    trace = result.trace
    assert [(e["id"], e["agent"]) for e in trace["events"]] == [
        ("a0.0", "user"), ("a1.0", "road_pricer"), ("a2.0", "trail_pricer"),
        ("a4.0", "quoter")]
    assert sorted((src, dst) for src, dst, _, _ in edges(trace)) == [
        ("a0.0", "a1.0"), ("a0.0", "a2.0"), ("a1.0", "a4.0"), ("a2.0", "a4.0")]
    assert result.skipped == {"actions only: a state or artifact update, no turn": 1}
    assert conservation_problems(trace) == []
