"""Accuracy per subset, with counts, and seeded bootstrap intervals that depend only on what
they should."""

from __future__ import annotations

import numpy as np
import pytest
from attribution_helpers import GOLD_ANSWERS, answers

from masrl.traces.attribution import gold, scoring
from masrl.traces.attribution.predictions import read_predictions

MIXED = {"algorithm-generated/1": ("Planner_Expert", 2),   # agent right, step wrong
         "algorithm-generated/2": ("B_Expert", 2),         # both right
         "hand-crafted/1": ("WebSurfer", 3),               # both right
         "hand-crafted/2": (None, 1),                      # no agent, step right
         "hand-crafted/10": ("WebSurfer", 3)}              # the label says 'Websurfer'


@pytest.fixture
def runs(gold_dir):
    return gold.load_gold(gold_dir)


def scored(runs, write_predictions, table, **options):
    predictions = read_predictions(write_predictions(answers(table)), runs)
    return scoring.score(runs, predictions, **options)


def test_accuracy_and_counts_per_subset(runs, write_predictions):
    scores = scored(runs, write_predictions, MIXED)
    ag, hc = scores["algorithm-generated"], scores["hand-crafted"]
    assert (ag.logs, ag.agent.correct, ag.agent.accuracy, ag.step.correct, ag.step.accuracy) == (
        2, 2, 1.0, 1, 0.5)
    assert (hc.logs, hc.agent.correct, hc.step.correct) == (3, 1, 3)
    assert hc.agent.accuracy == pytest.approx(1 / 3)
    assert hc.step.accuracy == 1.0
    assert ag.agent.interval == (1.0, 1.0) and hc.step.interval == (1.0, 1.0)


def test_the_gold_answers_score_full_marks_except_where_nothing_can(runs, write_predictions):
    scores = scored(runs, write_predictions, GOLD_ANSWERS)
    assert {s: (sc.agent.accuracy, sc.step.accuracy) for s, sc in scores.items()} == {
        "algorithm-generated": (1.0, 1.0), "hand-crafted": (1.0, 1.0)}


def test_two_logs_one_right_gives_the_whole_range():
    # resample means of [1, 0] are 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4: the 2.5% and
    # 97.5% quantiles of 2000 resamples are 0 and 1
    values = np.array([[1.0, 1.0], [0.0, 1.0]])
    intervals = scoring.bootstrap(values, "hand-crafted")
    assert intervals.tolist() == [[0.0, 1.0], [1.0, 1.0]]


def test_bootstrap_is_deterministic_and_seeded():
    values = np.array([[1.0, 0.0]] * 7 + [[0.0, 1.0]] * 5 + [[1.0, 1.0]] * 3)
    first = scoring.bootstrap(values, "hand-crafted", seed=0)
    assert scoring.bootstrap(values, "hand-crafted", seed=0).tolist() == first.tolist()
    few = {(seed, subset): scoring.bootstrap(values, subset, seed=seed, resamples=20).tolist()
           for seed in (0, 1) for subset in ("hand-crafted", "algorithm-generated")}
    assert len({str(v) for v in few.values()}) == 4  # another seed or subset, other draws
    means = values.mean(axis=0)
    assert all(low <= m <= high for (low, high), m in zip(first, means))
    draws = scoring.generator(0, "hand-crafted").integers(0, 15, size=(2000, 15))
    expected = np.quantile(values[draws].mean(axis=1), [0.025, 0.975], axis=0).T
    assert first == pytest.approx(expected, abs=1e-12)


def test_an_interval_does_not_depend_on_the_other_subset_or_the_line_order(
        gold_dir, runs, write_predictions):
    both = scored(runs, write_predictions, MIXED)["hand-crafted"]
    alone_runs = gold.load_gold(gold_dir, ("hand-crafted",))
    reordered = dict(reversed([(k, v) for k, v in MIXED.items() if k.startswith("hand")]))
    alone = scored(alone_runs, write_predictions, reordered)["hand-crafted"]
    assert alone == both


def test_resamples_and_seed_are_options(runs, write_predictions):
    table = {**MIXED, "hand-crafted/2": ("FileSurfer", 1)}
    few = scored(runs, write_predictions, table, resamples=10, seed=3)["hand-crafted"]
    again = scored(runs, write_predictions, table, resamples=10, seed=3)["hand-crafted"]
    assert few == again
    draws = scoring.generator(3, "hand-crafted").integers(0, 3, size=(10, 3))
    agent = np.array([1.0, 0.0, 0.0])[draws].mean(axis=1)
    assert few.agent.interval == pytest.approx(tuple(np.quantile(agent, [0.025, 0.975])),
                                               abs=1e-12)


def test_to_dict_is_plain_json(runs, write_predictions):
    score = scored(runs, write_predictions, MIXED)["hand-crafted"]
    assert score.to_dict() == {
        "logs": 3,
        "agent": {"correct": 1, "logs": 3, "accuracy": 0.333333,
                  "interval": [round(score.agent.interval[0], 6),
                               round(score.agent.interval[1], 6)]},
        "step": {"correct": 3, "logs": 3, "accuracy": 1.0, "interval": [1.0, 1.0]}}
