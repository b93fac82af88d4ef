"""Synthetic traces, deterministic: the same arguments give the same trace, byte for byte.

``swarm_trace`` builds the trace of a swarm of given width and horizon in the shape of the minimal
schema; the scale chapter weighs it to say what a trace of an industrial envelope would weigh.
"""

from __future__ import annotations

import hashlib


def swarm_trace(agents: int, tool_calls: int) -> dict:
    """A swarm trace in the shape of the minimal schema: one orchestrator decision, ``agents``
    spawned sub-agents sharing ``tool_calls`` tool calls (each answered by a tool result, with
    content replaced by a sha256 reference), their returns, one aggregate and a stop decision.
    Deterministic: ids, times and hashes are derived from positions."""
    def ref(n: int) -> str:
        return "sha256:" + hashlib.sha256(str(n).encode()).hexdigest()

    events = [{"id": "d0", "t": 0.0, "type": "orchestrator_decision", "agent": "orchestrator",
               "role": "orchestrator", "decision": "spawn", "content_ref": ref(0)}]
    edges = []
    calls = [tool_calls // agents + (1 if k < tool_calls % agents else 0) for k in range(agents)]
    tick = 0
    for k, n_calls in enumerate(calls):
        name = f"sub_{k:04d}"
        spawn = f"s{k}"
        events.append({"id": spawn, "t": round(0.001 * k, 3), "type": "spawn",
                       "agent": "orchestrator", "to": name, "role": "worker"})
        edges.append({"src": "d0", "dst": spawn, "type": "spawn"})
        previous = spawn
        for c in range(n_calls):
            tick += 1
            call, result = f"c{k}_{c}", f"r{k}_{c}"
            events.append({"id": call, "t": round(1 + 0.5 * c, 3), "type": "tool_call",
                           "agent": name, "role": "worker", "tool": "search",
                           "content_ref": ref(2 * tick)})
            events.append({"id": result, "t": round(1.25 + 0.5 * c, 3), "type": "tool_result",
                           "agent": name, "tool": "search", "trusted": False,
                           "content_ref": ref(2 * tick + 1)})
            edges.append({"src": previous, "dst": call, "type": "causal"})
            edges.append({"src": call, "dst": result, "type": "tool_dependency"})
            previous = result
        ret = f"ret{k}"
        events.append({"id": ret, "t": round(1.5 + 0.5 * n_calls, 3), "type": "return",
                       "agent": name, "to": "orchestrator", "content_ref": ref(-k - 1)})
        edges.append({"src": previous, "dst": ret, "type": "causal"})
        edges.append({"src": ret, "dst": "agg", "type": "return"})
    end = round(2 + 0.5 * max(calls, default=0), 3)
    events.append({"id": "agg", "t": end, "type": "aggregate", "agent": "orchestrator"})
    events.append({"id": "stop", "t": end + 1, "type": "orchestrator_decision",
                   "agent": "orchestrator", "decision": "stop"})
    edges.append({"src": "agg", "dst": "stop", "type": "causal"})
    return {"trace_id": f"synthetic-{agents}x{tool_calls}", "task_id": "scale-estimate",
            "topology": "swarm", "events": events, "edges": edges, "rewards": {"team": 1.0},
            "costs": {"tokens": 0, "wall_clock_s": end + 1, "tool_calls": tool_calls}}
