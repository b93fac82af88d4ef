"""Credit splits of ``small.json`` (team reward 1.0) computed by hand.

Agents: root, a, b (the search tool only answers a call, so it is not credited). Recorded
per-event rewards: e1 0.1 (root's decision), e6 0.2 (b's message), e9 0.3 (root's aggregate).
Counterfactuals over players a and b: v({a}) = 0.6, v({b}) = 0.2, v({a, b}) = rewards.team = 1,
v({}) = 0 by default.
"""

from __future__ import annotations

import numpy as np
import pytest
from trace_helpers import replayed

from masrl.traces import credit


def run_of(document):
    return replayed(document).run


def test_equal_split_over_each_unit(small):
    run = run_of(small)
    assert credit.equal(run, "team") == {"team": 1.0}
    # orchestration decisions: the decision e1, the spawns e2 and e3, the aggregate e9
    assert credit.equal(run, "orchestrator") == {"e1": 0.25, "e2": 0.25, "e3": 0.25, "e9": 0.25}
    assert credit.equal(run, "agent") == pytest.approx({"root": 1 / 3, "a": 1 / 3, "b": 1 / 3})
    assert credit.equal(run, "role") == pytest.approx(
        {"critic": 1 / 3, "lead": 1 / 3, "worker": 1 / 3})
    assert credit.equal(run, "message") == {"e6": 1.0}
    assert credit.equal(run, "tool_call") == {"e4": 1.0}


def test_turns_start_when_an_agent_acts_on_what_another_sent(small):
    # root: e1 (first), e9 (after a's return); a: e4 (first), e7 (after the tool result);
    # b: e6 (first); its e8 follows its own e6 and continues the same turn.
    assert credit.equal(run_of(small), "turn") == pytest.approx(
        {"root#1": 0.2, "root#2": 0.2, "a#1": 0.2, "a#2": 0.2, "b#1": 0.2})


def test_equal_split_per_token(small):
    # tokens: e1 100, e4 50, e6 30, e7 20, e8 10, e9 40 (250 in all)
    assert credit.equal(run_of(small), "token") == pytest.approx(
        {"e1": 0.4, "e4": 0.2, "e6": 0.12, "e7": 0.08, "e8": 0.04, "e9": 0.16})


def test_recorded_rewards_per_unit(small):
    run = run_of(small)
    assert credit.recorded(run, "team") == pytest.approx({"team": 0.6})
    assert credit.recorded(run, "agent") == pytest.approx({"root": 0.4, "a": 0.0, "b": 0.2})
    assert credit.recorded(run, "orchestrator") == pytest.approx(
        {"e1": 0.1, "e2": 0.0, "e3": 0.0, "e9": 0.3})
    assert credit.recorded(run, "turn") == pytest.approx(
        {"root#1": 0.1, "root#2": 0.3, "a#1": 0.0, "a#2": 0.0, "b#1": 0.2})


def test_summary_reports_total_and_residual(small):
    result = credit.compute(run_of(small))
    assert result["team_reward"] == 1.0
    assert result["units"] == ["team", "orchestrator", "role", "agent", "turn", "message",
                               "tool_call", "token"]
    assert result["recorded"]["message"] == {"items": 1, "total": 0.2, "residual": 0.8,
                                             "shares": {"e6": 0.2}}
    assert result["equal"]["turn"]["residual"] == 0.0


def test_leave_one_out_and_shapley(small):
    result = credit.compute(run_of(small))["counterfactual"]
    assert result["leave_one_out"] == {"a": 0.8, "b": 0.4}
    assert result["shapley"] == {"a": 0.7, "b": 0.3}  # (0.6 + 0.8) / 2, (0.2 + 0.4) / 2
    assert (result["coalitions_recorded"], result["coalitions_needed"]) == (4, 4)


def test_shapley_needs_every_coalition(small):
    small["counterfactuals"]["players"].append("root")
    small["counterfactuals"]["outcomes"] = [
        {"coalition": ["a", "b"], "reward": 0.7}, {"coalition": ["a", "root"], "reward": 0.9},
        {"coalition": ["b", "root"], "reward": 0.3}]
    result = credit.compute(run_of(small))["counterfactual"]
    assert result["shapley"] is None
    assert result["leave_one_out"] == pytest.approx({"a": 0.7, "b": 0.1, "root": 0.3})


def test_recorded_full_coalition_overrides_the_team_reward(small):
    small["counterfactuals"]["outcomes"].append({"coalition": ["b", "a"], "reward": 0.8})
    assert credit.compute(run_of(small))["counterfactual"]["leave_one_out"] == {
        "a": 0.6, "b": 0.2}


def test_no_counterfactuals(small):
    del small["counterfactuals"]
    assert credit.compute(run_of(small))["counterfactual"] is None


def test_without_a_team_reward_equal_split_is_undefined(small):
    small["rewards"] = {"process": 0.6}
    small["counterfactuals"]["channel"] = "process"
    result = credit.compute(run_of(small))
    assert result["team_reward"] is None
    assert result["equal"]["agent"] == {"items": 3, "total": None, "residual": None}
    assert result["recorded"]["agent"]["total"] == 0.6
    assert result["counterfactual"]["leave_one_out"] == {"a": 0.4, "b": 0.0}


def test_long_share_lists_are_summarised(small, monkeypatch):
    monkeypatch.setattr(credit, "MAX_LISTED_ITEMS", 4)
    result = credit.compute(run_of(small))
    assert "shares" not in result["equal"]["turn"]  # 5 turns
    assert result["equal"]["turn"]["items"] == 5
    assert "shares" in result["equal"]["agent"]


def test_turn_names_are_made_on_demand():
    names = credit.TurnNames(["x", "y"], np.array([2, 1]))
    assert list(names) == ["x#1", "x#2", "y#1"]
    assert (names[-1], names[:2]) == ("y#1", ["x#1", "x#2"])


def test_a_tool_results_reward_credits_the_caller_not_the_tool(small):
    """e5 (search's result) answers a's call e4: a reward on it goes to a, a's role and turn."""
    document = dict(small, events=[dict(e, reward=0.5) if e["id"] == "e5" else e
                                   for e in small["events"]])
    run = run_of(document)
    assert credit.recorded(run, "agent") == pytest.approx({"root": 0.4, "a": 0.5, "b": 0.2})
    assert credit.recorded(run, "turn")["a#1"] == pytest.approx(0.5)
    assert credit.recorded(run, "role")[run.agents["a"].role or credit.NO_ROLE] == pytest.approx(0.5)
    assert "search" not in credit.recorded(run, "agent")


def test_a_result_that_answers_no_call_credits_nobody(small):
    document = dict(small,
                    events=[dict(e, reward=0.5) if e["id"] == "e5" else e for e in small["events"]],
                    edges=[e for e in small["edges"] if e["dst"] != "e5"])
    run = run_of(document)
    assert credit.recorded(run, "agent") == pytest.approx({"root": 0.4, "a": 0.0, "b": 0.2})
    assert credit.recorded(run, "team") == pytest.approx({"team": 1.1})
