"""The ATIF importer on hand-written trajectories (v1.7 single agent; v1.8 delegation to an
embedded and to a file-referenced sub-agent) and on documents the atif models reject."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES, source_file

from masrl.traces import replay, validate_document
from masrl.traces.importers import SourceError, dumps, import_file

FOLDER = FIXTURES / "atif"
SINGLE = FOLDER / "single_agent.json"
DELEGATION = FOLDER / "delegation.json"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["t"], e["type"], e["agent"], e.get("to") or e.get("tool"),
             e.get("tokens"), e.get("cost_usd")) for e in trace["events"]]


def edges(trace: dict) -> set[tuple]:
    return {(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]}


def test_single_agent_events_edges_and_run():
    result = import_file("atif", SINGLE)
    trace = result.trace
    assert shape(trace) == [
        ("s2", 1.0, "message", "user", "main", None, None),
        ("s3.0", 3.5, "message", "main", "user", None, None),
        ("s3.1", 3.5, "tool_call", "main", "write_file", None, None),
        ("s3.2", 3.5, "tool_call", "main", "bash", 600, 0.0031),
        ("s3.r0", 3.5, "tool_result", "main", "write_file", None, None),
        ("s3.r1", 3.5, "tool_result", "main", "bash", None, None),
        ("s4", 5.0, "message", "main", "user", 652, 0.0012),
    ]
    assert edges(trace) == {
        ("s2", "s3.0", "message", None), ("s2", "s3.1", "message", None),
        ("s2", "s3.2", "message", None),
        ("s3.1", "s3.r0", "tool_dependency", "blocking"),
        ("s3.2", "s3.r1", "tool_dependency", "blocking"),
        ("s3.r0", "s4", "causal", None), ("s3.r1", "s4", "causal", None),
    }
    by_id = {e["id"]: e for e in trace["events"]}
    # prompt_tokens counts cached ones (ATIF: cached_tokens is a subset): input 520
    assert by_id["s3.2"]["x_usage"] == {"input": 520, "output": 80, "cached_input": 200}
    assert by_id["s3.2"]["x_model_call"] == "steps[2]"
    assert (by_id["s3.2"]["x_model"], by_id["s4"]["x_model"]) == ("model-m", "model-n")
    assert by_id["s3.r0"]["trusted"] is False
    assert (trace["trace_id"], trace["task_id"], trace["system"], trace["topology"]) == (
        "atif:run-001", "run-001", "demo-agent 0.3.0", "unknown")
    assert trace["costs"] == {"tokens": 1252, "wall_clock_s": 5.0, "tool_calls": 2,
                              "messages": 3, "usd": 0.0043}
    assert trace["provenance"] == {
        "format": "atif", "repaired": {},
        "recognised": {"evidence": "agent demo-agent 0.3.0", "shape": "single trajectory",
                       "system": "ATIF", "version": "v1.7"},
        # 4 steps: the system prompt is skipped (its reasoning_content is a skipped part)
        "records": {"mapped": 3, "read": 4, "skipped": 1, "unit": "step"},
        "skipped": {"reasoning_content of an agent step": 1,
                    "system step (system prompt or infrastructure event)": 1},
        "sources": [source_file(SINGLE, "single_agent.json")],
        "time_origin": "2026-02-01T12:00:00.000000Z",
        # the two agent steps: 520 + 640 in, 80 + 12 out, $0.0031 + $0.0012
        "usage": {"skipped": {"cost_usd": 0, "tokens_in": 0, "tokens_out": 0},
                  "source": {"cost_usd": 0.0043, "tokens_in": 1160, "tokens_out": 92}}}
    assert validate_document(trace).problems == []


def test_delegation_to_embedded_and_file_sub_agents():
    result = import_file("atif", DELEGATION)
    trace = result.trace
    assert shape(trace) == [
        ("s1", 0.0, "message", "user", "main", None, None),
        ("s2", 2.0, "spawn", "main", "reader-a", 340, None),
        ("reader-a:s2", 4.0, "tool_call", "reader-a", "read_file", 110, None),
        ("reader-a:s2.r0", 4.0, "tool_result", "reader-a", "read_file", None, None),
        ("reader-a:s3", 9.0, "message", "reader-a", None, 158, None),
        ("s2.r0", 9.0, "return", "reader-a", "main", None, None),  # raised from 2.0
        ("s3.0", 20.0, "message", "main", "user", None, None),
        ("s3.1", 20.0, "spawn", "main", "reader-b", 450, None),
        ("reader-b:s2", 30.0, "message", "reader-b", None, 97, None),
        ("s3.r0", 30.0, "return", "reader-b", "main", None, None),  # raised from 20.0
        ("s4", 40.0, "message", "main", "user", 525, None),
    ]
    assert edges(trace) == {
        ("s1", "s2", "message", None),
        ("s2", "reader-a:s2", "spawn", "blocking"),
        ("reader-a:s2", "reader-a:s2.r0", "tool_dependency", "blocking"),
        ("reader-a:s2.r0", "reader-a:s3", "causal", None),
        ("reader-a:s3", "s2.r0", "causal", None),
        ("s2.r0", "s3.0", "return", None), ("s2.r0", "s3.1", "return", None),
        ("s3.1", "reader-b:s2", "spawn", "blocking"),
        ("reader-b:s2", "s3.r0", "causal", None),
        ("s3.r0", "s4", "return", None),
    }
    assert result.repairs == {
        "event time raised to the time of an event it depends on": 2,
        "sub-agent task (its first user step) carried by its spawn event": 2}
    assert trace["provenance"]["sources"] == [
        source_file(DELEGATION, "delegation.json"),
        source_file(FOLDER / "reader_b.json", "reader_b.json")]
    assert trace["costs"]["usd"] == 0.02
    report = validate_document(trace)
    assert report.problems == []
    metrics = replay(report.trace).metrics
    assert metrics["spawn_depth"] == 1


def test_content_is_hashed_never_copied():
    for path in (SINGLE, DELEGATION):
        text = dumps(import_file("atif", path).trace)
        for secret in ("careful coding", "hello.txt", "revenue", "Read report", "costs flat"):
            assert secret not in text


def test_same_file_same_bytes(tmp_path):
    copy = tmp_path / "d"
    copy.mkdir()
    for name in ("delegation.json", "reader_b.json"):
        (copy / name).write_bytes((FOLDER / name).read_bytes())
    assert dumps(import_file("atif", copy / "delegation.json").trace) == dumps(
        import_file("atif", DELEGATION).trace)


def edited(tmp_path, path, change) -> object:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    target = tmp_path / path.name
    target.write_text(json.dumps(document), encoding="utf-8")
    if path == DELEGATION:
        (tmp_path / "reader_b.json").write_bytes((FOLDER / "reader_b.json").read_bytes())
    return target


@pytest.mark.parametrize("change, where, message", [
    (lambda d: d["steps"][2].update(step_id=7), None,
     "not an ATIF trajectory: steps[2].step_id=7 is not sequential; expected 3."),
    (lambda d: d["steps"][1].update(tool_calls=[]), "steps[1]",
     "not an ATIF trajectory: Field `tool_calls` is only valid on `source='agent'` steps (this "
     "step has source='user')."),
    (lambda d: d["steps"][2]["tool_calls"][0].update(arguments="path=hello.txt"),
     "steps[2].tool_calls[0].arguments", "not an ATIF trajectory: Input should be a valid "
     "dictionary"),
    (lambda d: d["steps"][2].update(source="robot"), "steps[2].source",
     "not an ATIF trajectory: Input should be 'system', 'user' or 'agent'"),
    (lambda d: d.update(colour="blue"), "colour",
     "not an ATIF trajectory: Extra inputs are not permitted"),
])
def test_rejected_documents_name_the_place(tmp_path, change, where, message):
    path = edited(tmp_path, SINGLE, change)
    with pytest.raises(SourceError) as caught:
        import_file("atif", path)
    place = str(path) if where is None else f"{path}:{where}"
    assert str(caught.value) == f"{place}: {message}"


def test_reference_to_no_trajectory(tmp_path):
    def change(d):
        d["steps"][1]["observation"]["results"][0]["subagent_trajectory_ref"] = [
            {"trajectory_id": "nobody"}]
    path = edited(tmp_path, DELEGATION, change)
    with pytest.raises(SourceError) as caught:
        import_file("atif", path)
    assert str(caught.value) == (f"{path}:steps[1].observation.results[0].subagent_trajectory_"
                                 "ref[0]: names trajectory 'nobody', which is not among the "
                                 "subagent_trajectories")


def test_sub_agent_that_no_step_references(tmp_path):
    def change(d):
        d["subagent_trajectories"].append(dict(d["subagent_trajectories"][0],
                                               trajectory_id="idle"))
    path = edited(tmp_path, DELEGATION, change)
    with pytest.raises(SourceError) as caught:
        import_file("atif", path)
    assert str(caught.value) == (f"{path}:subagent_trajectories[1]: sub-agent trajectory 'idle' "
                                 "is referenced by no step (no subagent_trajectory_ref names it)")


MISSING = ("sub-agent trajectory file {!r} not beside the trajectory (the sub-agent is known by "
           "its spawn and return only; its steps are not recorded)")
ALONE = FOLDER / "alone" / "trajectory.json"


def test_a_trajectory_shared_without_its_sub_agent_file_is_imported():
    """A run shared as its trajectory.json alone: the sub-agent whose file is missing is known
    by its spawn and its return (the result's content), named by the reference's
    trajectory_id; the missing file is named among what the import left out, and the shape
    says so. The whole trajectory was refused."""
    result = import_file("atif", ALONE)
    trace = result.trace
    assert shape(trace) == [
        ("s1", 0.0, "message", "user", "main", None, None),
        ("s2", 3.0, "spawn", "main", "comparer-run-017", 655, None),
        ("s2.r0", 3.0, "return", "comparer-run-017", "main", None, None),
        ("s3", 70.0, "message", "main", "user", 758, None),
    ]
    assert edges(trace) == {("s1", "s2", "message", None),
                            ("s2", "s2.r0", "spawn", "blocking"),
                            ("s2.r0", "s3", "return", None)}
    assert result.skipped == {MISSING.format("trajectory.subagent-comparer.json"): 1}
    assert "sub-agent whose trajectory file is missing" in result.recognised["shape"]
    assert result.recognised["evidence"].endswith(
        "; 1 sub-agent whose trajectory file is missing (its spawn and return only)")
    assert trace["provenance"]["records"] == {"mapped": 3, "read": 3, "skipped": 0,
                                              "unit": "step"}
    assert validate_document(trace).errors == []


def test_missing_trajectory_file(tmp_path):
    """The delegation fixture without reader_b.json: the embedded sub-agent is read as before,
    reader_b only by its spawn and return (named by the file's stem: the reference gives no
    trajectory_id)."""
    path = edited(tmp_path, DELEGATION, lambda d: None)
    whole = import_file("atif", path).trace
    (tmp_path / "reader_b.json").unlink()
    result = import_file("atif", path)
    assert result.skipped == {MISSING.format("reader_b.json"): 1}
    def refer_by_path(document):  # the embedded reader-a referenced by a missing file
        document["steps"][1]["observation"]["results"][0]["subagent_trajectory_ref"] = [
            {"trajectory_path": "reader_a.json"}]
        document["subagent_trajectories"] = []
    two = edited(tmp_path, DELEGATION, refer_by_path)
    (tmp_path / "reader_b.json").unlink()
    assert "; 2 sub-agents whose trajectory files are missing (their spawns and returns only)" \
        in import_file("atif", two).recognised["evidence"]
    spawned = {e["to"] for e in result.trace["events"] if e["type"] == "spawn"}
    assert spawned == {"reader-a", "reader_b"}
    kept = [e for e in whole["events"] if e["agent"] != "reader-b" and e.get("to") != "reader-b"]
    assert [e["id"] for e in result.trace["events"] if e["agent"] != "reader_b"
            and e.get("to") != "reader_b"] == [e["id"] for e in kept]
    assert validate_document(result.trace).errors == []


def test_not_an_object(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("atif", path)
    assert str(caught.value) == f"{path}: an ATIF trajectory must be a JSON object"
