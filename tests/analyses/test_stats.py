"""The survey's published figures, reproduced value by value from our data.

The expected numbers are written out here, independently of data/published.yaml, exactly as the
survey states them (SURVEY-FACTS.md), so a change to either the data or that file is caught.
"""

from __future__ import annotations

import pytest

from masrl.analyses import stats
from masrl.data.dataset import Dataset

PUBLISHED_COUNTS = {
    "category": {"rl_method": 42, "benchmark": 18, "classical_marl": 10, "industry": 6, "survey": 5,
                 "framework": 3},
    "is_rl": {"yes": 49, "no": 26, "partial": 9},
    "reward_type": {"NA": 33, "hybrid": 15, "shared": 10, "orchestration": 7, "verifier": 6,
                    "debate": 4, "individual": 4, "role": 3, "process": 2, "tool": 0},
    "credit_granularity": {"NA": 36, "agent": 23, "role": 10, "orchestrator": 8, "turn": 5,
                           "message": 2, "token": 0, "tool": 0, "team": 0},
    "orchestration_form": {"NA": 34, "centralized": 18, "hierarchical": 13, "debate": 8,
                           "planner_executor_critic": 4, "swarm": 4, "harness": 3},
    "scenario": {"general": 45, "coding": 10, "math": 9, "tool_use": 8, "research": 6, "web": 6,
                 "debate": 0, "NA": 0},
    "is_core": {"core": 54, "supporting": 24, "case": 6},
    "verified": {"yes": 76, "partial": 8},
}
PUBLISHED_STAGES = {"abstract_screen": 16, "full_text_screen": 9, "artifact_screen": 6,
                    "duplicate_screen": 1}

# Non-zero cells of the artifact's two published cross-tabs; every other cell is zero.
REWARD_X_CREDIT = {
    ("NA", "NA"): 32, ("NA", "orchestrator"): 1, ("debate", "agent"): 3, ("debate", "message"): 1,
    ("hybrid", "agent"): 6, ("hybrid", "orchestrator"): 1, ("hybrid", "role"): 4,
    ("hybrid", "turn"): 4, ("individual", "agent"): 4, ("orchestration", "orchestrator"): 6,
    ("orchestration", "role"): 1, ("process", "agent"): 1, ("process", "turn"): 1,
    ("role", "role"): 3, ("shared", "agent"): 9, ("shared", "message"): 1, ("verifier", "NA"): 4,
    ("verifier", "role"): 2,
}
ORCHESTRATION_X_CREDIT = {
    ("NA", "NA"): 31, ("NA", "agent"): 3, ("centralized", "agent"): 14,
    ("centralized", "message"): 1, ("centralized", "orchestrator"): 3, ("debate", "NA"): 1,
    ("debate", "agent"): 3, ("debate", "message"): 1, ("debate", "role"): 1, ("debate", "turn"): 2,
    ("harness", "NA"): 2, ("harness", "agent"): 1, ("hierarchical", "agent"): 2,
    ("hierarchical", "orchestrator"): 3, ("hierarchical", "role"): 5, ("hierarchical", "turn"): 3,
    ("planner_executor_critic", "role"): 4, ("swarm", "NA"): 2, ("swarm", "orchestrator"): 2,
}


@pytest.fixture(scope="module")
def summary():
    return stats.summary(Dataset().papers, Dataset().excluded, Dataset().vocabulary)


def test_totals(summary):
    assert summary["totals"] == {"retained": 84, "excluded": 32, "audited": 116}


@pytest.mark.parametrize("field", PUBLISHED_COUNTS)
def test_counts_equal_the_published_counts(summary, field):
    assert summary["counts"][field] == PUBLISHED_COUNTS[field]


def test_counts_list_every_vocabulary_value_in_vocabulary_order(summary):
    vocab = Dataset().vocabulary
    for field, values in summary["counts"].items():
        assert list(values) == vocab.values(field)
    assert summary["counts"]["credit_granularity"]["token"] == 0


def test_exclusion_stages(summary):
    assert summary["excluded"]["stage"] == PUBLISHED_STAGES
    assert sum(summary["excluded"]["source"].values()) == 32
    assert sum(summary["excluded"]["query_family"].values()) == 32


@pytest.mark.parametrize("name, published", [
    ("reward_type_x_credit_granularity", REWARD_X_CREDIT),
    ("orchestration_form_x_credit_granularity", ORCHESTRATION_X_CREDIT),
])
def test_crosstab_cells_equal_the_published_cells(summary, name, published):
    table = summary["crosstabs"][name]
    for row, cells in table.items():
        for column, n in cells.items():
            assert n == published.get((row, column), 0), (row, column)
    assert sum(sum(c.values()) for c in table.values()) == 84


def test_category_x_verified_sums_to_the_margins(summary):
    table = summary["crosstabs"]["category_x_verified"]
    assert {r: sum(c.values()) for r, c in table.items()} == PUBLISHED_COUNTS["category"]
    assert sum(c["partial"] for c in table.values()) == 8


def test_crosstab_keeps_empty_rows_and_columns():
    vocab = Dataset().vocabulary
    table = stats.crosstab(Dataset().papers, "reward_type", "credit_granularity", vocab)
    assert list(table.index) == vocab.values("reward_type")
    assert list(table.columns) == vocab.values("credit_granularity")
    assert table.loc["tool"].sum() == 0 and table["team"].sum() == 0
