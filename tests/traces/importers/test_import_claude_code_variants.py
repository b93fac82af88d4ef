"""Claude Code versions and layouts as data (issue 18): each layout is recognised and recorded in
``provenance.recognised``, on a hand-written fixture of ours and on a real session of that layout
(read from ../shared/traces, skipped with a reason when it is absent); warm-up runs, compactions
in place, failed and background Task calls are read as what they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from importer_helpers import FIXTURES

from masrl import paths
from masrl.traces import validate_document
from masrl.traces.importers import import_file
from masrl.traces.importers._kit.accounting import conservation_problems, figures
from masrl.traces.importers._kit.common import content_ref

FOLDER = FIXTURES / "claude_code"
WARMUP = FOLDER / "v2_0_warmup" / "s5.jsonl"
RESULT_ONLY = FOLDER / "result_only.jsonl"
BACKGROUND = FOLDER / "background.jsonl"
QUEUED = FOLDER / "queued.jsonl"
NOTIFICATIONS = FOLDER / "notifications.jsonl"
REAL = paths.public_logs_dir()
ERK = "real-logs/claude-code/dagster-io__erk"
VIEWER = "real-logs/claude-code{}/d-kimuson__claude-code-viewer/9367cf00/mock-global-claude-dir/" \
    "projects/sample-project"


def real(name: str) -> Path:
    path = REAL / name
    if not path.is_file():
        pytest.skip(f"public logs not available at {REAL} (a fresh clone has no ../shared/traces)")
    return path


def raw(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def by_id(result) -> dict:
    return {e["id"]: e for e in result.trace["events"]}


# ---------------------------------------------------------------------------------- fixtures

def test_warmup_run_beside_a_2_0_session_is_skipped_with_its_tokens():
    """2.0.x writes a Warmup sub-agent log that no Task call spawns: it used to refuse the
    whole session; its 3 lines are now skipped, its one response's tokens (900 in, 3 out: the
    largest values over its two lines) are skipped usage, the other session's warm-up is not
    read."""
    result = import_file("claude-code", WARMUP)
    provenance = result.trace["provenance"]
    assert result.skipped == {"warm-up run (prompt 'Warmup'; no Task call spawns it)": 3}
    assert provenance["usage"]["skipped"] == {"cost_usd": 0, "tokens_in": 900, "tokens_out": 3}
    assert provenance["records"] == {"mapped": 14, "read": 17, "skipped": 3, "unit": "line"}
    assert [s["name"] for s in provenance["sources"]] == ["s5.jsonl", "agent-f1.jsonl",
                                                          "agent-w1.jsonl"]
    assert provenance["recognised"]["shape"] == \
        "2.0: sub-agent logs agent-<id>.jsonl beside the session"
    assert provenance["recognised"]["version"] == "2.0.76"
    assert conservation_problems(result.trace) == []
    assert validate_document(result.trace).problems == []


def test_compaction_in_place_is_an_aggregate_of_the_agent():
    """A compact_boundary with no compaction log gave no event; it is main's aggregate now, at
    the boundary's time, with the summary's hash and what the boundary says of the context."""
    result = import_file("claude-code", WARMUP)
    events = by_id(result)
    aggregate = events["main:5"]
    assert (aggregate["type"], aggregate["agent"], aggregate["t"]) == ("aggregate", "main", 300.0)
    assert aggregate["x_compaction"] == {"trigger": "manual", "pre_tokens": 1257}
    assert "x_model_call" not in aggregate and "tokens" not in aggregate
    summary = raw(WARMUP)[5]
    assert summary["isCompactSummary"] is True
    assert aggregate["content_ref"] == content_ref(summary["message"]["content"])
    edges = {(e["src"], e["dst"]) for e in result.trace["edges"]}
    assert {("main:4", "main:5"), ("main:5", "main:7")} <= edges  # the summary is carried
    assert "1 compaction in place" in result.recognised["evidence"]


def test_x_usage_counts_cached_input_as_input():
    events = by_id(import_file("claude-code", WARMUP))
    # msg_m1: input 4 + cache creation 200 + cache read 1000, output 12
    assert events["main:2"]["x_usage"] == {"input": 1204, "output": 12, "uncached_input": 4,
                                           "cache_creation": 200, "cache_read": 1000}
    assert events["main:2"]["tokens"] == 1216
    assert events["main:2"]["x_model_call"] == "msg_m1"


def test_task_results_only_and_a_failed_task_call():
    """2.0.67 sessions kept without their sub-agents: the Task result names the sub-agent and
    states its last response's usage (a model call, on the return); a Task call refused for a
    missing prompt started nothing: a tool call and its error result, not a spawn."""
    result = import_file("claude-code", RESULT_ONLY)
    events = by_id(result)
    assert (events["main:2"]["type"], events["main:2"]["tool"]) == ("tool_call", "Task")
    assert (events["main:3"]["type"], events["main:3"]["x_error"]) == ("tool_result", True)
    assert (events["main:4"]["type"], events["main:4"]["to"]) == ("spawn", "agent-g1")
    ret = events["main:5"]
    assert (ret["type"], ret["agent"], ret["tokens"]) == ("return", "agent-g1", 547)
    assert ret["x_model_call"] == "result_only.jsonl:5"
    assert ret["x_usage"] == {"input": 525, "output": 22, "uncached_input": 5,
                              "cache_creation": 20, "cache_read": 500}
    assert result.recognised == {
        "system": "Claude Code", "version": "2.0.67",
        "shape": "sub-agents as their Task results only",
        "evidence": "1 sub-agent with no record in the log but a Task result; 1 Task call "
                    "that failed to start a sub-agent"}
    assert figures(result.trace) == {
        "agents": 3, "spawns": 1, "tool_calls": 1, "model_calls": 4,
        "tokens_in": 103 + 142 + 525 + 171, "tokens_out": 8 + 9 + 22 + 7,
        "first": "2026-01-06T08:00:00.000Z", "last": "2026-01-06T08:00:22.000Z"}


def test_background_task_launch_is_not_a_return():
    result = import_file("claude-code", BACKGROUND)
    events = by_id(result)
    assert (events["main:2"]["type"], events["main:2"]["to"]) == ("spawn", "agent-h1")
    assert (events["main:3"]["type"], events["main:3"]["agent"]) == ("tool_result", "main")
    assert not [e for e in result.trace["events"] if e["type"] == "return"]
    assert figures(result.trace)["agents"] == 2  # user and main: the sub-agent never reports
    assert result.repairs == {"background Task launch: its result is the call's tool_result, "
                              "the sub-agent's own return is not in the log": 1}


def test_queued_commands_taken_into_a_running_turn_are_read_as_what_they_stand_for():
    """Claude Code 2.1.x files input that reaches a turn already running as an ``attachment``
    record of type ``queued_command``: a prompt the person typed meanwhile, or the
    ``<task-notification>`` of a background sub-agent that finished. Both were skipped as an
    unknown record type: the person's words and the sub-agent's return were lost. Now the prompt
    is the person's message and the notification the sub-agent's return; other attachments,
    and a queued command from another session, are skipped and named by their type."""
    result = import_file("claude-code", QUEUED)
    events = by_id(result)
    said = events["main:8"]  # the attachment q6, typed while Bash ran
    assert (said["type"], said["agent"], said["to"], said["role"]) == \
        ("message", "user", "main", "human")
    back = events["main:10"]  # the attachment q8, the notification of the sub-agent k4
    assert (back["type"], back["agent"], back["to"]) == ("return", "agent-k4", "main")
    assert result.skipped == {"attachment:queued_command from a peer": 1,
                              "attachment:total_tokens_reminder": 1, "queue-operation": 2}
    assert [e["id"] for e in result.trace["events"] if e.get("role") == "human"] == \
        ["main:1", "main:8"]
    # the notification gives the return: no note says it is missing
    assert not [r for r in result.repairs if r.startswith("background Task launch")]
    assert validate_document(result.trace).errors == []
    assert conservation_problems(result.trace) == []


def test_task_notifications_are_the_harness_not_the_person():
    """A ``<task-notification>`` (a plain user record, or a queued attachment) is the harness
    telling the agent a background task finished. The sub-agent's (task-id m5, tool-use-id c2)
    is its return; a background shell's names the Bash call it answers (tool-use-id c3, or, in
    the 2.1.39 shape without that field, task-id sh7, the launch's backgroundTaskId of c1): a
    second result of that call, joined to it as an async dependency; one whose call is not in
    the log is skipped under its own reason. None is a message of the human, and the launch
    of the background sub-agent is not said to lack its return."""
    result = import_file("claude-code", NOTIFICATIONS)
    events = by_id(result)
    records = raw(NOTIFICATIONS)
    assert [e["id"] for e in result.trace["events"] if e["agent"] == "user"] == ["main:1"]
    shell, deploy, back = events["main:7"], events["main:11"], events["main:10"]
    for event, line in ((shell, 7), (deploy, 11)):
        assert (event["type"], event["agent"], event["tool"]) == ("tool_result", "main", "Bash")
        assert event["x_source"] == f"notifications.jsonl:{line}"
    assert (back["type"], back["agent"], back["to"]) == ("return", "agent-m5", "main")
    edges = {(e["src"], e["dst"]): (e["type"], e.get("mode")) for e in result.trace["edges"]}
    assert edges[("main:2", "main:7")] == ("tool_dependency", "async")  # make site
    assert edges[("main:8", "main:11")] == ("tool_dependency", "async")  # make deploy-preview
    assert edges[("main:2", "main:3")] == ("tool_dependency", "blocking")  # the launch notice
    assert events["main:2"]["t_end"] == events["main:3"]["t"]  # the call ends at its launch
    assert records[11]["message"]["content"].startswith("<task-notification>")
    assert result.skipped == {"user record: <task-notification> of a background task whose "
                              "call is not in the agent's log (the harness's notice, not the "
                              "person's words)": 1}
    assert not [r for r in result.repairs if r.startswith("background Task launch")]
    assert validate_document(result.trace).errors == []
    assert conservation_problems(result.trace) == []


@pytest.mark.parametrize("path, shape", [
    (FOLDER / "s1.jsonl", "2.1: sub-agent logs in <session>/subagents/"),
    (FOLDER / "v2_0" / "s3.jsonl", "2.0: sub-agent logs agent-<id>.jsonl beside the session"),
    (FOLDER / "v1_0" / "s4.jsonl", "1.0: sidechain records inline in the session"),
    (FOLDER / "progress_only.jsonl", "sub-agents as agent_progress records only"),
    (RESULT_ONLY, "sub-agents as their Task results only"),
])
def test_each_fixture_layout_is_recognised(path, shape):
    result = import_file("claude-code", path)
    assert result.trace["provenance"]["recognised"]["shape"] == shape
    assert conservation_problems(result.trace) == []


# ---------------------------------------------------------------------------------- real logs

@pytest.mark.parametrize("name, version, shape", [
    ("claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl", "2.1.39",
     "2.1: sub-agent logs in <session>/subagents/"),
    (f"{ERK}/ecfa1fcd/.erk/session/8128346d-e674-4ca1-9be1-5387bfa72ca7.jsonl", "2.1.52",
     "sub-agents as agent_progress records only"),
    (f"{ERK}/a4b2173f/.erk/session/635d7caf-7e33-4187-9339-e9bb9c83982a.jsonl", "2.0.67",
     "sub-agents as their Task results only"),
    (f"{VIEWER.format('-inline-sidechain')}/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", "1.0.98",
     "1.0: sidechain records inline in the session"),
    (f"{VIEWER.format('')}/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", "1.0.98",
     "no sub-agents"),
])
def test_each_real_layout_is_recognised(name, version, shape):
    result = import_file("claude-code", real(name))
    assert result.recognised["version"] == version
    assert result.recognised["shape"] == shape
    assert conservation_problems(result.trace) == []


def test_real_agent_progress_copies_are_the_sub_agents_records():
    """In a 2.1.52 session kept alone, the sub-agent's Bash call exists only as an
    agent_progress copy: it is a tool call of the sub-agent, and the Task result's usage (input
    counts unlike its logged response) is its final model call."""
    path = real(f"{ERK}/ecfa1fcd/.erk/session/8128346d-e674-4ca1-9be1-5387bfa72ca7.jsonl")
    records = raw(path)
    copies = [r["data"]["message"] for r in records if r.get("type") == "progress"
              and r["data"].get("type") == "agent_progress"]
    calls = [b["id"] for m in copies if m["type"] == "assistant"
             for b in m["message"]["content"] if b.get("type") == "tool_use"]
    result = import_file("claude-code", path)
    agent = "agent-" + next(r["data"]["agentId"] for r in records if r.get("type") ==
                            "progress" and r["data"].get("type") == "agent_progress")
    own_calls = [e for e in result.trace["events"] if e["agent"] == agent
                 and e["type"] == "tool_call"]
    assert len(own_calls) == len(calls) == 1
    calls_of_agent = [e for e in result.trace["events"] if e["agent"] == agent
                      and "x_model_call" in e]
    assert len(calls_of_agent) == 2  # the copied response and the final one of the result


def test_real_compaction_in_place_gives_an_aggregate():
    path = real(f"{ERK}/29389561/.erk/session/ae4a1257-cf8e-47b3-8c80-d7991e4495dd.jsonl")
    records = raw(path)
    line = next(k for k, r in enumerate(records, start=1) if r.get("subtype") ==
                "compact_boundary")
    result = import_file("claude-code", path)
    [aggregate] = [e for e in result.trace["events"] if e["type"] == "aggregate"]
    assert aggregate["x_source"] == f"{path.name}:{line}"
    assert aggregate["x_compaction"]["pre_tokens"] == \
        records[line - 1]["compactMetadata"]["preTokens"]
    assert result.skipped["system:compact_boundary"] == 0


def test_real_background_launch_and_failed_task_call():
    launched = real(f"{ERK}/980bae0b/.erk/session/53621f76-798e-4e63-a4a0-692e48a5801b.jsonl")
    result = import_file("claude-code", launched)
    assert result.repairs["background Task launch: its result is the call's tool_result, the "
                          "sub-agent's own return is not in the log"] == 1
    failed = real(f"{VIEWER.format('-inline-sidechain')}/"
                  "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
    result = import_file("claude-code", failed)
    assert "1 Task call that failed to start a sub-agent" in result.recognised["evidence"]
    # the two sidechains go to the two Task calls whose prompts they repeat, not to the failed
    # call before them (which took the first one before issue 18)
    assert not [r for r in result.repairs if r.startswith("sidechain joined")]
    spawned = {e["to"] for e in result.trace["events"] if e["type"] == "spawn"}
    assert len(spawned) == 2
