"""Inputs built to blow up: nothing recurses down a spawn tree, a spawn loop is named in a short
message, Shapley values are exact only where that is cheap and estimated, with their error,
above, and sums that overflow a double are refused by name rather than printed as Infinity.
That the graph checks stay linear (or n log n) is measured by ``benchmarks/hostile_inputs.py``,
which times these inputs."""

from __future__ import annotations

import json
import math

import pytest
from hostile_traces import spawn_chain, spawn_loop, with_players
from trace_helpers import FIXTURES

from masrl.commands.common import _deep_json_text, json_text
from masrl.traces import credit, replay
from masrl.traces.replay import NonFiniteResult
from masrl.traces.validate import spawn_loops, validate_document


def test_a_6000_deep_spawn_chain_validates_and_replays():
    # timed by benchmarks/hostile_inputs.py (was: a spawn-cycle check cubic in the depth)
    document = spawn_chain(6000)
    report = validate_document(document)
    assert report.valid, report.lines()[:3]
    result = replay(report.trace)
    metrics = result.metrics
    assert metrics["spawn_depth"] == 6000
    tree, depth = metrics["spawn_tree"][0], 0
    while tree["children"]:
        [tree], depth = tree["children"], depth + 1
    assert (tree["agent"], depth) == ("a6000", 6000)
    # subtree totals from the deepest agent up: a_k's own tokens are 2 (its spawn) + 3 (return)
    assert metrics["tokens"]["per_subtree"]["a5999"] == 2 + 3 + 3
    assert metrics["tokens"]["per_subtree"]["a0"] == metrics["tokens"]["total"]


def test_a_6000_agent_spawn_loop_is_found_with_short_messages():
    # timed by benchmarks/hostile_inputs.py
    report = validate_document(spawn_loop(6000))
    loops = [p for p in report.problems if p.code == "spawn-cycle"]
    assert len(loops) == 6000
    assert max(len(p.message) for p in loops) < 200
    assert loops[0].message == ("agent 'a1' is spawned by its own descendant: a1 <- a0 <- a5999 "
                                "<- a5998 <- a5997 <- ... (5991 more) <- a5 <- a4 <- a3 <- a2 <- a1")


@pytest.mark.parametrize(("spawner", "expected"), [
    ({"x": "y", "y": "x"}, {"x": ["x", "y"], "y": ["y", "x"]}),
    ({"x": "x"}, {"x": ["x"]}),
    ({"c": "b", "b": "a", "a": "b", "d": "c"}, {"a": ["a", "b"], "b": ["b", "a"]}),
    ({"b": "a", "c": "b"}, {}),
])
def test_spawn_loops_finds_exactly_the_agents_on_a_loop(spawner, expected):
    found = {agent: [cycle[(k + j) % len(cycle)] for j in range(len(cycle))]
             for agent, (cycle, k) in spawn_loops(spawner).items()}
    assert found == expected


def test_a_deep_tree_is_written_as_json_without_recursion():
    result = replay(validate_document(spawn_chain(1500)).trace).to_dict()
    text = json_text(result, deep=True)
    assert text.count('"agent": "a1500"') == 1
    # indentation stops growing, so the text is linear in the depth: fully indented, the spawn
    # tree alone would be about 6 lines x 3,000 spaces for each of 1,500 agents (27 MB)
    assert len(text) < 2_000_000
    assert json_text(result) == text  # the encoder's attempt fails over to the same text


@pytest.mark.parametrize("seed", range(20))
def test_the_deep_writer_writes_what_json_dumps_writes(seed):
    import random

    pick = random.Random(seed)

    def value(depth):
        roll = pick.random()
        if depth > 5 or roll < 0.3:
            return pick.choice([None, True, False, 0, -7, 2**70, 0.1, -0.0, 1e-300, "é\n\"\\",
                                "\u2028", ""])
        if roll < 0.65:
            return {pick.choice(["a", "é", "b\n", "1", ""]): value(depth + 1)
                    for _ in range(pick.randint(0, 4))}
        return [value(depth + 1) for _ in range(pick.randint(0, 4))]

    document = value(0)
    assert _deep_json_text(document, 2) == json.dumps(document, indent=2, sort_keys=True)


# ---------------------------------------------------------------------------------- Shapley

def small() -> dict:
    return json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))


def counterfactual_of(document: dict) -> dict:
    report = validate_document(document)
    assert report.valid, report.lines()[:3]
    return replay(report.trace).credit["counterfactual"]


WEIGHTS = [0.5, 1.0, 1.5, 2.0, 0.25, 3.0, 0.75, 1.25, 2.5, 0.1, 1.75, 0.6, 0.9]


@pytest.mark.parametrize("count", [1, 5, credit.MAX_EXACT_SHAPLEY_PLAYERS])
def test_shapley_is_exact_up_to_the_cap(count):
    found = counterfactual_of(with_players(small(), count, WEIGHTS))
    total = sum(WEIGHTS[:count])
    assert found["shapley_method"] == "exact"
    assert (found["shapley_samples"], found["shapley_standard_error"]) == (None, None)
    assert found["shapley"] == pytest.approx({f"p{k}": WEIGHTS[k] * total for k in range(count)},
                                             abs=1e-9)


def test_above_the_cap_shapley_is_a_seeded_estimate_with_its_error():
    count = credit.MAX_EXACT_SHAPLEY_PLAYERS + 1
    # timed by benchmarks/hostile_inputs.py
    document = with_players(small(), count, WEIGHTS)
    found = counterfactual_of(document)
    total = sum(WEIGHTS[:count])
    assert found["shapley_method"] == "monte_carlo"
    assert (found["shapley_samples"], found["shapley_seed"]) == (credit.SHAPLEY_SAMPLES,
                                                                 credit.SHAPLEY_SEED)
    errors = found["shapley_standard_error"]
    for k in range(count):
        exact = WEIGHTS[k] * total
        assert 0 < errors[f"p{k}"] < 0.1 * exact
        assert abs(found["shapley"][f"p{k}"] - exact) < 4 * errors[f"p{k}"]
    assert counterfactual_of(document) == found  # seeded: the same trace, the same figures


def test_the_estimate_matches_exact_values_on_a_game_too_big_for_them():
    """30 players: 2^30 coalitions; the estimate needs 2,048 orders of 30, a game (no trace
    could record every coalition) answers them, additive so every marginal is exact."""
    players = [f"p{k}" for k in range(30)]

    class Additive(dict):
        def get(self, coalition, default=None):
            return float(sum(int(p[1:]) for p in coalition))

    # timed by benchmarks/hostile_inputs.py
    values, errors = credit.shapley_estimate(players, Additive())
    assert values == pytest.approx({p: float(k) for k, p in enumerate(players)})
    assert errors == pytest.approx(dict.fromkeys(players, 0.0))


def test_thirty_players_with_few_coalitions_get_no_shapley_values():
    # timed by benchmarks/hostile_inputs.py
    found = counterfactual_of(with_players(small(), 30))
    assert found["shapley"] is None and found["shapley_method"] == "monte_carlo"
    # recorded: the one outcome, the empty coalition (0) and everyone (the team reward)
    assert (found["coalitions_recorded"], found["coalitions_needed"]) == (3, 2**30)


# ---------------------------------------------------------------------------------- overflow

@pytest.mark.parametrize(("field", "key"), [
    ("tokens", "tokens.total"), ("cost_usd", "cost_usd.total"),
])
def test_a_sum_that_overflows_a_double_is_refused_by_name(field, key):
    document = small()
    for event in document["events"][:2]:
        event[field] = 1.5e308
    report = validate_document(document)
    assert report.valid  # each number is a finite double; only their sum is not
    with pytest.raises(NonFiniteResult) as caught:
        replay(report.trace)
    assert caught.value.key == key and math.isinf(caught.value.value)


def test_rewards_that_overflow_are_refused_not_printed_as_nan():
    document = small()
    document["events"][0]["reward"] = 1.5e308
    document["events"][8]["reward"] = 1.5e308
    with pytest.raises(NonFiniteResult, match="add up to more than a double holds"):
        replay(validate_document(document).trace)


def test_an_end_past_the_largest_double_is_invalid():
    document = small()
    document["events"][8].update(t=1.7e308, duration=1.7e308)
    document["costs"]["wall_clock_s"] = 0
    problems = [(p.code, p.pointer) for p in validate_document(document).problems]
    assert ("non-finite", "/events/8/duration") in problems


def test_times_near_the_largest_double_give_finite_busy_times():
    """Busy time shifts each agent's times past the previous agent's; near 1e308 that shift
    would overflow, so ranks are used instead, with the same answer."""
    document = small()
    for event in document["events"]:
        event["t"] = event["t"] * 1e306
        for key in ("t_end", "duration"):
            if key in event:
                event[key] = event[key] * 1e306
    result = replay(validate_document(document).trace).metrics
    assert result["busy_time"] == pytest.approx({"root": 2e306, "a": 2e306, "search": 0.0,
                                                 "b": 3e306})
