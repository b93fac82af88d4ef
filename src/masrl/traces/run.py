"""Reconstruct the run a validated trace records: its timeline, its agents and their lives
(the input of :mod:`masrl.traces.metrics` and :mod:`masrl.traces.credit`).

Definitions (quoted by the book):

* The *timeline* is the events ordered by start time ``t``; simultaneous events come in the
  order of the edges between them, otherwise in file order.
* Every agent that is never spawned is a *root* at depth 0; an agent spawned by an agent of
  depth d has depth d + 1 (see :mod:`masrl.traces.lifecycle` for spawn and end).
* An agent's *role* is the ``role`` given on the event that spawns it, else the first ``role``
  recorded on one of its own events (in timeline order), else ``None``.
* A spawned agent is *alive* from the start of its spawn event to the start of the event that
  ends it, both included, or to the end of the trace when nothing ends it.
* A trace whose events carry no usable clock (:mod:`masrl.traces.recorded`: every event starts
  at the same time and none records an end) is replayed in *step order*: each event's start and
  end become its position in the timeline (0, 1, 2...), so that the run is ordered and drawn by
  step, and ``clock`` is ``"steps"``; the figures measured in seconds are then not recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from masrl.traces import recorded
from masrl.traces.validate import Trace


@dataclass
class AgentLife:
    """One agent of the run."""

    name: str
    parent: str | None  # the spawner; None for a root
    depth: int
    role: str | None
    spawn_event: str | None  # event id
    spawned_at: float | None
    ended_at: float | None  # start of the first return/despawn; None if never ended
    children: list[str] = field(default_factory=list)


@dataclass
class Run:
    """A validated trace, reconstructed."""

    trace: Trace
    timeline: np.ndarray  # event positions in start-time order (a topological order)
    agents: dict[str, AgentLife]  # in order of first appearance (spawned-only agents last)
    trace_end: float  # the latest end time of any event
    recorded: recorded.Facts  # what the trace records (its clock among them)
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    def remembered(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` the first time ``key`` is asked for, its result afterwards: figures
        that several metrics, credit units and tables share are computed once per run. Arrays
        come back read-only, so that no caller can change what the next one reads."""
        if key not in self._memo:
            value = compute()
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            self._memo[key] = value
        return self._memo[key]

    @property
    def roots(self) -> list[AgentLife]:
        return [a for a in self.agents.values() if a.parent is None]

    def subtree(self, name: str) -> list[str]:
        """``name`` and every agent it spawned, directly or not, depth first."""
        names, stack = [], [name]
        while stack:
            current = stack.pop()
            names.append(current)
            stack.extend(reversed(self.agents[current].children))
        return names


def reconstruct(trace: Trace) -> Run:
    """The run of a validated trace (validation has ruled out cycles of edges and of spawns).
    A trace without a usable clock is reconstructed on a copy whose times are its steps."""
    found = recorded.facts(trace)
    if found.clock == recorded.STEPS:
        trace = in_steps(trace)
    events = trace.events
    timeline = trace.order
    names = list(dict.fromkeys([*events.agent_names, *trace.life.spawn_event]))
    roles = _roles(trace, timeline)
    agents = {name: _life(trace, name, roles.get(name)) for name in names}
    for spawner, children in trace.life.children().items():
        agents[spawner].children = children
    _set_depths(agents)
    trace_end = float(events.end.max())
    return Run(trace, timeline, agents, trace_end, found)


def in_steps(trace: Trace) -> Trace:
    """A copy of ``trace`` in which each event starts and ends at its step: its position in the
    timeline (a topological order, so every edge still runs forward in time)."""
    steps = np.empty(trace.events.count, dtype=np.float64)
    steps[trace.order] = np.arange(trace.events.count, dtype=np.float64)
    steps.flags.writeable = False
    return replace(trace, events=replace(trace.events, start=steps, end=steps))


def _life(trace: Trace, name: str, role: str | None) -> AgentLife:
    life, events = trace.life, trace.events
    spawn, end = life.spawn_event.get(name), life.end_event.get(name)
    return AgentLife(
        name=name,
        parent=life.spawner.get(name),
        depth=0,
        role=role,
        spawn_event=None if spawn is None else events.ids[spawn],
        spawned_at=None if spawn is None else float(events.start[spawn]),
        ended_at=None if end is None else float(events.start[end]),
    )


def _roles(trace: Trace, timeline: np.ndarray) -> dict[str, str]:
    """Agent -> role: from its spawn event, else from the first of its events that has one."""
    events = trace.events
    role_codes, names = trace.event_records.codes("role")  # the roles as codes: no list of
    # a million strings
    has_role = role_codes != (names.index(None) if None in names else -1)
    has_role[events.of_type("spawn")] = False  # a spawn's role is the spawned agent's
    candidates = timeline[has_role[timeline]]
    codes, first = np.unique(events.agent_codes[candidates], return_index=True)
    roles = {events.agent_names[c]: names[role_codes[i]]
             for c, i in zip(codes.tolist(), candidates[first].tolist())}
    for name, i in trace.life.spawn_event.items():
        if names[role_codes[i]] is not None:
            roles[name] = names[role_codes[i]]
    return roles


def _set_depths(agents: dict[str, AgentLife]) -> None:
    stack = [a for a in agents.values() if a.parent is None]
    while stack:
        agent = stack.pop()
        for child in agent.children:
            agents[child].depth = agent.depth + 1
            stack.append(agents[child])
