"""Which events of a run reach its outcome: the *consumed* events, read from the edges alone.

Definitions (quoted by the book):

* The *outcome events* of a run are the events at which its result is settled: every
  ``orchestrator_decision`` event whose ``decision`` is ``stop``; when the trace records no stop,
  every ``aggregate`` event that no edge leaves (a final aggregate); when it has neither, the last
  event of the timeline (:mod:`.run`).
* An event is *consumed* when a path of edges (of any type, possibly of length zero) leads from
  it to an outcome event: something that settled the result depended on it, directly or not.
  An outcome event is consumed by itself. A message that no later event depends on, or whose
  dependants lead nowhere near the outcome, is not consumed.
* An item of a credit unit (an agent, a turn, a message...) is consumed when at least one of its
  events is.

Edges are dependencies (:mod:`.graph`), so an event that no path leads from cannot have changed
the outcome *as the trace records it*: counterfactual credit gives it zero by construction
(:mod:`.credit`). The cost is one pass over the edges in reverse timeline order.
"""

from __future__ import annotations

import numpy as np

from masrl.traces.run import Run

STOP = "stop"


def outcome_events(run: Run) -> np.ndarray:
    """Positions of the outcome events (module docstring), in file order."""
    return run.remembered("outcome events", lambda: _outcome_events(run))


def _outcome_events(run: Run) -> np.ndarray:
    trace = run.trace
    events = trace.events
    decisions = events.of_type("orchestrator_decision")
    stops = [i for i in decisions.tolist()
             if trace.event_records.value(i, "decision") == STOP]
    if stops:
        return np.array(stops, dtype=np.int64)
    aggregates = events.of_type("aggregate")
    if len(aggregates):
        edges = trace.edges
        leaves = np.zeros(events.count, dtype=bool)
        known = edges.known()
        leaves[aggregates] = True
        leaves[edges.src[known]] = False
        final = np.flatnonzero(leaves)
        if len(final):
            return final
    return np.array([int(run.timeline[-1])], dtype=np.int64)


def consumed(run: Run) -> np.ndarray:
    """Per event, whether it is consumed (module docstring); computed once per run, read-only."""
    return run.remembered("consumed", lambda: _consumed(run))


def _consumed(run: Run) -> np.ndarray:
    events, edges = run.trace.events, run.trace.edges
    reach = np.zeros(events.count, dtype=bool)
    reach[outcome_events(run)] = True
    known = edges.known()
    src, dst = edges.src[known], edges.dst[known]
    position = np.empty(events.count, dtype=np.int64)
    position[run.timeline] = np.arange(events.count)
    # Edges by their source's place in the timeline, latest first: when an edge is read, every
    # edge out of its destination (which comes later) has been read already.
    order = np.argsort(-position[src], kind="stable")
    flags = reach.tolist()
    for s, d in zip(src[order].tolist(), dst[order].tolist()):
        if flags[d]:
            flags[s] = True
    return np.array(flags, dtype=bool)


def consumed_items(run: Run, of: np.ndarray, count: int) -> np.ndarray:
    """Per item of a unit (``of``: each event's item, -1 outside it), whether it is consumed."""
    hits = np.zeros(count, dtype=bool)  # flags set by index: no float weights to sum
    hits[of[consumed(run) & (of >= 0)]] = True
    return hits


def descendants(run: Run, tracked: np.ndarray) -> list[int]:
    """Per event, the set of ``tracked`` events (a boolean mask) reachable from it by a path of
    edges, itself included, as a Python integer whose bit k stands for the k-th tracked event.
    One pass over the edges, as :func:`consumed`; memory grows with events x tracked events."""
    events, edges = run.trace.events, run.trace.edges
    bit = np.zeros(events.count, dtype=np.int64)
    bit[tracked] = np.arange(int(tracked.sum()))
    sets = [1 << int(bit[i]) if tracked[i] else 0 for i in range(events.count)]
    known = edges.known()
    src, dst = edges.src[known], edges.dst[known]
    position = np.empty(events.count, dtype=np.int64)
    position[run.timeline] = np.arange(events.count)
    order = np.argsort(-position[src], kind="stable")
    for s, d in zip(src[order].tolist(), dst[order].tolist()):
        sets[s] |= sets[d]
    return sets

