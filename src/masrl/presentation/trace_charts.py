"""The timeline (Gantt) chart of a replayed trace, built on :mod:`masrl.presentation.charts`.

One row per agent (depth first down the spawn tree, tools last). Behind each row a grey band
shows the agent's life: for a spawned agent the time it is *alive* (spawn to first return or
despawn, else the end of the trace, as :mod:`masrl.traces.run` defines it); for a root, the
span from its first event's start to its last event's end. On top, each event is a bar from its
start to its end (a tick when it is instantaneous) coloured by its kind, and a black line walks
the critical path event by event, through each event's start and end.

A trace too crowded to draw event by event (a real session: hundreds of events, minutes apart
or milliseconds apart) gets a *binned* timeline instead (:func:`binned_gantt`): the run is cut
into equal time buckets of a round length, each at least :data:`MIN_CELL_PX` pixels wide, and
each agent's lane shows, per bucket, a column as tall as the square root of the number of its
events active in that bucket, split by kind; a black stripe under a lane marks the buckets in
which that agent's events lie on the critical path. :func:`timeline` picks the right chart and,
for a binned one, adds for the interactive page an overview whose brushed window drives a
detailed timeline of the events inside it (zoom).
"""

from __future__ import annotations

import json
import math

import altair as alt
import numpy as np
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
    """The finished timeline chart of a replayed trace, event by event (see the module
    docstring)."""
    events, bands = events_frame(replay), lifetimes_frame(replay)
    rows = list(bands["agent"])
    chart = _gantt_layers(events, bands, path_frame(replay))
    description = description or describe(replay, events, rows)
    return charts.finish(chart, title or _title(replay), description, width=540,
                         height=ROW_HEIGHT * len(rows))


def _title(replay: Replay) -> str:
    return f"Timeline of {replay.run.trace.head.get('trace_id') or replay.run.trace.source}"


def _gantt_layers(events: pd.DataFrame, bands: pd.DataFrame, path: pd.DataFrame, *,
                  window: alt.Parameter | None = None) -> alt.LayerChart:
    """The four layers of the event-by-event timeline: lives, lasting events, instantaneous
    events, the critical path. With ``window`` (an interval selection on time), the time axis
    shows only the selected window, marks outside it are clipped, there is no legend (the
    overview above has it) and layers with nothing to draw are left out."""
    rows = list(bands["agent"])
    kinds = list(dict.fromkeys(k for k in KIND_COLOURS if k in set(events["kind"])))
    present_bands = [b for b in BAND_COLOURS if b in set(bands["band"])]
    domain = [*kinds, *present_bands, CRITICAL]
    palette = [*(KIND_COLOURS[k] for k in kinds), *(BAND_COLOURS[b] for b in present_bands),
               PATH_COLOUR]
    colour = alt.Scale(domain=domain, range=palette)
    legend = alt.Legend(orient="bottom", columns=4, title=None, labelLimit=220) \
        if window is None else None
    y = alt.Y("agent:N", sort=rows, title="agent", scale=alt.Scale(domain=rows),
              axis=alt.Axis(labelLimit=200))
    x_title = "time since the start of the run (s)"
    scale = alt.Undefined if window is None else alt.Scale(domain=window)
    clip = True if window is not None else alt.Undefined  # (the book's charts: unchanged)

    life = alt.Chart(bands).mark_bar(height=ROW_HEIGHT - 4, clip=clip).encode(
        y=y, x=alt.X("start:Q", title=x_title, scale=scale), x2="end:Q",
        color=alt.Color("band:N", scale=colour, legend=legend),
    )
    lasting = alt.Chart(events[~events["instant"]]).mark_bar(height=10, clip=clip).encode(
        y=y, x=alt.X("start:Q", title=x_title, scale=scale), x2="end:Q",
        color=alt.Color("kind:N", scale=colour, legend=legend), tooltip=EVENT_TOOLTIP,
    )
    instant = alt.Chart(events[events["instant"]]).mark_tick(
        thickness=3, size=ROW_HEIGHT - 8, clip=clip).encode(
        y=y, x=alt.X("start:Q", title=x_title, scale=scale),
        color=alt.Color("kind:N", scale=colour, legend=legend), tooltip=EVENT_TOOLTIP,
    )
    line = alt.Chart(path).mark_line(strokeWidth=1.5, point=alt.OverlayMarkDef(size=14),
                                     clip=clip).encode(
        y=y, x=alt.X("time:Q", title=x_title, scale=scale), order="order:Q",
        color=alt.Color("band:N", scale=colour, legend=legend),
        tooltip=[alt.Tooltip("band:N", title="on the"), alt.Tooltip("event:N", title="event"),
                 alt.Tooltip("agent:N", title="agent"),
                 alt.Tooltip("time:Q", title="time (s)", format=".6~g")],
    )
    if window is None:
        return alt.layer(life, lasting, instant, line)
    drawn = [(life, bands), (lasting, events[~events["instant"]]),
             (instant, events[events["instant"]]), (line, path)]
    return alt.layer(*(layer for layer, rows in drawn if len(rows)))


def listed_path(path: list[str]) -> str:
    """The first :data:`MAX_LISTED_PATH` event ids of a critical path, joined by arrows."""
    more = " -> ..." if len(path) > MAX_LISTED_PATH else ""
    return " -> ".join(path[:MAX_LISTED_PATH]) + more


def span(replay: Replay) -> str:
    """How long the run lasted, in words: seconds, or steps when the trace has no clock (then
    every event is drawn at its step: :mod:`masrl.traces.run`)."""
    wall = replay.metrics["wall_clock"]
    if wall is None:
        return f"{replay.metrics['events']} steps (the log records their order, not their times)"
    return f"{wall:.6g} s"


def describe(replay: Replay, events: pd.DataFrame, rows: list[str]) -> str:
    """The chart's text alternative: what is drawn, and the critical path (first ids listed)."""
    found = replay.metrics
    listed = listed_path(found["critical_path"])
    return (
        f"Gantt chart of {len(events)} events over {span(replay)}, one row per "
        f"agent ({len(rows)} rows: {', '.join(rows)}). Bars run from each event's start to its "
        f"end, coloured by kind; instantaneous events are ticks; grey bands show each agent's "
        f"life. A black line follows the critical path of {found['critical_steps']} events: "
        f"{listed}."
    )


# ------------------------------------------------------------------------- crowded traces

DETAILED_WIDTH = 540  # px of the time axis of an event-by-event timeline (see gantt)
CROWDED_PX = 4  # two events of a lane closer than this on the time axis draw as one smear
MAX_CROWDED_SHARE = 0.4  # binned when more of the events than this are crowded...
MAX_DETAILED_EVENTS = 400  # ...or when there are more events than this
BINNED_WIDTH = charts.COLUMN_WIDTH  # px of the time axis of a binned timeline: the column
MIN_CELL_PX = 6  # a bucket is never narrower than this
LANE_PX = 34  # height of one lane of a binned timeline
MAX_LANES = 40  # beyond, the least busy agents share one lane
MAX_LIVE_EVENTS = 20_000  # the interactive detail view carries every event up to this many
LIVE_WINDOW_EVENTS = 60  # the detail view opens on a window holding about this many events
# round bucket lengths, in seconds
NICE_SECONDS = [m * 10.0 ** e for e in range(-3, 1) for m in (1, 2, 5)] + [
    10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
# where the marks of lane i sit, in lane units from the lane's top (i) to the next (i + 1)
BAR_BASE, BAR_HEIGHT, BAND_TOP = 0.82, 0.7, 0.1
STRIPE_TOP, STRIPE_BOTTOM = 0.86, 0.96
EPSILON = 1e-9  # in buckets: how far a time may sit off a bucket boundary and count as on it


def crowded_share(replay: Replay, width: int = DETAILED_WIDTH) -> float:
    """The share of events that start within :data:`CROWDED_PX` pixels of the previous event of
    their agent, when the run is drawn ``width`` pixels wide (0 for a trace of one event)."""
    events = replay.run.trace.events
    span = float(events.end.max() - events.start.min()) if len(events.ids) else 0.0
    if len(events.ids) < 2 or span <= 0:
        return 1.0 if len(events.ids) > 1 else 0.0
    frame = pd.DataFrame({"agent": events.agent_codes, "x": events.start / span * width})
    frame = frame.sort_values(["agent", "x"], kind="stable")
    gaps = frame["x"].diff()
    same = frame["agent"].eq(frame["agent"].shift())
    return float((same & (gaps < CROWDED_PX)).sum() / len(frame))


def is_binned(replay: Replay) -> bool:
    """Whether the timeline is drawn binned: more than :data:`MAX_DETAILED_EVENTS` events, or
    more than :data:`MAX_CROWDED_SHARE` of them crowded (:func:`crowded_share`)."""
    return (replay.metrics["events"] > MAX_DETAILED_EVENTS
            or crowded_share(replay) > MAX_CROWDED_SHARE)


def bucket_seconds(span: float, width: int = BINNED_WIDTH) -> float:
    """The shortest round length (:data:`NICE_SECONDS`, then whole days) that cuts ``span``
    seconds into buckets at least :data:`MIN_CELL_PX` pixels wide at ``width`` pixels."""
    smallest = span * MIN_CELL_PX / width
    for seconds in NICE_SECONDS:
        if seconds >= smallest:
            return float(seconds)
    return 86400.0 * math.ceil(smallest / 86400.0)


def other_lane(count: int) -> str:
    """The name of the lane that holds the agents left out of their own (:data:`MAX_LANES`)."""
    return f"({count} other agents)"


def lanes(replay: Replay) -> tuple[list[str], dict[str, str]]:
    """The lanes of a binned timeline, top to bottom, and each agent's lane. Every agent has
    its own lane (in :func:`agent_order`) unless there are more than :data:`MAX_LANES`: then the
    agents with critical events, then the busiest, keep theirs and the others share the last."""
    run = replay.run
    order = agent_order(run)
    if len(order) <= MAX_LANES:
        return order, {name: name for name in order}
    events = run.trace.events
    counts = np.bincount(events.agent_codes, minlength=len(events.agent_names))
    busy = dict(zip(events.agent_names, counts.tolist()))
    critical = {events.agent(i) for i in metrics.critical_path(run)}
    rank = sorted(order, key=lambda name: (name not in critical, -busy.get(name, 0),
                                           order.index(name)))
    kept = set(rank[:MAX_LANES - 1])
    shared = other_lane(len(order) - len(kept))
    return ([name for name in order if name in kept] + [shared],
            {name: name if name in kept else shared for name in order})


def binned_frames(replay: Replay, width: int = BINNED_WIDTH) -> dict:
    """What a binned timeline draws, computed once: ``lanes``, ``seconds`` (bucket length),
    ``origin`` (start of the first bucket), ``buckets``, ``tallest`` (most events of one lane
    in one bucket) and three frames:

    * ``cells``: one row per lane, bucket and kind with events, in lane units (lane ``i`` runs
      from ``i`` at its top to ``i + 1``): ``lane``, ``lane_index``, ``from``, ``to``,
      ``kind``, ``count`` (events of that kind active in the bucket), ``events`` (all of the
      lane's active in the bucket), ``y`` and ``y2`` (the segment's bottom and top);
    * ``bands``: the agents' lives (:func:`lifetimes_frame`) on their lanes, agents sharing the
      last lane left out;
    * ``stripes``: per lane, the runs of consecutive buckets holding critical events of it:
      ``lane``, ``lane_index``, ``from``, ``to``, ``critical`` (how many).
    """
    run = replay.run
    events = run.trace.events
    names, lane_of = lanes(replay)
    index = {name: k for k, name in enumerate(names)}
    origin = float(events.start.min())
    span = float(events.end.max()) - origin
    seconds = bucket_seconds(span, width)
    buckets = max(1, math.ceil(span / seconds - EPSILON))
    agent_lane = np.array([index[lane_of[name]] for name in events.agent_names], dtype=np.int64)
    lane = agent_lane[events.agent_codes]
    kind_names = list(dict.fromkeys(EVENT_KINDS.values()))
    kind_of_type = np.array([kind_names.index(EVENT_KINDS[t]) for t in EVENT_TYPES])
    kind = kind_of_type[events.types]
    # (a time on a boundary opens the bucket that starts there and closes the one before it,
    # whatever the rounding of the division; the end of the run lies in the last bucket)
    first = np.floor((events.start - origin) / seconds + EPSILON).astype(np.int64)
    last = np.maximum(first, np.ceil((events.end - origin) / seconds - EPSILON).astype(np.int64) - 1)
    first, last = np.minimum(first, buckets - 1), np.minimum(last, buckets - 1)
    # an event is active in buckets first..last: a difference array, then a running sum
    active = np.zeros((len(names), len(kind_names), buckets + 1), dtype=np.int64)
    np.add.at(active, (lane, kind, first), 1)
    np.add.at(active, (lane, kind, last + 1), -1)
    active = np.cumsum(active, axis=2)[:, :, :buckets]
    per_cell = active.sum(axis=1)
    tallest = int(per_cell.max()) if per_cell.size else 0
    rows = []
    for i, b in zip(*np.nonzero(per_cell)):
        total = int(per_cell[i, b])
        height = BAR_HEIGHT * math.sqrt(total / tallest)
        below = 0
        for k, name in enumerate(kind_names):
            count = int(active[i, k, b])
            if count:
                bottom = i + BAR_BASE - height * below / total
                below += count
                top = i + BAR_BASE - height * below / total
                rows.append((names[i], int(i), origin + b * seconds,
                             origin + (b + 1) * seconds, name, count, total, bottom, top))
    cells = pd.DataFrame(rows, columns=["lane", "lane_index", "from", "to", "kind", "count",
                                        "events", "y", "y2"])
    bands = lifetimes_frame(replay)
    bands = bands[bands["agent"].map(lane_of) == bands["agent"]].rename(columns={"agent": "lane"})
    bands.insert(1, "lane_index", bands["lane"].map(index))
    critical = np.array(metrics.critical_path(run), dtype=np.int64)
    marked = np.zeros((len(names), buckets + 1), dtype=np.int64)
    np.add.at(marked, (lane[critical], first[critical]), 1)
    stripes = []
    for i in range(len(names)):
        b = 0
        while b < buckets:
            if marked[i, b]:
                start = b
                while b < buckets and marked[i, b]:
                    b += 1
                stripes.append((names[i], i, origin + start * seconds, origin + b * seconds,
                                int(marked[i, start:b].sum())))
            else:
                b += 1
    stripes = pd.DataFrame(stripes, columns=["lane", "lane_index", "from", "to", "critical"])
    return {"lanes": names, "seconds": seconds, "origin": origin, "buckets": buckets,
            "tallest": tallest, "cells": cells, "bands": bands.reset_index(drop=True),
            "stripes": stripes}


def duration_text(seconds: float) -> str:
    """A bucket length as a reader says it: ``0.5 s``, ``1 min``, ``2 h``."""
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"


def binned_gantt(replay: Replay, *, title: str | None = None, description: str | None = None,
                 width: int = BINNED_WIDTH, window: alt.Parameter | None = None) -> alt.LayerChart:
    """The finished binned timeline of a crowded trace (see the module docstring); with
    ``window``, an interval selection on time that a reader drags over the lanes."""
    found = binned_frames(replay, width)
    chart = _binned_layers(found, window)
    title = alt.TitleParams(
        title or _title(replay),
        subtitle=[f"{replay.metrics['events']:,} events in {duration_text(found['seconds'])} "
                  f"buckets; column height: square root of the events active in the bucket "
                  f"(tallest {found['tallest']:,}); black stripe: on the critical path"])
    description = description or describe_binned(replay, found)
    return charts.finish(chart, title, description, width=width,
                         height=LANE_PX * len(found["lanes"]))


def _binned_layers(found: dict, window: alt.Parameter | None = None) -> alt.LayerChart:
    names, cells, bands, stripes = found["lanes"], found["cells"], found["bands"], found["stripes"]
    kinds = [k for k in KIND_COLOURS if k in set(cells["kind"])]
    present_bands = [b for b in BAND_COLOURS if b in set(bands["band"])]
    colour = alt.Scale(domain=[*kinds, *present_bands, CRITICAL],
                       range=[*(KIND_COLOURS[k] for k in kinds),
                              *(BAND_COLOURS[b] for b in present_bands), PATH_COLOUR])
    legend = alt.Legend(orient="bottom", columns=4, title=None, labelLimit=220)
    # the lane names as the y axis' labels: a tick at each lane's middle, named from a list
    # written as JSON (a string literal of Vega's expression language, whatever the name holds)
    labels = json.dumps(names, ensure_ascii=True)
    y_scale = alt.Scale(domain=[len(names), 0], nice=False, zero=False)
    y_axis = alt.Axis(values=[i + 0.5 for i in range(len(names))], grid=False, ticks=False,
                      domain=False, labelLimit=240, labelFontSize=11, title="agent",
                      labelExpr=f"{labels}[floor(datum.value)]")
    x_scale = alt.Scale(nice=False, zero=False,
                        domain=[found["origin"],
                                found["origin"] + found["buckets"] * found["seconds"]])
    # a label every 90 px or so (Vega rounds the step), and any that would touch hidden
    x_axis = alt.Axis(tickCount=BINNED_WIDTH // 90, labelOverlap=True, labelFlush=True)
    x = alt.X("from:Q", title="time since the start of the run (s)", scale=x_scale, axis=x_axis)
    life = alt.Chart(bands.assign(top=bands["lane_index"] + BAND_TOP,
                                  bottom=bands["lane_index"] + BAR_BASE)).mark_rect().encode(
        x=alt.X("start:Q", title="time since the start of the run (s)", scale=x_scale,
                axis=x_axis),
        x2="end:Q",
        y=alt.Y("bottom:Q", scale=y_scale, axis=y_axis), y2="top:Q",
        color=alt.Color("band:N", scale=colour, legend=legend),
    )
    columns = alt.Chart(cells).mark_rect(stroke="white", strokeWidth=0.5).encode(
        x=x, x2="to:Q", y=alt.Y("y:Q", scale=y_scale, axis=y_axis), y2="y2:Q",
        color=alt.Color("kind:N", scale=colour, legend=legend),
        tooltip=[alt.Tooltip("lane:N", title="agent"), alt.Tooltip("kind:N", title="kind"),
                 alt.Tooltip("count:Q", title="events of this kind", format=",.0f"),
                 alt.Tooltip("events:Q", title="events in the bucket", format=",.0f"),
                 alt.Tooltip("from:Q", title="from (s)", format=".6~g"),
                 alt.Tooltip("to:Q", title="to (s)", format=".6~g")],
    )
    if window is not None:  # a fixed view name: same chart, same bytes
        columns = columns.properties(name="overview_columns").add_params(window)
    stripe = alt.Chart(stripes.assign(band=CRITICAL, top=stripes["lane_index"] + STRIPE_TOP,
                                      bottom=stripes["lane_index"] + STRIPE_BOTTOM)).mark_rect(
    ).encode(
        x=x, x2="to:Q", y=alt.Y("bottom:Q", scale=y_scale, axis=y_axis), y2="top:Q",
        color=alt.Color("band:N", scale=colour, legend=legend),
        tooltip=[alt.Tooltip("lane:N", title="agent"),
                 alt.Tooltip("critical:Q", title="events on the critical path", format=",.0f"),
                 alt.Tooltip("from:Q", title="from (s)", format=".6~g"),
                 alt.Tooltip("to:Q", title="to (s)", format=".6~g")],
    )
    return alt.layer(life, columns, stripe)


def describe_binned(replay: Replay, found: dict) -> str:
    """The binned chart's text alternative: what is drawn, and the critical path."""
    figures = replay.metrics
    listed = listed_path(figures["critical_path"])
    return (
        f"Binned timeline of {figures['events']} events over {span(replay)}, "
        f"one lane per agent ({len(found['lanes'])} lanes: {', '.join(found['lanes'])}). "
        f"The run is cut into {found['buckets']} buckets of {duration_text(found['seconds'])}; "
        f"in each, a lane's column grows with the square root of its events active in the "
        f"bucket (the tallest holds {found['tallest']}), split by kind; grey bands show each "
        f"agent's life. A black stripe under a lane marks the buckets where the critical path "
        f"of {figures['critical_steps']} events runs through that agent: {listed}."
    )


def live_window(events: pd.DataFrame) -> list[float]:
    """The time window the interactive detail view opens on: from the first event to the
    start of the :data:`LIVE_WINDOW_EVENTS`-th (the whole run when it has fewer)."""
    starts = events["start"].sort_values().to_numpy()
    ends = events["end"].to_numpy()
    last = starts[-1] if len(starts) <= LIVE_WINDOW_EVENTS else starts[LIVE_WINDOW_EVENTS - 1]
    first = float(starts[0])
    last = max(float(last), float(ends.max()) if len(starts) <= LIVE_WINDOW_EVENTS else 0.0)
    return [first, last if last > first else first + 1.0]


def timeline(replay: Replay) -> charts.Figure:
    """The timeline a reader sees, rendered: event by event when that is legible (interactive,
    with tooltips); else binned (:func:`binned_gantt`) as the static chart, and, for the live
    page, that overview with a brush above the events of the brushed window, event by event
    (up to :data:`MAX_LIVE_EVENTS` events; beyond, the overview alone)."""
    if not is_binned(replay):
        return charts.show(gantt(replay), interactive=True)
    static = binned_gantt(replay)
    if replay.metrics["events"] > MAX_LIVE_EVENTS:
        return charts.show(static, interactive=True)
    events, bands = events_frame(replay), lifetimes_frame(replay)
    window = alt.selection_interval(name="window", encodings=["x"],
                                    value={"x": live_window(events)})
    overview = _binned_layers(binned_frames(replay), window).properties(
        width=BINNED_WIDTH, height=LANE_PX * len(lanes(replay)[0]),
        title=alt.TitleParams("Overview: drag across it to choose the window shown below",
                              fontSize=12))
    detail = _gantt_layers(events, bands, path_frame(replay), window=window).properties(
        width=BINNED_WIDTH, height=ROW_HEIGHT * len(bands),
        title=alt.TitleParams("The events of the window, one by one (hover for details)",
                              fontSize=12))
    spec = static.to_dict()
    live = charts.finish(alt.vconcat(overview, detail).resolve_scale(color="independent"),
                         spec["title"], spec["description"])
    return charts.show(static, interactive=True, live=live)
