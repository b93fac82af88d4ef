"""The Claude Code importer on Workflow runs (2.1.x dynamic workflows): agents whose logs lie in
``<session>/subagents/workflows/<runId>/``, launched by a ``Workflow`` tool call rather than a
Task call, with a journal, meta files and a manifest beside them that are metadata only.

The fixture ``claude_code/wf/w1.jsonl`` is ours (made-up content shaped like the layout). Its
figures, counted by hand from the raw files:

* agents: user, main, agent-wa1, agent-wa2 (4); spawns: one per workflow agent (2);
* tool calls: main's Workflow call, wa1's Read and StructuredOutput, wa2's Grep (4);
* model calls: main msg_m1, msg_m2, msg_m3; wa1 msg_a1, msg_a2; wa2 msg_b1, msg_b2 (7);
* tokens in (input + cache creation + cache read, the largest value per message id):
  main 220 + 270 + 310, wa1 150 + 260, wa2 130 + 230 = 1570;
* tokens out: main 40 + 8 + 12, wa1 15 + 20, wa2 18 + 25 = 138.

Before workflow runs were read, the same session imported with exit 0 as 2 agents, 0 spawns,
1 tool call, 3 model calls and 800 / 60 tokens: the workflow's agents vanished.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from importer_helpers import FIXTURES

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "claude_code" / "wf"
SESSION = FOLDER / "w1.jsonl"
RUN = Path("w1/subagents/workflows/wf_7c01")


def copy_session(tmp_path: Path) -> Path:
    shutil.copytree(FOLDER, tmp_path / "wf")
    return tmp_path / "wf" / "w1.jsonl"


def test_workflow_agents_are_sub_agents_of_the_session_with_the_hand_counted_figures():
    trace = import_file("claude-code", SESSION).trace
    assert figures(trace) == {
        "agents": 4, "spawns": 2, "tool_calls": 4, "model_calls": 7,
        "tokens_in": 1570, "tokens_out": 138,
        "first": "2026-06-01T10:00:00.000Z", "last": "2026-06-01T10:01:05.000Z",
    }
    assert conservation_problems(trace) == []
    assert not [p for p in validate_document(trace).problems if p.severity == "error"]


def test_each_workflow_agent_is_spawned_by_the_workflow_call_that_launched_its_run():
    trace = import_file("claude-code", SESSION).trace
    spawns = [e for e in trace["events"] if e["type"] == "spawn"]
    assert [(e["id"], e["agent"], e["to"], e["role"], e["t"]) for e in spawns] == [
        ("wa1:1", "main", "agent-wa1", "review:alpha", 5.0),
        ("wa2:1", "main", "agent-wa2", "review:beta", 5.5),
    ]
    # labels and phases come from the meta files, the workflow's name from the manifest
    assert spawns[0]["x_workflow"] == {"label": "review:alpha", "phase": "Review",
                                       "run_id": "wf_7c01", "workflow": "pair-review"}
    edges = {(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]}
    call = next(e["id"] for e in trace["events"] if e.get("tool") == "Workflow"
                and e["type"] == "tool_call")
    assert call == "main:3"
    assert {("main:3", "wa1:1", "causal", None), ("main:3", "wa2:1", "causal", None),
            ("wa1:1", "wa1:2", "spawn", "async"), ("wa2:1", "wa2:3", "spawn", "async")} <= edges


def test_the_layout_every_file_and_every_metadata_record_are_in_provenance():
    provenance = import_file("claude-code", SESSION).trace["provenance"]
    assert provenance["recognised"]["shape"] == \
        "2.1: workflow agent logs in <session>/subagents/workflows/<runId>/"
    assert provenance["recognised"]["evidence"].startswith(
        "1 workflow run with 2 agent logs, 8 metadata records")
    names = [s["name"] for s in provenance["sources"]]
    assert sorted(names) == sorted([
        "w1.jsonl", "w1/workflows/wf_7c01.json", f"{RUN}/journal.jsonl",
        f"{RUN}/agent-wa1.meta.json", f"{RUN}/agent-wa2.meta.json",
        f"{RUN}/agent-wa1.jsonl", f"{RUN}/agent-wa2.jsonl"])
    skipped = provenance["skipped"]
    # 5 journal lines, 2 meta files and 1 manifest: read, never a model call, never an event
    assert skipped["workflow journal line: started (metadata, not a transcript)"] == 2
    assert skipped["workflow journal line: result (metadata, not a transcript)"] == 2
    assert skipped["workflow journal line: launched (metadata, not a transcript)"] == 1
    assert skipped["workflow agent meta file (metadata: label, phase, model)"] == 2
    assert skipped["workflow manifest (metadata: run, agents, labels)"] == 1
    lines = 8 + 5 + 5 + 5 + 2 + 1  # session, two agent logs, journal, meta files, manifest
    assert provenance["records"]["read"] == lines
    assert provenance["records"]["mapped"] + provenance["records"]["skipped"] == lines


def test_a_run_whose_launching_call_is_not_in_the_log_is_spawned_by_main_and_counted(tmp_path):
    session = copy_session(tmp_path)
    kept = [line for line in session.read_text(encoding="utf-8").splitlines()
            if '"tw1"' not in line]  # drop the Workflow call and its result
    session.write_text("\n".join(kept) + "\n", encoding="utf-8")
    trace = import_file("claude-code", session).trace
    provenance = trace["provenance"]
    assert provenance["repaired"]["workflow agent whose launching Workflow call is not in the "
                                  "log (spawned by main)"] == 2
    assert "whose Workflow call is not in the log: wf_7c01" in \
        provenance["recognised"]["evidence"]
    assert figures(trace)["spawns"] == 2
    assert conservation_problems(trace) == []


def test_the_run_id_is_found_in_the_result_text_when_tool_use_result_is_absent(tmp_path):
    session = copy_session(tmp_path)
    rows = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.pop("toolUseResult", None)
    session.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    trace = import_file("claude-code", session).trace
    assert trace["provenance"]["repaired"] == {}
    edges = {(e["src"], e["dst"]) for e in trace["edges"]}
    assert {("main:3", "wa1:1"), ("main:3", "wa2:1")} <= edges


def test_agent_logs_in_nested_folders_of_a_run_are_read(tmp_path):
    session = copy_session(tmp_path)
    run = session.parent / RUN
    (run / "retry").mkdir()
    shutil.move(run / "agent-wa2.jsonl", run / "retry" / "agent-wa2.jsonl")
    trace = import_file("claude-code", session).trace
    assert figures(trace)["agents"] == 4
    assert f"{RUN}/retry/agent-wa2.jsonl" in [s["name"] for s in trace["provenance"]["sources"]]


def test_an_unreadable_workflow_agent_log_is_an_error_naming_it(tmp_path):
    session = copy_session(tmp_path)
    log = session.parent / RUN / "agent-wa1.jsonl"
    log.write_text(log.read_text(encoding="utf-8") + '{"type":"assistant","uuid":\n',
                   encoding="utf-8")
    with pytest.raises(SourceError, match="agent-wa1.jsonl"):
        import_file("claude-code", session)


def test_an_empty_workflow_agent_log_is_an_error_not_an_agent_that_vanishes(tmp_path):
    session = copy_session(tmp_path)
    (session.parent / RUN / "agent-wa1.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(SourceError, match="without a record"):
        import_file("claude-code", session)


def test_other_files_of_a_run_folder_are_named_in_the_evidence(tmp_path):
    session = copy_session(tmp_path)
    (session.parent / RUN / "notes.txt").write_text("scratch\n", encoding="utf-8")
    evidence = import_file("claude-code", session).trace["provenance"]["recognised"]["evidence"]
    assert f"not read (neither agent log nor metadata): {RUN}/notes.txt" in evidence
