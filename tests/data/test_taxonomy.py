"""The survey's axes as data: structure, anchors and vocabulary mappings are checked on load."""

from __future__ import annotations

import pytest
from support import replace_in

from masrl.data.dataset import Dataset
from masrl.data.problems import DataError


def test_axes_have_the_survey_shape():
    taxonomy = Dataset().taxonomy
    assert [f.id for f in taxonomy.reward_families] == [f"R{i}" for i in range(1, 9)]
    assert [u.id for u in taxonomy.credit_units] == [
        "team", "orchestrator", "role", "agent", "turn", "message", "tool_call", "token"]
    assert [d.id for d in taxonomy.subdecisions] == ["O1", "O2", "O3", "O4", "O5"]
    assert [d.decision for d in taxonomy.subdecisions][-1] == "stop"
    assert len(taxonomy.topologies) == 6
    assert [m.id for m in taxonomy.evaluation_measures] == ["E1", "E2", "E3", "E4"]


def test_every_non_na_reward_type_belongs_to_exactly_one_family():
    families = Dataset().taxonomy.reward_families
    mapped = [t for f in families for t in f.reward_types]
    assert sorted(mapped) == sorted(v for v in Dataset().vocabulary.values("reward_type") if v != "NA")


def test_unknown_anchor_is_reported(data_copy):
    replace_in(data_copy / "taxonomy.yaml", "anchors: [kimi-k2-5, agentspawn]",
               "anchors: [kimi-k2-5, agent-spawn]")
    with pytest.raises(DataError) as info:
        Dataset(data_copy).taxonomy
    assert [str(p) for p in info.value.problems] == [
        "taxonomy.yaml:subdecisions[0]:anchors: 'agent-spawn' is not a key of papers.csv"]


def test_unknown_vocabulary_value_and_bad_structure(data_copy):
    replace_in(data_copy / "taxonomy.yaml", "reward_types: [debate, verifier]",
               "reward_types: [debate, judge]")
    with pytest.raises(DataError) as info:
        Dataset(data_copy).taxonomy
    assert [str(p) for p in info.value.problems] == [
        "taxonomy.yaml:reward_families[5]:reward_types: 'judge' is not a reward_type of the vocabulary"]
    replace_in(data_copy / "taxonomy.yaml", "decision: stop", "decision: halt")
    with pytest.raises(DataError) as info:
        Dataset(data_copy).taxonomy
    (problem,) = info.value.problems
    assert str(problem).startswith("taxonomy.yaml:subdecisions[4]:decision: Input should be")


def test_data_dictionary_names_the_real_columns():
    from masrl.data.vocabulary import dictionary

    entries = {e["field"]: e for e in dictionary(Dataset().vocabulary)}
    assert entries["reward_type"]["columns"] == ["reward_type"]
    assert entries["bound"]["columns"] == ["agents_bound", "horizon_bound"]
    assert [v["value"] for v in entries["credit_granularity"]["values"]][-1] == "NA"


def test_malformed_yaml_names_the_line(data_copy):
    path = data_copy / "taxonomy.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[12] = "  - id: [unclosed"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        Dataset(data_copy).taxonomy
    (problem,) = info.value.problems
    assert problem.file == "taxonomy.yaml" and problem.message.startswith("not valid YAML")
    assert problem.row.isdigit() and int(problem.row) >= 13


def test_subdecision_ids_must_match_the_trace_schema(data_copy):
    """The toolkit numbers sub-decisions in its schema (it ships without data/); the survey's
    taxonomy must give each the same id."""
    replace_in(data_copy / "taxonomy.yaml", "name: How to aggregate\n    decision: aggregate",
               "name: How to aggregate\n    decision: stop")
    replace_in(data_copy / "taxonomy.yaml", "name: When to stop\n    decision: stop",
               "name: When to stop\n    decision: aggregate")
    with pytest.raises(DataError) as info:
        Dataset(data_copy).taxonomy
    assert [str(p) for p in info.value.problems] == [
        "taxonomy.yaml:subdecisions[3]:id: 'O4' for 'stop', but the trace schema numbers it 'O5'",
        "taxonomy.yaml:subdecisions[4]:id: 'O5' for 'aggregate', but the trace schema numbers it 'O4'"]
