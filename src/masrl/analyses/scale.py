"""The scale gap between deployments and training, from the envelopes (``data/envelopes.csv``).

* ``scale_gap``      -> orders of magnitude between the industrial and the academic envelopes.
* ``trace_estimate`` -> what an orchestration trace of a given size would weigh (events, edges,
  bytes), from :func:`masrl.traces.synthetic.swarm_trace` serialised; ``replay_check`` validates
  and replays that trace with :mod:`masrl.traces`.

Horizon units differ (tool calls for deployments, turns or rounds for training setups): the
comparison is a rough one, as it is in the survey, and says nothing about industrial training
traces themselves.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from masrl import traces
from masrl.traces.synthetic import spread, swarm_trace

# Horizon units compared in the scale gap: per-task tool calls of deployments against the
# interaction length of training setups. Sessions (a whole project) compare with neither.
INDUSTRIAL_HORIZON = ["tool_calls"]
ACADEMIC_HORIZON = ["turns", "rounds", "steps", "passes", "branches"]


def comparable_horizon(envelopes: pd.DataFrame) -> pd.Series:
    """Each row's horizon where its unit enters the comparison, else NaN."""
    units = envelopes["kind"].map({"industrial": INDUSTRIAL_HORIZON, "academic": ACADEMIC_HORIZON})
    keep = [unit in allowed for unit, allowed in zip(envelopes["horizon_unit"], units)]
    return envelopes["horizon"].where(keep)


def scale_gap(envelopes: pd.DataFrame) -> pd.DataFrame:
    """Width (agents per run) and horizon, industrial against academic: the largest and the
    median known value of each side, and the gap between them in orders of magnitude
    (log10 of the ratio, one decimal). Rows with the number unknown are left out, not guessed."""
    horizon = comparable_horizon(envelopes)
    rows = []
    for name, values in (("width (agents per run)", envelopes["agents"]),
                         ("horizon (tool calls against turns)", horizon)):
        side = {kind: values[envelopes["kind"] == kind].dropna()
                for kind in ("industrial", "academic")}
        row = {"dimension": name,
               "industrial rows": len(side["industrial"]), "academic rows": len(side["academic"])}
        for stat in ("max", "median"):
            ind, aca = getattr(side["industrial"], stat)(), getattr(side["academic"], stat)()
            row[f"industrial {stat}"] = ind
            row[f"academic {stat}"] = aca
            row[f"orders ({stat})"] = round(math.log10(ind / aca), 1)
        rows.append(row)
    return pd.DataFrame(rows).set_index("dimension")


def plotted(envelopes: pd.DataFrame) -> pd.DataFrame:
    """The rows with both agents and horizon known (the points of the scale chart), with a
    label naming the system and the horizon unit."""
    rows = envelopes.dropna(subset=["agents", "horizon"]).copy()
    rows["label"] = rows["system"] + " (" + rows["horizon_unit"].str.replace("_", " ") + ")"
    rows["source"] = rows["source_url"].str.split(" ; ").str[0]
    return rows.reset_index(drop=True)


def unplotted(envelopes: pd.DataFrame) -> pd.DataFrame:
    """Rows left off the chart, and which of the two numbers is unknown."""
    missing = envelopes[envelopes[["agents", "horizon"]].isna().any(axis=1)]
    return pd.DataFrame({
        "system": missing["system"], "kind": missing["kind"],
        "unknown": [", ".join(c for c in ("agents", "horizon") if pd.isna(r[c]))
                    for _, r in missing.iterrows()],
    }).reset_index(drop=True)


# --- how much a trace of that size would weigh ------------------------------------------------

def trace_estimate(agents: int, tool_calls: int) -> dict[str, int | float]:
    """Events, edges and bytes (compact JSON, UTF-8) of the swarm trace of ``agents`` sub-agents
    sharing ``tool_calls`` calls evenly (:func:`masrl.traces.synthetic.swarm_trace`)."""
    trace = swarm_trace(spread(tool_calls, agents))
    size = len(json.dumps(trace, separators=(",", ":")).encode("utf-8"))
    return {"agents": agents, "tool_calls": tool_calls, "events": len(trace["events"]),
            "edges": len(trace["edges"]), "bytes": size,
            "bytes_per_event": round(size / len(trace["events"]), 1)}


def replay_check(agents: int, tool_calls: int) -> dict[str, int | float | bool]:
    """Validate and replay that swarm trace with the trace toolkit (``masrl.traces``):
    whether it is valid, and what replay reconstructs (agents running at once, critical steps)."""
    report = traces.validate_document(swarm_trace(spread(tool_calls, agents)))
    if not report.valid:
        return {"valid": False}
    result = traces.replay(report.trace).to_dict()
    return {"valid": True, "replayed events": result["events"],
            "max concurrency": result["max_concurrency"],
            "critical steps": result["critical_steps"], "spawn depth": result["spawn_depth"]}


def trace_estimates(envelopes: pd.DataFrame, *, replay: bool = True) -> pd.DataFrame:
    """:func:`trace_estimate` (and, if ``replay``, :func:`replay_check`) for every industrial
    envelope whose agents and per-task tool calls are both known (the Kimi swarms)."""
    rows = envelopes[(envelopes["kind"] == "industrial")
                     & (envelopes["horizon_unit"].isin(INDUSTRIAL_HORIZON))
                     ].dropna(subset=["agents", "horizon"])
    estimates = []
    for r in rows.itertuples():
        agents, calls = int(r.agents), int(r.horizon)
        row = {"system": r.system, **trace_estimate(agents, calls)}
        if replay:
            row.update(replay_check(agents, calls))
        estimates.append(row)
    return pd.DataFrame(estimates)
