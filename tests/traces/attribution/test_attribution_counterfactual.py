"""Counterfactual credit as a failure-attribution method, on the hand-written gold directory
and (when ../shared is present) on the Who&When logs.

Under the decisive-step model a failed run's step credit is minus the share of candidate steps
at or downstream of the step (masrl.traces.outcome_models). The importer chains every record to
the one before, so the most negative step is the first step not taken by the human, and the
method must score exactly as the first-agent rule does: an independent check of both."""

from __future__ import annotations

import pytest

from masrl import paths
from masrl.traces.attribution import baselines, counterfactual, gold


def test_the_most_negative_step_is_the_first_agent_step(gold_dir):
    runs = gold.load_gold(gold_dir)
    found = counterfactual.credits(runs)
    for item in found:
        first = next(s.index for s in item.run.steps if not s.human)
        assert item.predicted == first and item.ties == 1
        agent_steps = [s.index for s in item.run.steps if not s.human]
        assert sorted(item.credit) == agent_steps  # the human's step does not play
        n = len(agent_steps)
        # each step redoes itself and every later step: -(steps from it to the end) / n
        expected = {k: -(n - j) / n for j, k in enumerate(agent_steps)}
        assert item.credit == pytest.approx(expected)


def test_scored_as_the_baselines_are(gold_dir):
    runs = gold.load_gold(gold_dir)
    scores = counterfactual.evaluate(counterfactual.credits(runs), resamples=200)
    rule = baselines.evaluate(runs, ("first-agent",), resamples=200)["first-agent"]
    assert {s: v.to_dict() for s, v in scores.items()} == {s: v.to_dict()
                                                            for s, v in rule.items()}


WHO_AND_WHEN = paths.public_logs_dir() / "who-and-when"


@pytest.mark.skipif(not WHO_AND_WHEN.is_dir(),
                    reason="the Who&When logs in ../shared/traces are absent (a fresh clone)")
def test_on_who_and_when_the_figure_is_the_first_agent_rules():
    runs = gold.load_gold(WHO_AND_WHEN)
    found = counterfactual.credits(runs)
    scores = counterfactual.evaluate(found)
    rule = baselines.evaluate(runs, ("first-agent",))["first-agent"]
    assert {s: v.to_dict() for s, v in scores.items()} == {s: v.to_dict()
                                                            for s, v in rule.items()}
    assert sum(item.rank_of_label == 1 for item in found) == sum(
        int(s.step.correct) for s in scores.values())
