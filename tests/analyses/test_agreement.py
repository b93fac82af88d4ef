"""Second-reader agreement: kappa from its definition, Wilson and bootstrap intervals."""

from __future__ import annotations

import math

import pytest
from support import replace_in

from masrl.analyses import agreement
from masrl.data.dataset import Dataset


def test_kappa_matches_a_worked_example():
    # p_o = 0.8; marginals 0.6/0.4 and 0.4/0.6 give p_e = 0.48; kappa = 0.32 / 0.52
    a = [1, 1, 0, 0, 1]
    b = [1, 0, 0, 0, 1]
    assert agreement.cohen_kappa(a, b) == pytest.approx(0.32 / 0.52)


def test_kappa_is_one_for_perfect_agreement_zero_at_chance_and_nan_when_undefined():
    assert agreement.cohen_kappa(list("aabc"), list("aabc")) == pytest.approx(1.0)
    assert agreement.cohen_kappa(list("aabb"), list("abab")) == pytest.approx(0.0)
    assert math.isnan(agreement.cohen_kappa(list("aaa"), list("aaa")))
    with pytest.raises(ValueError):
        agreement.cohen_kappa([], [])


def test_wilson_interval_known_values():
    low, high = agreement.wilson_interval(32, 32)
    assert high == 1.0 and low == pytest.approx(0.8928, abs=1e-4)
    low, high = agreement.wilson_interval(5, 10)
    assert (low + high) / 2 == pytest.approx(0.5)
    assert low == pytest.approx(0.2366, abs=1e-4)


def test_bootstrap_is_reproducible_and_brackets_the_estimate():
    a = list("aabbccaabbcc") * 2
    b = list("aabbccaabbca") * 2
    first = agreement.bootstrap_kappa(a, b)
    assert first == agreement.bootstrap_kappa(a, b)  # fixed seed
    low, high, defined = first
    assert low <= agreement.cohen_kappa(a, b) <= high
    assert defined == agreement.RESAMPLES
    assert agreement.bootstrap_kappa(a, b, seed=1) != first  # the seed matters


def test_agreement_table_on_our_spotcheck():
    table = agreement.agreement_table(Dataset().spotcheck)
    assert list(table.index) == Dataset().vocabulary.group("recoded")
    assert (table["rows"] == 32).all()
    assert table.at["credit_granularity", "agree"] == 31
    assert table.at["credit_granularity", "kappa"] < 1
    assert table.at["credit_granularity", "kappa 95% low"] < table.at["credit_granularity", "kappa"]
    perfect = table.drop(index="credit_granularity")
    assert (perfect["agree"] == 32).all() and (perfect["kappa"] == 1).all()
    assert (perfect["raw 95% low"] < 1).all()  # the Wilson interval does not collapse


def test_disagreements_and_strict_counts(data_copy):
    spot = Dataset().spotcheck
    assert agreement.disagreements(spot).to_dict("records") == [
        {"key": "halo", "field": "credit_granularity", "original": "role",
         "second reader": "orchestrator"}]
    assert agreement.strict_counts(spot).to_dict() == {"yes": 15, "no": 17}
    replace_in(data_copy / "spotcheck.csv",
               "context-folding,rl_method,yes,hybrid,turn,hierarchical,rl_method,yes,hybrid,turn,",
               "context-folding,rl_method,yes,hybrid,turn,hierarchical,rl_method,yes,hybrid,agent,")
    changed = agreement.disagreements(Dataset(data_copy).spotcheck)
    assert list(changed["key"]) == ["halo", "context-folding"]
