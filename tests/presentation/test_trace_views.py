"""Presentation of replayed traces: spawn tree, tables of metrics, critical path and credit, with
concrete values on the six example traces; trace text is escaped wherever it meets markup."""

from __future__ import annotations

import math

import pytest
from replay_examples import EXAMPLES, HOSTILE, NAMES, example, hostile_replay
from trace_helpers import FIXTURES

from masrl import paths
from masrl.presentation import docstrings
from masrl.presentation import trace_views as views
from masrl.traces import credit, metrics, validate_file


@pytest.fixture(scope="module")
def examples() -> dict:
    return {name: example(name) for name in NAMES}


# ---------------------------------------------------------------------------------- validation

def test_validate_file_reports_a_missing_file_as_a_problem(tmp_path):
    report = validate_file(tmp_path / "nope.json")
    assert not report.valid and not report.readable and report.trace is None
    assert [(p.severity, p.code, p.message) for p in report.problems] == [
        ("error", "unreadable", "cannot read: no such file")]
    assert views.verdict(report) == "invalid: 1 error(s), 0 warning(s)"


def test_validate_file_of_an_invalid_trace_lists_its_problems():
    report = validate_file(FIXTURES / "not_json.json", source="bad.json")
    frame = views.problems_frame(report)
    assert list(frame.columns) == ["severity", "code", "where", "message"]
    assert list(frame["code"]) == ["not-json"] and frame.index.tolist() == [1]
    assert report.source == "bad.json"


def test_validate_file_of_a_valid_example():
    report = validate_file(EXAMPLES / "debate.json", source="debate.json")
    assert report.valid and report.trace.source == "debate.json"
    assert views.verdict(report) == "valid: 0 error(s), 0 warning(s)"
    assert views.problems_frame(report).empty


def test_locate_falls_back_to_the_base_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    given = "../src/masrl/traces/resources/examples/swarm.json"
    assert views.locate(given, paths.REPO_ROOT / "notebooks") == (
        paths.REPO_ROOT / "notebooks" / given)
    (tmp_path / "mine.json").write_text("{}")
    assert views.locate("mine.json", paths.REPO_ROOT / "notebooks").as_posix() == "mine.json"
    assert views.locate("missing.json", tmp_path / "x").as_posix() == "missing.json"


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


def test_agent_kinds_and_order(examples):
    run = examples["centralized"].run
    assert views.agent_kinds(run) == {
        "lead": "root", "researcher_1": "spawned", "researcher_2": "spawned",
        "web.search": "tool", "web.fetch": "tool", "sql.query": "tool", "writer_1": "spawned"}
    assert views.agent_order(run) == ["lead", "researcher_1", "researcher_2", "writer_1",
                                      "web.search", "web.fetch", "sql.query"]


def test_agents_frame_of_the_hierarchy(examples):
    frame = views.agents_frame(examples["hierarchical"])
    assert len(frame) == 9
    finance = frame.loc["lead_finance"]
    assert (finance["kind"], finance["role"], finance["spawned by"], finance["depth"]) == (
        "spawned", "team_lead", "director", 1)
    assert (finance["alive from (s)"], finance["alive to (s)"]) == (2.0, 12.6)
    assert finance["tokens"] == 600 + 1800 + 300
    assert finance["subtree tokens"] == 2700 + 450 + 1000 + 500 + 1100
    assert frame.loc["director", "subtree tokens"] == 16370
    assert math.isnan(frame.loc["director", "alive from (s)"])
    assert frame.loc["analyst_market_2", "depth"] == 2


# ---------------------------------------------------------------------------------- metrics

def test_metrics_frame_of_the_hierarchy(examples):
    values = views.metrics_frame(examples["hierarchical"])["value"]
    assert values["events"] == 27 and values["edges"] == 29
    assert values["critical_steps"] == 11
    assert values["parallelism"] == pytest.approx(27 / 11)
    assert (values["spawn_depth"], values["max_concurrency"]) == (2, 6)
    assert values["wall_clock (s)"] == pytest.approx(18.1)
    assert values["tokens.total"] == values["tokens.recorded"] == 16370
    assert values["cost_usd.total"] == pytest.approx(0.17235)


def test_counts_frame_keeps_only_nonzero_counts(examples):
    frame = views.counts_frame(examples["debate"])
    assert frame.loc[("event type", "message"), "n"] == 6
    assert frame.loc[("decision", "stop"), "n"] == 1
    assert ("event type", "tool_call") not in frame.index
    assert (frame["n"] > 0).all()


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


@pytest.mark.parametrize("name", NAMES)
def test_credit_units_frame_agrees_with_the_credit_object(examples, name):
    found = examples[name]
    frame = views.credit_units_frame(found)
    assert list(frame.index) == list(credit.UNITS)
    reward = found.credit["team_reward"]
    for unit, row in frame.iterrows():
        assert row["items"] == found.credit["equal"][unit]["items"]
        assert row["equal total"] == pytest.approx(reward if row["items"] else 0.0)
        assert row["recorded total"] + row["recorded residual"] == pytest.approx(reward)


def test_credit_units_of_the_centralized_example(examples):
    frame = views.credit_units_frame(examples["centralized"])
    assert frame.loc["agent", "items"] == 4
    assert frame.loc["agent", "equal share each"] == pytest.approx(0.2)
    assert frame.loc["token", "equal share each"] == pytest.approx(0.8 / 14820)
    assert frame.loc["agent", "recorded total"] == pytest.approx(0.2)
    assert frame.loc["agent", "recorded residual"] == pytest.approx(0.6)


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
        "wall clock", "speedup", "tokens", "team reward"]
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


def test_shown_formats_every_cell(examples):
    frame = views.shown(views.metrics_frame(examples["swarm"]))
    assert frame.loc["parallelism", "value"] == "4.33333"
    assert frame.loc["events", "value"] == "39"


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
    for frame in (views.agents_frame(found), views.credit_items_frame(found, "agent"),
                  views.critical_path_frame(found)):
        rendered = views.shown(frame)._repr_html_()
        assert "<img" not in rendered and "&lt;img" in rendered
    assert views.skipped("x")._repr_html_() == '<pre class="masrl-text">Skipped: x.</pre>'
    assert views.note("<b>")._repr_html_() == '<pre class="masrl-text">&lt;b&gt;</pre>'


# ---------------------------------------------------------------------------------- figures

def test_headline_figures_are_plain_numbers_of_the_replay(examples):
    figures = views.headline_figures(examples["swarm"])
    found = examples["swarm"].metrics
    assert figures["events"] == found["events"] and type(figures["events"]) is int
    assert figures["critical_steps"] == found["critical_steps"]
    assert figures["spawned"] == sum(a.parent is not None
                                     for a in examples["swarm"].run.agents.values())
    assert figures["path_spawned"].split(", ")[0] in examples["swarm"].run.agents


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


def test_replayed_gives_the_replay_or_the_reason_there_is_none(small):
    from masrl.traces.validate import validate_document

    assert views.replayed(validate_document(small)).metrics["events"] == 9
    small["events"][0]["tokens"] = small["events"][3]["tokens"] = 1.5e308
    report = validate_document(small)
    assert report.valid and views.replayed(report) is None
    assert [(p.code, p.where) for p in report.problems] == [("non-finite", "tokens.total")]
    assert views.verdict(report) == "invalid: 1 error(s), 0 warning(s)"


def test_views_of_a_trace_without_clock_tokens_or_rewards_say_not_recorded(small):
    """A log that keeps only the order of its records: the views show "not recorded" where
    the replay has no figure, and the critical path in steps."""
    from trace_helpers import replayed

    from masrl.presentation import trace_tables

    for record in small["events"]:
        for key in ("t_end", "duration", "tokens", "cost_usd", "reward"):
            record.pop(key, None)
        record["t"] = 0
    small.pop("counterfactuals")
    small["rewards"], small["costs"] = {}, {"tokens": 0, "wall_clock_s": 0}
    replay = replayed(small)
    metrics_shown = views.metrics_frame(replay)["value"]
    for name in ("wall_clock (s)", "busy_time, all agents (s)", "speedup", "tokens.total",
                 "cost_usd.total", "cost_usd.recorded"):
        assert metrics_shown[name] == views.NOT_RECORDED, name
    agents = views.agents_frame(replay)
    assert set(agents["busy time (s)"]) == set(agents["tokens"]) == {views.NOT_RECORDED}
    units = views.credit_units_frame(replay)
    assert set(units["equal total"]) == set(units["recorded total"]) == {views.NOT_RECORDED}
    path = views.critical_path_frame(replay)
    assert list(path.columns) == ["event", "type", "agent", "start (step)"]
    assert path["start (step)"].is_monotonic_increasing
    figures = views.headline_figures(replay)
    assert (figures["tokens"], figures["wall_clock"], figures["team_reward"]) == (None,) * 3
    for table in (trace_tables.metrics_table(replay), trace_tables.agents_table(replay),
                  trace_tables.critical_path_table(replay), trace_tables.credit_units_table(replay)):
        text = str(table)
        assert views.NOT_RECORDED in text or "start (step)" in text
