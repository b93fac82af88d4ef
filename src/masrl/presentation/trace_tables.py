"""The tables of a replayed trace in the book's table style (:mod:`masrl.presentation.tables`):
the frames of :mod:`masrl.presentation.trace_views`, captioned, with each column formatted by
what it holds (counts, seconds, tokens, shares of the reward), and :func:`replay_tabs`, the
tables of one replay as tabs.

``None`` or ``NaN`` (a value that does not apply) shows as a dash.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from masrl.presentation import tables
from masrl.presentation import trace_views as views
from masrl.presentation.blocks import Tabs
from masrl.traces.replay import Replay

CREDIT = "number:3"  # shares of a reward: three decimals
METRIC_KINDS = {  # metrics_frame rows -> how the value reads
    "parallelism": "number:2", "speedup": "number:2", "wall_clock (s)": "seconds",
    "busy_time, all agents (s)": "seconds", "tokens.total": "tokens",
    "tokens.recorded": "tokens", "cost_usd.total": "number:4", "cost_usd.recorded": "number:4",
}


def metrics_table(replay: Replay, caption: str = "The run's metrics") -> tables.Table:
    """One row per metric under its ``masrl replay --json`` name, each formatted by its kind."""
    frame = views.metrics_frame(replay)
    rows = [[name, tables.formatted(value, METRIC_KINDS[name] if name in METRIC_KINDS
                                    else "count" if float(value).is_integer() else "number")]
            for name, value in zip(frame.index, frame["value"])]
    return tables.Table(["metric", "value"], ["code", "number"], rows, caption)


def critical_path_table(replay: Replay, caption: str = "The critical path, event by event",
                        limit: int | None = None) -> tables.Table:
    """The critical path's steps in order; with ``limit``, its first ``limit`` steps."""
    frame = views.critical_path_frame(replay).head(limit)
    kinds = {"step": "count", "event": "code", "type": "code", "start (s)": "seconds",
             "end (s)": "seconds", "start (step)": "count"}  # seconds, or steps without a clock
    return tables.table(frame, caption, {k: v for k, v in kinds.items()
                                         if k in frame.columns or k == "step"}, index=True)


def agents_table(replay: Replay, caption: str = "The agents: life, busy time and tokens"
                 ) -> tables.Table:
    return tables.table(views.agents_frame(replay), caption,
                        {"agent": "code", "depth": "count", "alive from (s)": "seconds",
                         "alive to (s)": "seconds", "busy time (s)": "seconds",
                         "tokens": "tokens", "subtree tokens": "tokens"}, index=True)


def credit_units_table(replay: Replay, caption: str = "How the team reward divides within "
                       "each credit unit") -> tables.Table:
    return tables.table(views.credit_units_frame(replay), caption,
                        {"unit": "code", "items": "count", "equal share each": "number",
                         "equal total": CREDIT, "recorded total": CREDIT,
                         "recorded residual": CREDIT}, index=True)


def credit_items_table(replay: Replay, unit: str, caption: str | None = None,
                       limit: int | None = None) -> tables.Table:
    frame = views.credit_items_frame(replay, unit).head(limit)
    return tables.table(frame, caption or f"Credit per {unit} under every rule the trace "
                        "supports", {unit: "code", **{c: CREDIT for c in frame.columns}},
                        index=True)


def coalitions_table(replay: Replay, caption: str = "The coalitions and their values v(S)",
                     limit: int | None = None) -> tables.Table:
    frame = views.coalitions_frame(replay) if limit is None \
        else views.coalitions_frame(replay, limit)
    return tables.table(frame, caption, {"size": "count", "v(S)": CREDIT}, index=True)


def counts_table(replay: Replay, caption: str = "How many events, sub-decisions and edges of "
                 "each kind the run holds") -> tables.Table:
    return tables.table(views.counts_frame(replay), caption,
                        {"count of": "text", "value": "code", "n": "count"}, index=True)


def problems_table(report, caption: str = "The problems found, each with where it is"
                   ) -> tables.Table:
    """The validation report's problems (``report.problems``), one row each."""
    return tables.table(views.problems_frame(report), caption,
                        {"#": "count", "severity": "code", "code": "code", "where": "code",
                         "message": "text"}, index=True)


def comparison_table(replays: Mapping[str, Replay],
                     caption: str = "The topologies side by side") -> tables.Table:
    frame = views.comparison_frame(replays)
    return tables.table(frame, caption,
                        {"trace": "code", "events": "count", "critical steps": "count",
                         "parallelism": "number:2", "spawn depth": "count",
                         "max concurrency": "count", "wall clock": "seconds",
                         "speedup": "number:2", "tokens": "tokens", "team reward": CREDIT},
                        index=True)


def replay_tabs(name: str, replay: Replay, unit: str = "agent") -> Tabs:
    """The tables of one replay as tabs: critical path, metrics, credit by unit, credit per
    item of ``unit``, and the coalitions when the trace records counterfactual outcomes."""
    tabs: dict[str, object] = {
        "Critical path": critical_path_table(replay),
        "Metrics": metrics_table(replay),
        "Credit by unit": credit_units_table(replay),
        f"Credit per {unit}": credit_items_table(replay, unit),
    }
    if isinstance(views.coalitions_frame(replay), pd.DataFrame) and \
            len(views.coalitions_frame(replay)):
        tabs["Coalitions"] = coalitions_table(replay)
    return Tabs(name, tabs)
