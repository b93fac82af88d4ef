"""The timeline (Gantt) chart of a replayed trace, built on :mod:`masrl.presentation.charts`.

One row per agent (depth first down the spawn tree, tools last). Behind each row a grey band
shows the agent's life: for a spawned agent the time it is *alive* (spawn to first return or
despawn, else the end of the trace, as :mod:`masrl.traces.run` defines it); for a root, the
span from its first event's start to its last event's end. On top, each event is a bar from its
start to its end (a tick when it is instantaneous) coloured by its kind, and a black line walks
the critical path event by event, through each event's start and end.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from masrl.presentation import charts
from masrl.presentation.charts import OKABE_ITO
from masrl.presentation.trace_views import agent_order
from masrl.traces import metrics
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.replay import Replay

# Event types grouped into seven kinds, one Okabe-Ito colour each; black is kept for the path.
EVENT_KINDS = {
    "orchestrator_decision": "orchestrator decision",
    "spawn": "spawn or despawn", "despawn": "spawn or despawn",
    "message": "message",
    "tool_call": "tool call",
    "tool_result": "tool result",
    "return": "return or aggregate", "aggregate": "return or aggregate",
    "human_intervention": "human or safety", "safety_event": "human or safety",
}
KIND_COLOURS = dict(zip(dict.fromkeys(EVENT_KINDS.values()), OKABE_ITO[:7]))
SPAWNED_LIFE, ROOT_LIFE, CRITICAL = "alive (spawned agent)", "first to last event (root)", \
    "critical path"
BAND_COLOURS = {SPAWNED_LIFE: "#BBBBBB", ROOT_LIFE: "#E4E4E4"}
PATH_COLOUR = OKABE_ITO[7]  # black
ROW_HEIGHT = 26
MAX_LISTED_PATH = 12
# what a reader reads on hovering an event of an interactive timeline
EVENT_TOOLTIP = [
    alt.Tooltip("event:N", title="event"), alt.Tooltip("type:N", title="type"),
    alt.Tooltip("agent:N", title="agent"), alt.Tooltip("tokens:Q", title="tokens", format=",.0f"),
    alt.Tooltip("start:Q", title="start (s)", format=".6~g"),
    alt.Tooltip("end:Q", title="end (s)", format=".6~g"),
    alt.Tooltip("critical:N", title="on the critical path"),
]


def events_frame(replay: Replay) -> pd.DataFrame:
    """One row per event in timeline order: id, type, kind, agent, tokens (0 when the event
    records none), start, end, whether it is instantaneous and whether it lies on the critical
    path."""
    run = replay.run
    events = run.trace.events
    order = run.timeline.tolist()
    critical = set(metrics.critical_path(run))
    types = [EVENT_TYPES[events.types[i]] for i in order]
    tokens = run.trace.numeric("tokens")
    return pd.DataFrame({
        "event": [events.ids[i] for i in order],
        "type": types,
        "kind": [EVENT_KINDS[t] for t in types],
        "agent": [events.agent(i) for i in order],
        "tokens": [float(tokens[i]) for i in order],
        "start": [float(events.start[i]) for i in order],
        "end": [float(events.end[i]) for i in order],
        "instant": [bool(events.end[i] == events.start[i]) for i in order],
        "critical": [i in critical for i in order],
    })


def lifetimes_frame(replay: Replay) -> pd.DataFrame:
    """One band per agent, in :func:`agent_order`: from, to and what the band means."""
    run = replay.run
    events = run.trace.events
    first = {}
    last = {}
    for code, start, end in zip(events.agent_codes.tolist(), events.start.tolist(),
                                events.end.tolist()):
        name = events.agent_names[code]
        first[name] = min(first.get(name, start), start)
        last[name] = max(last.get(name, end), end)
    rows = []
    for name in agent_order(run):
        agent = run.agents[name]
        if agent.spawned_at is not None:
            end = run.trace_end if agent.ended_at is None else agent.ended_at
            rows.append((name, agent.spawned_at, end, SPAWNED_LIFE))
        else:
            rows.append((name, first[name], last[name], ROOT_LIFE))
    return pd.DataFrame(rows, columns=["agent", "start", "end", "band"])


def path_frame(replay: Replay) -> pd.DataFrame:
    """The critical path as a polyline: each critical event's start, then its end."""
    run = replay.run
    events = run.trace.events
    rows = []
    for step, i in enumerate(metrics.critical_path(run)):
        for half, time in ((0, events.start[i]), (1, events.end[i])):
            rows.append({"order": 2 * step + half, "event": events.ids[i],
                         "agent": events.agent(i), "time": float(time), "band": CRITICAL})
    return pd.DataFrame(rows, columns=["order", "event", "agent", "time", "band"])


def gantt(replay: Replay, *, title: str | None = None,
          description: str | None = None) -> alt.LayerChart:
    """The finished timeline chart of a replayed trace (see the module docstring)."""
    events, bands, path = events_frame(replay), lifetimes_frame(replay), path_frame(replay)
    rows = list(bands["agent"])
    kinds = list(dict.fromkeys(k for k in KIND_COLOURS if k in set(events["kind"])))
    present_bands = [b for b in BAND_COLOURS if b in set(bands["band"])]
    domain = [*kinds, *present_bands, CRITICAL]
    palette = [*(KIND_COLOURS[k] for k in kinds), *(BAND_COLOURS[b] for b in present_bands),
               PATH_COLOUR]
    colour = alt.Scale(domain=domain, range=palette)
    legend = alt.Legend(orient="bottom", columns=4, title=None, labelLimit=220)
    y = alt.Y("agent:N", sort=rows, title="agent", scale=alt.Scale(domain=rows),
              axis=alt.Axis(labelLimit=200))
    x_title = "time since the start of the run (s)"

    life = alt.Chart(bands).mark_bar(height=ROW_HEIGHT - 4).encode(
        y=y, x=alt.X("start:Q", title=x_title), x2="end:Q",
        color=alt.Color("band:N", scale=colour, legend=legend),
    )
    lasting = alt.Chart(events[~events["instant"]]).mark_bar(height=10).encode(
        y=y, x=alt.X("start:Q", title=x_title), x2="end:Q",
        color=alt.Color("kind:N", scale=colour, legend=legend), tooltip=EVENT_TOOLTIP,
    )
    instant = alt.Chart(events[events["instant"]]).mark_tick(
        thickness=3, size=ROW_HEIGHT - 8).encode(
        y=y, x=alt.X("start:Q", title=x_title),
        color=alt.Color("kind:N", scale=colour, legend=legend), tooltip=EVENT_TOOLTIP,
    )
    line = alt.Chart(path).mark_line(strokeWidth=1.5, point=alt.OverlayMarkDef(size=14)).encode(
        y=y, x=alt.X("time:Q", title=x_title), order="order:Q",
        color=alt.Color("band:N", scale=colour, legend=legend),
        tooltip=[alt.Tooltip("band:N", title="on the"), alt.Tooltip("event:N", title="event"),
                 alt.Tooltip("agent:N", title="agent"),
                 alt.Tooltip("time:Q", title="time (s)", format=".6~g")],
    )
    chart = alt.layer(life, lasting, instant, line)
    name = replay.run.trace.head.get("trace_id") or replay.run.trace.source
    title = title or f"Timeline of {name}"
    description = description or describe(replay, events, rows)
    return charts.finish(chart, title, description, width=540, height=ROW_HEIGHT * len(rows))


def describe(replay: Replay, events: pd.DataFrame, rows: list[str]) -> str:
    """The chart's text alternative: what is drawn, and the critical path (first ids listed)."""
    found = replay.metrics
    path = found["critical_path"]
    listed = " -> ".join(path[:MAX_LISTED_PATH]) + (" -> ..." if len(path) > MAX_LISTED_PATH
                                                     else "")
    return (
        f"Gantt chart of {len(events)} events over {found['wall_clock']:.6g} s, one row per "
        f"agent ({len(rows)} rows: {', '.join(rows)}). Bars run from each event's start to its "
        f"end, coloured by kind; instantaneous events are ticks; grey bands show each agent's "
        f"life. A black line follows the critical path of {found['critical_steps']} events: "
        f"{listed}."
    )
