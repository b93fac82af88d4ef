"""Hostile trace documents built by code, shared by the tests of every wing (importable by
name: ``tests/`` is on pytest's path): deep spawn chains, spawn loops, many counterfactual
players."""

from __future__ import annotations

from itertools import combinations


def spawn_chain(depth: int, returns: bool = True) -> dict:
    """A valid trace where agent a0 spawns a1, which spawns a2... ``depth`` deep; with
    ``returns`` every agent returns to its spawner, deepest first, with a few tokens each."""
    events = [{"id": "d0", "t": 0, "type": "orchestrator_decision", "agent": "a0",
               "decision": "spawn", "tokens": 1}]
    edges = []
    for k in range(depth):
        events.append({"id": f"s{k}", "t": k + 1, "type": "spawn", "agent": f"a{k}",
                       "to": f"a{k + 1}", "role": "worker", "tokens": 2, "cost_usd": 0.5})
        edges.append({"src": "d0" if k == 0 else f"s{k - 1}", "dst": f"s{k}", "type": "spawn"})
    if returns:
        for k in range(depth, 0, -1):
            events.append({"id": f"r{k}", "t": 2 * depth + 1 - k, "type": "return",
                           "agent": f"a{k}", "to": f"a{k - 1}", "tokens": 3})
            edges.append({"src": f"s{depth - 1}" if k == depth else f"r{k + 1}", "dst": f"r{k}",
                          "type": "return"})
    return {"schema_version": "1.0", "trace_id": f"chain-{depth}", "task_id": "deep",
            "topology": "hierarchical", "events": events, "edges": edges,
            "rewards": {"team": 1.0},
            "costs": {"tokens": sum(e["tokens"] for e in events), "wall_clock_s": 2 * depth}}


def spawn_loop(size: int) -> dict:
    """A trace whose ``size`` agents spawn each other in one loop (a0 -> a1 -> ... -> a0)."""
    document = spawn_chain(size - 1, returns=False)
    document["events"].append({"id": "back", "t": size + 1, "type": "spawn",
                               "agent": f"a{size - 1}", "to": "a0"})
    return document


def with_players(document: dict, count: int, weights: list[float] | None = None) -> dict:
    """``document`` with ``count`` counterfactual players; with ``weights``, every coalition's
    outcome of the game v(S) = (sum of its weights)^2 (exact Shapley value: w_i x W), else the
    outcome of one coalition only."""
    players = [f"p{k}" for k in range(count)]
    if weights is None:
        outcomes = [{"coalition": players[:1], "reward": 0.5}]
    else:
        outcomes = [{"coalition": list(c), "reward": sum(weights[int(p[1:])] for p in c) ** 2}
                    for size in range(count + 1) for c in combinations(players, size)]
    return {**document, "counterfactuals": {"unit": "agent", "players": players,
                                            "outcomes": outcomes}}
