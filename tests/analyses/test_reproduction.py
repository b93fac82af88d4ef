"""The comparison table with the published figures catches any disagreement."""

from __future__ import annotations

import copy

from masrl.analyses import reproduction, stats
from masrl.data.dataset import Dataset


def ours():
    return stats.summary(Dataset().papers, Dataset().excluded, Dataset().vocabulary)


def test_every_published_figure_matches():
    table = reproduction.compare(ours(), Dataset().published)
    assert table["match"].all(), table[~table["match"]].to_string()
    # every count, every stage and the full grids of both cross-tabs are compared
    assert len(table) > 150


def test_a_changed_figure_is_reported():
    figures = copy.deepcopy(Dataset().published)
    figures["crosstabs"]["reward_type_x_credit_granularity"]["shared"]["message"] = 2
    figures["counts"]["category"]["survey"] = 6
    table = reproduction.compare(ours(), figures)
    assert sorted(table.loc[~table["match"], "figure"]) == [
        "counts/category/survey",
        "crosstabs/reward_type_x_credit_granularity/shared/message",
    ]


def test_a_published_cell_outside_our_grid_is_reported():
    figures = copy.deepcopy(Dataset().published)
    figures["crosstabs"]["reward_type_x_credit_granularity"]["shared"]["committee"] = 1
    table = reproduction.compare(ours(), figures)
    assert list(table.loc[~table["match"], "figure"]) == [
        "crosstabs/reward_type_x_credit_granularity/shared/committee"]
