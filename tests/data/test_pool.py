"""Loaders of the three pool tables: clean data loads; each defect gives its exact error line."""

from __future__ import annotations

import pandas as pd
import pytest
from support import problem_lines, replace_in

from masrl.data import pool
from masrl.data.dataset import Dataset


def test_pool_has_the_documented_columns_and_types():
    frame = Dataset().papers
    for column in ["key", "title", "year", "arxiv_id", "category", "is_rl", "reward_type",
                   "credit_granularity", "orchestration_form", "scenario"]:
        assert column in frame.columns
    assert len(frame) == 84
    assert frame["year"].dtype.kind == "i"
    assert frame["key"].is_unique
    # "NA" is a vocabulary value, never a missing value
    assert (frame["reward_type"] == "NA").sum() == 33
    assert not frame.isna().any().any()


def test_excluded_and_spotcheck_load():
    assert len(Dataset().excluded) == 32
    spot = Dataset().spotcheck
    assert len(spot) == 32
    assert set(spot["key"]) <= set(Dataset().papers["key"])


def test_check_data_is_clean_on_our_data():
    assert Dataset().problems() == []


# --- one defect per test, on a private copy -------------------------------------------------

def test_missing_required_column(data_copy):
    path = data_copy / "papers.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    frame = pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns=["scenario"])
    frame.to_csv(path, index=False)
    assert lines  # the copy existed before we rewrote it
    assert problem_lines("papers", data_copy) == ["papers.csv:1:scenario: required column is missing"]


def test_unknown_vocabulary_value(data_copy):
    replace_in(data_copy / "papers.csv", ",shared,agent,centralized,general,core,yes,",
               ",sharred,agent,centralized,general,core,yes,")
    (line,) = problem_lines("papers", data_copy)
    assert line.startswith("papers.csv:2:reward_type: 'sharred' is not valid: expected a reward_type "
                           "from the controlled vocabulary: one of shared, individual,")


def test_duplicate_key(data_copy):
    replace_in(data_copy / "papers.csv", "\nmarft,", "\nmagrpo,")
    assert problem_lines("papers", data_copy) == [
        "papers.csv:2:key: duplicate value 'magrpo'; each key must be unique",
        "papers.csv:3:key: duplicate value 'magrpo'; each key must be unique",
    ]


def test_duplicate_arxiv_id(data_copy):
    replace_in(data_copy / "papers.csv", ",2504.16129,", ",2508.04652,")
    assert problem_lines("papers", data_copy) == [
        "papers.csv:2:arxiv_id: duplicate arXiv id '2508.04652'",
        "papers.csv:3:arxiv_id: duplicate arXiv id '2508.04652'",
    ]


def test_malformed_arxiv_id(data_copy):
    replace_in(data_copy / "papers.csv", ",2508.04652,", ",2508.4652x,")
    assert problem_lines("papers", data_copy) == [
        "papers.csv:2:arxiv_id: '2508.4652x' is not valid: expected an arXiv id such as "
        "2508.04652, or empty"]


@pytest.mark.parametrize("year", ["1949", str(pool.last_year() + 1), "20x5"])
def test_year_out_of_range(data_copy, year):
    replace_in(data_copy / "papers.csv", ",2025,2508.04652,", f",{year},2508.04652,")
    assert problem_lines("papers", data_copy) == [
        f"papers.csv:2:year: '{year}' is not valid: expected a year from 1950 to {pool.last_year()}"]


def test_url_not_http(data_copy):
    replace_in(data_copy / "papers.csv", "https://arxiv.org/abs/2508.04652", "ftp://arxiv.org/abs/2508.04652")
    assert problem_lines("papers", data_copy) == [
        "papers.csv:2:url: 'ftp://arxiv.org/abs/2508.04652' is not valid: expected http(s) URLs "
        "separated by ' ; '"]


def test_exclusion_stage_outside_vocabulary(data_copy):
    replace_in(data_copy / "excluded.csv", ",abstract_screen,", ",title_screen,")
    (line,) = problem_lines("excluded", data_copy)
    assert line == ("excluded.csv:2:stage: 'title_screen' is not valid: expected a stage from the "
                    "controlled vocabulary: one of abstract_screen, full_text_screen, "
                    "artifact_screen, duplicate_screen")


def test_row_with_wrong_number_of_cells(data_copy):
    replace_in(data_copy / "excluded.csv", "\nE002,", "\nE002,extra,")
    assert problem_lines("excluded", data_copy) == ["excluded.csv:3:-: expected 12 cells, found 13"]


def test_spotcheck_key_not_in_pool(data_copy):
    replace_in(data_copy / "spotcheck.csv", "\nc3,", "\nc4,")
    assert problem_lines("spotcheck", data_copy) == [
        "spotcheck.csv:2:key: 'c4' is not a key of papers.csv"]


def test_spotcheck_original_tags_must_match_the_pool(data_copy):
    replace_in(data_copy / "spotcheck.csv", "\nc3,rl_method,yes,shared,message,",
               "\nc3,rl_method,yes,shared,agent,")
    assert problem_lines("spotcheck", data_copy) == [
        "spotcheck.csv:2:orig_credit_granularity: 'agent' differs from the pool's tag 'message'"]


def test_missing_file_is_a_problem_not_a_crash(data_copy):
    (data_copy / "excluded.csv").unlink()
    assert problem_lines("excluded", data_copy) == ["excluded.csv:0:-: no such file"]


def test_check_data_collects_problems_of_several_files(data_copy):
    replace_in(data_copy / "excluded.csv", ",abstract_screen,", ",title_screen,")
    replace_in(data_copy / "papers.csv", ",2508.04652,", ",2508.4652x,")
    files = sorted({p.file for p in Dataset(data_copy).problems()})
    assert files == ["excluded.csv", "papers.csv"]
