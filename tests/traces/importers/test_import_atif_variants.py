"""ATIF versions and the shapes Harbor's agents write (issue 18), on hand-written trajectories
shaped like Terminus's: a context summarization that hands off to three sub-agents from one
observation result, a run split into continuation files, raw responses whose commands are in the
message, and a v1.6 reference by session_id alone."""

from __future__ import annotations

import json
import shutil

import pytest
from importer_helpers import FIXTURES

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers._kit.accounting import conservation_problems, figures

FOLDER = FIXTURES / "atif"
TERMINUS = FOLDER / "terminus" / "trajectory.json"
CONTINUATION = FOLDER / "terminus" / "trajectory.cont-1.json"
RAW = FOLDER / "terminus_raw" / "trajectory.json"
V16 = FOLDER / "v1_6" / "trajectory.json"


def test_every_sub_agent_of_one_result_is_spawned_and_returns():
    """One observation result references three summarization sub-agents: each gets a spawn,
    its steps and a return (only the first was read before, with neither), and their tokens
    (800 + 600 + 900 in, 150 + 90 + 60 out) are counted."""
    trace = import_file("atif", TERMINUS).trace
    spawns = [e for e in trace["events"] if e["type"] == "spawn"]
    returns = [e for e in trace["events"] if e["type"] == "return"]
    names = [f"trajectory.summarization-1-{s}" for s in ("summary", "questions", "answers")]
    assert [e["to"] for e in spawns] == names
    assert [e["agent"] for e in returns] == names
    sub_tokens = sum(e.get("x_usage", {}).get("input", 0) for e in trace["events"]
                     if e["agent"] in names)
    assert sub_tokens == 2300
    assert validate_document(trace).problems == []


def test_continuation_is_followed_as_the_same_run():
    result = import_file("atif", TERMINUS)
    trace = result.trace
    assert [s["name"] for s in trace["provenance"]["sources"]] == [
        "trajectory.json", "trajectory.cont-1.json", "trajectory.summarization-1-summary.json",
        "trajectory.summarization-1-questions.json", "trajectory.summarization-1-answers.json"]
    # counted by hand: user, main and the three sub-agents; 2 + 1 + 1 + 1 tool calls; 4 agent
    # steps of main and one per sub-agent; tokens of every agent step
    assert figures(trace) == {
        "agents": 5, "spawns": 3, "tool_calls": 5, "model_calls": 7,
        "tokens_in": 1000 + 1500 + 1200 + 1300 + 2300, "tokens_out": 100 + 120 + 80 + 30 + 300,
        "first": "2026-03-05T08:00:01.000Z", "last": "2026-03-05T08:00:40.000Z"}
    assert result.skipped["step copied from an earlier trajectory (is_copied_context)"] == 4
    # the steps' own costs, sub-agents included; the last segment's final_metrics (0.039)
    # leaves the sub-agents out
    assert trace["costs"]["usd"] == pytest.approx(0.051)
    assert conservation_problems(trace) == []
    assert "1 continuation segment;" in result.recognised["evidence"]


def test_a_continuation_alone_is_charged_its_own_steps():
    trace = import_file("atif", CONTINUATION).trace
    assert trace["costs"]["usd"] == pytest.approx(0.017)  # not final_metrics' 0.039
    assert figures(trace)["tokens_in"] == 2500
    assert trace["provenance"]["records"] == {"mapped": 3, "read": 7, "skipped": 4,
                                              "unit": "step"}


def test_a_continuation_without_step_costs_is_not_charged_the_run_total(tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(TERMINUS.parent, folder)
    path = folder / CONTINUATION.name
    document = json.loads(path.read_text(encoding="utf-8"))
    for step in document["steps"]:
        step.get("metrics", {}).pop("cost_usd", None)
    path.write_text(json.dumps(document), encoding="utf-8")
    result = import_file("atif", path)
    assert "usd" not in result.trace["costs"]
    assert result.skipped["final_metrics.total_cost_usd of a continuation segment (cumulative "
                          "over the earlier segments; not charged)"] == 1


def test_missing_continuation_is_an_error(tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(TERMINUS.parent, folder)
    (folder / CONTINUATION.name).unlink()
    with pytest.raises(SourceError) as caught:
        import_file("atif", folder / TERMINUS.name)
    assert str(caught.value) == (f"{folder / TERMINUS.name}:continued_trajectory_ref: "
                                 "'trajectory.cont-1.json' names no file beside the trajectory "
                                 "(the run goes on in it)")


def test_one_terminal_screen_answers_the_step_s_commands():
    trace = import_file("atif", TERMINUS).trace
    edges = {(e["src"], e["dst"], e["type"]) for e in trace["edges"]}
    assert {("s3.1", "s3.r0", "tool_dependency"), ("s3.2", "s3.r0", "tool_dependency")} <= edges


def test_raw_terminal_responses_give_their_commands_as_tool_calls():
    """Terminus keeping the model's raw text writes no tool_calls: the JSON (fenced) and XML
    responses hold 2 and 1 commands; the last response has none (it finishes)."""
    trace = import_file("atif", RAW).trace
    calls = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert [(e["id"], e["tool"]) for e in calls] == [
        ("s2.0", "bash_command"), ("s2.1", "bash_command"), ("s3", "bash_command")]
    assert figures(trace)["tool_calls"] == 3
    assert figures(trace)["model_calls"] == 3


def test_v1_6_reference_by_session_id_is_resolved_to_the_file_beside_it():
    result = import_file("atif", V16)
    assert result.repairs["pre-v1.7 sub-agent reference resolved by its session_id to the file "
                          "beside it"] == 1
    assert [e["to"] for e in result.trace["events"] if e["type"] == "spawn"] == ["helper"]


def test_v1_6_reference_to_no_file_names_the_session(tmp_path):
    folder = tmp_path / "v"
    shutil.copytree(V16.parent, folder)
    (folder / "helper.json").unlink()
    with pytest.raises(SourceError) as caught:
        import_file("atif", folder / V16.name)
    assert "names session 'helper-run' only" in str(caught.value)


@pytest.mark.parametrize("path, version", [
    (RAW, "v1.4"), (TERMINUS, "v1.5"), (V16, "v1.6"), (FOLDER / "single_agent.json", "v1.7"),
    (FOLDER / "delegation.json", "v1.8"),
])
def test_each_version_is_recorded(path, version):
    result = import_file("atif", path)
    assert result.trace["provenance"]["recognised"]["version"] == version
    assert conservation_problems(result.trace) == []


FINAL_ONLY = FOLDER / "final_metrics_only.json"


def test_run_totals_stated_only_in_final_metrics_are_kept_and_accounted():
    """Some installed agents write no per-step metrics, only the run's totals in
    ``final_metrics`` (2400 prompt and 130 completion tokens, $0.0061 here). No model call
    carries them, so the figures state no tokens (None, not 0), but the run's costs do, and the
    account states them and names them as skipped: before, the costs took the dollars and left
    the tokens at 0, and the provenance said the source stated nothing."""
    result = import_file("atif", FINAL_ONLY)
    trace = result.trace
    assert trace["costs"]["tokens"] == 2400 + 130
    assert trace["costs"]["usd"] == pytest.approx(0.0061)
    usage = trace["provenance"]["usage"]
    assert usage["source"] == pytest.approx({"tokens_in": 2400, "tokens_out": 130,
                                             "cost_usd": 0.0061})
    assert usage["skipped"] == usage["source"]
    assert result.skipped["final_metrics totals of a run whose steps state no usage (no model "
                          "call carries them)"] == 1
    assert conservation_problems(trace) == []
    counted = figures(trace)
    assert (counted["model_calls"], counted["tokens_in"], counted["tokens_out"]) == (2, None, None)
    assert validate_document(trace).problems == []


PREFIXED = FOLDER / "prefixed" / "quill-lint__a1.trajectory.json"


def test_references_find_sibling_files_that_carry_the_trajectorys_prefix():
    """A harness that keeps several runs in one folder prefixes their files
    (``quill-lint__a1.trajectory.cont-1.json``) while the references inside name them without
    (``trajectory.cont-1.json``): both the continuation and the summary sub-agent are found."""
    result = import_file("atif", PREFIXED)
    assert sorted(p.rsplit("/", 1)[-1] for p in result.files) == [
        "quill-lint__a1.trajectory.cont-1.json", "quill-lint__a1.trajectory.json",
        "quill-lint__a1.trajectory.summarization-1-summary.json"]
    assert result.repairs["reference resolved to the file beside it that carries the "
                          "referring file's prefix before 'trajectory'"] == 2
    trace = result.trace
    assert {e["agent"] for e in trace["events"]} == {"user", "main",
                                                    "trajectory.summarization-1-summary"}
    assert validate_document(trace).problems == []
    assert conservation_problems(trace) == []


def test_a_prefixed_reference_with_no_file_is_still_an_error(tmp_path):
    shutil.copytree(FOLDER / "prefixed", tmp_path / "prefixed")
    (tmp_path / "prefixed" / "quill-lint__a1.trajectory.cont-1.json").unlink()
    root = tmp_path / "prefixed" / PREFIXED.name
    with pytest.raises(SourceError, match="'trajectory.cont-1.json' names no file beside"):
        import_file("atif", root)


def test_restored_event_ids_that_collide_are_refused_naming_both_steps(tmp_path):
    document = json.loads(TERMINUS.read_text(encoding="utf-8"))
    for k in (1, 2):
        document["steps"][k]["extra"] = {"masrl": {"id": "e1", "t": 0, "type": "message",
                                                   "agent": "main"}}
    shutil.copytree(TERMINUS.parent, tmp_path / "t")
    path = tmp_path / "t" / "trajectory.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("atif", path)
    assert str(caught.value) == (f"{path}:steps[2]: event id 'e1' is given twice (first at "
                                 "steps[1]): restored ids (extra.masrl.id) and step ids must "
                                 "be unique")
