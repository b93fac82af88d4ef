"""The timeline (Gantt) chart of a replayed trace, as a Vega-Lite specification (a plain
dictionary: no Altair, no pandas), for the report page and the book alike.

One row per agent (depth first down the spawn tree, tools last). Behind each row a grey band
shows the agent's life: for a spawned agent the time it is *alive* (spawn to first return or
despawn, else the end of the trace, as :mod:`masrl.traces.run` defines it); for a root, the
span from its first event's start to its last event's end. On top, each event is a bar from its
start to its end (a tick when it is instantaneous) coloured by its kind, and a black line walks
the critical path event by event, through each event's start and end.

A log without a clock (every event at one time: :mod:`.facts`) is drawn on a *step* axis: each
event at its place in the run's order, the axis titled so.

The labels of a trace (:mod:`.labels`) are marked on both kinds of timeline: a dark red
triangle above each labelled step, pointing at it (its own legend entry), and the lane of each
labelled agent tinted instead of grey (an entry of the colour legend).

A trace too crowded to draw event by event (a real session: hundreds of events, minutes apart
or milliseconds apart) gets a *binned* timeline instead (:func:`binned_gantt`): the run is cut
into equal buckets of a round length, each at least :data:`MIN_CELL_PX` pixels wide, and each
agent's lane shows, per bucket, a column as tall as the square root of the number of its events
active in that bucket, split by kind; a black stripe under a lane marks the buckets in which
that agent's events lie on the critical path. :func:`timeline` picks the right chart and, for a
binned one, adds for the interactive page an overview whose brushed window drives a detailed
timeline of the events inside it (zoom).
"""

from __future__ import annotations

import json
import math

import numpy as np

from masrl.presentation import vega
from masrl.presentation.report import labels as labelling
from masrl.presentation.report import names as naming
from masrl.presentation.report.agents import agent_order
from masrl.presentation.report.blocks import LABELLED_COLOUR
from masrl.presentation.report.facts import SECONDS, Facts
from masrl.presentation.vega import OKABE_ITO
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
LABELLED_AGENT, LABELLED_STEP = "labelled agent", "labelled step"
BAND_COLOURS = {SPAWNED_LIFE: "#BBBBBB", ROOT_LIFE: "#E4E4E4", LABELLED_AGENT: "#F2B5BD"}
LABEL_SHAPES = {LABELLED_STEP: "triangle-down"}
LABEL_MARK_SIZE = 170
PATH_COLOUR = OKABE_ITO[7]  # black
ROW_HEIGHT = 26
MAX_LISTED_PATH = 12
TIME_TITLE = "time since the start of the run (s)"
STEP_TITLE = "step (the log records no times)"


def facts_of(found: Replay | Facts) -> Facts:
    return found if isinstance(found, Facts) else Facts(found)


def axis_title(facts: Facts) -> str:
    return TIME_TITLE if facts.clock == SECONDS else STEP_TITLE


def _unit(facts: Facts) -> str:
    return "s" if facts.clock == SECONDS else "step"


def event_tooltip(facts: Facts) -> list[dict]:
    """What a reader reads on hovering an event of an interactive timeline."""
    unit = _unit(facts)
    times = ([{"field": "start", "type": "quantitative", "title": "start (s)", "format": ".6~g"},
              {"field": "end", "type": "quantitative", "title": "end (s)", "format": ".6~g"}]
             if unit == "s" else
             [{"field": "start", "type": "quantitative", "title": "step", "format": ",.0f"}])
    return [{"field": "event", "type": "nominal", "title": "event"},
            {"field": "type", "type": "nominal", "title": "type"},
            {"field": "agent", "type": "nominal", "title": "agent"},
            {"field": "tokens", "type": "quantitative", "title": "tokens", "format": ",.0f"},
            *times,
            {"field": "critical", "type": "nominal", "title": "on the critical path"}]


def event_rows(found: Replay | Facts) -> list[dict]:
    """One row per event in timeline order: id, type, kind, agent, tokens (0 when the event
    records none), start, end (steps without a clock), whether it is instantaneous and whether
    it lies on the critical path."""
    facts = facts_of(found)
    run = facts.run
    events = run.trace.events
    start, end = facts.positions()
    critical = set(metrics.critical_path(run))
    tokens = run.trace.numeric("tokens")
    rows = []
    for i in run.timeline.tolist():
        kind = EVENT_TYPES[events.types[i]]
        rows.append({"event": naming.shown(events.ids[i]), "type": kind,
                     "kind": EVENT_KINDS[kind], "agent": naming.label(events.agent(i)),
                     "tokens": float(tokens[i]),
                     "start": float(start[i]), "end": float(end[i]),
                     "instant": bool(end[i] == start[i]), "critical": i in critical})
    return rows


def lifetime_rows(found: Replay | Facts) -> list[dict]:
    """One band per agent, in :func:`agent_order`: from, to and what the band means. Without a
    clock, every band runs from the agent's first step (its spawn, for a spawned agent) to its
    last."""
    facts = facts_of(found)
    run = facts.run
    events = run.trace.events
    start, end = facts.positions()
    labelled = labelling.labelled_agents(facts)
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    for code, s, e in zip(events.agent_codes.tolist(), start.tolist(), end.tolist()):
        name = events.agent_names[code]
        first[name] = min(first.get(name, s), s)
        last[name] = max(last.get(name, e), e)
    rows = []
    for name in agent_order(run):
        agent = run.agents[name]
        if agent.spawned_at is None:
            rows.append({"agent": naming.label(name), "start": first[name], "end": last[name],
                         "band": ROOT_LIFE})
        elif facts.clock == SECONDS:
            stop = run.trace_end if agent.ended_at is None else agent.ended_at
            rows.append({"agent": naming.label(name), "start": agent.spawned_at, "end": stop,
                         "band": SPAWNED_LIFE})
        else:
            spawn = (int(events.index.positions([agent.spawn_event])[0])
                     if agent.spawn_event else -1)
            begin = min(first.get(name, math.inf),
                        float(start[spawn]) if spawn >= 0 else math.inf)
            rows.append({"agent": naming.label(name), "start": begin, "end": last.get(name, begin),
                         "band": SPAWNED_LIFE})
        if name in labelled:
            rows[-1]["band"] = LABELLED_AGENT
    return rows


def label_rows(found: Replay | Facts) -> list[dict]:
    """One row per labelled step (:func:`.labels.labelled_events`), in the run's order: its
    event, agent, place on the time axis (``start``), step, and the names of its labels."""
    facts = facts_of(found)
    events = facts.run.trace.events
    start, _ = facts.positions()
    numbers = labelling.step_numbers(facts)
    rows = [{"event": naming.shown(events.ids[i]), "agent": naming.label(events.agent(i)),
             "start": float(start[i]),
             "step": int(numbers[i]), "labels": labelling.names_of(found_labels),
             "mark": LABELLED_STEP}
            for i, found_labels in labelling.labelled_events(facts).items()]
    return sorted(rows, key=lambda row: row["step"])


def _label_layer(facts: Facts, rows: list[dict], x: dict, y: dict, *, offset: int = 0,
                 legend: bool = True, clip: bool = False) -> dict:
    """The triangles of the labelled steps: a point mark at each, its own legend entry."""
    unit = _unit(facts)
    where = ({"field": "start", "type": "quantitative", "title": "start (s)", "format": ".6~g"}
             if unit == "s" else None)
    tooltip = [{"field": "mark", "type": "nominal", "title": "mark"},
               {"field": "labels", "type": "nominal", "title": "labels"},
               {"field": "event", "type": "nominal", "title": "event"},
               {"field": "agent", "type": "nominal", "title": "agent"},
               {"field": "step", "type": "quantitative", "title": "step", "format": ",.0f"},
               *([where] if where else [])]
    mark = {"type": "point", "filled": True, "size": LABEL_MARK_SIZE, "opacity": 1,
            "stroke": "white", "strokeWidth": 1, "color": LABELLED_COLOUR}
    if offset:
        mark["yOffset"] = offset
    if clip:
        mark["clip"] = True
    shape = {"field": "mark", "type": "nominal",
             "scale": {"domain": list(LABEL_SHAPES), "range": list(LABEL_SHAPES.values())},
             "legend": {"orient": "bottom", "title": None, "labelLimit": 220} if legend
             else None}
    return {"mark": mark, "encoding": {"x": x, "y": y, "shape": shape, "tooltip": tooltip}}


def labels_text(facts: Facts) -> str:
    """What the text alternative says of the labels' marks ("" when there are none)."""
    steps = label_rows(facts)
    agents = list(labelling.labelled_agents(facts))
    said = []
    if steps:
        listed = ", ".join(f"step {row['step']} (event {row['event']}, {row['agent']}: "
                           f"{row['labels']})" for row in steps[:MAX_LISTED_PATH])
        said.append(f"A dark red triangle marks each labelled step: {listed}.")
    if agents:
        said.append("The lane of each labelled agent is tinted red: "
                    f"{', '.join(naming.shown_all(agents))}.")
    return (" " + " ".join(said)) if said else ""


def path_rows(found: Replay | Facts) -> list[dict]:
    """The critical path as a polyline: each critical event's start, then its end."""
    facts = facts_of(found)
    events = facts.run.trace.events
    start, end = facts.positions()
    rows = []
    for step, i in enumerate(metrics.critical_path(facts.run)):
        for half, time in ((0, start[i]), (1, end[i])):
            rows.append({"order": 2 * step + half, "event": naming.shown(events.ids[i]),
                         "agent": naming.label(events.agent(i)), "time": float(time),
                         "band": CRITICAL})
    return rows


def _title(facts: Facts) -> str:
    return f"Timeline of {naming.shown(facts.run.trace.head.get('trace_id') or facts.run.trace.source)}"


def _colour_scale(kinds: list[str], bands: list[str]) -> dict:
    return {"domain": [*kinds, *bands, CRITICAL],
            "range": [*(KIND_COLOURS[k] for k in kinds), *(BAND_COLOURS[b] for b in bands),
                      PATH_COLOUR]}


def gantt(found: Replay | Facts, *, title: str | None = None,
          description: str | None = None) -> dict:
    """The finished timeline of a replayed trace, event by event (see the module docstring)."""
    facts = facts_of(found)
    events, bands = event_rows(facts), lifetime_rows(facts)
    rows = [band["agent"] for band in bands]
    spec = _gantt_layers(facts, events, bands, path_rows(facts))
    return vega.finish(spec, title or _title(facts), description or describe(facts, events, rows),
                       height=ROW_HEIGHT * len(rows))


def _gantt_layers(facts: Facts, events: list[dict], bands: list[dict], path: list[dict], *,
                  window: str | None = None) -> dict:
    """The four layers of the event-by-event timeline: lives, lasting events, instantaneous
    events, the critical path. With ``window`` (the name of an interval selection on time),
    the time axis shows only the selected window, marks outside it are clipped, there is no
    legend (the overview above has it) and layers with nothing to draw are left out."""
    rows = [band["agent"] for band in bands]
    kinds = [k for k in KIND_COLOURS if k in {e["kind"] for e in events}]
    present = [b for b in BAND_COLOURS if b in {band["band"] for band in bands}]
    scale = _colour_scale(kinds, present)
    legend = {"orient": "bottom", "columns": 4, "title": None, "labelLimit": 220} \
        if window is None else None
    y = {"field": "agent", "type": "nominal", "sort": rows, "title": "agent",
         "scale": {"domain": rows}, "axis": {"labelLimit": 200}}

    def x(field: str) -> dict:
        encoding = {"field": field, "type": "quantitative", "title": axis_title(facts)}
        if window is not None:
            encoding["scale"] = {"domain": {"param": window}}
        return encoding

    def colour(field: str) -> dict:
        return {"field": field, "type": "nominal", "scale": scale, "legend": legend}

    clip = {"clip": True} if window is not None else {}
    lasting = [e for e in events if not e["instant"]]
    instant = [e for e in events if e["instant"]]
    tooltip = event_tooltip(facts)
    unit = _unit(facts)
    time_tip = ({"field": "time", "type": "quantitative", "title": "time (s)", "format": ".6~g"}
                if unit == "s" else
                {"field": "time", "type": "quantitative", "title": "step", "format": ",.0f"})
    layers = [
        ("lives", bands, {"mark": {"type": "bar", "height": ROW_HEIGHT - 4, **clip},
                          "encoding": {"y": y, "x": x("start"), "x2": {"field": "end"},
                                       "color": colour("band")}}),
        ("lasting", lasting, {"mark": {"type": "bar", "height": 10, **clip},
                              "encoding": {"y": y, "x": x("start"), "x2": {"field": "end"},
                                           "color": colour("kind"), "tooltip": tooltip}}),
        ("instant", instant, {"mark": {"type": "tick", "thickness": 3, "size": ROW_HEIGHT - 8,
                                       **clip},
                              "encoding": {"y": y, "x": x("start"), "color": colour("kind"),
                                           "tooltip": tooltip}}),
        ("path", path, {"mark": {"type": "line", "strokeWidth": 1.5,
                                 "point": {"size": 14}, **clip},
                        "encoding": {"y": y, "x": x("time"),
                                     "order": {"field": "order", "type": "quantitative"},
                                     "color": colour("band"),
                                     "tooltip": [{"field": "band", "type": "nominal",
                                                  "title": "on the"},
                                                 {"field": "event", "type": "nominal",
                                                  "title": "event"},
                                                 {"field": "agent", "type": "nominal",
                                                  "title": "agent"}, time_tip]}}),
    ]
    marked = label_rows(facts)
    if marked:
        layers.append(("labelled", marked,
                       _label_layer(facts, marked, x("start"), y, offset=-(ROW_HEIGHT // 2 - 5),
                                    legend=window is None, clip=window is not None)))
    prefix = "" if window is None else "detail_"
    drawn = [(name, rows_, layer) for name, rows_, layer in layers
             if window is None or rows_]
    return {"datasets": {prefix + name: rows_ for name, rows_, _ in drawn},
            "layer": [{"data": {"name": prefix + name}, **layer} for name, _, layer in drawn]}


def listed_path(path: list[str]) -> str:
    """The first :data:`MAX_LISTED_PATH` event ids of a critical path, joined by arrows."""
    more = " -> ..." if len(path) > MAX_LISTED_PATH else ""
    return " -> ".join(naming.shown_all(path[:MAX_LISTED_PATH])) + more


def _span_text(facts: Facts) -> str:
    if facts.clock == SECONDS:
        return f"{facts.data['wall_clock']:.6g} s"
    return f"{facts.data['events']} steps (the log records the order of events, not their times)"


def describe(facts: Facts, events: list[dict], rows: list[str]) -> str:
    """The chart's text alternative: what is drawn, and the critical path (first ids listed)."""
    found = facts.data
    return (
        f"Gantt chart of {len(events)} events over {_span_text(facts)}, one row per agent "
        f"({len(rows)} rows: {', '.join(rows)}). Bars run from each event's start to its end, "
        f"coloured by kind; instantaneous events are ticks; grey bands show each agent's life. "
        f"A black line follows the critical path of {found['critical_steps']} events: "
        f"{listed_path(found['critical_path'])}.{labels_text(facts)}"
    )


# ------------------------------------------------------------------------- crowded traces

DETAILED_WIDTH = 540  # px of the time axis of an event-by-event timeline
CROWDED_PX = 4  # two events of a lane closer than this on the time axis draw as one smear
MAX_CROWDED_SHARE = 0.4  # binned when more of the events than this are crowded...
MAX_DETAILED_EVENTS = 400  # ...or when there are more events than this
MIN_CROWDED_EVENTS = 10  # crowded means at least this many events drawn as one smear
BINNED_WIDTH = vega.COLUMN_WIDTH  # px of the time axis of a binned timeline: the column
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
LABEL_TOP = 0.16  # the triangle of a labelled step, near its lane's top
EPSILON = 1e-9  # in buckets: how far a time may sit off a bucket boundary and count as on it


def crowded_share(found: Replay | Facts, width: int = DETAILED_WIDTH) -> float:
    """The share of events that start within :data:`CROWDED_PX` pixels of the previous event of
    their agent, when the run is drawn ``width`` pixels wide (0 for a trace of one event)."""
    facts = facts_of(found)
    events = facts.run.trace.events
    start, end = facts.positions()
    span = float(end.max() - start.min()) if events.count else 0.0
    if events.count < 2 or span <= 0:
        return 1.0 if events.count > 1 else 0.0
    x = start / span * width
    order = np.lexsort((x, events.agent_codes))
    codes, x = events.agent_codes[order], x[order]
    same = codes[1:] == codes[:-1]
    return float((same & (np.diff(x) < CROWDED_PX)).sum() / events.count)


def is_binned(found: Replay | Facts) -> bool:
    """Whether the timeline is drawn binned: more than :data:`MAX_DETAILED_EVENTS` events, or
    more than :data:`MAX_CROWDED_SHARE` of them crowded (:func:`crowded_share`) and at least
    :data:`MIN_CROWDED_EVENTS` (a few ticks of a short run that touch stay legible)."""
    facts = facts_of(found)
    events = facts.data["events"]
    share = crowded_share(facts)
    return events > MAX_DETAILED_EVENTS or (share > MAX_CROWDED_SHARE
                                            and share * events >= MIN_CROWDED_EVENTS)


def bucket_seconds(span: float, width: int = BINNED_WIDTH) -> float:
    """The shortest round length (:data:`NICE_SECONDS`, then whole days) that cuts ``span``
    seconds into buckets at least :data:`MIN_CELL_PX` pixels wide at ``width`` pixels (divided
    first: a span near the largest double would overflow if multiplied first)."""
    smallest = span / width * MIN_CELL_PX
    for seconds in NICE_SECONDS:
        if seconds >= smallest:
            return float(seconds)
    return 86400.0 * math.ceil(smallest / 86400.0)


def bucket_steps(span: float, width: int = BINNED_WIDTH) -> float:
    """The shortest round number of steps (1, 2, 5, 10, 20, 50...) that cuts ``span`` steps
    into buckets at least :data:`MIN_CELL_PX` pixels wide at ``width`` pixels."""
    smallest = span * MIN_CELL_PX / width
    power = 1
    while True:
        for m in (1, 2, 5):
            if m * power >= smallest:
                return float(m * power)
        power *= 10


def other_lane(count: int) -> str:
    """The name of the lane that holds the agents left out of their own (:data:`MAX_LANES`)."""
    return f"({count} other agents)"


def lanes(found: Replay | Facts) -> tuple[list[str], dict[str, str]]:
    """The lanes of a binned timeline, top to bottom, and each agent's lane (agents by their
    full names, lanes by the names the page shows: :func:`.names.shown`). Every agent has its
    own lane (in :func:`agent_order`) unless there are more than :data:`MAX_LANES`: then the
    agents with critical events, then the busiest, keep theirs and the others share the last."""
    run = facts_of(found).run
    order = agent_order(run)
    if len(order) <= MAX_LANES:
        return [naming.label(name) for name in order], {name: naming.label(name) for name in order}
    events = run.trace.events
    counts = np.bincount(events.agent_codes, minlength=len(events.agent_names))
    busy = dict(zip(events.agent_names, counts.tolist()))
    critical = {events.agent(i) for i in metrics.critical_path(run)}
    place = {name: k for k, name in enumerate(order)}
    rank = sorted(order, key=lambda name: (name not in critical, -busy.get(name, 0),
                                           place[name]))
    kept = set(rank[:MAX_LANES - 1])
    shared = other_lane(len(order) - len(kept))
    return ([naming.label(name) for name in order if name in kept] + [shared],
            {name: naming.label(name) if name in kept else shared for name in order})


def binned_frames(found: Replay | Facts, width: int = BINNED_WIDTH) -> dict:
    """What a binned timeline draws, computed once: ``lanes``, ``seconds`` (bucket length, in
    seconds or steps), ``origin`` (start of the first bucket), ``buckets``, ``tallest`` (most
    events of one lane in one bucket) and three lists of rows:

    * ``cells``: one row per lane, bucket and kind with events, in lane units (lane ``i`` runs
      from ``i`` at its top to ``i + 1``): ``lane``, ``lane_index``, ``from``, ``to``,
      ``kind``, ``count`` (events of that kind active in the bucket), ``events`` (all of the
      lane's active in the bucket), ``y`` and ``y2`` (the segment's bottom and top);
    * ``bands``: the agents' lives (:func:`lifetime_rows`) on their lanes (``lane``,
      ``lane_index``, ``start``, ``end``, ``band``), agents sharing the last lane left out;
    * ``stripes``: per lane, the runs of consecutive buckets holding critical events of it:
      ``lane``, ``lane_index``, ``from``, ``to``, ``critical`` (how many);
    * ``labelled``: the labelled steps (:func:`label_rows`) on their lanes, ``top`` where the
      triangle sits.
    """
    facts = facts_of(found)
    run = facts.run
    events = run.trace.events
    start, end = facts.positions()
    names, lane_of = lanes(facts)
    index = {name: k for k, name in enumerate(names)}
    lane_of_shown = {naming.label(name): lane for name, lane in lane_of.items()}
    origin = float(start.min())
    span = float(end.max()) - origin
    seconds = (bucket_seconds if facts.clock == SECONDS else bucket_steps)(span, width)
    buckets = max(1, math.ceil(span / seconds - EPSILON))
    agent_lane = np.array([index[lane_of[name]] for name in events.agent_names], dtype=np.int64)
    lane = agent_lane[events.agent_codes]
    kind_names = list(dict.fromkeys(EVENT_KINDS.values()))
    kind_of_type = np.array([kind_names.index(EVENT_KINDS[t]) for t in EVENT_TYPES])
    kind = kind_of_type[events.types]
    # (a time on a boundary opens the bucket that starts there and closes the one before it,
    # whatever the rounding of the division; the end of the run lies in the last bucket)
    first = np.floor((start - origin) / seconds + EPSILON).astype(np.int64)
    last = np.maximum(first, np.ceil((end - origin) / seconds - EPSILON).astype(np.int64) - 1)
    first, last = np.minimum(first, buckets - 1), np.minimum(last, buckets - 1)
    # an event is active in buckets first..last: a difference array, then a running sum
    active = np.zeros((len(names), len(kind_names), buckets + 1), dtype=np.int64)
    np.add.at(active, (lane, kind, first), 1)
    np.add.at(active, (lane, kind, last + 1), -1)
    active = np.cumsum(active, axis=2)[:, :, :buckets]
    per_cell = active.sum(axis=1)
    tallest = int(per_cell.max()) if per_cell.size else 0
    cells = []
    for i, b in zip(*np.nonzero(per_cell)):
        total = int(per_cell[i, b])
        height = BAR_HEIGHT * math.sqrt(total / tallest)
        below = 0
        for k, name in enumerate(kind_names):
            n = int(active[i, k, b])
            if n:
                bottom = i + BAR_BASE - height * below / total
                below += n
                top = i + BAR_BASE - height * below / total
                cells.append({"lane": names[i], "lane_index": int(i),
                              "from": origin + b * seconds, "to": origin + (b + 1) * seconds,
                              "kind": name, "count": n, "events": total, "y": bottom,
                              "y2": top})
    bands = [{"lane": band["agent"], "lane_index": index[band["agent"]], "start": band["start"],
              "end": band["end"], "band": band["band"]}
             for band in lifetime_rows(facts) if lane_of_shown[band["agent"]] == band["agent"]]
    critical = np.array(metrics.critical_path(run), dtype=np.int64)
    marked = np.zeros((len(names), buckets + 1), dtype=np.int64)
    np.add.at(marked, (lane[critical], first[critical]), 1)
    stripes = []
    for i in range(len(names)):
        b = 0
        while b < buckets:
            if marked[i, b]:
                begin = b
                while b < buckets and marked[i, b]:
                    b += 1
                stripes.append({"lane": names[i], "lane_index": i,
                                "from": origin + begin * seconds, "to": origin + b * seconds,
                                "critical": int(marked[i, begin:b].sum())})
            else:
                b += 1
    labelled = [{**row, "lane": lane_of_shown[row["agent"]],
                 "lane_index": index[lane_of_shown[row["agent"]]],
                 "top": index[lane_of_shown[row["agent"]]] + LABEL_TOP}
                for row in label_rows(facts)]
    return {"lanes": names, "seconds": seconds, "origin": origin, "buckets": buckets,
            "tallest": tallest, "cells": cells, "bands": bands, "stripes": stripes,
            "labelled": labelled, "clock": facts.clock}


def duration_text(seconds: float, clock: str = SECONDS) -> str:
    """A bucket length as a reader says it: ``0.5 s``, ``1 min``, ``2 h``; ``10 steps``."""
    if clock != SECONDS:
        return f"{seconds:g} step" + ("" if seconds == 1 else "s")
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"


def binned_gantt(found: Replay | Facts, *, title: str | None = None,
                 description: str | None = None, width: int = BINNED_WIDTH) -> dict:
    """The finished binned timeline of a crowded trace (see the module docstring)."""
    facts = facts_of(found)
    binned = binned_frames(facts, width)
    spec = _binned_layers(facts, binned)
    bucket = duration_text(binned["seconds"], facts.clock)
    buckets = f"{bucket} buckets" if facts.clock == SECONDS else f"buckets of {bucket}"
    heading = {"text": title or _title(facts),
               "subtitle": [f"{facts.data['events']:,} events in {buckets}; column "
                            f"height: square root of the events active in the bucket (tallest "
                            f"{binned['tallest']:,}); black stripe: on the critical path"]}
    finished = vega.finish(spec, heading, description or describe_binned(facts, binned),
                           height=LANE_PX * len(binned["lanes"]))
    finished["width"] = width
    return finished


def _binned_layers(facts: Facts, binned: dict, window: str | None = None) -> dict:
    names, cells, bands, stripes = (binned["lanes"], binned["cells"], binned["bands"],
                                    binned["stripes"])
    kinds = [k for k in KIND_COLOURS if k in {c["kind"] for c in cells}]
    present = [b for b in BAND_COLOURS if b in {band["band"] for band in bands}]
    scale = _colour_scale(kinds, present)
    legend = {"orient": "bottom", "columns": 4, "title": None, "labelLimit": 220}
    # the lane names as the y axis' labels: a tick at each lane's middle, named from a list
    # written as JSON (a string literal of Vega's expression language, whatever the name holds)
    labels = json.dumps(names, ensure_ascii=True)
    y_scale = {"domain": [len(names), 0], "nice": False, "zero": False}
    y_axis = {"values": [i + 0.5 for i in range(len(names))], "grid": False, "ticks": False,
              "domain": False, "labelLimit": 240, "labelFontSize": 11, "title": "agent",
              "labelExpr": f"{labels}[floor(datum.value)]"}
    x_scale = {"nice": False, "zero": False,
               "domain": [binned["origin"],
                          binned["origin"] + binned["buckets"] * binned["seconds"]]}
    # a label every 90 px or so (Vega rounds the step), and any that would touch hidden
    x_axis = {"tickCount": BINNED_WIDTH // 90, "labelOverlap": True, "labelFlush": True}
    title = axis_title(facts)

    def x(field: str) -> dict:
        return {"field": field, "type": "quantitative", "title": title, "scale": x_scale,
                "axis": x_axis}

    def y(field: str) -> dict:
        return {"field": field, "type": "quantitative", "scale": y_scale, "axis": y_axis}

    def colour(field: str) -> dict:
        return {"field": field, "type": "nominal", "scale": scale, "legend": legend}

    unit = "s" if facts.clock == SECONDS else "step"
    span = [{"field": "from", "type": "quantitative", "title": f"from ({unit})",
             "format": ".6~g"},
            {"field": "to", "type": "quantitative", "title": f"to ({unit})", "format": ".6~g"}]
    prefix = "" if window is None else "overview_"
    lives = [{**band, "top": band["lane_index"] + BAND_TOP,
              "bottom": band["lane_index"] + BAR_BASE} for band in bands]
    marked = [{**stripe, "band": CRITICAL, "top": stripe["lane_index"] + STRIPE_TOP,
               "bottom": stripe["lane_index"] + STRIPE_BOTTOM} for stripe in stripes]
    columns = {"data": {"name": prefix + "cells"},
               "mark": {"type": "rect", "stroke": "white", "strokeWidth": 0.5},
               "encoding": {"x": x("from"), "x2": {"field": "to"}, "y": y("y"),
                            "y2": {"field": "y2"}, "color": colour("kind"),
                            "tooltip": [{"field": "lane", "type": "nominal", "title": "agent"},
                                        {"field": "kind", "type": "nominal", "title": "kind"},
                                        {"field": "count", "type": "quantitative",
                                         "title": "events of this kind", "format": ",.0f"},
                                        {"field": "events", "type": "quantitative",
                                         "title": "events in the bucket", "format": ",.0f"},
                                        *span]}}
    if window is not None:  # a fixed view name: same chart, same bytes
        columns = {"name": "overview_columns", **columns,
                   "params": [{"name": window, "select": {"type": "interval",
                                                          "encodings": ["x"]},
                               "value": {"x": binned["live_window"]}}]}
    labelled = binned.get("labelled") or []
    label_layers = [{"data": {"name": prefix + "labelled"},
                     **_label_layer(facts, labelled, x("start"), y("top"))}] if labelled else []
    return {
        "datasets": {prefix + "lives": lives, prefix + "cells": cells, prefix + "stripes": marked,
                     **({prefix + "labelled": labelled} if labelled else {})},
        "layer": [
            {"data": {"name": prefix + "lives"}, "mark": {"type": "rect"},
             "encoding": {"x": x("start"), "x2": {"field": "end"}, "y": y("bottom"),
                          "y2": {"field": "top"}, "color": colour("band")}},
            columns,
            {"data": {"name": prefix + "stripes"}, "mark": {"type": "rect"},
             "encoding": {"x": x("from"), "x2": {"field": "to"}, "y": y("bottom"),
                          "y2": {"field": "top"}, "color": colour("band"),
                          "tooltip": [{"field": "lane", "type": "nominal", "title": "agent"},
                                      {"field": "critical", "type": "quantitative",
                                       "title": "events on the critical path",
                                       "format": ",.0f"}, *span]}},
            *label_layers,
        ],
    }


def describe_binned(facts: Facts, binned: dict) -> str:
    """The binned chart's text alternative: what is drawn, and the critical path."""
    found = facts.data
    bucket = duration_text(binned["seconds"], facts.clock)
    return (
        f"Binned timeline of {found['events']} events over {_span_text(facts)}, one lane per "
        f"agent ({len(binned['lanes'])} lanes: {', '.join(binned['lanes'])}). "
        f"The run is cut into {binned['buckets']} buckets of {bucket}; in each, a lane's column "
        f"grows with the square root of its events active in the bucket (the tallest holds "
        f"{binned['tallest']}), split by kind; grey bands show each agent's life. A black "
        f"stripe under a lane marks the buckets where the critical path of "
        f"{found['critical_steps']} events runs through that agent: "
        f"{listed_path(found['critical_path'])}.{labels_text(facts)}"
    )


def live_window(events: list[dict]) -> list[float]:
    """The window the interactive detail view opens on: from the first event to the start of
    the :data:`LIVE_WINDOW_EVENTS`-th (the whole run when it has fewer)."""
    starts = sorted(e["start"] for e in events)
    first = float(starts[0])
    if len(starts) <= LIVE_WINDOW_EVENTS:
        last = max(float(starts[-1]), max(e["end"] for e in events))
    else:
        last = float(starts[LIVE_WINDOW_EVENTS - 1])
    return [first, last if last > first else first + 1.0]


class Timeline:
    """The timeline a reader sees: ``static``, the specification drawn where nothing moves (the
    book's SVG), and ``live``, the one drawn in a page (the same, or a zoomable one)."""

    def __init__(self, static: dict, live: dict):
        self.static, self.live = static, live

    @property
    def title(self) -> str:
        return vega.title_text(self.static["title"])

    @property
    def description(self) -> str:
        return self.static["description"]


def timeline(found: Replay | Facts) -> Timeline:
    """The timeline of a trace: event by event when that is legible; else binned
    (:func:`binned_gantt`) as the static chart and, for the live page, that overview with a
    brush above the events of the brushed window, event by event (up to
    :data:`MAX_LIVE_EVENTS` events; beyond, the overview alone)."""
    facts = facts_of(found)
    if not is_binned(facts):
        spec = gantt(facts)
        return Timeline(spec, spec)
    static = binned_gantt(facts)
    if facts.data["events"] > MAX_LIVE_EVENTS:
        return Timeline(static, static)
    events, bands = event_rows(facts), lifetime_rows(facts)
    binned = binned_frames(facts)
    binned["live_window"] = live_window(events)
    overview = {**_binned_layers(facts, binned, window="window"), "width": BINNED_WIDTH,
                "height": LANE_PX * len(binned["lanes"]),
                "title": {"text": "Overview (drag across it to zoom below)", "fontSize": 12}}
    detail = {**_gantt_layers(facts, events, bands, path_rows(facts), window="window"),
              "width": BINNED_WIDTH, "height": ROW_HEIGHT * len(bands),
              "title": {"text": "The window, event by event (hover for details)",
                        "fontSize": 12}}
    datasets = {**overview.pop("datasets"), **detail.pop("datasets")}
    live = vega.finish({"datasets": datasets, "vconcat": [overview, detail],
                        "resolve": {"scale": {"color": "independent"}}},
                       static["title"], static["description"])
    return Timeline(static, live)
