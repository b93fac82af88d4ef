"""The chat transcript importer on hand-written transcripts (OpenAI-style with parallel tool
calls, an AutoGen 0.2 group chat, a LangGraph state of LangChain messages, messages_to_dict
lines, a harness log whose records hold LangGraph update chunks) and, when ``../shared`` is
there, on the real transcripts of a bioinformatics agent benchmark."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES, assert_source_error

from masrl import paths
from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "chat"
REAL = paths.public_logs_dir() / "real-logs" / "chat-message-list" / \
    "lyyang01__bioagent-benchmark" / "1605e6e3" / "logs" / "logs_by_error"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["type"], e["agent"], e.get("tool"), e.get("role")) for e in trace["events"]]


def edges(trace: dict) -> list[tuple]:
    return [(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]]


def test_openai_transcript_with_parallel_tool_calls():
    result = import_file("chat", FOLDER / "openai_tools.json")
    trace = result.trace
    assert shape(trace) == [
        ("m1", "message", "user", None, "human"),
        ("m2.c0", "tool_call", "assistant", "weather", None),
        ("m2.c1", "tool_call", "assistant", "weather", None),
        ("m3", "tool_result", "assistant", "weather", None),  # named by its call
        ("m4", "tool_result", "assistant", "weather", None),
        ("m5", "message", "assistant", None, None),
    ]
    # results are joined to their calls by id, whatever their order
    assert edges(trace) == [
        ("m1", "m2.c0", "temporal", None), ("m1", "m2.c1", "temporal", None),
        ("m2.c1", "m3", "tool_dependency", "blocking"),
        ("m2.c0", "m4", "tool_dependency", "blocking"),
        ("m3", "m5", "causal", None), ("m4", "m5", "causal", None)]
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id["m2.c1"]["x_usage"] == {"input": 80, "output": 24}
    assert by_id["m5"]["x_model_call"] == "[5]" and by_id["m5"]["tokens"] == 141
    assert result.skipped == {"system message: instructions or the run's status, not a turn": 1}
    assert trace["provenance"]["records"] == {"unit": "message", "read": 6, "mapped": 5,
                                              "skipped": 1}
    assert {e["t"] for e in trace["events"]} == {0}
    assert validate_document(trace).problems == []


def test_group_chat_names_its_speakers_and_counts_an_unknown_role():
    result = import_file("chat", FOLDER / "groupchat.json")
    assert shape(result.trace) == [
        ("m0", "message", "Admin", None, "human"),
        ("m1", "message", "Planner", None, None),
        ("m2.c0", "tool_call", "Planner", "pantry", None),
        ("m3", "tool_result", "Planner", "pantry", None),
        ("m4", "message", "Critic", None, None),
        ("m5", "message", "Planner", None, None),
    ]
    assert result.skipped == {"unknown record type: narrator": 1}
    assert figures(result.trace)["model_calls"] == 0  # a plain transcript names no model calls


def test_langchain_messages_carry_their_model_calls_and_usage_parts():
    result = import_file("chat", FOLDER / "langgraph_state.json")
    trace = result.trace
    assert shape(trace) == [("m0", "message", "user", None, "human"),
                            ("m1.c0", "tool_call", "converter", "leagues_to_miles", None),
                            ("m2", "tool_result", "converter", "leagues_to_miles", None),
                            ("m3", "message", "converter", None, None)]
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id["m1.c0"]["x_usage"] == {"input": 210, "output": 19, "cached_input": 128,
                                         "reasoning_output": 5}
    assert (by_id["m1.c0"]["x_model_call"], by_id["m3"]["x_model_call"]) == ("run-a1", "run-a2")
    assert (result.recognised["shape"], result.recognised["embedded"]) == ("langchain", "none")
    assert conservation_problems(trace) == []


def test_messages_to_dict_lines():
    result = import_file("chat", FOLDER / "messages_to_dict.jsonl")
    assert shape(result.trace) == [("m1", "message", "user", None, "human"),
                                   ("m2", "message", "assistant", None, None)]
    assert figures(result.trace)["tokens_in"] == 17


def test_update_chunks_inside_a_harness_log_are_read():
    result = import_file("chat", FOLDER / "harness_updates.json")
    trace = result.trace
    assert shape(trace) == [
        ("m0", "message", "main", None, "human"),
        ("m1.0", "message", "agent_loop", None, None),
        ("m1.0.c0", "tool_call", "agent_loop", "lookup", None),
        ("m2", "tool_result", "agent_loop", "retriever", None),  # answers the waiting call
        ("m3.0", "tool_result", "agent_loop", "lookup", None),  # the same call, by its id
        ("m4.0", "message", "agent_loop", None, None),
        ("m5.c0", "tool_call", "agent_loop", "retriever", None),  # no call waits: implied
        ("m5", "tool_result", "agent_loop", "retriever", None),
    ]
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id["m5.c0"]["x_implied_call"] is True
    assert ("m1.0.c0", "m3.0", "tool_dependency", "blocking") in edges(trace)
    assert figures(trace) == {"agents": 2, "spawns": 0, "tool_calls": 2, "model_calls": 2,
                              "tokens_in": 920, "tokens_out": 39, "first": None, "last": None}
    assert result.recognised["embedded"] == "langgraph-updates"
    assert conservation_problems(trace) == []


def test_a_python_repr_is_refused_with_its_reason(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("[{'role': 'user', 'content': 'hi', 'name': None}]", encoding="utf-8")
    for fmt in ("chat", "auto"):
        with pytest.raises(SourceError, match="not JSON: a Python repr"):
            import_file(fmt, path)


@pytest.mark.parametrize("text, where, message", [
    (json.dumps([{"role": "user", "content": "x"}, 3]), "[1]",
     "a message must be an object, found a number"),
    (json.dumps([{"role": 7, "content": "x"}]), "[0].role", "must be a string, found a number"),
    (json.dumps([{"role": "assistant", "content": "", "tool_calls": "call it"}]),
     "[0].tool_calls", "must be a list of tool calls (objects), found a string"),
    (json.dumps([{"role": "system", "content": "x"}]), None,
     "no message of the transcript is a turn (only system messages or unknown roles: system "
     "message: instructions or the run's status, not a turn)"),
    (json.dumps({"messages": []}), None, "the transcript holds no message"),
])
def test_bad_transcripts_are_errors_that_name_the_message(tmp_path, text, where, message):
    assert_source_error("chat", tmp_path / "t.json", text, where, message)


# ------------------------------------------------------------------------------ real logs

def real(name: str):
    path = REAL / name
    if not path.is_file():
        pytest.skip(f"real log not available at {path} (a fresh clone has no ../shared)")
    return path


def test_real_react_harness_log_is_read_through_its_update_chunks():
    result = import_file("auto", real("early_stopping_fault.react_genmini-2.5-pro_tangram.json"))
    assert result.format == "chat"
    assert (result.recognised["shape"], result.recognised["embedded"]) == (
        "openai", "langgraph-updates")


def test_real_langgraph_harness_log_is_a_plain_transcript():
    result = import_file("auto", real("poor_instruction_following.langgraph_gpt-4.1_hotspot.json"))
    assert (result.format, result.recognised["embedded"]) == ("chat", "none")
    assert all(e.get("x_implied_call") for e in result.trace["events"]
               if e["type"] == "tool_call")


def test_real_python_repr_transcript_is_refused():
    path = real("coder_issue.autogen_gpt-4.1_cell2location.json")
    with pytest.raises(SourceError, match="not JSON: a Python repr"):
        import_file("auto", path)
