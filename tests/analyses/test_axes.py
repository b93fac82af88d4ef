"""The survey's axes counted over the pool: the anchors of the orchestration figures."""

from masrl.analyses import axes
from masrl.data.dataset import Dataset


def test_orchestration_anchors_name_every_row_a_paper_anchors():
    taxonomy = Dataset().taxonomy
    found = axes.orchestration_anchors(taxonomy).set_index("key")
    named = {key for entry in [*taxonomy.subdecisions, *taxonomy.topologies]
             for key in entry.anchors}
    assert set(found.index) == named
    for entry in taxonomy.subdecisions:
        for key in entry.anchors:
            assert entry.id in found.loc[key, "sub-decisions"].split(", ")
    for entry in taxonomy.topologies:
        for key in entry.anchors:
            assert entry.id in found.loc[key, "topologies"].split(", ")
    assert (found["rows"] == found["n sub-decisions"] + found["n topologies"]).all()
    assert list(found["rows"]) == sorted(found["rows"], reverse=True)


def test_orchestration_anchors_count_a_paper_named_twice_in_one_figure():
    taxonomy = Dataset().taxonomy
    first, second = taxonomy.subdecisions[0], taxonomy.subdecisions[1]
    key = first.anchors[0]
    changed = taxonomy.model_copy(update={"subdecisions": [
        first, second.model_copy(update={"anchors": [*second.anchors, key]}),
        *taxonomy.subdecisions[2:]]})
    row = axes.orchestration_anchors(changed).set_index("key").loc[key]
    assert row["n sub-decisions"] == 2
    assert row["sub-decisions"] == f"{first.id}, {second.id}"
