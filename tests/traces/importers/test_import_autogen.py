"""The AutoGen AgentChat importer on hand-written streams (a Magentic-One recorder, a retried
recorder, a selector group chat with parallel tool calls, a code executor as JSON Lines, a
team's saved state of two runs) and,
when ``../shared`` is there, on real Magentic-One runs: the event trace and the Who&When log of
the same run give the same agents and turns."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES, assert_source_error

from masrl import paths
from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file, import_traces
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "autogen"
ORCH = "MagenticOneOrchestrator"
REAL = paths.public_logs_dir() / "real-logs"
RUN = "yuyueryuyu__mas-failure-attribution/51f77a5b/runs/{}/metadata.level1/round_0/" \
      "e1fc63a2-da7a-432f-be78-7c4a95598703/"
EVENTS = REAL / "autogen-events" / (RUN.format("magentic_workspace") + "exp_out/magentic_trace.json")
LOG = REAL / "who-and-when" / (RUN.format("magentic_output") + "log.json")


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["type"], e["agent"], e.get("to"), e.get("decision"))
            for e in trace["events"]]


def edges(trace: dict) -> list[tuple]:
    return [(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]]


def test_magentic_one_recorder_gives_the_orchestrators_decisions():
    result = import_file("autogen", FOLDER / "magentic_recorder.json")
    trace = result.trace
    assert shape(trace) == [
        ("e0", "message", "user", ORCH, None),
        ("e1", "orchestrator_decision", ORCH, None, None),  # the task ledger: it speaks again
        ("e2", "orchestrator_decision", ORCH, "WebSurfer", "delegate"),
        ("e3", "message", "WebSurfer", ORCH, None),
        ("e4", "orchestrator_decision", ORCH, "Coder", "delegate"),
        ("e5", "message", "Coder", ORCH, None),
        ("e6", "orchestrator_decision", ORCH, None, "stop"),  # the final answer
    ]
    assert edges(trace) == [
        ("e0", "e1", "message", None), ("e1", "e2", "causal", None),
        ("e2", "e3", "message", "blocking"), ("e3", "e4", "message", None),
        ("e4", "e5", "message", "blocking"), ("e5", "e6", "message", None)]
    assert (trace["system"], trace["topology"]) == ("AutoGen AgentChat (Magentic-One)",
                                                    "centralized")
    assert [e["t"] for e in trace["events"]] == [0.0, 4.5, 6.0, 20.25, 24.0, 30.0, 35.125]
    assert result.time_origin == "2026-01-01T10:00:00.000000Z"
    assert validate_document(trace).problems == []


def test_models_usage_is_carried_by_the_message_it_produced():
    trace = import_file("autogen", FOLDER / "magentic_recorder.json").trace
    carried = {e["id"]: (e["tokens"], e["x_usage"], e["x_model_call"])
               for e in trace["events"] if "x_model_call" in e}
    assert carried == {"e3": (960, {"input": 900, "output": 60}, "m-04"),
                       "e5": (1240, {"input": 1200, "output": 40}, "m-06")}
    assert trace["costs"]["tokens"] == 2200
    provenance = trace["provenance"]
    assert provenance["records"] == {"unit": "item", "read": 8, "mapped": 7, "skipped": 1}
    assert provenance["skipped"] == {"task result: repeats the run's messages": 1}
    assert conservation_problems(trace) == []


def test_the_variant_is_recorded():
    recognised = import_file("autogen", FOLDER / "magentic_recorder.json").recognised
    assert (recognised["shape"], recognised["fields"]) == ("stream-recorder", "id, created_at")
    lines = import_file("autogen", FOLDER / "code_executor.jsonl").recognised
    assert (lines["shape"], lines["fields"]) == ("message-lines", "none")
    assert "neither ids nor creation times" in lines["evidence"]
    listed = import_file("autogen", FOLDER / "selector_stream.json").recognised
    assert listed["shape"] == "message-list"


def test_each_attempt_of_a_retried_run_is_its_own_trace():
    results = import_traces("auto", FOLDER / "retried_recorder.json")
    assert [r.trace["trace_id"] for r in results] == [
        "autogen:retried_recorder:attempt-1", "autogen:retried_recorder:attempt-2"]
    first, second = (r.trace for r in results)
    # the first attempt broke off with an error: its last instruction decided nothing
    assert shape(first)[-1] == ("e2", "orchestrator_decision", ORCH, None, None)
    assert first["rewards"] == {"team": 0.0}
    assert shape(second)[-1][4] == "stop" and second["rewards"] == {}
    assert [r.trace["provenance"]["records"]["read"] for r in results] == [3, 6]
    # no created_at: times are the recorder's receive times, from the attempt's first item
    assert [e["t"] for e in first["events"]] == [0.0, 3.0, 4.5]
    assert results[0].time_origin is None
    with pytest.raises(SourceError, match="holds 2 runs"):
        import_file("autogen", FOLDER / "retried_recorder.json")


def test_a_team_state_is_read_through_its_managers_thread_one_trace_per_run():
    """save_state() keeps the manager's message_thread: the same dumps as the stream, with
    their times. A team run again without reset() keeps one thread; each run starts with the
    user's task after another source's message."""
    results = import_traces("auto", FOLDER / "team_state_two_runs.json")
    assert [r.trace["trace_id"] for r in results] == [
        "autogen:team_state_two_runs:run-1", "autogen:team_state_two_runs:run-2"]
    first, second = (r.trace for r in results)
    assert [(e["type"], e["agent"], e["t"]) for e in first["events"]] == [
        ("message", "user", 0.0), ("message", "drafter", 1.5),
        ("tool_call", "checker", 2.0), ("tool_result", "checker", 2.4),
        ("message", "checker", 3.0)]
    assert first["costs"]["tokens"] == 30 + 3 + 42 + 8 + 60 + 4
    assert [e["t"] for e in second["events"]] == [0.0, 2.0]  # 10:05:00 and 10:05:02
    assert results[1].time_origin.startswith("2026-03-02T10:05:00")
    assert first["events"][1]["x_source"] == \
        "agent_states.RoundRobinGroupChatManager.message_thread[1]"
    assert results[0].recognised["shape"] == "team-state"
    assert all(conservation_problems(r.trace) == [] for r in results)
    with pytest.raises(SourceError, match="holds 2 runs"):
        import_file("autogen", FOLDER / "team_state_two_runs.json")


def test_a_team_with_a_participant_named_user_keeps_one_run(tmp_path):
    state = json.loads((FOLDER / "team_state_two_runs.json").read_text(encoding="utf-8"))
    state["agent_states"]["user"] = {"type": "ChatAgentContainerState", "message_buffer": []}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    assert len(import_file("autogen", path).trace["events"]) == 7


@pytest.mark.parametrize("manager, where, message", [
    ({"message_thread": []}, "agent_states.M.message_thread",
     "empty: the team was reset (or never run) before save_state(); export the run_stream "
     "items or the TaskResult instead"),
    ({"message_thread": {}}, "agent_states.M.message_thread",
     "must be a list of message dumps, found an object"),
    ({"current_turn": 0}, "agent_states",
     "expected one group chat manager state with a 'message_thread', found 0"),
])
def test_a_team_state_without_a_thread_is_refused_naming_the_place(tmp_path, manager, where,
                                                                   message):
    state = {"type": "TeamState", "version": "1.0.0", "agent_states": {"M": manager}}
    assert_source_error("autogen", tmp_path / "s.json", json.dumps(state), where, message)


def test_selector_group_chat_with_parallel_tool_calls():
    result = import_file("autogen", FOLDER / "selector_stream.json")
    trace = result.trace
    assert shape(trace) == [
        ("e0", "message", "user", None, None),
        ("e1", "orchestrator_decision", "SelectorGroupChatManager", "Researcher", "delegate"),
        ("e3.c0", "tool_call", "Researcher", None, None),
        ("e3.c1", "tool_call", "Researcher", None, None),
        ("e4.r0", "tool_result", "Researcher", None, None),
        ("e4.r1", "tool_result", "Researcher", None, None),
        ("e5", "message", "Researcher", None, None),
        ("e7", "orchestrator_decision", "SelectorGroupChatManager", "Analyst", "delegate"),
        ("e8", "message", "Analyst", "Researcher", None),
        ("e10", "orchestrator_decision", "MaxMessageTermination", None, "stop"),
    ]
    assert edges(trace) == [
        ("e0", "e1", "temporal", None),
        ("e1", "e3.c0", "message", "blocking"), ("e1", "e3.c1", "message", "blocking"),
        ("e3.c0", "e4.r0", "tool_dependency", "blocking"),
        ("e3.c1", "e4.r1", "tool_dependency", "blocking"),
        ("e4.r0", "e5", "causal", None), ("e4.r1", "e5", "causal", None),
        ("e5", "e7", "temporal", None), ("e7", "e8", "message", "blocking"),
        ("e8", "e10", "temporal", None)]
    by_id = {e["id"]: e for e in trace["events"]}
    assert (by_id["e4.r1"].get("x_error"), by_id["e4.r0"].get("x_error")) == (True, None)
    assert by_id["e3.c1"]["x_model_call"] == "s-04" and "x_model_call" not in by_id["e3.c0"]
    assert by_id["e8"]["x_handoff"] is True
    assert result.skipped == {
        "thought: the reasoning of a model call another item answers": 1,
        "streaming chunk: a piece of a message that follows whole": 1,
        "unknown record type: InventedCustomEvent": 1}
    usage = trace["provenance"]["usage"]
    assert usage["source"]["tokens_in"] == 1110 and usage["skipped"]["tokens_in"] == 300
    assert conservation_problems(trace) == []
    assert validate_document(trace).errors == []


def test_a_code_executor_generates_and_runs_code():
    trace = import_file("autogen", FOLDER / "code_executor.jsonl").trace
    assert shape(trace) == [("e0", "message", "user", None, None),
                            ("e1", "tool_call", "coder", None, None),
                            ("e2", "tool_result", "coder", None, None),
                            ("e3", "message", "coder", None, None)]
    assert ("e1", "e2", "tool_dependency", "blocking") in edges(trace)
    assert figures(trace)["tool_calls"] == 1 and figures(trace)["model_calls"] == 2


@pytest.mark.parametrize("change, where, message", [
    (lambda d: d["attempts"].__setitem__(0, {"index": 1, "events_before_fail": 5}), "attempts",
     "the attempts hold 5 events, the file 8: cannot tell which events belong to which "
     "attempt"),
    (lambda d: d["events"][3]["model_dump"].pop("source"), "events[3].source",
     "must be the name of the agent that sent the item, found null"),
    (lambda d: d["events"][2]["model_dump"].__setitem__("created_at", "soon"),
     "events[2]", 'created_at must be an ISO 8601 time with a UTC offset, found the string '
     '"soon"'),
    (lambda d: d["events"].__setitem__(1, [1]), "events[1]",
     "an event must be an object, found an array"),
])
def test_bad_records_are_errors_that_name_the_place(tmp_path, change, where, message):
    document = json.loads((FOLDER / "magentic_recorder.json").read_text(encoding="utf-8"))
    change(document)
    assert_source_error("autogen", tmp_path / "t.json", json.dumps(document), where, message)


def test_tool_calls_that_are_not_a_list_are_an_error(tmp_path):
    items = json.loads((FOLDER / "selector_stream.json").read_text(encoding="utf-8"))
    items[3]["content"] = "[FunctionCall(id='call-a')]"
    assert_source_error("autogen", tmp_path / "t.json", json.dumps(items), "[3].content",
                        "must be a list of function calls or results (objects), found a string")


# ------------------------------------------------------------------------------ real runs

def needs(path):
    if not path.is_file():
        pytest.skip(f"real log not available at {path} (a fresh clone has no ../shared)")


def test_real_recorder_variant_is_recognised():
    needs(EVENTS)
    result = import_file("auto", EVENTS)
    assert (result.format, result.recognised["shape"], result.recognised["fields"]) == (
        "autogen", "stream-recorder", "id, created_at")
    assert "Magentic-One team" in result.recognised["evidence"]


def test_the_event_trace_and_the_who_and_when_log_of_one_run_agree():
    """mas-failure-attribution writes each Magentic-One run twice: AutoGen's own event stream
    and a Who&When-style log whose records are the str() of the same messages. Both imports
    give the same agents, the same turns (same message ids, types, decisions, addressees),
    the same times and the same tokens; only the event ids differ (e<k> and h<k>)."""
    needs(EVENTS)
    needs(LOG)
    events = import_file("autogen", EVENTS)
    log = import_file("who-and-when", LOG)
    assert log.recognised["content"] == "autogen-message-reprs"

    def turns(trace):
        return [(e["agent"], e["type"], e.get("decision"), e.get("to"), e.get("x_message_id"),
                 e["t"], e.get("tokens")) for e in trace["events"]]

    assert turns(events.trace) == turns(log.trace)
    assert len(turns(events.trace)) == 13
    assert figures(events.trace) == figures(log.trace)
    assert [(e["type"], e.get("mode")) for e in events.trace["edges"]] == [
        (e["type"], e.get("mode")) for e in log.trace["edges"]]
    # what each log has beyond the turns is skipped, and said so
    assert events.skipped == {"task result: repeats the run's messages": 1}
    assert log.skipped == {"task result: repeats the run's messages": 1,
                           "runner note: not an AutoGen message of the run": 1}
