"""The run level of an ATIF import: the trace's document (ids, system, costs; masrl's own
export keeps its run fields) and what the provenance says was recognised."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from atif import Trajectory

from masrl.traces.importers._kit.accounting import Account
from masrl.traces.importers._kit.common import TraceBuilder, latest_end
from masrl.traces.importers.sessions.atif.emission import masrl_block
from masrl.traces.importers.sessions.atif.trajectories import MISSING_FEATURE, schema_version
from masrl.wording import count

COUNTED = {  # a feature whose count is not of the thing it names: what is counted
    "terminal commands read from a raw response": (
        "step with terminal commands read from a raw response",
        "steps with terminal commands read from a raw response"),
    MISSING_FEATURE: (MISSING_FEATURE, "sub-agents whose trajectory files are missing (their "
                                       "spawns and returns only)")}


def recognise(root: Trajectory, features: Counter) -> dict:
    """The ATIF version, the shapes the run uses and the evidence, for the provenance."""
    version = root.schema_version.removeprefix("ATIF-")
    known = schema_version({"schema_version": root.schema_version})
    shapes = sorted(features) or ["single trajectory"]
    evidence = [f"agent {root.agent.name} {root.agent.version}"]
    evidence += [count(n, *COUNTED.get(what, (what,))) for what, n in sorted(features.items())]
    if known is None or not (1, 0) <= known <= (1, 8):
        evidence.append("a schema_version this importer was not written for (read as v1.8)")
    return {"system": "ATIF", "version": version, "shape": ", ".join(shapes),
            "evidence": "; ".join(evidence)}


def document(build: TraceBuilder, root: Trajectory, path: Path, segments: list,
             features: Counter, account: Account) -> dict:
    """The trace of the run, in the schema's key order (the ``x_call`` marks dropped)."""
    for event in build.events:
        event.pop("x_call", None)
    run = masrl_block(root.extra) or {}
    if run.get("trace_id"):
        costs = run.get("costs") if isinstance(run.get("costs"), dict) else None
        return build.document(
            trace_id=run["trace_id"], task_id=run.get("task_id") or run["trace_id"],
            system=run.get("system"), topology=run.get("topology") or "unknown",
            rewards=run.get("rewards") or {},
            costs=costs or run_costs(build, segments, features, account))
    name = root.trajectory_id or root.session_id or path.stem
    return build.document(
        trace_id=f"atif:{name}", task_id=root.session_id or name,
        system=f"{root.agent.name} {root.agent.version}", topology="unknown", rewards={},
        costs=run_costs(build, segments, features, account))


def run_costs(build: TraceBuilder, segments: list, features: Counter,
              account: Account) -> dict:
    """Tokens and dollars the events carry; a run whose steps state no cost takes its last
    segment's ``final_metrics.total_cost_usd`` (Harbor writes it cumulative over the run),
    unless the file is itself a continuation (its copied steps say so): its total would
    charge it the earlier segments' cost too (counted instead)."""
    events = build.events
    costs = {"tokens": sum(e.get("tokens", 0) for e in events),
             "wall_clock_s": latest_end(events),
             "tool_calls": build.count("tool_call"),
             "messages": build.count("message")}
    step_costs = [e["cost_usd"] for e in events if "cost_usd" in e]
    final = segments[-1][0].final_metrics
    alone = features["copied-context step"] and len(segments) == 1
    if step_costs:
        costs["usd"] = sum(step_costs)
    elif final is not None and final.total_cost_usd is not None:
        if alone:
            account.skip_part("final_metrics.total_cost_usd of a continuation segment "
                                   "(cumulative over the earlier segments; not charged)")
        else:
            costs["usd"] = final.total_cost_usd
    stated = account.source_usage
    if (final is not None and not alone
            and not any(stated[k] for k in ("tokens_in", "tokens_out", "cost_usd"))):
        # no step states any usage: the run's totals are the only usage the source states
        totals = {"tokens_in": final.total_prompt_tokens or 0,
                  "tokens_out": final.total_completion_tokens or 0,
                  "cost_usd": final.total_cost_usd or 0}
        if any(totals.values()):
            account.state_usage(**totals)
            account.skip_part("final_metrics totals of a run whose steps state no "
                                   "usage (no model call carries them)", usage=totals)
            if totals["tokens_in"] or totals["tokens_out"]:
                costs["tokens"] = totals["tokens_in"] + totals["tokens_out"]
    return costs
