"""Charts of a training run's tables (Altair, rendered offline like every chart of the book)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from masrl.presentation import charts

PER_STEP_METRICS = {
    "success_rate": "success rate (mean team reward)",
    "sub_agents": "sub-agents per rollout",
    "parallelism": "parallelism (events per critical step)",
    "tokens": "tokens per rollout",
}


def per_step(frame: pd.DataFrame, *, title: str) -> alt.FacetChart:
    """One small line chart per metric of :data:`PER_STEP_METRICS` against the training step
    (columns ``step`` and the metrics, one row per step, as ``queries.PER_STEP`` returns)."""
    long = frame.melt(id_vars="step", value_vars=list(PER_STEP_METRICS), var_name="metric")
    long["metric"] = long["metric"].map(PER_STEP_METRICS)
    description = "; ".join(
        f"{label}: " + ", ".join(f"{v:.3g}" for v in frame[name])
        for name, label in PER_STEP_METRICS.items()) + " (steps " + ", ".join(
        str(s) for s in frame["step"]) + ")"
    lines = alt.Chart(long).mark_line(point=True, color=charts.OKABE_ITO[0]).encode(
        x=alt.X("step:Q", title="training step", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
        tooltip=["metric:N", "step:Q", alt.Tooltip("value:Q", format=".3g")],
    ).properties(width=230, height=140)
    faceted = lines.facet(facet=alt.Facet("metric:N", title=None,
                                          sort=list(PER_STEP_METRICS.values())), columns=2)
    return charts.finish(faceted.resolve_scale(y="independent"), title, description)
