"""Who worked with whom: agents as nodes, spawn, delegation, message and return links counted,
the critical path marked, drawn as SVG built here (no script, text escaped, the same bytes)."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from replay_examples import EXAMPLES, HOSTILE, NAMES, example, hostile_replay
from trace_helpers import replayed

from masrl.presentation.report import agent_graph
from masrl.presentation.report.agents import TOOL, agent_kinds
from masrl.presentation.report.facts import Facts


def graph_of(name: str) -> agent_graph.AgentGraph:
    return agent_graph.build(Facts(example(name)))


def test_the_hierarchy_s_spawn_tree_and_returns():
    graph = graph_of("hierarchical")
    assert [n.name for n in graph.nodes] == [
        "director", "lead_finance", "analyst_finance_1", "analyst_finance_2", "lead_market",
        "analyst_market_1", "analyst_market_2"]  # tools are not drawn
    links = {(link.source, link.target): link for link in graph.links}
    assert links[("director", "lead_finance")].kinds[agent_graph.SPAWN] == 1
    assert links[("lead_finance", "director")].kind == agent_graph.RETURN
    assert links[("analyst_finance_1", "lead_finance")].kinds == Counter(
        {agent_graph.RETURN: 1})
    columns = {n.name: n.column for n in graph.nodes}
    assert columns == {"director": 0, "lead_finance": 1, "lead_market": 1,
                       "analyst_finance_1": 2, "analyst_finance_2": 2, "analyst_market_1": 2,
                       "analyst_market_2": 2}
    assert graph.credit_rule == "recorded rewards"


@pytest.mark.parametrize("name", NAMES)
def test_nodes_count_every_event_of_the_acting_agents(name):
    found = example(name)
    graph = agent_graph.build(Facts(found))
    kinds = agent_kinds(found.run)
    events = found.run.trace.events
    acting = [events.agent(i) for i in range(events.count) if kinds[events.agent(i)] != TOOL]
    assert sum(n.events for n in graph.nodes) == len(acting)
    assert sum(n.tool_calls for n in graph.nodes) == found.metrics["tool_calls"]
    path = found.metrics["critical_path"]
    position = {event_id: i for i, event_id in enumerate(events.ids)}
    on_path = {events.agent(position[e]) for e in path} - {k for k, v in kinds.items()
                                                          if v == TOOL}
    assert {n.name for n in graph.nodes if n.critical} == on_path
    rows = [(n.column, n.row) for n in graph.nodes]
    assert len(set(rows)) == len(rows)  # no two boxes in one place


def test_messages_and_delegations_of_a_flat_team():
    """Who&When-like: roots only, talking through messages; a decision to delegate is a
    delegation; the critical path runs through both directions."""
    trace = {"trace_id": "flat", "task_id": "t", "topology": "centralized", "rewards": {},
             "costs": {"tokens": 15, "wall_clock_s": 3}, "events": [
        {"id": "h0", "t": 0, "type": "message", "agent": "human", "to": "boss"},
        {"id": "d1", "t": 1, "type": "orchestrator_decision", "agent": "boss",
         "decision": "delegate", "to": "worker", "tokens": 10},
        {"id": "w1", "t": 2, "type": "message", "agent": "worker", "to": "boss", "tokens": 5},
        {"id": "d2", "t": 3, "type": "orchestrator_decision", "agent": "boss",
         "decision": "stop"}],
        "edges": [{"src": "h0", "dst": "d1", "type": "message"},
                  {"src": "d1", "dst": "w1", "type": "message"},
                  {"src": "w1", "dst": "d2", "type": "message"}]}
    graph = agent_graph.build(Facts(replayed(trace)))
    links = {(link.source, link.target): link for link in graph.links}
    assert links[("boss", "worker")].kinds == Counter({agent_graph.DELEGATION: 1})
    assert links[("boss", "worker")].tokens == 10
    assert links[("worker", "boss")].kinds == Counter({agent_graph.MESSAGE: 1})
    assert all(link.critical for link in graph.links)
    assert [n.column for n in graph.nodes] == [0, 1, 2]  # human, boss, worker
    assert agent_graph.link_label(links[("boss", "worker")]) == "1 delegation"


def test_the_drawing_is_svg_with_every_name_as_escaped_text():
    found = hostile_replay()
    graph = agent_graph.build(Facts(found))
    description = agent_graph.describe(graph)
    drawn = agent_graph.svg(graph, description)
    assert drawn.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and drawn.endswith("</svg>")
    assert "<img" not in drawn and "&lt;img" in drawn
    assert "<script" not in drawn and "href" not in drawn.replace('marker-end="url(#', "")
    assert HOSTILE in description
    assert drawn == agent_graph.svg(agent_graph.build(Facts(hostile_replay())), description)
    # every box's lines are inside the picture
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', drawn).group(1))
    xs = [float(x) for x in re.findall(r'<rect x="([\d.]+)"', drawn)]
    assert max(xs) + agent_graph.NODE_WIDTH <= width


def test_a_long_name_wraps_instead_of_being_cut():
    name = "an_agent_with_a_name_far_longer_than_any_box_is_wide"
    trace = json.loads((EXAMPLES / "debate.json").read_text(encoding="utf-8").replace(
        '"debater_1"', json.dumps(name)))
    graph = agent_graph.build(Facts(replayed(trace)))
    node = next(n for n in graph.nodes if n.name == name)
    lines = [line for line, bold in agent_graph.node_lines(node) if bold]
    assert "".join(lines) == name and len(lines) > 1
    assert all(len(line) <= agent_graph.NAME_CHARS for line in lines)


def test_a_phone_gets_the_graph_from_top_to_bottom_two_boxes_a_row():
    graph = graph_of("hierarchical")
    description = agent_graph.describe(graph)
    across = agent_graph.svg(graph, description)
    down = agent_graph.svg(graph, description, down=True)

    def size(drawn: str) -> tuple[float, float]:
        width, height = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', drawn).groups()
        return float(width), float(height)

    assert size(down)[0] == 2 * agent_graph.MARGIN + 2 * agent_graph.NODE_WIDTH \
        + agent_graph.SIBLING_GAP  # four analysts wrap into rows of two
    assert size(down)[0] < size(across)[0] and size(down)[1] > size(across)[1]
    rows = Counter(float(y) for y in re.findall(r'<rect x="[\d.]+" y="([\d.]+)"', down))
    assert max(rows.values()) == agent_graph.MAX_ACROSS
    assert sum(rows.values()) == len(graph.nodes)
    assert 'id="masrl-arrow-down-0"' in down and 'id="masrl-arrow-across-0"' in across
