"""Charts of the real-runs chapter (:mod:`masrl.analyses.real_runs` computes their tables)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from masrl.presentation import charts

# Every chart takes ``order``: the labels of the catalogue's sources (data/log_sources.csv), in
# file order. A source keeps its colour (its place in ``order``) in every chart, whichever
# sources a chart's table holds; without ``order``, the sources of the table in table order.


def _order(table: pd.DataFrame, order: list[str] | None) -> list[str]:
    return list(dict.fromkeys(table["source"])) if order is None else list(order)


def _colour(order: list[str], labels: list[str] | None = None, title: str = "source",
            legend: bool = True) -> alt.Color:
    colours = dict(zip(order, charts.OKABE_ITO))
    labels = order if labels is None else labels
    return alt.Color("source:N", title=title, legend=alt.Legend() if legend else None,
                     scale=alt.Scale(domain=labels, range=[colours[o] for o in labels]))


def events_chart(table: pd.DataFrame, order: list[str] | None = None) -> alt.TopLevelMixin:
    """One point per run: events (log scale) by source."""
    order = _order(table, order)
    parts = [f"{label}: {len(p)} runs, median {p['events'].median():.0f} events "
             f"(range {p['events'].min()}-{p['events'].max()})"
             for label in order if not (p := table[table["source"] == label]).empty]
    chart = alt.Chart(table).mark_tick(thickness=2, size=18).encode(
        x=alt.X("events:Q", scale=alt.Scale(type="log"), title="events per run (log scale)"),
        y=alt.Y("source:N", sort=order, title=None),
        color=_colour(order),
        tooltip=["source", "run", "events", "agents", "critical steps"],
    )
    return charts.finish(
        chart, "Events per imported run, by source",
        "Tick chart, one tick per run, of the number of events in each imported trace. "
        + "; ".join(parts) + ".", width=460)


def critical_chart(table: pd.DataFrame, order: list[str] | None = None) -> alt.TopLevelMixin:
    """Critical steps against events: on the diagonal, every event waits for the previous."""
    order = _order(table, order)
    top = float(table["events"].max())
    diagonal = pd.DataFrame({"events": [1.0, top], "critical steps": [1.0, top]})
    line = alt.Chart(diagonal).mark_line(color="#999999", strokeDash=[4, 4]).encode(
        x="events:Q", y="critical steps:Q")
    points = alt.Chart(table).mark_circle(size=50, opacity=0.8).encode(
        x=alt.X("events:Q", scale=alt.Scale(type="log"), title="events per run (log scale)"),
        y=alt.Y("critical steps:Q", scale=alt.Scale(type="log"),
                title="critical steps (log scale)"),
        color=_colour(order),
        tooltip=["source", "run", "events", "critical steps", "parallelism"],
    )
    off = table[table["parallelism"] > 1]
    return charts.finish(
        alt.layer(line, points),
        "Critical steps against events",
        "Scatter plot of critical steps against events per run, both on log scales, with the "
        f"diagonal dashed. {len(table) - len(off)} of {len(table)} runs lie on the diagonal "
        f"(parallelism 1); the largest parallelism is {table['parallelism'].max():.2f}.",
        width=420, height=320)


def delegation_chart(table: pd.DataFrame) -> alt.TopLevelMixin:
    wide, narrow = charts.hbars(table, category="agent", value="delegations",
                                order=list(table["agent"]),
                                x_title="orchestrator delegations, all runs",
                                y_title="agent delegated to")
    return charts.finish(
        wide, "Magentic-One: whom the orchestrator delegates to",
        "Bar chart of delegations by the Magentic-One orchestrator per addressee over all "
        "imported hand-crafted runs: " + ", ".join(
            f"{r.agent} {r.delegations}" for r in table.itertuples()) + ".", width=420,
        narrow=narrow)


def mistake_chart(table: pd.DataFrame, order: list[str] | None = None) -> alt.TopLevelMixin:
    order = _order(table, order)
    parts = [f"{label}: median {p['relative position'].median():.2f} over {len(p)} runs"
             for label in order if not (p := table[table["source"] == label]).empty]
    present = [label for label in order if label in set(table["source"])]
    chart = alt.Chart(table).mark_bar().encode(
        x=alt.X("relative position:Q", bin=alt.Bin(extent=[0, 1], step=0.1),
                title="relative position of the labelled mistake step (1 = last step)"),
        y=alt.Y("count():Q", title="runs"),
        color=_colour(order, labels=present, legend=False),
        row=alt.Row("source:N", sort=order, title=None, header=alt.Header(labelAngle=0,
                                                                           labelAlign="left")),
    ).properties(width=420, height=110)
    return charts.finish(
        chart, "Where the labelled mistake falls in the run",
        "Histograms, one per source, of the relative position of the Who&When mistake step "
        "in each run, in bins of 0.1. " + "; ".join(parts) + ".")


def token_chart(table: pd.DataFrame) -> alt.TopLevelMixin:
    kinds = ["main agent", "Task sub-agents", "compaction"]
    parts = []
    for session in dict.fromkeys(table["session"]):
        part = table[table["session"] == session].set_index("spent by")["share"]
        parts.append(f"{session}: " + ", ".join(f"{k} {part[k]:.1%}" for k in kinds))
    chart = alt.Chart(table).mark_bar().encode(
        y=alt.Y("session:N", title="Claude Code session"),
        x=alt.X("share:Q", stack="normalize", title="share of the session's tokens",
                axis=alt.Axis(format="%")),
        color=alt.Color("spent by:N", title="spent by",
                        scale=alt.Scale(domain=kinds, range=charts.OKABE_ITO[:3])),
        order=alt.Order("order:Q"),
        tooltip=["session", "spent by", "tokens", alt.Tooltip("share:Q", format=".1%")],
    ).transform_calculate(order=f"indexof({kinds!r}, datum['spent by'])")
    return charts.finish(
        chart, "Claude Code: who spends the tokens",
        "Stacked bars of each session's tokens (input, cache and output) by the main agent, "
        "Task sub-agents and context compaction. " + "; ".join(parts) + ".", width=420)


def scale_chart(points: pd.DataFrame) -> alt.TopLevelMixin:
    long = points.melt(id_vars=["who", "kind"], value_vars=["agents per run",
                                                            "tool calls per run"],
                       var_name="measure", value_name="value")
    long = long[long["value"] > 0]
    described = "; ".join(f"{r.who} {r.measure} {r.value:g}" for r in long.itertuples())
    chart = alt.Chart(long).mark_point(filled=True, size=90).encode(
        x=alt.X("value:Q", scale=alt.Scale(type="log"), title="largest value (log scale)"),
        y=alt.Y("who:N", sort=list(dict.fromkeys(points["who"])), title=None),
        shape=alt.Shape("kind:N", title=None),
        color=alt.Color("kind:N", title=None, scale=alt.Scale(range=charts.OKABE_ITO[:2])),
        column=alt.Column("measure:N", title=None),
    ).properties(width=230)
    return charts.finish(
        chart, "Public logs against industrial envelopes",
        "Dot chart on log scales of the largest number of agents and of tool calls in one run "
        "of each public source, beside the bounds reported for industrial agent swarms "
        f"(zero values left out): {described}.")
