"""Presentation of replayed traces for chapter 21: spawn tree, critical path, credit and the
topologies side by side, with concrete values on the six example traces; trace text is escaped
wherever it meets markup. (What the trace report shows too is tested in tests/presentation/report.)"""

from __future__ import annotations

import math

import pytest
from replay_examples import HOSTILE, NAMES, example, hostile_replay

from masrl.presentation import docstrings
from masrl.presentation import trace_views as views
from masrl.traces import metrics


@pytest.fixture(scope="module")
def examples() -> dict:
    return {name: example(name) for name in NAMES}


# ---------------------------------------------------------------------------------- agents

def test_spawn_tree_of_the_hierarchy(examples):
    assert views.spawn_tree(examples["hierarchical"]).lines == [
        "director (director)",
        "├── lead_finance (team_lead): spawned by s1 at 2 s, alive to 12.6 s",
        "│   ├── analyst_finance_1 (analyst): spawned by s11 at 3.6 s, alive to 6.7 s",
        "│   └── analyst_finance_2 (analyst): spawned by s12 at 3.7 s, alive to 7.5 s",
        "└── lead_market (team_lead): spawned by s2 at 2.1 s, alive to 12.7 s",
        "    ├── analyst_market_1 (analyst): spawned by s21 at 3.7 s, alive to 6.8 s",
        "    └── analyst_market_2 (analyst): spawned by s22 at 3.8 s, alive to 7.6 s",
        "tools (never spawned, only answer calls): sql.query, web.search",
    ]


def test_spawn_tree_lists_every_acting_root(examples):
    assert views.spawn_tree(examples["harness"]).lines == [
        "user (user)",
        "main (main)",
        "└── explore_1 (explorer): spawned by s1 at 4.6 s, alive to 6.5 s",
        "harness (policy)",
        "tools (never spawned, only answer calls): Read, Grep, Edit, Bash",
    ]



@pytest.mark.parametrize("name", NAMES)
def test_critical_path_frame_lists_the_path(examples, name):
    found = examples[name]
    frame = views.critical_path_frame(found)
    assert len(frame) == found.metrics["critical_steps"]
    assert list(frame["event"]) == found.metrics["critical_path"]
    assert (frame["start (s)"].diff().dropna() >= 0).all()


def test_the_harness_runs_as_one_chain(examples):
    frame = views.critical_path_frame(examples["harness"])
    assert len(frame) == 19
    assert list(frame["event"][:4]) == ["h1", "d1", "c1", "r1"]
    assert list(frame.loc[14, ["event", "type", "agent"]]) == ["x1", "safety_event", "harness"]


# ---------------------------------------------------------------------------------- credit

@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("unit", ["agent", "role", "orchestrator", "turn", "tool_call"])
def test_equal_shares_sum_to_the_team_reward(examples, name, unit):
    found = examples[name]
    frame = views.credit_items_frame(found, unit)
    if len(frame):
        assert frame["equal"].sum() == pytest.approx(found.credit["team_reward"])
    assert frame["recorded"].sum() == pytest.approx(found.credit["recorded"][unit]["total"])


def test_shapley_and_leave_one_out_of_the_pipeline(examples):
    frame = views.credit_items_frame(examples["planner_executor_critic"], "agent")
    assert list(frame.index) == ["controller", "planner", "executor", "critic"]
    assert frame.loc["planner", "shapley"] == pytest.approx(17 / 120)
    assert frame.loc["executor", "shapley"] == pytest.approx(77 / 120)
    assert frame.loc["critic", "shapley"] == pytest.approx(26 / 120)
    assert frame["shapley"].sum() == pytest.approx(1.0)  # v(N) - v(empty)
    assert frame.loc["executor", "leave-one-out"] == pytest.approx(0.95)
    assert math.isnan(frame.loc["controller", "shapley"])
    assert frame.loc["critic", "recorded"] == pytest.approx(0.2)


def test_debate_has_leave_one_out_only(examples):
    found = examples["debate"]
    frame = views.credit_items_frame(found, "agent")
    assert frame["leave-one-out"].dropna().to_dict() == pytest.approx(
        {"debater_1": 0.3, "debater_2": 0.05, "debater_3": 0.2})
    assert frame["shapley"].isna().all()
    assert "shapley" not in views.credit_items_frame(found, "role")
    coalitions = views.coalitions_frame(found)
    assert len(coalitions) == 8
    assert coalitions["source"].value_counts().to_dict() == {
        "not recorded": 3, "counterfactual outcome": 3, "assumed 0": 1,
        "recorded team reward": 1}
    assert coalitions.loc["debater_1 + debater_2 + debater_3", "v(S)"] == 1.0
    assert views.coalitions_frame(examples["swarm"]).empty


def test_recorded_rewards_on_tool_results_credit_the_caller(examples):
    """The harness's only per-event reward sits on a tool result: it credits the agent whose
    tool call the result answers (main), not the tool."""
    found = examples["harness"]
    assert views.credit_items_frame(found, "team")["recorded"].tolist() == [pytest.approx(0.2)]
    agents = views.credit_items_frame(found, "agent")["recorded"]
    assert agents.to_dict() == pytest.approx({"user": 0.0, "main": 0.2, "explore_1": 0.0,
                                              "harness": 0.0})


# ---------------------------------------------------------------------------------- comparison

def test_comparison_frame(examples):
    frame = views.comparison_frame(examples)
    assert list(frame.index) == NAMES
    assert frame.loc["swarm", "parallelism"] == pytest.approx(39 / 9)
    assert list(frame.columns) == [
        "events", "critical steps", "parallelism", "spawn depth", "max concurrency",
        "wall clock (s)", "speedup", "tokens", "team reward"]
    assert frame.loc["harness", "critical steps"] == frame.loc["harness", "events"] == 19
    assert frame.loc["hierarchical", "spawn depth"] == 2
    assert frame.loc["debate", "tokens"] == 16000
    assert frame["parallelism"].idxmax() == "swarm"


# ---------------------------------------------------------------------------------- display

def test_number_formats_what_readers_see():
    assert [views.number(v) for v in (3, 3.0, 2 / 3, None, math.nan, "x", 0.17235)] == [
        "3", "3", "0.666667", "–", "–", "x", "0.17235"]


def test_plain_turns_numpy_scalars_into_python_numbers():
    import numpy as np

    assert type(views.plain(np.float64(0.5))) is float and views.plain(np.int64(3)) == 3
    assert views.plain("swarm") == "swarm" and views.plain(None) is None


def test_docstrings_become_markdown():
    text = docstrings.docstring_markdown(metrics, after="Definitions")
    assert text.startswith("* ``events``, ``edges``")
    assert ":func:" not in text and ":mod:" not in text
    whole = docstrings.docstring_markdown("masrl.traces.credit")
    assert "`replay`" in whole and ":mod:" not in whole
    assert whole.startswith("How the team reward of a run splits")


# ---------------------------------------------------------------------------------- escaping

def test_trace_text_is_escaped_in_html():
    found = hostile_replay()
    tree = views.spawn_tree(found)
    assert HOSTILE in tree.text
    markup = tree._repr_html_()
    assert "<img" not in markup
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;" in markup
    for frame in (views.credit_items_frame(found, "agent"), views.critical_path_frame(found)):
        rendered = views.shown(frame)._repr_html_()
        assert "<img" not in rendered and "&lt;img" in rendered


# ---------------------------------------------------------------------------------- figures

def test_headline_figures_are_plain_numbers_of_the_replay(examples):
    figures = views.headline_figures(examples["swarm"])
    found = examples["swarm"].metrics
    assert figures["events"] == found["events"] and type(figures["events"]) is int
    assert figures["critical_steps"] == found["critical_steps"]
    assert figures["spawned"] == sum(a.parent is not None
                                     for a in examples["swarm"].run.agents.values())
    assert figures["path_spawned"].split(", ")[0] in examples["swarm"].run.agents


def test_headline_figures_give_what_the_recorded_agent_rewards_leave_unexplained(examples):
    # the harness's one per-event reward sits on a tool's result: it counts for the agent that
    # called the tool, so the agent unit leaves only the rest of the team reward unexplained
    figures = views.headline_figures(examples["harness"])
    assert figures["recorded_agents"] == pytest.approx(figures["recorded_team"])
    assert figures["recorded_agents"] > 0
    assert figures["recorded_agents_residual"] == pytest.approx(
        figures["team_reward"] - figures["recorded_agents"])
    assert figures["recorded_agents_residual"] < figures["team_reward"]
    assert figures["recorded_agents_by"] == "main"


def test_extreme_figures_name_every_row_that_holds_the_extreme():
    import pandas as pd

    table = pd.DataFrame({"speedup": [1.0, 3.0, 3.0], "spawn depth": [0, 2, 1]},
                         index=["a", "b", "c"])
    figures = views.extreme_figures(table, ["speedup", "spawn depth"])
    assert figures["top_speedup_name"] == "b and c" and figures["top_speedup"] == 3.0
    assert figures["low_spawn_depth_name"] == "a" and figures["low_spawn_depth"] == 0


def test_counterfactual_figures(examples):
    pec = views.counterfactual_figures(examples["planner_executor_critic"], "agent")
    assert pec["shapley_sum"] == pytest.approx(1.0)
    assert pec["loo_executor"] > pec["loo_critic"] > pec["loo_planner"]
    assert pec["coalitions_recorded"] == pec["coalitions_needed"] == 8
    debate = views.counterfactual_figures(examples["debate"], "agent")
    assert math.isnan(debate["shapley_sum"]) and debate["coalitions_recorded"] < 8
    assert debate["loo_sum"] == pytest.approx(
        sum(examples["debate"].credit["counterfactual"]["leave_one_out"].values()))
    assert views.counterfactual_figures(examples["swarm"], "agent") == {}
