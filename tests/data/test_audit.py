"""Loaders of our audit files: clean data loads; each defect gives its exact problem line."""

from __future__ import annotations

import pytest
from support import problem_lines, replace_in

from masrl.data import audit
from masrl.data.dataset import Dataset

# --- audit.csv ----------------------------------------------------------------------------------

def test_audit_covers_the_message_and_orchestrator_cells_and_the_anchors():
    frame = Dataset().audit
    papers = Dataset().papers.set_index("key")
    in_cells = set(papers.index[papers["credit_granularity"].isin(audit.AUDITED_CELLS)])
    read = set(frame.loc[frame["credit_reading"] != "NA", "key"])
    assert read == in_cells
    anchors = {(k, d.id) for d in Dataset().taxonomy.subdecisions for k in d.anchors}
    marked = {(k, s) for k, ids in zip(frame["key"], frame["subdecisions"]) for s in ids}
    assert marked == anchors
    assert all(isinstance(ids, list) for ids in frame["subdecisions"])


def test_audit_key_must_be_in_the_pool(data_copy):
    replace_in(data_copy / "audit.csv", "\nhalo,O2,", "\nhalo2,O2,")
    lines = problem_lines("audit", data_copy)
    assert "audit.csv:6:key: 'halo2' is not a key of papers.csv" in lines
    assert ("audit.csv:-:subdecisions: taxonomy.yaml names 'halo' as an anchor of O2, "
            "but no row marks it") in lines


def test_an_anchor_the_survey_does_not_name_comes_from_the_audit_data(data_copy):
    # the anchors are data: a row may anchor O5, which the survey's taxonomy lists no anchor for
    replace_in(data_copy / "audit.csv", "\nhalo,O2,", "\nhalo,O2 ; O5,")
    audit = Dataset(data_copy).audit.set_index("key")
    assert audit.at["halo", "subdecisions"] == ["O2", "O5"]
    replace_in(data_copy / "audit.csv", "\nhalo,O2 ; O5,", "\nhalo,O2 ; O9,")
    assert problem_lines("audit", data_copy) == [
        "audit.csv:6:subdecisions: 'O9' is not a sub-decision of taxonomy.yaml"]
    replace_in(data_copy / "audit.csv", "\nhalo,O2 ; O9,", "\nhalo,O2;O5,")
    (line,) = problem_lines("audit", data_copy)
    assert line.startswith("audit.csv:6:subdecisions: 'O2;O5' is not valid: expected sub-decision ids")


def test_audit_reading_needed_for_cell_rows_and_refused_elsewhere(data_copy):
    replace_in(data_copy / "audit.csv", "\nowl2025,,strict,", "\nowl2025,,NA,")
    replace_in(data_copy / "audit.csv", "\nhalo,O2,NA,", "\nhalo,O2,broad,")
    assert problem_lines("audit", data_copy) == [
        "audit.csv:6:credit_reading: 'broad' given, but papers.csv tags the row 'role' credit; "
        "readings apply to message and orchestrator rows only",
        "audit.csv:13:credit_reading: the row is tagged 'orchestrator' credit; give its reading "
        "(strict or broad)",
    ]


def test_audit_row_missing_for_a_cell_row(data_copy):
    path = data_copy / "audit.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith("mas-zero2025,")),
                    encoding="utf-8")
    assert problem_lines("audit", data_copy) == [
        "audit.csv:-:key: 'mas-zero2025' is tagged 'orchestrator' credit in papers.csv but has "
        "no row here"]


def test_audit_reading_outside_the_vocabulary(data_copy):
    replace_in(data_copy / "audit.csv", "\nc3,,strict,", "\nc3,,explicit,")
    (line,) = problem_lines("audit", data_copy)
    assert line.startswith("audit.csv:3:credit_reading: 'explicit' is not valid: expected a "
                           "credit_reading from the controlled vocabulary: one of strict, broad, NA")


# --- near_misses.csv ----------------------------------------------------------------------------

def test_near_misses_are_excluded_records():
    frame = Dataset().near_misses
    assert set(frame["record_id"]) <= set(Dataset().excluded["record_id"])
    assert frame["record_id"].is_unique
    assert all(isinstance(ids, list) for ids in frame["learned_subdecisions"])


def test_near_miss_record_must_exist_and_reading_must_fit(data_copy):
    replace_in(data_copy / "near_misses.csv", "\nE003,", "\nE999,")
    replace_in(data_copy / "near_misses.csv", "\nE006,framework,no,NA,NA,centralized,NA,",
               "\nE006,framework,no,NA,NA,centralized,strict,")
    assert problem_lines("near_misses", data_copy) == [
        "near_misses.csv:2:record_id: 'E999' is not a record of excluded.csv",
        "near_misses.csv:3:credit_reading: 'strict' does not fit credit 'NA': strict or broad "
        "for message and orchestrator credit, NA otherwise",
    ]


def test_near_miss_unknown_subdecision(data_copy):
    replace_in(data_copy / "near_misses.csv", ",O2,medium,", ",O9,medium,")
    assert problem_lines("near_misses", data_copy) == [
        "near_misses.csv:11:learned_subdecisions: 'O9' is not a sub-decision of taxonomy.yaml"]


# --- benchmark_coverage.csv -----------------------------------------------------------------------

def test_every_benchmark_row_of_the_pool_is_covered():
    frame = Dataset().benchmark_coverage
    papers = Dataset().papers
    benchmarks = set(papers.loc[papers["category"] == "benchmark", "key"])
    assert benchmarks <= set(frame["key"])
    extra = frame[~frame["key"].isin(benchmarks)]
    assert set(extra["mas_native"]) <= {"closed"}


def test_missing_benchmark_and_wrong_key(data_copy):
    path = data_copy / "benchmark_coverage.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith("wasp2025,")),
                    encoding="utf-8")
    replace_in(path, "\nswe-bench2024,", "\nmagrpo,")
    assert problem_lines("benchmark_coverage", data_copy) == [
        "benchmark_coverage.csv:-:key: benchmark row 'swe-bench2024' of papers.csv has no row here",
        "benchmark_coverage.csv:-:key: benchmark row 'wasp2025' of papers.csv has no row here",
        "benchmark_coverage.csv:3:key: 'magrpo' is a rl_method row of papers.csv; only "
        "benchmark rows, or closed benchmarks a row reports, belong here",
    ]


def test_coverage_level_outside_the_vocabulary(data_copy):
    replace_in(data_copy / "benchmark_coverage.csv", ",no,full,none,none,none,survey,Resolved",
               ",no,full,some,none,none,survey,Resolved")
    (line,) = problem_lines("benchmark_coverage", data_copy)
    assert line.startswith("benchmark_coverage.csv:3:e2: 'some' is not valid: expected a "
                           "measure_coverage from the controlled vocabulary")


# --- cross-checks against the survey artifact (skipped on a fresh clone) --------------------

@pytest.mark.reference
def test_audit_reading_agrees_with_the_artifacts_spotcheck(reference_dir):
    import pandas as pd

    spot = pd.read_csv(reference_dir / "independent_spotcheck_2026-05-03.csv", dtype=str,
                       keep_default_na=False).set_index("key")["strict_explicit_credit"]
    frame = Dataset().audit
    read = frame[(frame["credit_reading"] != "NA") & frame["key"].isin(spot.index)]
    assert len(read) > 0
    for key, reading in zip(read["key"], read["credit_reading"]):
        assert (reading == "strict") == (spot[key] == "yes"), key


@pytest.mark.reference
def test_near_misses_are_in_the_artifacts_exclusion_log(reference_dir):
    import pandas as pd

    excluded = pd.read_csv(reference_dir / "excluded.csv", dtype=str, keep_default_na=False)
    assert set(Dataset().near_misses["record_id"]) <= set(excluded["record_id"])
