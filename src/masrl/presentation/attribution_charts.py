"""Charts of the failure-attribution chapter (:mod:`masrl.analyses.attribution_benchmark` computes
their tables)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from masrl.analyses.attribution_benchmark import beaten
from masrl.presentation import charts
from masrl.traces.attribution.gold import SUBSET_LABELS, SUBSETS


def position_chart(table: pd.DataFrame) -> alt.TopLevelMixin:
    """Histograms of the relative position of the labelled step, one row per subset."""
    frame = table.assign(subset=table["subset"].map(SUBSET_LABELS))
    parts = [f"{SUBSET_LABELS[s]}: median {p['relative position'].median():.2f} over {len(p)} runs"
             for s in SUBSETS if not (p := table[table["subset"] == s]).empty]
    chart = alt.Chart(frame).mark_bar(color=charts.OKABE_ITO[0]).encode(
        x=alt.X("relative position:Q", bin=alt.Bin(extent=[0, 1], step=0.1),
                title="relative position of the labelled step (1 = last step)"),
        y=alt.Y("count():Q", title="runs"),
        row=alt.Row("subset:N", title=None, sort=[SUBSET_LABELS[s] for s in SUBSETS],
                    header=alt.Header(labelAngle=0, labelAlign="left")),
    ).properties(width=420, height=110)
    return charts.finish(
        chart, "Where the labelled mistake falls",
        "Histograms, one per subset, of the relative position of the labelled decisive step in "
        "each Who&When run, in bins of 0.1. " + "; ".join(parts) + ".")



def accuracy_chart(frame: pd.DataFrame) -> alt.TopLevelMixin:
    """Dots for every method's accuracy (bars: our 95% intervals), one panel per level and
    subset."""
    data = frame.assign(panel=frame["level"] + "-level, " + frame["subset"])
    order = list(dict.fromkeys(data["method"]))
    base = alt.Chart(data).encode(y=alt.Y("method:N", sort=order, title=None))
    rules = base.mark_rule(color="#999999").encode(x="low:Q", x2="high:Q")
    kinds = ["published", "baseline (ours)"]
    dots = base.mark_point(filled=True, size=60).encode(
        x=alt.X("accuracy:Q", title="accuracy (%)", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("kind:N", title=None,
                        scale=alt.Scale(domain=kinds, range=charts.OKABE_ITO[:2])),
        shape=alt.Shape("kind:N", title=None,
                        scale=alt.Scale(domain=kinds, range=["square", "circle"])),
        tooltip=["method", "panel", "accuracy", "low", "high"])
    chart = alt.layer(rules, dots).properties(width=230, height=170).facet(
        facet=alt.Facet("panel:N", title=None), columns=2)
    best = beaten(frame)
    described = "; ".join(f"{r.level}-level {r.subset}: best published {r._3}, best rule "
                          f"{r._4}" for r in best.itertuples())
    return charts.finish(
        chart, "Published methods and rules that need no model",
        "Dot chart of agent-level and step-level accuracy on each Who&When subset: the "
        "published methods (GPT-4o) and our baselines, with grey bars for the baselines' 95% "
        f"bootstrap intervals. {described}.")
