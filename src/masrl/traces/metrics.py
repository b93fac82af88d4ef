r"""Metrics of a reconstructed run. Each function computes one quantity; :func:`compute` gathers
them under the key names of ``masrl replay --json``.

Definitions (quoted by the book):

* ``events``, ``edges``: how many; ``event_types``, ``edge_types``, ``edge_modes`` and
  ``decisions`` (the O1-O5 sub-decision of ``orchestrator_decision`` events): counts per value,
  every value of the schema listed, plus ``unspecified`` for optional fields left out.
* ``tool_calls``, ``messages``: the numbers of ``tool_call`` and ``message`` events.
* ``critical_steps``: the number of events on a longest path of the event graph, every edge
  being a dependency; an event without edges is a path of one. ``critical_path`` lists the ids.
  ``parallelism``, $\mathit{events} / \mathit{critical\_steps}$: how many events the run executes per step
  when every dependency chain runs as fast as it can (the "critical steps" idea of Kimi's PARL).
* ``spawn_depth``: the largest depth of a spawned agent (1 for agents spawned by a root, 0 when
  nothing is spawned); ``spawn_tree``: the roots with their spawned descendants.
* ``max_concurrency``: the largest number of spawned agents alive at the same instant (an agent is
  alive from its spawn to its first return or despawn, both included, else to the end).
* ``wall_clock``: latest event end minus earliest event start, in seconds (recomputed; the
  trace's own ``costs.wall_clock_s`` is not read).
* ``busy_time``: per agent, the total length of the union of its events' [start, end] intervals
  (instantaneous events add nothing; overlapping events of one agent are counted once).
* ``speedup``, $\sum_a \mathit{busy}_a / \mathit{wall\_clock}$: the sum of all agents' busy time
  over ``wall_clock``: how much faster the run was
  than the same work done by one agent at a time, assuming the work could be serialised without
  extra waiting. ``None`` when ``wall_clock`` or the busy time is 0.
* ``tokens`` and ``cost_usd``: the sum of the events' ``tokens`` / ``cost_usd`` fields, per agent
  (its own events) and per spawn subtree (an agent's own events plus those of every agent it
  spawned, directly or not; each event belongs to exactly one agent and each agent to one
  subtree per ancestor, so nothing is counted twice within an entry). ``recorded`` repeats the
  trace's ``costs`` total for comparison.

``masrl replay --json`` adds ``cost_usd_estimated``: what the model calls would have cost at a
price table's prices (:mod:`masrl.traces.cost_estimate`), kept apart from ``cost_usd``, which
holds only what the trace records.

Unknown is not zero (:mod:`masrl.traces.recorded`): a trace without a usable clock has no
``wall_clock``, ``busy_time`` or ``speedup`` (``None``; ``clock`` is ``"steps"``); a trace whose
events record no end or duration has no ``busy_time`` or ``speedup``; ``tokens`` and
``cost_usd`` are ``None`` (total, per agent, per subtree) when no event records the field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np

from masrl.traces import graph, recorded
from masrl.traces.run import Run
from masrl.traces.schema import schema_enum

UNSPECIFIED = "unspecified"


def compute(run: Run) -> dict:
    """Every metric of the run, keyed as in ``masrl replay --json``."""
    path = critical_path(run)
    types = run.trace.events.type_counts()
    edges = run.trace.edge_records
    found = run.recorded
    timed = found.clock == recorded.SECONDS
    wall = wall_clock(run) if timed else None
    busy = busy_time(run) if timed and found.durations else None
    return {
        "clock": found.clock,
        "events": run.trace.events.count,
        "edges": run.trace.edges.count,
        "event_types": types,
        "decisions": counts(_decisions(run), schema_enum("event", "decision")),
        "edge_types": counts(edges.counts("type"), schema_enum("edge", "type")),
        "edge_modes": counts(edges.counts("mode", UNSPECIFIED), schema_enum("edge", "mode")),
        "tool_calls": types["tool_call"],
        "messages": types["message"],
        "critical_steps": len(path),
        "critical_path": list(map(run.trace.events.ids.__getitem__, path)),
        "parallelism": run.trace.events.count / len(path),
        "spawn_depth": max((a.depth for a in run.agents.values()), default=0),
        "spawn_tree": spawn_tree(run),
        "max_concurrency": max_concurrency(run),
        "wall_clock": wall,
        "busy_time": busy,
        "speedup": None if busy is None or wall is None else speedup(busy, wall),
        "tokens": rollup(run, "tokens", found.tokens),
        "cost_usd": {**rollup(run, "cost_usd", found.costs),
                     "model_calls_without_cost": without_cost(run, found.costs)},
    }


def counts(values: Iterable[str] | Counter, known: list[str]) -> dict[str, int]:
    """Counts of ``values`` (or a ready Counter): every ``known`` value (zeros kept), then any
    other value seen."""
    seen = Counter(values)
    return {**{value: seen.get(value, 0) for value in known}, **seen}


def _decisions(run: Run) -> list[str]:
    records = run.trace.event_records
    return [records.value(i, "decision", UNSPECIFIED)
            for i in run.trace.events.of_type("orchestrator_decision").tolist()]


def critical_path(run: Run) -> list[int]:
    """Event positions along a longest dependency path (see the module docstring)."""
    edges = run.trace.edges
    return list(run.remembered("critical_path", lambda: tuple(
        graph.longest_path(run.trace.order, edges.src, edges.dst))))


def spawn_tree(run: Run) -> list[dict]:
    """Nested ``{"agent", "role", "spawn_event", "children"}`` from each root.

    Built without recursion (one node per agent, then the children linked in), so a chain of
    spawns thousands deep costs what a flat team of the same size costs.
    """
    nodes = {name: {"agent": name, "role": agent.role, "spawn_event": agent.spawn_event,
                    "children": []} for name, agent in run.agents.items()}
    for name, agent in run.agents.items():
        nodes[name]["children"] = [nodes[child] for child in agent.children]
    return [nodes[root.name] for root in run.roots]


def lifetimes(run: Run) -> list[tuple[str, float, float]]:
    """``(agent, from, to)`` for every spawned agent, as defined in :mod:`masrl.traces.run`."""
    return [(a.name, a.spawned_at, run.trace_end if a.ended_at is None else a.ended_at)
            for a in run.agents.values() if a.spawned_at is not None]


def max_concurrency(run: Run) -> int:
    """Largest number of spawned agents alive at one instant (intervals closed at both ends)."""
    spans = lifetimes(run)
    if not spans:
        return 0
    times = np.array([t for _, start, end in spans for t in (start, end)])
    steps = np.tile([1, -1], len(spans))
    order = np.lexsort((-steps, times))  # at equal times, arrivals before departures
    return int(np.cumsum(steps[order]).max())


def wall_clock(run: Run) -> float:
    """Latest event end minus earliest event start, in seconds."""
    events = run.trace.events
    return _seconds(events.end.max() - events.start.min())


def busy_time(run: Run) -> dict[str, float]:
    """Per agent, the length of the union of its events' intervals (see the module docstring).

    Vectorised: events are sorted by (agent, start) and each agent's times are shifted past the
    previous agent's, so one running maximum of end times merges the overlaps of every agent.
    When the shifted times would overflow a double (times near 1e308), the running maximum
    runs over the ranks of the end times instead, offset by agent: integers, which cannot.
    """
    events = run.trace.events
    base = events.start.min()
    width = events.end.max() - base + 1.0
    if np.isfinite(width * len(events.agent_names)):
        shift = width * events.agent_codes
        start, end = events.start - base + shift, events.end - base + shift
        order = np.lexsort((start, events.agent_codes))
        start, end = start[order], end[order]
        reach = np.maximum.accumulate(end)
        covered_from = np.maximum(start, np.concatenate([[-np.inf], reach[:-1]]))
        codes = events.agent_codes[order]
    else:
        codes, start, end, covered_from = _covered_from_ranks(events)
    added = np.clip(end - covered_from, 0.0, None)
    per_code = np.bincount(codes, weights=added, minlength=len(events.agent_names))
    return {name: _seconds(per_code[k]) for k, name in enumerate(events.agent_names)}


def _covered_from_ranks(events):
    """:func:`busy_time`'s running maximum over ranks: per event in (agent, start) order, its
    agent, start, end and the time from which it adds to the agent's union."""
    n = events.count
    order = np.lexsort((events.start, events.agent_codes))
    codes, start, end = events.agent_codes[order], events.start[order], events.end[order]
    by_end = np.argsort(end)
    rank = np.empty(n, dtype=np.int64)
    rank[by_end] = np.arange(n)
    offset = codes * n  # each agent's ranks above every rank of the agents before it
    reach = end[by_end][np.maximum.accumulate(rank + offset) - offset]
    previous = np.concatenate([[-np.inf], reach[:-1]])
    previous[graph.run_starts(codes)] = -np.inf  # an agent's first event
    return codes, start, end, np.maximum(start, previous)


def speedup(busy: dict[str, float], wall: float) -> float | None:
    """Total busy time over wall-clock time; ``None`` if either is 0 (no durations recorded)."""
    total = sum(busy.values())
    return total / wall if total > 0 and wall > 0 else None


def _seconds(value: float) -> float:
    """Round away the float noise of shifted arithmetic (to the microsecond)."""
    return round(float(value), 6)


def rollup(run: Run, key: str, present: bool = True) -> dict:
    """Totals of a numeric event field: overall, recorded, per agent and per spawn subtree;
    ``None`` for the sums when no event records the field (``present`` false). When some
    events record it, an agent none of whose events records it has ``None``, not 0 (a model
    that called a model without logging its usage did not spend nothing); a subtree adds up
    what its agents record, ``None`` when none of them records any."""
    recorded_total = (recorded.tokens_recorded_total(run.trace, run.recorded) if key == "tokens"
                      else run.trace.head["costs"].get("usd" if key == "cost_usd" else key))
    if not present:
        return {"total": None, "recorded": recorded_total, "per_agent": None,
                "per_subtree": None}
    events = run.trace.events
    values = run.trace.numeric(key)
    n = len(events.agent_names)
    per_code = np.bincount(events.agent_codes, weights=values, minlength=n)
    held = np.bincount(events.agent_codes, weights=~np.isnan(run.trace.recorded(key)),
                       minlength=n) > 0
    own = {name: float(per_code[k]) if held[k] else None
           for k, name in enumerate(events.agent_names)}
    own.update({name: None for name in run.agents if name not in own})
    return {
        "total": float(values.sum()),
        "recorded": recorded_total,
        "per_agent": own,
        "per_subtree": subtree_totals(run, own),
    }


def without_cost(run: Run, present: bool = True) -> int | None:
    """The model calls (events that record tokens) that record no cost of their own: the
    cost total adds up the others. ``None`` when no event records a cost (``present`` false)."""
    if not present:
        return None
    trace = run.trace
    return int(np.count_nonzero(~np.isnan(trace.recorded("tokens"))
                                & np.isnan(trace.recorded("cost_usd"))))


def subtree_totals(run: Run, own: dict[str, float | None]) -> dict[str, float | None]:
    """Per agent that spawned someone, its own value plus its spawned agents' subtree totals,
    the values that are ``None`` (not recorded) left out; ``None`` when every one is.

    One pass from the deepest agents up (each total is its own value plus its children's
    totals, in order of spawn), so the cost is linear in the agents however deep the tree.
    """
    totals = dict(own)
    for agent in sorted(run.agents.values(), key=lambda a: -a.depth):
        mine = own[agent.name]
        known = [totals[c] for c in agent.children if totals[c] is not None]
        totals[agent.name] = None if mine is None and not known else \
            (0.0 if mine is None else mine) + sum(known)
    return {name: totals[name] for name, agent in run.agents.items() if agent.children}
