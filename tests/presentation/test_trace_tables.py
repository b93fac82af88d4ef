"""A replay's tables in the book style: formatted by kind, dashes where a rule does not apply,
the tables of one replay as tabs."""

from __future__ import annotations

from masrl.presentation import trace_tables
from masrl.traces import load_trace, replay, resources

EXAMPLES = resources.EXAMPLES


def example(name: str):
    return replay(load_trace(EXAMPLES / f"{name}.json"))


def test_metrics_read_as_numbers_with_units():
    shown = dict(trace_tables.metrics_table(example("centralized")).rows)
    assert shown["tokens.total"] == "14,820"  # thousands separators
    assert shown["wall_clock (s)"] == "30.30"  # seconds, two decimals
    assert shown["events"] == "21"


def test_rules_that_do_not_apply_show_a_dash():
    items = trace_tables.credit_items_table(example("planner_executor_critic"), "agent")
    assert items.cells("shapley")[0] == "—"  # the controller is no player
    assert items.cells("shapley")[2] == "0.642"


def test_a_replay_without_counterfactuals_has_no_coalitions_tab():
    with_them = trace_tables.replay_tabs("pec", example("planner_executor_critic"))
    without = trace_tables.replay_tabs("c", example("centralized"))
    assert "Coalitions" in with_them.tabs and "Coalitions" not in without.tabs
    assert list(without.tabs)[0] == "Critical path"
