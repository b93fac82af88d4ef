"""Two replayed runs of one task side by side: what changed in their figures, their agents,
their tool calls, their critical paths and their credit, and where their steps part.

Events are aligned *by agent and step order*: each agent's events, in the run's order, are
reduced to signatures (event type, and the tool of a tool call or result), and the two
sequences of an agent are matched with :class:`difflib.SequenceMatcher` (a longest common
subsequence): a step is the same in both runs, changed (the k-th step differs), or found in one
run only. The whole runs are matched the same way, agent included in each signature, to find
the first step where they part.

A figure either run cannot support is ``None`` in that run, with its reason under
``not_recorded`` (the contract "unknown is not zero"): the caller passes each run's reasons
(``Replay.to_dict()["not_recorded"]`` when the replay carries them), and a change is computed
only between two known figures.
"""

from __future__ import annotations

import difflib
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from masrl.traces import credit, metrics
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.replay import Replay
from masrl.traces.run import Run

FIGURES = (  # dotted keys of Replay.to_dict() compared side by side, in reading order
    "events", "edges", "tool_calls", "messages", "critical_steps", "parallelism",
    "spawn_depth", "max_concurrency", "wall_clock", "speedup", "tokens.total",
    "cost_usd.total", "cost_usd_estimated.total", "credit.team_reward",
)
SAME, CHANGED, ONLY_A, ONLY_B = "same", "changed", "only in A", "only in B"
TOOL_TYPES = ("tool_call", "tool_result")


def dotted(values: Mapping, key: str) -> Any:
    """The value at a dotted key (``None`` when any part is missing)."""
    found: Any = values
    for part in key.split("."):
        if not isinstance(found, Mapping) or part not in found:
            return None
        found = found[part]
    return found


def unknown(reasons: Mapping[str, str], key: str) -> str | None:
    """The reason a figure is not recorded: its own, or that of a figure it is part of."""
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in reasons:
            return reasons[".".join(parts[:end])]
    return None


def figures(a: dict, b: dict, reasons_a: Mapping[str, str],
            reasons_b: Mapping[str, str]) -> dict[str, dict]:
    """Per figure of :data:`FIGURES`: its value in each run (``None`` when not recorded), the
    change from A to B (``None`` unless both are numbers), and why a value is missing."""
    found = {}
    for key in FIGURES:
        values = []
        why = {}
        for side, data, reasons in (("a", a, reasons_a), ("b", b, reasons_b)):
            reason = unknown(reasons, key)
            value = None if reason else dotted(data, key)
            if isinstance(value, float) and not math.isfinite(value):
                value = None
            values.append(value)
            if value is None:
                why[side] = reason or "not in the replay"
        row = {"a": values[0], "b": values[1],
               "change": (values[1] - values[0]
                          if all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                 for v in values) else None)}
        if why:
            row["not_recorded"] = why
        found[key] = row
    return found


def signature(run: Run, i: int, with_agent: bool = False) -> str:
    """What an event is, for alignment: its type, with the tool of a tool call or result (and,
    with ``with_agent``, who acts)."""
    events = run.trace.events
    kind = EVENT_TYPES[events.types[i]]
    tool = run.trace.event_records.value(i, "tool") if kind in TOOL_TYPES else None
    text = f"{kind}:{tool}" if tool else kind
    return f"{events.agent(i)} {text}" if with_agent else text


def _event(run: Run, i: int | None, step: int | None) -> dict | None:
    if i is None:
        return None
    events = run.trace.events
    kind = EVENT_TYPES[events.types[i]]
    found = {"event": events.ids[i], "step": step, "type": kind}
    tool = run.trace.event_records.value(i, "tool") if kind in TOOL_TYPES else None
    if tool:
        found["tool"] = tool
    return found


def _matched(left: list[str], right: list[str]) -> list[tuple[str, int | None, int | None]]:
    """``(status, position in left, position in right)`` for every step of two sequences,
    matched as :class:`difflib.SequenceMatcher` matches them (a replaced block is paired
    step by step, its excess kept in one run only)."""
    rows: list[tuple[str, int | None, int | None]] = []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            rows.extend((SAME, a0 + k, b0 + k) for k in range(a1 - a0))
            continue
        paired = min(a1 - a0, b1 - b0) if op == "replace" else 0
        rows.extend((CHANGED, a0 + k, b0 + k) for k in range(paired))
        rows.extend((ONLY_A, k, None) for k in range(a0 + paired, a1))
        rows.extend((ONLY_B, None, k) for k in range(b0 + paired, b1))
    return rows


def _by_agent(run: Run) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    events = run.trace.events
    for i in run.timeline.tolist():
        found.setdefault(events.agent(i), []).append(i)
    return found


def alignment(a: Run, b: Run) -> list[dict]:
    """Every agent's steps in both runs, matched (see the module docstring): agent, status,
    and the event of each run (id, its step in the agent's order from 1, type, tool)."""
    left, right = _by_agent(a), _by_agent(b)
    rows = []
    for agent in [*left, *(name for name in right if name not in left)]:
        mine, theirs = left.get(agent, []), right.get(agent, [])
        signatures = ([signature(a, i) for i in mine], [signature(b, i) for i in theirs])
        for status, p, q in _matched(*signatures):
            rows.append({"agent": agent, "status": status,
                         "a": _event(a, None if p is None else mine[p],
                                     None if p is None else p + 1),
                         "b": _event(b, None if q is None else theirs[q],
                                     None if q is None else q + 1)})
    return rows


def first_divergence(a: Run, b: Run) -> dict | None:
    """The first step of the whole runs (in each run's order) where they part, with the
    agent and event of each run there and how many steps they shared before it (``None`` when
    the runs take the same steps)."""
    left = [signature(a, i, True) for i in a.timeline.tolist()]
    right = [signature(b, i, True) for i in b.timeline.tolist()]
    for shared, (status, p, q) in enumerate(_matched(left, right)):
        if status == SAME:
            continue
        found: dict = {"status": status, "same_steps_before": shared}
        for side, run, k in (("a", a, p), ("b", b, q)):
            i = None if k is None else int(run.timeline[k])
            found[side] = None if i is None else {**_event(run, i, k + 1),
                                                  "agent": run.trace.events.agent(i)}
        return found
    return None


def _agent_figures(replay: Replay, reasons: Mapping[str, str]) -> dict[str, dict]:
    run = replay.run
    events = run.trace.events
    counts = Counter(events.agent(i) for i in range(events.count))
    calls = Counter(events.agent(i) for i in events.of_type("tool_call").tolist())
    tokens = replay.metrics["tokens"]["per_agent"]
    costs = replay.metrics["cost_usd"]["per_agent"]
    no_tokens = unknown(reasons, "tokens.total") is not None
    no_cost = unknown(reasons, "cost_usd.total") is not None
    acting = credit.acting(run)
    names = [name for k, name in enumerate(events.agent_names) if acting[k]]
    return {name: {"events": counts.get(name, 0), "tool_calls": calls.get(name, 0),
                   "tokens": None if no_tokens else tokens.get(name),
                   "cost_usd": None if no_cost else costs.get(name)} for name in names}


def agents(a: Replay, b: Replay, reasons_a: Mapping[str, str],
           reasons_b: Mapping[str, str]) -> dict:
    """The acting agents (tools that only answer calls left out) of each run: those in one run
    only, and per agent its events, tool calls, tokens and dollars in each (``None`` where
    the run does not have it or does not record it)."""
    left, right = _agent_figures(a, reasons_a), _agent_figures(b, reasons_b)
    every = [*left, *(name for name in right if name not in left)]
    return {
        "only_a": [name for name in left if name not in right],
        "only_b": [name for name in right if name not in left],
        "per_agent": {name: {key: [(left.get(name) or {}).get(key),
                                   (right.get(name) or {}).get(key)]
                             for key in ("events", "tool_calls", "tokens", "cost_usd")}
                      for name in every},
    }


def tools(a: Run, b: Run) -> dict[str, list[int]]:
    """Tool -> its calls in each run (tools named by their calls' ``tool`` field)."""
    def calls(run: Run) -> Counter:
        found: Counter = Counter()
        for i in run.trace.events.of_type("tool_call").tolist():
            found[run.trace.event_records.value(i, "tool") or "(unnamed)"] += 1
        return found

    left, right = calls(a), calls(b)
    return {tool: [left.get(tool, 0), right.get(tool, 0)]
            for tool in sorted(set(left) | set(right))}


def path_runs(run: Run) -> list[dict]:
    """A critical path folded into runs of consecutive steps by one agent: agent, steps."""
    found: list[dict] = []
    events = run.trace.events
    for i in metrics.critical_path(run):
        agent = events.agent(i)
        if found and found[-1]["agent"] == agent:
            found[-1]["steps"] += 1
        else:
            found.append({"agent": agent, "steps": 1})
    return found


def critical_paths(a: Run, b: Run) -> dict:
    """Each run's critical path folded by agent, and how far the two agree from the start
    (the number of leading steps whose agent and event type are the same)."""
    left = [signature(a, i, True) for i in metrics.critical_path(a)]
    right = [signature(b, i, True) for i in metrics.critical_path(b)]
    common = 0
    for x, y in zip(left, right):
        if x != y:
            break
        common += 1
    return {"a": path_runs(a), "b": path_runs(b), "same_first_steps": common}


def credit_split(a: Replay, b: Replay) -> dict:
    """Per agent, its credit in each run: the Shapley value where counterfactual credit is at
    the agent unit, else the recorded rewards when any event records one, else the equal split
    of the team reward, else ``None``; with the rule each run's figures come from."""
    def split(replay: Replay) -> tuple[str | None, dict[str, float]]:
        found = replay.credit.get("counterfactual")
        if found and found.get("unit") == "agent" and found.get("shapley"):
            return "shapley", dict(found["shapley"])
        if bool((~np.isnan(replay.run.trace.recorded("reward"))).any()):
            return "recorded", credit.recorded(replay.run, "agent")
        shares = credit.equal(replay.run, "agent")
        return ("equal", shares) if shares is not None else (None, {})

    (rule_a, left), (rule_b, right) = split(a), split(b)
    every = [*left, *(name for name in right if name not in left)]
    return {"rule": {"a": rule_a, "b": rule_b},
            "per_agent": {name: [left.get(name), right.get(name)] for name in every}}


def compare(a: Replay, b: Replay, *, reasons_a: Mapping[str, str] | None = None,
            reasons_b: Mapping[str, str] | None = None) -> dict:
    """Everything :mod:`masrl.traces.diff` compares, JSON-ready: ``runs`` (ids and task of
    each), ``same_task``, ``figures``, ``agents``, ``tools``, ``critical_path``, ``credit``,
    ``first_divergence`` and ``alignment``."""
    data_a, data_b = a.to_dict(), b.to_dict()
    reasons_a = dict(data_a.get("not_recorded") or {}) if reasons_a is None else dict(reasons_a)
    reasons_b = dict(data_b.get("not_recorded") or {}) if reasons_b is None else dict(reasons_b)
    tasks = (data_a.get("task_id"), data_b.get("task_id"))
    return {
        "runs": {side: {"trace_id": data.get("trace_id"), "task_id": data.get("task_id"),
                        "not_recorded": dict(sorted(reasons.items()))}
                 for side, data, reasons in (("a", data_a, reasons_a), ("b", data_b, reasons_b))},
        "same_task": None if None in tasks else tasks[0] == tasks[1],
        "figures": figures(data_a, data_b, reasons_a, reasons_b),
        "agents": agents(a, b, reasons_a, reasons_b),
        "tools": tools(a.run, b.run),
        "critical_path": critical_paths(a.run, b.run),
        "credit": credit_split(a, b),
        "first_divergence": first_divergence(a.run, b.run),
        "alignment": alignment(a.run, b.run),
    }
