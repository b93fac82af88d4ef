"""The tables of chapter 21's worked examples: the tabs of one replay show what the trace report
shows (the same builders), and the topologies side by side."""

from __future__ import annotations

from masrl.presentation import trace_tables
from masrl.presentation.report import sections
from masrl.presentation.report.facts import Facts
from masrl.traces import load_trace, replay, resources

EXAMPLES = resources.EXAMPLES


def example(name: str):
    return replay(load_trace(EXAMPLES / f"{name}.json"))


def test_the_tabs_are_the_report_s_tables():
    found = example("centralized")
    tabs = trace_tables.replay_tabs("c", found).tabs
    facts = Facts(found)
    assert list(tabs) == ["Critical path", "Figures", "Credit by unit", "Credit per agent"]
    assert tabs["Figures"].rows == sections.numbers_table(facts).rows
    assert tabs["Critical path"].rows == sections.path_table(facts).rows
    assert tabs["Credit per agent"].rows == sections.items_table(facts, "agent").rows
    figures = {row[0]: row[1] for row in tabs["Figures"].rows}
    assert figures["Tokens"] == "14,820"  # thousands separators
    assert figures["Duration"] == "30.3 s"
    assert figures["Events"] == "21"


def test_rules_that_do_not_apply_say_so():
    items = trace_tables.replay_tabs("pec", example("planner_executor_critic")).tabs[
        "Credit per agent"]
    assert items.cells("Shapley value")[0] == "not a player"  # the controller
    assert items.cells("Shapley value")[2] == "0.642"


def test_a_replay_without_counterfactuals_has_no_coalitions_tab():
    with_them = trace_tables.replay_tabs("pec", example("planner_executor_critic"))
    without = trace_tables.replay_tabs("c", example("centralized"))
    assert "Coalitions" in with_them.tabs and "Coalitions" not in without.tabs
    assert list(without.tabs)[0] == "Critical path"


def test_the_topologies_side_by_side():
    table = trace_tables.comparison_table({name: example(name) for name in ("swarm", "debate")})
    assert table.cells("trace") == ["swarm", "debate"]
    assert table.cells("parallelism")[0] == "4.33"
