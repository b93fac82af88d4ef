"""Which names are agents and which are tools, and the order the report lists them in."""

from __future__ import annotations

from replay_examples import example

from masrl.presentation import trace_views
from masrl.presentation.report.agents import agent_kinds, agent_order


def test_agent_kinds_and_order():
    run = example("centralized").run
    assert agent_kinds(run) == {
        "lead": "root", "researcher_1": "spawned", "researcher_2": "spawned",
        "web.search": "tool", "web.fetch": "tool", "sql.query": "tool", "writer_1": "spawned"}
    assert agent_order(run) == ["lead", "researcher_1", "researcher_2", "writer_1",
                                "web.search", "web.fetch", "sql.query"]
    assert trace_views.agent_order is agent_order  # one implementation, for the book too
