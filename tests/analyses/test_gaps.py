"""Gap analyses: cell marks, sub-decision coverage, the three readings, the stress test and the
benchmark gap; each on hand-made inputs where the answer is known, and on our data."""

from __future__ import annotations

import pandas as pd
import pytest

from masrl.analyses import gaps, stats
from masrl.data.dataset import Dataset


@pytest.fixture(scope="module")
def data():
    return {"pool": Dataset().papers, "audit": Dataset().audit,
            "spotcheck": Dataset().spotcheck, "excluded": Dataset().excluded,
            "near_misses": Dataset().near_misses, "coverage": Dataset().benchmark_coverage,
            "taxonomy": Dataset().taxonomy, "vocab": Dataset().vocabulary}


# --- marks -----------------------------------------------------------------------------------------

def _table(values, rows, columns):
    return pd.DataFrame(values, index=pd.Index(rows, name="reward_type"),
                        columns=pd.Index(columns, name="credit_granularity"))


def test_marks_empty_thin_populated_inherited_and_not_applicable(data):
    table = _table([[3, 0, 0, 0], [1, 2, 0, 0], [0, 0, 0, 5]],
                   ["shared", "role", "NA"], ["agent", "orchestrator", "token", "NA"])
    cells = gaps.marked_cells(table, data["taxonomy"], thin=2).set_index(
        ["reward_type", "credit_granularity"])["mark"]
    assert cells["shared", "agent"] == "populated"
    assert cells["role", "agent"] == "thin"
    assert cells["role", "orchestrator"] == "thin"
    assert cells["shared", "orchestrator"] == "empty"
    assert cells["shared", "token"] == "inherited"  # unused column of an inherited unit
    assert cells["NA", "agent"] == "not applicable"
    assert cells["shared", "NA"] == "not applicable"


def test_zero_column_of_a_non_inherited_unit_is_empty_not_inherited(data):
    table = _table([[0, 4]], ["shared"], ["message", "agent"])
    marks = gaps.marked_cells(table, data["taxonomy"]).set_index("credit_granularity")["mark"]
    assert marks["message"] == "empty"


def test_marked_table_and_mark_counts(data):
    table = _table([[3, 0], [1, 0]], ["shared", "role"], ["agent", "token"])
    cells = gaps.marked_cells(table, data["taxonomy"])
    grid = gaps.marked_table(cells)
    assert grid.loc["shared", "agent"] == "3"
    assert grid.loc["role", "agent"] == "1 (thin)"
    assert grid.loc["role", "token"] == "0 (inherited)"
    counts = gaps.mark_counts(cells)
    assert list(counts.index) == gaps.MARKS
    assert counts.sum() == 4 and counts["inherited"] == 2


def test_zero_row_units_are_inherited_on_our_data_but_missing_if_not_inherited(data):
    units = gaps.credit_units(data["pool"], data["taxonomy"]).set_index("credit_granularity")
    assert set(units.index[units["papers"] == 0]) == {"team", "tool", "token"}
    assert (units.loc[["team", "tool", "token"], "reading"] == "inherited").all()
    without_message = data["pool"].assign(credit_granularity=data["pool"]["credit_granularity"]
                                          .replace("message", "agent"))
    units = gaps.credit_units(without_message, data["taxonomy"]).set_index("credit_granularity")
    assert units.at["message", "reading"] == "missing"  # a new unit with no rows is a gap


# --- sub-decisions -----------------------------------------------------------------------------------

def test_o5_is_computed_to_be_empty(data):
    coverage = gaps.subdecision_coverage(data["audit"], data["pool"], data["taxonomy"]).set_index("id")
    assert list(coverage.index) == ["O1", "O2", "O3", "O4", "O5"]
    assert coverage.at["O5", "anchors"] == 0
    assert (coverage.loc[["O1", "O2", "O3", "O4"], "anchors"] > 0).all()
    assert (coverage["RL-trained"] + coverage["partly RL"] <= coverage["anchors"]).all()


def test_subdecision_coverage_counts_a_marked_stop_anchor(data):
    marked = data["audit"].copy()
    marked.loc[marked["key"] == "kimi-k2-5", "subdecisions"] = pd.Series([["O1", "O5"]]).values
    coverage = gaps.subdecision_coverage(marked, data["pool"], data["taxonomy"]).set_index("id")
    assert coverage.at["O5", "anchors"] == 1 and coverage.at["O5", "RL-trained"] == 1
    matrix = gaps.subdecision_matrix(marked, data["taxonomy"])
    assert matrix.at["kimi-k2-5", "O5"] == "yes" and matrix.at["anchors", "O5"] == "1"


# --- readings ------------------------------------------------------------------------------------------

def test_readings_of_the_audited_cells(data):
    cells = gaps.cell_counts(data["pool"], data["audit"], data["spotcheck"], data["vocab"])
    assert cells.loc["message"].to_dict() == {"broad": 2, "strict": 1, "spotcheck": 2}
    assert cells.loc["orchestrator"].to_dict() == {"broad": 8, "strict": 5, "spotcheck": 9}


def test_every_reading_keeps_or_drops_rows_consistently(data):
    counts = gaps.reading_counts(data["pool"], data["audit"], data["spotcheck"], data["vocab"])
    n = len(data["pool"])
    assert counts["broad"].sum() == n and counts["spotcheck"].sum() == n
    dropped = gaps.reading_changes(data["pool"], data["audit"], data["spotcheck"], "strict")
    assert counts["strict"].sum() == n - len(dropped)
    assert set(dropped["strict"]) == {"dropped"}
    audited = counts.index[counts["strictness audited"] == "yes"]
    assert (counts.drop(index=audited)["strict"] == counts.drop(index=audited)["broad"]).all()


def test_spotcheck_reading_takes_the_second_readers_tag(data):
    spot = data["spotcheck"].copy()
    spot.loc[spot["key"] == "c3", "ann_credit_granularity"] = "agent"
    moves = gaps.reading_changes(data["pool"], data["audit"], spot, "spotcheck")
    assert set(map(tuple, moves.to_numpy())) == {("halo", "role", "orchestrator"),
                                                 ("c3", "message", "agent")}


def test_unknown_reading_is_refused(data):
    with pytest.raises(ValueError, match="unknown reading 'lenient'"):
        gaps.effective_credit(data["pool"], data["audit"], data["spotcheck"], "lenient")


def test_strict_against_spotcheck_flags_a_mismatch(data):
    changed = data["audit"].copy()
    changed.loc[changed["key"] == "owl2025", "credit_reading"] = "broad"
    table = gaps.strict_against_spotcheck(changed, data["spotcheck"])
    assert list(table.loc[~table["agree"], "key"]) == ["owl2025"]


# --- stress test ---------------------------------------------------------------------------------------

def test_near_misses_change_no_strict_cell_and_no_o5(data):
    table = gaps.stress_test(data["pool"], data["audit"], data["near_misses"], data["excluded"])
    assert list(table["record"]) == [*data["near_misses"]["record_id"], "all"]
    deltas = ["message broad +", "message strict +", "orchestrator broad +",
              "orchestrator strict +", "learned O5 +"]
    assert (table[deltas] == 0).all().all()


def test_a_strict_orchestrator_near_miss_would_show(data):
    misses = data["near_misses"].copy()
    misses.loc[0, ["credit_granularity", "credit_reading"]] = ["orchestrator", "strict"]
    misses.at[1, "learned_subdecisions"] = ["O5"]
    misses.at[1, "is_rl"] = "yes"
    table = gaps.stress_test(data["pool"], data["audit"], misses, data["excluded"]).set_index("record")
    first, second = misses["record_id"][0], misses["record_id"][1]
    assert table.at[first, "orchestrator broad +"] == 1
    assert table.at[first, "orchestrator strict +"] == 1
    assert "credit_granularity orchestrator 8->9" in table.at[first, "other counts changed"]
    assert table.at[second, "learned O5 +"] == 1
    assert table.at["all", "orchestrator strict +"] == 1 and table.at["all", "learned O5 after"] == 1


# --- benchmark gap ---------------------------------------------------------------------------------------

def test_covering_all_respects_levels_and_ignores_closed():
    frame = pd.DataFrame([
        ["A", "yes", "full", "full", "full", "full"],
        ["B", "partial", "full", "partial", "unknown", "full"],
        ["C", "closed", "full", "full", "full", "full"],
        ["D", "no", "full", "none", "full", "full"],
    ], columns=["benchmark", "mas_native", "e1", "e2", "e3", "e4"])
    assert gaps.covering_all(frame) == ["A"]
    assert gaps.covering_all(frame, ("full", "partial", "unknown")) == ["A", "B"]


def test_no_open_benchmark_covers_e1_e4_on_our_data(data):
    assert gaps.covering_all(data["coverage"]) == []
    assert gaps.covering_all(data["coverage"], ("full", "partial", "unknown")) == []
    summary = gaps.measure_summary(data["coverage"], data["taxonomy"], data["vocab"])
    assert list(summary.index) == ["E1", "E2", "E3", "E4"]
    open_rows = len(gaps.open_benchmarks(data["coverage"]))
    assert (summary[data["vocab"].values("measure_coverage")].sum(axis=1) == open_rows).all()


def test_crosstab_marks_on_our_data_keep_the_whole_grid(data):
    table = stats.crosstab(data["pool"], "orchestration_form", "credit_granularity", data["vocab"])
    cells = gaps.marked_cells(table, data["taxonomy"])
    assert len(cells) == table.size
    assert cells["papers"].sum() == len(data["pool"])
