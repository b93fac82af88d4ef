"""Unknown is not zero: each rule of :mod:`masrl.traces.recorded` on a hand-written trace, and
every ``null`` of a replay carries its reason."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trace_helpers import FIXTURES, event, replayed

from masrl.traces import load_trace, metrics, recorded, replay, resources
from masrl.traces.validate import validate_document

EXAMPLES = sorted(resources.EXAMPLES.glob("*.json"))


def chat(times=(0, 0, 0), **fields) -> dict:
    """Three messages in a chain, as a log that keeps only their order is imported."""
    agents = ["user", "lead", "worker"]
    return {
        "trace_id": "chat", "task_id": "t",
        "events": [event(f"m{k}", t, "message", agents[k], **fields)
                   for k, t in enumerate(times)],
        "edges": [{"src": "m0", "dst": "m1", "type": "message"},
                  {"src": "m1", "dst": "m2", "type": "message"}],
        "rewards": {}, "costs": {"tokens": 0, "wall_clock_s": 0},
    }


def explained(result: dict) -> dict:
    """The replay's ``not_recorded``, after checking that it names exactly its null figures
    and that a rule explains each."""
    reasons = result["not_recorded"]
    assert list(reasons) == sorted(reasons)
    assert recorded.UNEXPLAINED not in reasons.values(), reasons
    for key in reasons:
        holder, rest = result, key
        while rest not in holder:  # the longest first part that is a key (names hold dots)
            part = next(part for part in sorted(holder, key=len, reverse=True)
                        if rest.startswith(part + "."))
            holder, rest = holder[part], rest[len(part) + 1:]
        assert holder[rest] is None, key
    return reasons


# ---------------------------------------------------------------------------------- clock

def test_a_log_with_order_only_is_replayed_in_steps():
    document = chat()
    document["events"].reverse()  # file order is not the order: the edges are
    result = replayed(document)
    run = result.run
    assert run.recorded.clock == recorded.STEPS
    assert [run.trace.events.ids[i] for i in run.timeline] == ["m0", "m1", "m2"]
    steps = {run.trace.events.ids[i]: run.trace.events.start[i] for i in range(3)}
    assert steps == {"m0": 0.0, "m1": 1.0, "m2": 2.0}
    assert run.trace_end == 2.0
    found = result.to_dict()
    assert found["clock"] == "steps"
    assert (found["wall_clock"], found["busy_time"], found["speedup"]) == (None, None, None)
    assert found["critical_steps"] == 3 and found["parallelism"] == 1.0  # steps stay
    reasons = explained(found)
    assert {reasons[k] for k in ("wall_clock", "busy_time", "speedup")} == {recorded.ORDER_ONLY}


def test_the_original_trace_keeps_its_times():
    document = chat()
    report_trace = replayed(document).run.trace
    original = validate_document(document).trace
    replay(original)
    assert original.events.start.tolist() == [0.0, 0.0, 0.0]
    assert report_trace.events.start.tolist() == [0.0, 1.0, 2.0]


def test_equal_times_with_a_recorded_duration_are_a_clock():
    document = chat()
    document["events"][1]["duration"] = 0.5
    result = replayed(document).to_dict()
    assert result["clock"] == "seconds"
    assert result["wall_clock"] == 0.5
    assert result["busy_time"] == {"user": 0.0, "lead": 0.5, "worker": 0.0}


def test_distinct_times_are_a_clock_even_without_durations():
    result = replayed(chat(times=(0, 2, 5))).to_dict()
    assert result["clock"] == "seconds" and result["wall_clock"] == 5.0
    assert result["busy_time"] is None and result["speedup"] is None
    reasons = explained(result)
    assert reasons["busy_time"] == reasons["speedup"] == recorded.NO_DURATIONS
    assert "wall_clock" not in reasons


def test_durations_of_zero_span_no_time():
    result = replayed(chat(duration=0)).to_dict()
    assert result["clock"] == "seconds"
    assert result["wall_clock"] == 0.0 and sum(result["busy_time"].values()) == 0.0
    assert result["speedup"] is None
    assert explained(result)["speedup"] == recorded.NO_TIME_SPANNED


def test_an_event_without_an_end_is_instantaneous_when_others_have_one():
    result = replay(load_trace(FIXTURES / "small.json")).to_dict()
    assert result["busy_time"]["search"] == 0.0  # its one event records no end
    assert result["speedup"] == pytest.approx(7 / 8)


# ---------------------------------------------------------------------------------- tokens, cost

def test_tokens_and_cost_that_nothing_records_are_null():
    result = replayed(chat(times=(0, 1, 2))).to_dict()
    for key in ("tokens", "cost_usd"):
        figures = result[key]
        assert (figures["total"], figures["per_agent"], figures["per_subtree"]) == (
            None, None, None)
    assert result["tokens"]["recorded"] is None  # costs.tokens 0 is the schema's placeholder
    assert result["cost_usd"]["recorded"] is None
    reasons = explained(result)
    assert reasons["tokens.total"] == reasons["tokens.per_agent"] == recorded.NO_TOKENS
    assert reasons["tokens.recorded"] == recorded.TOKENS_PLACEHOLDER
    assert reasons["cost_usd.total"] == recorded.NO_COSTS
    assert reasons["cost_usd.recorded"] == recorded.NO_USD_TOTAL


def test_a_total_that_the_trace_states_is_kept_without_event_tokens():
    document = chat(times=(0, 1, 2))
    document["costs"]["tokens"] = 900
    result = replayed(document).to_dict()
    assert result["tokens"]["total"] is None and result["tokens"]["recorded"] == 900


def test_events_without_the_field_add_nothing_when_others_record_it():
    document = chat(times=(0, 1, 2))
    document["events"][1]["tokens"] = 40
    result = replayed(document).to_dict()
    assert result["tokens"]["total"] == 40.0
    assert result["tokens"]["per_agent"] == {"user": None, "lead": 40.0, "worker": None}
    assert "tokens.total" not in result["not_recorded"]
    for name in ("user", "worker"):  # their spending is unknown, not zero
        assert result["not_recorded"][f"tokens.per_agent.{name}"] == recorded.NO_AGENT_TOKENS


def test_model_calls_without_a_cost_are_counted_and_null_without_any_cost():
    document = chat(times=(0, 1, 2))
    document["events"][1].update(tokens=40, cost_usd=0.5)
    document["events"][2]["tokens"] = 10  # a model call that records no cost
    result = replayed(document).to_dict()
    assert result["cost_usd"]["total"] == 0.5
    assert result["cost_usd"]["model_calls_without_cost"] == 1
    del document["events"][1]["cost_usd"]
    result = replayed(document).to_dict()
    assert result["cost_usd"]["model_calls_without_cost"] is None
    assert result["not_recorded"]["cost_usd.model_calls_without_cost"] == recorded.NO_COSTS


def test_a_subtree_adds_what_its_agents_record_and_is_null_when_none_does():
    run = replay(load_trace(FIXTURES / "small.json")).run  # root spawns a and b
    own = {name: None for name in run.agents}
    assert metrics.subtree_totals(run, own) == {
        name: None for name, agent in run.agents.items() if agent.children}
    spawner = next(name for name, agent in run.agents.items() if agent.children)
    child = run.agents[spawner].children[0]
    own[child] = 5.0
    assert metrics.subtree_totals(run, own)[spawner] == 5.0
    own[spawner] = 2.0
    assert metrics.subtree_totals(run, own)[spawner] == 7.0


# ---------------------------------------------------------------------------------- credit

def test_credit_without_a_team_reward_or_event_rewards_is_null():
    result = replayed(chat(times=(0, 1, 2))).to_dict()
    found = result["credit"]
    assert found["team_reward"] is None
    for rule in ("equal", "recorded"):
        for unit, split in found[rule].items():
            assert (split["total"], split["residual"]) == (None, None), (rule, unit)
            assert "shares" not in split
    reasons = explained(result)
    assert reasons["credit.team_reward"] == recorded.NO_TEAM_REWARD
    assert reasons["credit.equal.agent.total"] == recorded.NO_TEAM_REWARD
    assert reasons["credit.recorded.agent.total"] == recorded.NO_EVENT_REWARDS
    assert reasons["credit.recorded.token.total"] == recorded.NO_TOKEN_ITEMS
    assert reasons["credit.counterfactual"] == recorded.NO_ROLLOUTS
    assert reasons["credit.counterfactual_units"] == recorded.NO_GAME


def test_a_team_reward_without_event_rewards_splits_equally_only():
    document = chat(times=(0, 1, 2))
    document["rewards"] = {"team": 0.0}  # a failed run: a recorded zero
    result = replayed(document).to_dict()
    found = result["credit"]
    assert found["team_reward"] == 0.0
    assert found["equal"]["agent"]["total"] == 0.0
    assert found["equal"]["token"]["total"] is None  # no event records tokens: no items
    assert found["recorded"]["agent"]["total"] is None
    reasons = explained(result)
    assert reasons["credit.equal.token.total"] == recorded.NO_TOKEN_ITEMS
    assert reasons["credit.recorded.agent.residual"] == recorded.NO_EVENT_REWARDS
    assert "credit.equal.agent.total" not in reasons


def test_event_rewards_without_a_team_reward_are_credited():
    document = chat(times=(0, 1, 2))
    document["events"][2]["reward"] = 0.5
    result = replayed(document).to_dict()
    kept = result["credit"]["recorded"]["agent"]
    assert kept["total"] == 0.5 and kept["residual"] is None
    assert kept["shares"] == {"user": 0.0, "lead": 0.0, "worker": 0.5}
    assert explained(result)["credit.recorded.agent.residual"] == recorded.NO_TEAM_REWARD


def test_exact_shapley_values_say_why_nothing_was_sampled():
    result = replay(load_trace(FIXTURES / "small.json")).to_dict()
    reasons = explained(result)
    assert result["credit"]["counterfactual"]["shapley_method"] == "exact"
    assert reasons["credit.counterfactual.shapley_standard_error"] == recorded.EXACT
    assert not any(key.startswith(("wall_clock", "busy_time", "speedup"))
                   for key in reasons)
    # the fixture records tokens and dollars, but not on every agent's events
    assert {key for key in reasons if key.startswith(("tokens", "cost_usd."))} == {
        "tokens.per_agent.search", "cost_usd.per_agent.search", "cost_usd.per_agent.b"}


# ---------------------------------------------------------------------------------- the walk

def test_names_are_not_figures():
    result = replay(load_trace(FIXTURES / "small.json")).to_dict()
    assert result["spawn_tree"][0]["spawn_event"] is None  # a root: not a missing figure
    assert not any(key.startswith(("spawn_tree", "provenance", "topology"))
                   for key in result["not_recorded"])


def test_a_null_no_rule_explains_is_said_so():
    result = replay(load_trace(FIXTURES / "small.json")).to_dict()
    result.pop("not_recorded")
    result["parallelism"] = None
    facts = recorded.Facts("seconds", True, True, True, True, True)
    assert recorded.not_recorded(result, facts)["parallelism"] == recorded.UNEXPLAINED


@pytest.mark.parametrize("path", [*EXAMPLES, FIXTURES / "small.json"], ids=lambda p: p.stem)
def test_every_null_of_the_examples_has_its_reason(path):
    result = replay(load_trace(path)).to_dict()
    reasons = explained(result)
    nulls = []
    stack = [((k,), v) for k, v in result.items() if k not in recorded.NOT_FIGURES]
    while stack:
        key, value = stack.pop()
        if value is None:
            nulls.append(".".join(key))
        elif isinstance(value, dict):
            stack.extend((key + (k,), v) for k, v in value.items()
                         if recorded._figure(key + (k,)))
    assert sorted(nulls) == list(reasons)


def test_facts_read_each_column():
    document = chat(times=(0, 1, 2))
    document["events"][0].update(tokens=3, cost_usd=0.1, reward=1.0, t_end=0.5)
    document["rewards"]["team"] = 1
    facts = replayed(document).run.recorded
    assert facts == recorded.Facts("seconds", True, True, True, True, True)
    bare = replayed(chat()).run.recorded
    assert bare == recorded.Facts("steps", False, False, False, False, False)


def test_a_trace_in_steps_keeps_every_edge_forward():
    document = chat()
    document["events"].append(event("m3", 0, "message", "user"))
    document["edges"].append({"src": "m0", "dst": "m3", "type": "causal"})
    run = replayed(copy.deepcopy(document)).run
    events, edges = run.trace.events, run.trace.edges
    assert np.all(events.start[edges.dst] > events.start[edges.src])
    json.dumps(replay(run.trace).to_dict(), allow_nan=False)


# ---------------------------------------------------------------------------------- any trace

OPTIONAL = st.fixed_dictionaries({}, optional={
    "tokens": st.integers(0, 500), "cost_usd": st.sampled_from([0, 0.01, 0.2]),
    "reward": st.sampled_from([-1.0, 0.0, 0.5]), "duration": st.sampled_from([0, 0.5, 2]),
    "x_model": st.sampled_from(["gpt-4o", "our-own-model", 7]),
    "x_usage": st.sampled_from([{"input": 10, "output": 2}, {"total": 4}, "many"]),
})


@settings(max_examples=60, deadline=None)
@given(fields=st.lists(OPTIONAL, min_size=1, max_size=5), timed=st.booleans(),
       team=st.sampled_from([None, 0.0, 1.0]), usd=st.sampled_from([None, 0.3]))
def test_any_trace_gets_a_reason_for_each_null_and_only_there(fields, timed, team, usd):
    document = chat()
    document["events"] = [
        event(f"m{k}", k if timed else 0, "message", f"agent{k % 2}", **extra)
        for k, extra in enumerate(fields)]
    document["edges"] = [{"src": f"m{k}", "dst": f"m{k + 1}", "type": "message"}
                         for k in range(len(fields) - 1)]
    if team is not None:
        document["rewards"]["team"] = team
    if usd is not None:
        document["costs"]["usd"] = usd
    result = replayed(document).to_dict()
    reasons = explained(result)
    has = {key: any(key in f for f in fields) for key in ("tokens", "cost_usd", "reward",
                                                           "duration")}
    same_start = not timed or len(fields) == 1
    assert (result["clock"] == "steps") == (same_start and not has["duration"])
    assert (result["tokens"]["total"] is None) == (not has["tokens"])
    assert (result["cost_usd"]["total"] is None) == (not has["cost_usd"])
    assert (result["busy_time"] is None) == (not has["duration"])
    assert (result["credit"]["recorded"]["agent"]["total"] is None) == (not has["reward"])
    assert (result["credit"]["team_reward"] is None) == (team is None)
    if result["cost_usd_estimated"]["total"] is not None:
        assert any(f.get("x_model") == "gpt-4o" and isinstance(f.get("x_usage"), dict)
                   and "input" in f["x_usage"] for f in fields)
    nulls, stack = [], [((k,), v) for k, v in result.items() if k not in recorded.NOT_FIGURES]
    while stack:
        key, value = stack.pop()
        if value is None:
            nulls.append(".".join(key))
        elif isinstance(value, dict):
            stack.extend((key + (k,), v) for k, v in value.items()
                         if recorded._figure(key + (k,)))
    assert sorted(nulls) == list(reasons)
