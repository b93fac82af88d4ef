"""Reward terms against values computed by hand on ``small.json``.

small.json: events e1..e9 with tokens 100 + 50 + 30 + 20 + 10 + 40 = 250, cost_usd 0.5 + 0.25,
rewards 0.1 (e1), 0.2 (e6, a message), 0.3 (e9); team reward 1. Busy time: root 1 + 1, a 2
(the call over [2, 4]), b 3 (the message over [2, 5]); wall clock 8. Critical steps 6 of 9.
"""

from __future__ import annotations

import json

import pytest
from trace_helpers import replayed

from masrl.traces import rewards


def test_each_term_by_hand(small):
    small["events"][4]["reward"] = 0.4  # e5, the tool result
    result = replayed(small)
    assert rewards.outcome(result) == 1.0
    assert rewards.process(result) == pytest.approx(0.1 + 0.2 + 0.3 + 0.4)
    assert rewards.tool_use(result) == pytest.approx(0.4)
    assert rewards.parallelism_speedup(result) == pytest.approx((2 + 2 + 3) / 8)
    assert rewards.critical_steps_ratio(result) == pytest.approx(9 / 6)
    assert rewards.token_penalty(result) == pytest.approx(-0.25)
    assert rewards.cost_penalty(result) == pytest.approx(-0.75)


def test_terms_say_none_when_the_trace_lacks_their_input(small):
    del small["rewards"]["team"]
    for event in small["events"]:
        for key in ("reward", "cost_usd", "duration", "t_end", "tokens"):
            event.pop(key, None)
    del small["costs"]["usd"]
    small["counterfactuals"]["channel"] = "process"
    result = replayed(small)
    assert rewards.terms(result) == {
        "outcome": None, "process": None, "tool_use": None, "parallelism_speedup": None,
        "critical_steps_ratio": 1.5, "token_penalty": -0.25, "cost_penalty": None}
    # without event tokens the recorded total counts: costs.tokens is 250


def test_recorded_totals_stand_in_for_event_fields(small):
    for event in small["events"]:
        event.pop("cost_usd", None)
    small["costs"]["usd"] = 2.0
    assert rewards.cost_penalty(replayed(small)) == -2.0


def test_every_term_names_a_family_of_the_taxonomy():
    from masrl.data.dataset import Dataset

    families = {f.id for f in Dataset().taxonomy.reward_families}
    assert {term.family for term in rewards.TERMS.values()} <= families
    assert {term.family for term in rewards.TERMS.values()} == {"R1", "R4", "R5", "R7"}


def test_weighted_sums_terms_and_counts_missing_ones(small):
    result = replayed(small)
    combined = rewards.weighted({"outcome": 1.0, "critical_steps_ratio": 0.5,
                                 "token_penalty": 1.0, "tool_use": 3.0}, missing=-1.0)
    assert combined(result) == pytest.approx(1.0 + 0.75 - 0.25 - 3.0)
    with pytest.raises(ValueError, match="unknown reward terms \\['speed'\\]"):
        rewards.weighted({"speed": 1.0})


def test_reward_function_reads_paths_bytes_and_documents(small, write_trace):
    reward = rewards.reward_function({"outcome": 1.0, "critical_steps_ratio": 0.5},
                                     invalid=-5.0)
    path = write_trace(small)
    assert reward(small) == reward(path) == reward(str(path)) == reward(path.read_bytes()) == (
        pytest.approx(1.75))
    small["edges"].append({"src": "e9", "dst": "e1", "type": "causal"})  # back in time: invalid
    assert reward(small) == -5.0
    assert reward(json.dumps(small).encode()) == -5.0
    assert reward(b"not json") == -5.0


def test_a_log_that_counts_no_tokens_has_no_token_penalty(small):
    for event in small["events"]:
        event.pop("tokens", None)
    small["costs"]["tokens"] = 0  # the schema requires the field; 0 here counts nothing
    assert rewards.token_penalty(replayed(small)) is None


def test_a_term_the_trace_cannot_compute_is_refused_as_an_outcome_model(small):
    from masrl.traces import outcome_models

    for event in small["events"]:
        event.pop("cost_usd", None)
    del small["costs"]["usd"]
    run = replayed(small).run
    with pytest.raises(ValueError, match="cost_penalty cannot be computed on this trace"):
        outcome_models.resolve("cost_penalty", run)
    assert callable(outcome_models.resolve("token_penalty", run))
