"""Who spawned whom, and when each spawned agent's life ends.

Definitions (quoted by the book):

* A ``spawn`` event is made by its ``agent`` (the *spawner*) and creates the agent named in its
  ``to`` field; a spawn without ``to`` creates nobody we can name and is ignored. When an agent is
  spawned more than once, its first spawn (earliest ``t``, then file order) counts.
* A spawned agent *ends* at the first event, at or after its spawn, that is a ``return`` made by
  that agent or a ``despawn`` of it (``despawn`` names the ended agent in ``to``; without ``to``
  the acting agent despawns itself). An agent that never ends lives to the end of the trace.
* Agents never spawned are *roots* (the orchestrator, a human, tools that answer tool calls).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from masrl.traces.graph import EVENT_TYPES, EventColumns, Records, as_records
from masrl.traces.rules import LIFECYCLE_TYPES


@dataclass
class Lifecycle:
    """Spawn and end of every spawned agent, as event positions."""

    spawn_event: dict[str, int] = field(default_factory=dict)  # agent -> its (first) spawn
    spawner: dict[str, str] = field(default_factory=dict)  # agent -> agent that spawned it
    end_event: dict[str, int] = field(default_factory=dict)  # agent -> first return/despawn

    def children(self) -> dict[str, list[str]]:
        """Spawner -> agents it spawned, each list in order of spawn."""
        tree: dict[str, list[str]] = {}
        for agent in sorted(self.spawn_event, key=self.spawn_event.get):
            tree.setdefault(self.spawner[agent], []).append(agent)
        return tree


def lifecycle(events: list[dict] | Records, columns: EventColumns) -> Lifecycle:
    """Spawns and ends of a schema-valid trace, scanning only its lifecycle events."""
    events = as_records(events)
    positions = columns.of_type(*LIFECYCLE_TYPES)
    positions = positions[np.argsort(columns.start[positions], kind="stable")].tolist()
    moves = [(i, EVENT_TYPES[columns.types[i]], columns.agent(i), events.value(i, "to"))
             for i in positions]
    life = Lifecycle()
    for i, kind, agent, to in moves:
        if kind == "spawn" and to is not None and to not in life.spawn_event:
            life.spawn_event[to] = i
            life.spawner[to] = agent
    for i, kind, agent, to in moves:
        ended = _ended(kind, agent, to)
        if (ended in life.spawn_event and ended not in life.end_event
                and columns.start[i] >= columns.start[life.spawn_event[ended]]):
            life.end_event[ended] = i
    return life


def ended_agent(event: dict) -> str | None:
    """The agent whose life a return or despawn event ends, else ``None``."""
    return _ended(event["type"], event["agent"], event.get("to"))


def _ended(kind: str, agent: str, to: str | None) -> str | None:
    if kind == "return":
        return agent
    if kind == "despawn":
        return agent if to is None else to
    return None


def spawn_times(life: Lifecycle, columns: EventColumns) -> np.ndarray:
    """Per agent code, the start time of its spawn; minus infinity for roots."""
    times = np.full(len(columns.agent_names), -np.inf)
    code = {name: k for k, name in enumerate(columns.agent_names)}
    for agent, i in life.spawn_event.items():
        if agent in code:
            times[code[agent]] = columns.start[i]
    return times
