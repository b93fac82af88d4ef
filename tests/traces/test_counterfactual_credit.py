"""Counterfactual credit at every unit, on the worked example whose answer is known by
construction, and its properties on random small traces.

The worked example (:func:`masrl.traces.synthetic.counterfactual_example`) records one rollout
for each of the 32 ways of changing its players P (``m_plan``), F (``m_fix``), I (``m_style``),
D (``d_delegate``) and T (``d_stop``, changed = stopped later). Each rollout earns, in
hundredths, 10 + 10 P + 5 D + 40 F + 20 F (1 - T), where a letter is 1 when the player is left
as recorded; I changes nothing, and no edge leaves ``m_style``. By hand:

* v(N) = 10 + 10 + 5 + 40 = 65; v(empty) = 10 (no fix, so stopping later adds nothing).
* Leave-one-out: P 65 - 55 = 10, F 65 - 25 = 40, D 65 - 60 = 5, T 65 - 85 = -20, I 0.
* Shapley: the terms 10 P, 5 D and 40 F are additive and go to their player; the term
  20 F - 20 F T gives F 20 and splits -20 F T equally between F and T (-10 each). So F 50,
  P 10, D 5, T -10, I 0, summing to 55 = v(N) - v(empty).
"""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trace_helpers import event, replayed

from masrl.traces import consumption, credit, outcome_models
from masrl.traces.run import reconstruct
from masrl.traces.synthetic import EXAMPLE_PLAYERS, counterfactual_example, example_success
from masrl.traces.validate import validate_document


@pytest.fixture(scope="module")
def example():
    return replayed(counterfactual_example()).credit


def test_the_example_gives_the_credit_known_by_construction(example):
    found = example["counterfactual"]
    assert found["unit"] == "event" and found["shapley_method"] == "exact"
    assert found["leave_one_out"] == pytest.approx(
        {"m_plan": 0.1, "m_fix": 0.4, "d_delegate": 0.05, "d_stop": -0.2, "m_style": 0.0})
    assert found["shapley"] == pytest.approx(
        {"m_plan": 0.1, "m_fix": 0.5, "d_delegate": 0.05, "d_stop": -0.1, "m_style": 0.0})
    assert found["zero_by_construction"] == ["m_style"]
    assert sum(found["shapley"].values()) == pytest.approx(0.65 - 0.10)


@pytest.mark.parametrize("rule", ["leave_one_out", "shapley"])
def test_the_example_ranks_fix_first_and_the_premature_stop_last(example, rule):
    values = example["counterfactual"][rule]
    ranked = sorted(values, key=values.get, reverse=True)
    assert ranked == ["m_fix", "m_plan", "d_delegate", "m_style", "d_stop"]
    signs = {k: int(np.sign(round(v, 9))) for k, v in values.items()}
    assert signs == {"m_fix": 1, "m_plan": 1, "d_delegate": 1, "m_style": 0, "d_stop": -1}


def test_the_example_answers_which_stop_cost_the_team_most(example):
    orchestrator = example["counterfactual_units"]["units"]["orchestrator"]
    tags = {d["event"]: d["subdecision"] for d in example["decisions"]}
    worst = min(orchestrator["leave_one_out"], key=orchestrator["leave_one_out"].get)
    assert (worst, tags[worst], orchestrator["leave_one_out"][worst]) == ("d_stop", "O5",
                                                                          pytest.approx(-0.2))
    # the orchestrator's game holds the messages as recorded (F present), so T is additive
    assert orchestrator["shapley"] == pytest.approx(
        {"d_delegate": 0.05, "d_stop": -0.2, "s_reviewer": 0.0})
    assert tags == {"d_spawn": "O1", "s_planner": "O1", "s_coder": "O1", "s_critic": "O1",
                    "s_reviewer": "O1", "d_delegate": "O2", "a_merge": "O4", "d_stop": "O5"}


def test_the_example_credit_at_every_unit(example):
    units = example["counterfactual_units"]["units"]
    # messages: D and T held as recorded, so v = 10 + 10 P + 5 + 40 F (I unconsumed)
    assert units["message"]["shapley"] == pytest.approx(
        {"m_plan": 0.1, "m_fix": 0.4, "m_style": 0.0})
    # agents: the lead's player events are D and T; its game is 10 + 10 P + 5 L + 40 F
    # + 20 F (1 - L): leave-one-out 65 - 80, Shapley 5 - 10
    assert units["agent"]["leave_one_out"] == pytest.approx(
        {"planner": 0.1, "critic": 0.4, "lead": -0.15, "reviewer": 0.0})
    assert units["agent"]["shapley"] == pytest.approx(
        {"planner": 0.1, "critic": 0.5, "lead": -0.05, "reviewer": 0.0})
    assert units["turn"]["leave_one_out"] == pytest.approx(
        {"planner#1": 0.1, "critic#1": 0.4, "lead#1": 0.05, "lead#2": -0.2, "reviewer#1": 0.0})
    assert units["team"]["shapley"] == pytest.approx({"team": 0.55})
    assert units["tool_call"]["players"] == []  # no tool call is a player: nothing measured


def test_an_unconsumed_player_gets_zero_whatever_the_rollouts_say():
    document = counterfactual_example()
    for outcome in document["counterfactuals"]["outcomes"]:
        if any(c["player"] == "m_style" for c in outcome["changed"]):
            outcome["reward"] -= 0.3  # rollouts that claim the ignored remark mattered
    found = replayed(document).credit["counterfactual"]
    assert found["leave_one_out"]["m_style"] == found["shapley"]["m_style"] == 0.0
    # the rollouts that leave m_style as recorded are the ones kept: the others are unchanged
    assert found["shapley"]["m_fix"] == pytest.approx(0.5)


def test_rollouts_named_by_coalition_or_by_changes_give_the_same_credit():
    document = counterfactual_example()
    players = document["counterfactuals"]["players"]
    for outcome in document["counterfactuals"]["outcomes"]:
        changed = {c["player"] for c in outcome.pop("changed")}
        outcome["coalition"] = [p for p in players if p not in changed]
    by_coalition = replayed(document).credit["counterfactual"]
    by_change = replayed(counterfactual_example()).credit["counterfactual"]
    assert by_coalition["shapley"] == by_change["shapley"]


# ---------------------------------------------------------------------------------- consumption

def test_consumption_runs_back_from_the_stop(small):
    small["events"].append(event("late", 9, "orchestrator_decision", "root", decision="stop"))
    small["events"].append(event("aside", 3, "message", "b", to="root"))
    small["edges"] += [{"src": "e9", "dst": "late", "type": "causal"},
                       {"src": "e3", "dst": "aside", "type": "causal"}]
    run = replayed(small).run
    flags = dict(zip(run.trace.events.ids, consumption.consumed(run).tolist()))
    assert [run.trace.events.ids[i] for i in consumption.outcome_events(run)] == ["late"]
    assert flags["aside"] is False and flags["e1"] and flags["e5"] and flags["late"]


def test_without_a_stop_the_final_aggregate_or_the_last_event_settles_the_outcome(small):
    run = replayed(small).run
    assert [run.trace.events.ids[i] for i in consumption.outcome_events(run)] == ["e9"]
    small["events"] = [e for e in small["events"] if e["id"] != "e9"]
    small["edges"] = [e for e in small["edges"] if e["dst"] != "e9"]
    run = replayed(small).run
    assert [run.trace.events.ids[i] for i in consumption.outcome_events(run)] == ["e8"]
    flags = dict(zip(run.trace.events.ids, consumption.consumed(run).tolist()))
    assert flags["e6"] and not flags["e7"]  # a's return leads nowhere near b's


# ---------------------------------------------------------------------------------- models

def chain(n: int, reward: float = 0.0) -> dict:
    """A human's task, then n messages, each depending on the one before, then a stop."""
    events = [event("h", 0, "message", "user", role="human", to="a0")]
    events += [event(f"m{k}", k + 1, "message", f"a{k % 2}", to=f"a{(k + 1) % 2}")
               for k in range(n)]
    events.append(event("stop", n + 1, "orchestrator_decision", "a0", decision="stop"))
    ids = [e["id"] for e in events]
    edges = [{"src": a, "dst": b, "type": "causal"} for a, b in zip(ids, ids[1:])]
    return {"trace_id": "chain", "task_id": "t", "events": events, "edges": edges,
            "rewards": {"team": reward}, "costs": {"tokens": 0, "wall_clock_s": n + 1}}


def test_the_decisive_step_model_on_a_failed_chain():
    """Candidates: m0..m3 and the stop (the human's task is none). Taking m_k out regenerates
    it and everything after it: 5 - k of the 5 candidates, so its credit is -(5 - k) / 5."""
    run = replayed(chain(4)).run
    game = credit.model_game(run, "event", outcome_models.resolve("decisive_step", run))
    loo = game.solve()["leave_one_out"]
    assert loo == pytest.approx({"h": -1.0, "m0": -1.0, "m1": -0.8, "m2": -0.6, "m3": -0.4,
                                 "stop": -0.2})
    restricted = credit.model_game(run, "event", outcome_models.resolve("decisive_step", run),
                                   players=["m1", "m2"]).solve()
    assert restricted["players"] == ["m1", "m2"]
    assert restricted["leave_one_out"]["m2"] == pytest.approx(-0.6)


def test_reward_terms_as_outcome_models(small):
    run = reconstruct(validate_document(small).trace)
    assert set(credit.model_game(run, "message", outcome_models.resolve("outcome", run))
               .solve()["leave_one_out"].values()) == {0.0}
    tokens = credit.model_game(run, "agent", outcome_models.resolve("token_penalty", run))
    # a's events: e4 (50 tokens) and e7 (20); removing them saves 0.07 thousand tokens
    assert tokens.solve()["leave_one_out"]["a"] == pytest.approx(-0.07)
    with pytest.raises(ValueError, match="unknown outcome model 'nope'"):
        outcome_models.resolve("nope", run)


def test_the_trace_without_units_is_a_valid_trace(small):
    run = reconstruct(validate_document(small).trace)
    removed = np.zeros(run.trace.events.count, dtype=bool)
    removed[run.trace.events.ids.index("e6")] = True
    trimmed = credit.Without(run, removed).document()
    assert "counterfactuals" not in trimmed and "e6" not in [e["id"] for e in trimmed["events"]]
    assert all("e6" not in (e["src"], e["dst"]) for e in trimmed["edges"])
    assert validate_document(trimmed).valid


# ---------------------------------------------------------------------------------- properties

@st.composite
def random_games(draw, max_players: int = 6):
    """A random small trace (a few agents exchanging messages that lead, or not, to a final
    aggregate) with random rewards for every coalition of some of its messages."""
    n = draw(st.integers(2, 8))
    events = [event(f"m{k}", k, "message", f"a{k % 3}", to="a0") for k in range(n)]
    events.append(event("end", n, "aggregate", "a0"))
    edges = []
    for k in range(n):
        targets = draw(st.lists(st.integers(k + 1, n), unique=True, max_size=2))
        edges += [{"src": f"m{k}", "dst": "end" if j == n else f"m{j}", "type": "message"}
                  for j in targets]
    players = draw(st.lists(st.sampled_from([f"m{k}" for k in range(n)]), unique=True,
                            min_size=1, max_size=max_players))
    rewards = st.floats(-2, 2, allow_nan=False).map(lambda x: round(x, 3))
    outcomes = [{"changed": [{"player": p} for p in changed], "reward": draw(rewards)}
                for size in range(len(players) + 1)
                for changed in itertools.combinations(players, size)]
    return {"schema_version": "1.1", "trace_id": "random", "task_id": "t", "events": events,
            "edges": edges, "rewards": {"team": 0.5},
            "costs": {"tokens": 0, "wall_clock_s": n},
            "counterfactuals": {"unit": "message", "players": players, "outcomes": outcomes}}


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_shapley_values_add_up_to_the_outcome_difference(document):
    run = replayed(document).run
    game = credit.rollout_game(run, "message")
    solved = game.solve()
    total = sum(solved["shapley"][p] for p in game.players)
    assert total == pytest.approx(game.value(frozenset(game.players)) - game.value(frozenset()),
                                  abs=1e-9)
    assert all(solved["shapley"][z] == 0.0 == solved["leave_one_out"][z] for z in game.zero)
    if not game.zero:  # every player consumed: the recorded numbers themselves
        outcomes = document["counterfactuals"]["outcomes"]
        assert total == pytest.approx(outcomes[0]["reward"] - outcomes[-1]["reward"], abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(random_games(), st.data())
def test_players_that_change_every_coalition_alike_get_the_same_credit(document, data):
    players = document["counterfactuals"]["players"]
    if len(players) < 2:
        return
    i, j = data.draw(st.lists(st.sampled_from(players), min_size=2, max_size=2, unique=True))
    rewards = {}
    for outcome in document["counterfactuals"]["outcomes"]:
        rewards[frozenset(c["player"] for c in outcome["changed"])] = outcome["reward"]
    swap = {i: j, j: i}
    for outcome in document["counterfactuals"]["outcomes"]:  # symmetrise v in i and j
        changed = frozenset(c["player"] for c in outcome["changed"])
        mirrored = frozenset(swap.get(p, p) for p in changed)
        outcome["reward"] = (rewards[changed] + rewards[mirrored]) / 2
    run = replayed(document).run
    consumed = dict(zip(run.trace.events.ids, consumption.consumed(run).tolist()))
    solved = credit.rollout_game(run, "message").solve()
    if consumed[i] == consumed[j]:
        assert solved["shapley"][i] == pytest.approx(solved["shapley"][j], abs=1e-9)


def test_a_monte_carlo_estimate_adds_up_exactly_and_carries_its_error():
    """Above the cap each sampled order's contributions telescope to v(N) - v(empty), so the
    estimate adds up exactly too; its standard errors are positive where the values vary."""
    run = replayed(chain(20, reward=0.0)).run
    model = outcome_models.resolve("decisive_step", run)
    solved = credit.model_game(run, "message", model, evaluations=2000).solve()
    assert solved["shapley_method"] == "monte_carlo" and solved["shapley_samples"] == 95
    game = credit.model_game(run, "message", model)
    assert sum(solved["shapley"].values()) == pytest.approx(
        game.value(frozenset(game.players)) - game.value(frozenset()))
    assert max(solved["shapley_standard_error"].values()) > 0
    again = credit.model_game(run, "message", model, evaluations=2000).solve()
    assert again == solved  # seeded


def test_the_example_construction_is_what_the_rollouts_record():
    document = counterfactual_example()
    for outcome in document["counterfactuals"]["outcomes"]:
        present = set(EXAMPLE_PLAYERS) - {c["player"] for c in outcome["changed"]}
        assert outcome["reward"] == example_success(present)
    assert copy.deepcopy(document) == counterfactual_example()  # deterministic


def test_the_example_s_terms_give_its_success_rate_for_every_coalition():
    """Chapter 14 writes the example's formula from ``example_terms``: the formula must be the
    construction itself, for every way of changing the players."""
    from masrl.traces.synthetic import EXAMPLE_PLAYERS, example_success, example_terms

    t = example_terms()
    for size in range(len(EXAMPLE_PLAYERS) + 1):
        for present in itertools.combinations(EXAMPLE_PLAYERS, size):
            p, d, f, s = (name in present for name in ("m_plan", "d_delegate", "m_fix", "d_stop"))
            formula = (t["base"] + t["plan"] * p + t["delegate"] * d + t["fix"] * f
                       + t["fix_later"] * f * (1 - s))
            assert example_success(set(present)) == pytest.approx(formula), present
