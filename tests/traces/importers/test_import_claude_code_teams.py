"""Claude Code agents that talk to each other (agent teams, ``SendMessage``): on fixtures of our
own, a teammate's message is a ``message`` from that teammate to the agent that reads it (not a
turn of the person), a ``SendMessage`` a ``message`` from its sender to its addressee, protocol
notices are skipped with a reason or ended as a ``despawn``, and a sub-agent resumed by its id
returns a second time. The expected counts were made by hand from the fixtures' lines."""

from __future__ import annotations

from collections import Counter

from importer_helpers import FIXTURES

from masrl.traces import validate_document
from masrl.traces.importers import import_file
from masrl.traces.importers._kit.accounting import conservation_problems

FOLDER = FIXTURES / "claude_code" / "teams"
LEAD = FOLDER / "lead.jsonl"
RESUME = FOLDER / "resume.jsonl"
SUB = "agent-a5f0c1d2e3b4a5968"


def trace_of(path):
    result = import_file("claude-code", path)
    assert validate_document(result.trace).problems == []
    assert conservation_problems(result.trace) == []
    return result


def kinds(trace) -> Counter:
    return Counter(e["type"] for e in trace["events"])


def messages(trace) -> Counter:
    return Counter((e["agent"], e.get("to")) for e in trace["events"] if e["type"] == "message")


def test_lead_events_by_type():
    # 21 lines: 1 person's prompt, 3 SendMessage calls (messages; their 3 results carried),
    # TeamCreate and TeamDelete (2 calls, 2 results), 2 teammate spawns (their 2 results stay
    # tool results), 4 texts to the person, 1 teammate report, 1 idle notice (skipped), and 2
    # shutdown approvals in one record (2 despawns).
    trace = trace_of(LEAD).trace
    assert kinds(trace) == {"message": 1 + 3 + 3 + 1, "tool_call": 2, "tool_result": 4,
                            "spawn": 2, "despawn": 2}
    assert "return" not in kinds(trace)  # a spawned teammate reports by message, not by return


def test_lead_messages_by_sender_and_receiver():
    trace = trace_of(LEAD).trace
    assert messages(trace) == {("user", "main"): 1, ("main", "user"): 3,
                               ("main", "reader"): 2, ("main", "checker"): 1,
                               ("reader", "main"): 1}
    assert sorted({e["agent"] for e in trace["events"]}) == ["checker", "main", "reader",
                                                             "user"]
    shutdowns = [e for e in trace["events"] if e.get("x_message_type") == "shutdown_request"]
    assert [(e["agent"], e["to"]) for e in shutdowns] == [("main", "reader"), ("main", "checker")]
    despawns = [(e["agent"], e.get("to")) for e in trace["events"] if e["type"] == "despawn"]
    assert despawns == [("reader", None), ("checker", None)]


def test_lead_teammates_are_spawned_without_waiting():
    trace = trace_of(LEAD).trace
    spawns = [e for e in trace["events"] if e["type"] == "spawn"]
    assert [(e["agent"], e["to"]) for e in spawns] == [("main", "reader"), ("main", "checker")]
    modes = {e.get("mode") for e in trace["edges"] if e["type"] == "spawn"}
    assert modes == {"async"}


def test_lead_protocol_notices_and_carried_results_are_counted():
    result = trace_of(LEAD)
    skipped = result.skipped
    assert skipped["tool_result of SendMessage (carried by its message event)"] == 3
    assert sum(n for reason, n in skipped.items() if "idle_notification" in reason) == 1
    assert result.repairs["teammate spawn: its result is the call's tool_result (a teammate "
                          "reports by message, not by return)"] == 2


def test_resumed_sub_agent_is_messaged_and_returns_twice():
    result = trace_of(RESUME)
    trace = result.trace
    assert kinds(trace) == {"message": 6, "spawn": 1, "return": 2, "tool_call": 1,
                            "tool_result": 1}
    assert messages(trace) == {("user", "main"): 1, ("main", "user"): 2, ("main", SUB): 1,
                               (SUB, None): 2}
    returns = [e["id"] for e in trace["events"] if e["type"] == "return"]
    assert returns == ["main:3", "main:7"]  # the Agent result, then the task notification
    # the sub-agent's own copy of the message is carried by the SendMessage event
    assert result.skipped["user record: a message another agent sent (carried by its "
                          "SendMessage event)"] == 1
    sources = {e["src"] for e in trace["edges"] if e["dst"] == f"{SUB.split('-')[1]}:6"}
    assert sources == {"main:4", f"{SUB.split('-')[1]}:4"}
    # no time had to be raised: each return follows only the work before it
    assert "event time raised to the time of an event it depends on" not in result.repairs
    assert "sub-agent final response missing from the log (its usage put on the return " \
        "event)" not in result.repairs
