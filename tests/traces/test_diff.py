"""Two runs of one task side by side: figures and their change, agents in one run only, tool
calls per tool, critical paths, credit, and the steps aligned agent by agent (same, changed,
in one run only), with the first step where the runs part."""

from __future__ import annotations

import copy
import json

import pytest
from replay_examples import EXAMPLES
from trace_helpers import replayed

from masrl.traces import diff


@pytest.fixture(scope="module")
def centralized() -> dict:
    return json.loads((EXAMPLES / "centralized.json").read_text(encoding="utf-8"))


def variant(document: dict) -> dict:
    """The same task run again: researcher_2 queries the web instead of the database, the lead
    checks the draft with one more tool call, and the team reward is lower."""
    other = copy.deepcopy(document)
    other["trace_id"] = "example-centralized-again"
    for event in other["events"]:
        if event["id"] in ("c4", "r4"):
            event["tool"] = "web.search"
            if event["type"] == "tool_result":
                event["agent"] = "web.search"
    other["events"].append({"id": "c9", "t": 31.0, "type": "tool_call", "agent": "lead",
                            "tool": "web.fetch", "tokens": 100})
    other["edges"].append({"src": "d3", "dst": "c9", "type": "causal"})
    other["rewards"]["team"] = 0.5
    other["costs"]["tool_calls"] = 5
    return other


@pytest.fixture(scope="module")
def compared(centralized) -> dict:
    return diff.compare(replayed(centralized), replayed(variant(centralized)))


def test_figures_and_their_change(compared):
    figures = compared["figures"]
    assert figures["events"] == {"a": 21, "b": 22, "change": 1}
    assert figures["tool_calls"] == {"a": 4, "b": 5, "change": 1}
    assert figures["credit.team_reward"]["change"] == pytest.approx(-0.3)
    assert figures["tokens.total"]["change"] == 100
    assert compared["same_task"] is True
    assert compared["runs"]["b"]["trace_id"] == "example-centralized-again"


def test_tools_per_tool(compared):
    # c4 moves from the database to the web; the lead adds one fetch
    assert compared["tools"] == {"sql.query": [1, 0], "web.fetch": [1, 2], "web.search": [2, 3]}


def test_agents_on_both_sides(compared):
    agents = compared["agents"]
    assert agents["only_a"] == [] and agents["only_b"] == []
    assert agents["per_agent"]["lead"]["tool_calls"] == [0, 1]
    assert agents["per_agent"]["lead"]["tokens"] == [7605, 7705]  # its one more call: 100
    assert "sql.query" not in agents["per_agent"]  # tools are not agents


def test_steps_are_aligned_agent_by_agent(compared):
    rows = compared["alignment"]
    by = {(row["agent"], row["status"]): row for row in rows}
    changed = by[("researcher_2", diff.CHANGED)]
    assert (changed["a"]["tool"], changed["b"]["tool"]) == ("sql.query", "web.search")
    assert changed["a"]["step"] == changed["b"]["step"]
    extra = by[("lead", diff.ONLY_B)]
    assert extra["a"] is None and extra["b"]["event"] == "c9"
    assert sum(row["status"] == diff.SAME for row in rows) == 21 - 2  # c4 and r4 changed
    first = compared["first_divergence"]
    assert first["a"]["event"] == "c4" and first["b"]["event"] == "c4"
    assert first["same_steps_before"] > 0


def test_a_run_compared_with_itself(centralized):
    found = diff.compare(replayed(centralized), replayed(centralized))
    assert found["first_divergence"] is None
    assert all(row["status"] == diff.SAME for row in found["alignment"])
    assert all(row["change"] in (0, None) for row in found["figures"].values())
    paths = found["critical_path"]
    assert paths["a"] == paths["b"] and paths["same_first_steps"] == sum(
        run["steps"] for run in paths["a"])


def test_unknown_figures_are_null_with_their_reason(centralized):
    reasons = {"tokens.total": "no event records tokens"}
    found = diff.compare(replayed(centralized), replayed(centralized), reasons_a=reasons)
    row = found["figures"]["tokens.total"]
    assert row["a"] is None and row["b"] == 14820 and row["change"] is None
    assert row["not_recorded"] == {"a": "no event records tokens"}
    assert found["agents"]["per_agent"]["lead"]["tokens"][0] is None
    assert found["runs"]["a"]["not_recorded"] == reasons


def test_the_comparison_is_json(compared):
    assert json.loads(json.dumps(compared, allow_nan=False)) == compared


def test_different_tasks_are_said(centralized):
    other = variant(centralized)
    other["task_id"] = "another-task"
    assert diff.compare(replayed(centralized), replayed(other))["same_task"] is False
