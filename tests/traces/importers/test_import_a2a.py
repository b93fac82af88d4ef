"""The A2A importer on hand-written protocol traffic: a 0.2+ JSON-RPC stream (status and
artifact updates, a repeated history, a task query), a 1.0 protobuf-JSON exchange (a failed
task, an error response) and bare tasks of two conversations (two traces)."""

from __future__ import annotations

import pytest
from importer_helpers import FIXTURES, assert_source_error

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file, import_traces
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "a2a"


def shape(trace: dict) -> list[tuple]:
    return [(e["agent"], e.get("to"), e.get("x_artifact"), e.get("x_task_state"), e["t"])
            for e in trace["events"]]


def test_a_stream_reads_each_message_and_artifact_once():
    result = import_file("auto", FOLDER / "jsonrpc_stream.jsonl")
    trace = result.trace
    assert (result.format, result.recognised["version"], result.recognised["shape"]) == (
        "a2a", "0.2+", "json-rpc")
    assert shape(trace) == [("user", "agent", None, None, 0),
                            ("agent", "user", None, "working", 1.5),
                            ("agent", "user", True, "completed", 1.5)]
    assert trace["events"][0]["role"] == "human"
    assert result.skipped == {
        "message already read (a task repeats its history)": 3,
        "nothing new: repeats a task, message or artifact already read": 3,
        "artifact chunk appended to one already read": 1,
        "artifact already read": 1,
        "status update: a state, no message (kept as x_task_state)": 1,
        "request: tasks/get": 1}
    assert trace["provenance"]["records"] == {"unit": "record", "read": 8, "mapped": 3,
                                              "skipped": 5}
    assert result.time_origin == "2026-06-01T10:00:00.000000Z"
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_version_1_failed_task_and_error_response():
    result = import_file("auto", FOLDER / "v1_send.json")
    assert result.recognised["version"] == "1.0"
    events = result.trace["events"]
    assert [(e["agent"], e.get("x_error"), e.get("x_error_code")) for e in events] == [
        ("user", None, None), ("agent", True, None), ("user", None, None),
        ("agent", True, -32001)]
    assert events[1]["x_task_state"] == "TASK_STATE_FAILED"


def test_two_conversations_give_two_traces():
    results = import_traces("auto", FOLDER / "two_contexts.json")
    assert [r.trace["trace_id"] for r in results] == ["a2a:two_contexts:ctx-a",
                                                      "a2a:two_contexts:ctx-b"]
    assert [figures(r.trace)["agents"] for r in results] == [2, 2]
    assert results[1].trace["events"][-1]["x_artifact"] is True
    with pytest.raises(SourceError, match="holds 2 conversations"):
        import_file("a2a", FOLDER / "two_contexts.json")


def test_parts_that_are_not_a_list_are_an_error(tmp_path):
    assert_source_error("a2a", tmp_path / "a.json", '[{"kind": "message", "messageId": "x", '
                        '"role": "user", "parts": "hello"}]', "[0].parts",
                        "must be a list of parts, found a string")


def test_a_server_sent_event_stream_is_read_as_its_data_records():
    """``curl -N`` of a ``message/stream`` answer: ``id:`` and ``data:`` lines, CRLF line ends
    and a keep-alive comment, as an SSE server writes them; each event's data is one record."""
    result = import_file("auto", FOLDER / "message_stream.sse")
    assert (result.format, result.recognised["shape"]) == ("a2a", "json-rpc")
    assert "server-sent event stream" in result.recognised["evidence"]
    assert shape(result.trace) == [("user", "agent", None, "submitted", 0),
                                   ("agent", "user", None, "working", 2.0),
                                   ("agent", "user", True, "completed", 2.0)]
    assert result.trace["provenance"]["records"] == {"unit": "record", "read": 4, "mapped": 3,
                                                     "skipped": 1}
    assert validate_document(result.trace).errors == []
    assert conservation_problems(result.trace) == []


def test_a_stream_event_whose_data_is_not_json_names_its_line(tmp_path):
    assert_source_error("a2a", tmp_path / "stream.sse",
                        'data: {"jsonrpc": "2.0", "id": 1, "result": {"kind": "task"}}\n\n'
                        ": keep-alive\n\nid: 2\ndata: {\"jsonrpc\": \n\n", "6",
                        "not a JSON record (Expecting value at column 13); is the line "
                        "truncated?")


def test_version_1_objects_without_kind_are_recognised():
    """What the 1.x SDK's client yields, written with ``MessageToDict``: stream responses
    wrapped as {task} / {statusUpdate} / {artifactUpdate}, then the task ``get_task`` returns,
    bare; none has ``kind``."""
    result = import_file("auto", FOLDER / "v1_client_events.jsonl")
    assert (result.format, result.recognised["version"], result.recognised["shape"]) == (
        "a2a", "1.0", "objects")
    assert [(e["agent"], e.get("x_artifact"), e.get("x_task_state"), e["t"])
            for e in result.trace["events"]] == [
        ("user", None, "TASK_STATE_SUBMITTED", 0), ("agent", None, "TASK_STATE_WORKING", 0),
        ("agent", True, None, 0), ("agent", None, "TASK_STATE_COMPLETED", 2.0)]
    assert result.trace["provenance"]["records"] == {"unit": "record", "read": 6,
                                                     "mapped": 4, "skipped": 2}
    assert conservation_problems(result.trace) == []
    assert validate_document(result.trace).problems == []


def test_a_task_state_marks_an_event_of_its_own_task():
    """A direct reply (a message, no task), then a new task whose first record only repeats the
    request: its state (submitted) marks nothing rather than the earlier reply. A task's state
    marks its status message rather than its artifact, a state without a message the task's
    last event, and a task read again in the same state (GetTask) changes nothing."""
    events = import_file("auto", FOLDER / "v1_reply_then_task.jsonl").trace["events"]
    assert [(e["agent"], e.get("x_artifact"), e.get("x_task_state")) for e in events] == [
        ("user", None, None), ("agent", None, None),  # hello, hello
        ("user", None, None), ("agent", True, "TASK_STATE_COMPLETED"),  # mix-1's recipe
        ("user", None, None), ("agent", None, "TASK_STATE_COMPLETED"),  # mix-2's message
        ("agent", True, None)]  # mix-2's recipe
