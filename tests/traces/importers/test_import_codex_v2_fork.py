"""The Codex importer on hand-written rollouts of the autumn-2026 layout: a parent that spawns a
forked sub-agent with multi-agent V2's spawn_agent (task_name, fork_turns), waits for it with
wait_agent and gets its report as an inter_agent_communication record; the sub-agent's rollout
opens with a copy of the parent's history. Paginated (every record has an ordinal, the child
names subagent_history_start_ordinal) and legacy (no ordinals). Every count below is made by
hand on the fixture files."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES

from masrl.traces import validate_document
from masrl.traces.importers import import_file

PARENT_ID = "019a3c5e-0000-7000-8000-0000000000a1"
CHILD_ID = "019a3c5e-0000-7000-8000-0000000000c1"
PARENT_NAME = f"rollout-2026-10-14T09-00-00-{PARENT_ID}.jsonl"
CHILD_NAME = f"rollout-2026-10-14T09-00-05-{CHILD_ID}.jsonl"
CHILD = f"agent-{CHILD_ID}"
FOLDERS = ("v2_fork", "v2_fork_legacy")
COPIED = "copy of the parent's history (forked sub-agent)"
# last_token_usage of every token_count, input + output: the parent's five, the child's own two
PARENT_TOKENS = [2100 + 40, 2300 + 60, 2500 + 90, 2700 + 20, 3000 + 45]
CHILD_TOKENS = [2600 + 35, 2800 + 25]


def imported(folder: str):
    return import_file("codex", FIXTURES / "codex" / folder / PARENT_NAME)


@pytest.mark.parametrize("folder", FOLDERS)
def test_events_of_parent_and_child(folder):
    events = imported(folder).trace["events"]
    got = [(e["type"], e["agent"], e.get("to") or e.get("tool")) for e in events]
    assert got == [
        ("message", "user", "main"),
        ("tool_call", "main", "shell"),
        ("tool_result", "main", "shell"),
        ("spawn", "main", CHILD),  # joined by the path /root/locate
        ("tool_call", "main", "apply_patch"),
        ("tool_result", "main", "apply_patch"),
        ("tool_call", "main", "wait_agent"),
        ("tool_result", "main", "wait_agent"),  # "Wait completed." says no more
        ("return", CHILD, "main"),  # the inter_agent_communication from /root/locate
        ("message", "main", "user"),
        ("tool_call", CHILD, "shell"),  # the child's own work, nothing of the copy
        ("tool_result", CHILD, "shell"),
        ("message", CHILD, None),
    ]


@pytest.mark.parametrize("folder", FOLDERS)
def test_counts_tokens_and_agents_by_hand(folder):
    result = imported(folder)
    trace = result.trace
    assert len(trace["events"]) == 13
    assert sum(e["type"] == "tool_call" for e in trace["events"]) == 4
    assert sum(e["type"] == "message" for e in trace["events"]) == 3
    assert {e["agent"] for e in trace["events"]} == {"user", "main", CHILD}
    by_agent = {}
    for e in trace["events"]:
        if "tokens" in e:
            by_agent.setdefault(e["agent"], []).append(e["tokens"])
    assert by_agent == {"main": PARENT_TOKENS, CHILD: CHILD_TOKENS}
    usage = result.account.source_usage
    assert usage["tokens_in"] + usage["tokens_out"] == sum(PARENT_TOKENS + CHILD_TOKENS)
    assert not result.account.skipped_usage  # the copied count is not stated at all
    assert validate_document(trace).problems == []


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_copy_is_skipped_and_counted(folder):
    account = imported(folder).account
    copy_lines = 8  # lines 2-9 of the child: the parent's meta, messages, event, context, count
    assert account.reasons[COPIED] == copy_lines
    assert account.read_count == 24 + 18
    assert account.mapped_count + account.skipped_count == account.read_count
    assert account.reasons["session_meta"] == 2  # each rollout's own, not the copied one


def test_the_child_task_is_carried_by_the_spawn_not_the_copied_user_prompt():
    result = imported("v2_fork")
    assert result.repairs["sub-agent task (its first user message) carried by its spawn "
                          "event"] == 1
    spawn = next(e for e in result.trace["events"] if e["type"] == "spawn")
    first = next(e for e in result.trace["events"] if e["id"].startswith(CHILD_ID))
    assert any(edge["src"] == spawn["id"] and edge["dst"] == first["id"]
               for edge in result.trace["edges"])


def test_a_legacy_fork_whose_copy_cannot_be_told_is_read_whole_and_said(tmp_path):
    """Without an ordinal boundary or a task addressed to it, a fork's copied lines cannot be
    told from its own: the session still imports (one such file must not refuse the whole
    session), every line read as the sub-agent's, and the summary says so."""
    source = FIXTURES / "codex" / "v2_fork_legacy"
    (tmp_path / PARENT_NAME).write_bytes((source / PARENT_NAME).read_bytes())
    lines = (source / CHILD_NAME).read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["type"] != "inter_agent_communication"]
    (tmp_path / CHILD_NAME).write_text("\n".join(kept) + "\n")
    result = import_file("codex", tmp_path / PARENT_NAME)
    assert [n for reason, n in result.repairs.items() if "cannot be told" in reason] == [1]
    assert COPIED not in result.account.reasons
    assert validate_document(result.trace).problems == []


def test_a_v2_spawn_whose_rollout_is_absent_names_the_path(tmp_path):
    source = FIXTURES / "codex" / "v2_fork"
    (tmp_path / PARENT_NAME).write_bytes((source / PARENT_NAME).read_bytes())
    result = import_file("codex", tmp_path / PARENT_NAME)
    spawn = next(e for e in result.trace["events"] if e["type"] == "spawn")
    assert spawn["to"] == "agent-/root/locate"
    assert not any(e["agent"] == "agent-/root/locate" and e["type"] != "spawn"
                   for e in result.trace["events"])


def test_a_spawn_end_event_before_the_output_yields_to_the_output(fixture_copy):
    """A collab_agent_spawn_end written before the spawn's output names the thread; the output
    (V2: the agent path) then names the sub-agent as it did without the event. With the child's
    rollout absent the path names it, and the sub-agent is counted missing once, not twice."""
    folder = fixture_copy("codex") / "v2_fork"
    parent = folder / PARENT_NAME
    lines = parent.read_text(encoding="utf-8").splitlines(keepends=True)
    assert '"call_id":"call_a2","output"' in lines[12]  # the spawn's output
    end = {"timestamp": "2026-10-14T09:00:05.100Z", "type": "event_msg",
           "payload": {"type": "collab_agent_spawn_end", "call_id": "call_a2",
                       "new_thread_id": "019a3c5e-0000-7000-8000-0000000000f9"}}
    (folder / CHILD_NAME).unlink()
    before = import_file("codex", parent).trace
    parent.write_text("".join([*lines[:12], json.dumps(end) + "\n", *lines[12:]]),
                      encoding="utf-8")
    after = import_file("codex", parent)
    spawn = next(e for e in after.trace["events"] if e["type"] == "spawn")
    assert spawn["to"] == next(e for e in before["events"] if e["type"] == "spawn")["to"] == \
        "agent-/root/locate"
    assert after.skipped["sub-agent whose rollout is not beside the session"] == 1
    assert after.skipped["event_msg:collab_agent_spawn_end"] == 1
