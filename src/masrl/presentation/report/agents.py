"""The agents of a reconstructed run as the report and the book list them: which are agents
and which are tools, and in what order they are shown (depth first down the spawn tree)."""

from __future__ import annotations

from masrl.traces import credit
from masrl.traces.run import Run

SPAWNED, ROOT, TOOL = "spawned", "root", "tool"


def agent_kinds(run: Run) -> dict[str, str]:
    """Agent -> ``spawned``, ``root`` (never spawned, acts) or ``tool`` (never spawned and only
    answers tool calls: the environment, which credit leaves out)."""
    acts = dict(zip(run.trace.events.agent_names, credit.acting(run).tolist()))
    return {name: SPAWNED if agent.parent is not None
            else ROOT if acts.get(name, True) else TOOL
            for name, agent in run.agents.items()}


def agent_order(run: Run) -> list[str]:
    """Agents depth first down the spawn tree from each acting root, tools last."""
    kinds = agent_kinds(run)
    order = []
    for root in run.roots:
        if kinds[root.name] != TOOL:
            order.extend(run.subtree(root.name))
    return order + [name for name, kind in kinds.items() if kind == TOOL]
