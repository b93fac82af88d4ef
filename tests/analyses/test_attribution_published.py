"""The paper's published figures: the data file, the Random row beside our exact values, and the
whole-number check, on hand-made numbers and (when present) on the real logs."""

from __future__ import annotations

import pytest
from support import problem_lines, replace_in

from masrl import paths
from masrl.analyses import attribution_published as published
from masrl.data.dataset import Dataset
from masrl.data.who_and_when_published import Method
from masrl.traces.attribution import gold

LOGS = paths.public_logs_dir() / "who-and-when"


def test_the_data_file_loads_with_every_cell():
    figures = Dataset().who_and_when_published
    assert figures.logs == {"algorithm-generated": 126, "hand-crafted": 58}
    assert list(figures.methods) == ["random", "all-at-once", "step-by-step", "binary-search"]
    table = published.table(figures)
    assert len(table) == 16
    assert table.set_index(["method", "level", "subset"]).loc[
        ("random", "agent", "hand-crafted"), "accuracy"] == 12.0
    assert list(published.wide(figures).columns) == [
        "agent-level, algorithm-generated", "agent-level, hand-crafted",
        "step-level, algorithm-generated", "step-level, hand-crafted"]


def test_a_damaged_data_file_names_the_place(data_copy):
    replace_in(data_copy / paths.WHO_AND_WHEN_PUBLISHED, "agent: {algorithm-generated: 35.20, "
               "hand-crafted: 34.48}", "agent: {algorithm-generated: 135.20}")
    lines = problem_lines("who_and_when_published", data_copy)
    assert lines == ["who_and_when_published.yaml:methods[step-by-step]:agent: Value error, "
                     "needs exactly the subsets algorithm-generated, hand-crafted"]


@pytest.mark.parametrize("value, logs, k", [(55.17, 58, 32), (5.26, 58, None), (5.26, 57, 3),
                                            (6.90, 58, 4), (0.0, 58, 0), (100.0, 58, 58),
                                            (54.33, 126, None), (54.33, 127, 69)])
def test_whole_numbers_of_logs(value, logs, k):
    assert published.whole(value, logs) == k


def test_fractions_of_the_published_table():
    figures = Dataset().who_and_when_published
    frame = published.fractions(figures).set_index(["method", "level", "subset"])
    row = frame.loc[("All-at-Once (GPT-4o)", "step", "hand-crafted")]
    assert (row["whole"], row["correct logs"], row["whole for"]) == (False, "", "3 of 57")
    row = frame.loc[("Binary Search (GPT-4o)", "agent", "hand-crafted")]
    assert (row["whole"], row["correct logs"]) == (True, "30 of 58")
    assert published.fractions_off(figures, "hand-crafted") == ["all-at-once/step",
                                                                "step-by-step/step"]
    assert len(published.fractions_off(figures, "algorithm-generated")) == 6


def test_random_comparison_on_the_fixture_logs(gold_dir):
    runs = gold.load_gold(gold_dir)
    # our fixture values: algorithm-generated 33.33 / 22.5, hand-crafted 19.76 / 16.39
    figures = Dataset().who_and_when_published.model_copy(update={"methods": {
        **Dataset().who_and_when_published.methods,
        "random": Method(label="Random", settings=["both"],
                                   agent={"algorithm-generated": 33.33, "hand-crafted": 16.39},
                                   step={"algorithm-generated": 22.5, "hand-crafted": 19.76})}})
    frame = published.random_comparison(runs, figures).set_index(["level", "subset"])
    assert frame["as the paper counts"].to_dict() == {
        ("agent", "algorithm-generated"): 33.33, ("agent", "hand-crafted"): 19.76,
        ("step", "algorithm-generated"): 22.5, ("step", "hand-crafted"): 16.39}
    assert frame["equal"].to_dict() == {
        ("agent", "algorithm-generated"): True, ("agent", "hand-crafted"): False,
        ("step", "algorithm-generated"): True, ("step", "hand-crafted"): False}
    assert frame.loc[("agent", "hand-crafted"), "our value is published at"] == \
        "step-level, hand-crafted"
    assert frame.loc[("agent", "hand-crafted"), "over the run's agents"] == 27.78


def test_random_definitions_on_the_fixture_logs(gold_dir):
    frame = published.random_definitions(gold.load_gold(gold_dir))
    hand = frame["hand-crafted"].to_dict()
    assert hand == {
        "speakers, as the paper's code lists them": 19.76,
        "agents, the human included": round(100 * (1 / 3 + 1 / 4 + 1 / 3) / 3, 2),
        "agents, the human left out": round(100 * (1 / 2 + 1 / 3 + 1 / 2) / 3, 2),
        "agents, the human left out, label spelled exactly": 27.78}


@pytest.mark.skipif(not LOGS.is_dir(), reason="the Who&When logs are not in ../shared/traces "
                    "(a fresh clone)")
def test_the_published_random_row_against_the_real_logs():
    frame = published.random_comparison(gold.load_gold(LOGS), Dataset().who_and_when_published)
    frame = frame.set_index(["level", "subset"])
    assert frame["as the paper counts"].to_dict() == {
        ("agent", "algorithm-generated"): 29.10, ("agent", "hand-crafted"): 19.06,
        ("step", "algorithm-generated"): 12.00, ("step", "hand-crafted"): 4.16}
    assert frame["our value is published at"].to_dict() == {
        ("agent", "algorithm-generated"): "", ("agent", "hand-crafted"):
        "step-level, algorithm-generated", ("step", "algorithm-generated"):
        "agent-level, hand-crafted", ("step", "hand-crafted"): ""}
