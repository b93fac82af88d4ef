"""The timeline (Gantt) chart, a Vega-Lite specification built as a plain dictionary: one band per
agent, one mark per event, the critical path marked, a finished chart (title, text alternative,
Okabe-Ito) that the book renders to SVG with trace text escaped; binned when crowded; drawn on
a step axis when the log has no clock."""

from __future__ import annotations

import json
import re

import pytest
from replay_examples import HOSTILE, NAMES, example, hostile_replay
from trace_helpers import replayed

from masrl.presentation import charts, vega
from masrl.presentation.report import timeline as trace_charts
from masrl.presentation.report.agents import agent_order
from masrl.traces import Replay
from masrl.traces.synthetic import swarm_trace


@pytest.fixture(scope="module")
def examples() -> dict:
    return {name: example(name) for name in NAMES}


def layer_data(spec: dict, k: int) -> list[dict]:
    """The rows drawn by layer ``k`` of a finished layered chart."""
    return spec["datasets"][spec["layer"][k]["data"]["name"]]


@pytest.mark.parametrize("name", NAMES)
def test_one_band_per_agent(examples, name):
    found = examples[name]
    bands = trace_charts.lifetime_rows(found)
    assert [band["agent"] for band in bands] == agent_order(found.run)
    assert len(bands) == len(found.run.agents)
    assert all(band["end"] >= band["start"] for band in bands)
    chart = trace_charts.gantt(found)
    assert len(layer_data(chart, 0)) == len(found.run.agents)


@pytest.mark.parametrize("name", NAMES)
def test_one_mark_per_event_and_the_critical_path_marked(examples, name):
    found = examples[name]
    events = trace_charts.event_rows(found)
    assert len(events) == found.metrics["events"]
    chart = trace_charts.gantt(found)
    assert len(layer_data(chart, 1)) + len(layer_data(chart, 2)) == found.metrics["events"]
    critical = {e["event"] for e in events if e["critical"]}
    assert critical == set(found.metrics["critical_path"])
    path = layer_data(chart, 3)
    assert len(path) == 2 * found.metrics["critical_steps"]
    assert [row["event"] for row in path[::2]] == found.metrics["critical_path"]


def test_spawned_bands_are_lifetimes_and_root_bands_span_their_events(examples):
    bands = {b["agent"]: b for b in trace_charts.lifetime_rows(examples["hierarchical"])}
    assert [bands["analyst_finance_1"][k] for k in ("start", "end", "band")] == [
        3.6, 6.7, trace_charts.SPAWNED_LIFE]
    assert [bands["director"][k] for k in ("start", "end", "band")] == [
        0.0, pytest.approx(18.1), trace_charts.ROOT_LIFE]
    assert [bands["sql.query"][k] for k in ("start", "end")] == [4.85, pytest.approx(7.2)]


def test_instantaneous_events_are_ticks(examples):
    events = {e["event"]: e for e in trace_charts.event_rows(examples["centralized"])}
    assert events["s1"]["instant"] and events["r4"]["instant"]
    assert not events["d1"]["instant"]
    assert events["d1"]["kind"] == "orchestrator decision"
    assert events["ret1"]["kind"] == "return or aggregate"


def test_the_chart_is_finished_with_the_palette_and_the_path_in_black(examples):
    spec = trace_charts.gantt(examples["harness"])
    assert spec["title"] == "Timeline of example-harness"
    assert "critical path of 19 events: h1 -> d1 -> c1" in spec["description"]
    assert spec["description"].endswith("-> ...."), "long paths are cut in the description"
    assert spec["config"]["range"]["category"] == charts.OKABE_ITO == vega.OKABE_ITO
    scale = spec["layer"][3]["encoding"]["color"]["scale"]
    assert scale["range"][scale["domain"].index("critical path")] == "#000000"
    assert spec["layer"][0]["encoding"]["y"]["scale"]["domain"] == agent_order(
        examples["harness"].run)
    assert spec["layer"][0]["encoding"]["x"]["title"] == "time since the start of the run (s)"
    assert "human or safety" in scale["domain"]
    assert "message" in scale["domain"] and "tool result" in scale["domain"]


def test_colours_stay_fixed_across_traces(examples):
    for found in examples.values():
        scale = trace_charts.gantt(found)["layer"][1]["encoding"]["color"]["scale"]
        for kind, colour in zip(scale["domain"], scale["range"]):
            if kind in trace_charts.KIND_COLOURS:
                assert trace_charts.KIND_COLOURS[kind] == colour


def test_the_chart_renders_to_svg_with_its_text_alternative(examples):
    figure = charts.show(trace_charts.gantt(examples["debate"]))
    assert figure.svg.startswith("<svg")
    assert "debater_3" in figure.svg and "moderator" in figure.svg
    html = figure._repr_html_()
    assert html.startswith('<figure class="masrl-chart" role="img" aria-label="Timeline of '
                           'example-debate. Gantt chart of 18 events')


def test_trace_text_is_escaped_in_the_svg():
    figure = charts.show(trace_charts.gantt(hostile_replay()))
    assert "<img" not in figure.svg and "<img" not in figure._repr_html_()
    assert "&lt;img" in figure.svg
    assert HOSTILE in figure.description


def test_an_interactive_timeline_carries_its_specification_with_event_tooltips(examples):
    import json
    import re

    from masrl.presentation import charts

    figure = charts.show(trace_charts.gantt(examples["centralized"]), interactive=True)
    page = figure._repr_html_()
    assert 'class="masrl-chart masrl-interactive"' in page and "<svg" in page
    embedded = re.search(r'<script type="application/json" class="masrl-spec">(.*?)</script>',
                         page, re.S).group(1)
    spec = json.loads(embedded)
    assert "$schema" not in spec and spec["description"] == figure.description
    tooltips = [[t["field"] for t in layer["encoding"]["tooltip"]] for layer in spec["layer"]
                if "tooltip" in layer.get("encoding", {})]
    events = [fields for fields in tooltips if "tokens" in fields]
    assert len(events) == 2  # the bars of lasting events and the ticks of instant ones
    assert all(fields[:4] == ["event", "type", "agent", "tokens"] for fields in events)
    assert repr(figure) == repr(charts.show(trace_charts.gantt(examples["centralized"])))
    assert charts.show(trace_charts.gantt(examples["centralized"]),
                       interactive=True)._repr_html_() == page  # the same bytes twice


def test_an_embedded_specification_cannot_close_its_script_element():
    import json

    from masrl.presentation import charts

    text = charts.embedded_spec({"$schema": "https://example.org/s.json",
                                 "title": "</script><script>alert(1)</script> & more"})
    assert "<" not in text and ">" not in text and "&" not in text and "example.org" not in text
    assert json.loads(text) == {"title": "</script><script>alert(1)</script> & more"}


# --------------------------------------------------------------------- crowded traces: binned

def large_swarm(agents: int = 60, calls: int = 40, waves: int = 6) -> Replay:
    """A synthetic swarm of ``agents`` sub-agents making ``calls`` tool calls each (4,933
    events by default, in 61 agents)."""
    return replayed(swarm_trace([calls] * agents, waves=waves, call_seconds=0.2,
                                trace_id="large-swarm"))


@pytest.fixture(scope="module")
def large() -> Replay:
    return large_swarm()


def test_worked_examples_are_drawn_event_by_event_and_a_large_trace_binned(examples, large):
    assert not any(trace_charts.is_binned(found) for found in examples.values())
    assert large.metrics["events"] > trace_charts.MAX_DETAILED_EVENTS
    assert trace_charts.is_binned(large)
    # a small trace whose events come in bursts is binned too: ten calls a millisecond apart,
    # then an hour of silence
    document = swarm_trace([10], call_seconds=None)
    for event in document["events"]:
        event["t"] = round(event["t"] / 1000, 6) if event["t"] < 100 else event["t"]
    document["events"][-1]["t"] = 3600.0
    burst = replayed(document)
    assert burst.metrics["events"] < trace_charts.MAX_DETAILED_EVENTS
    assert trace_charts.crowded_share(burst) > trace_charts.MAX_CROWDED_SHARE
    assert trace_charts.is_binned(burst)


def test_buckets_have_a_round_length_and_are_wide_enough():
    assert trace_charts.bucket_seconds(4180.0, width=720) == 60  # 34.8 s at least: the next round length
    assert trace_charts.bucket_seconds(8.0, width=720) == 0.1
    assert trace_charts.bucket_seconds(0.0, width=720) == 0.001
    assert trace_charts.bucket_seconds(30 * 86400.0, width=720) == 21600  # 6 h: 0.25 day at least
    assert trace_charts.bucket_seconds(1000 * 86400.0, width=720) == 86400.0 * 9  # 8.3 days: whole days
    assert trace_charts.bucket_seconds(1.7e308) < 1.7e308  # no overflow near the largest double
    for span in (0.01, 1.0, 8.0, 135.0, 4180.0, 86400.0, 1e7, 1e308):
        seconds = trace_charts.bucket_seconds(span)
        assert seconds / span * trace_charts.BINNED_WIDTH >= trace_charts.MIN_CELL_PX


def test_each_event_is_counted_in_every_bucket_it_is_active_in(small):
    """small.json drawn binned: 0.1 s buckets over its 8 s; each count below is read off the
    fixture's events (e1 0-1 s, spawns e2 e3 at 1 s, e4 2-4 s, e5 at 4, e6 2-5 s, e7 at 5,
    e8 at 6, e9 7-8 s)."""
    found = trace_charts.binned_frames(replayed(small))
    assert (found["seconds"], found["origin"], found["buckets"]) == (0.1, 0.0, 80)
    cells = found["cells"]

    def buckets(lane: str, kind: str) -> dict[int, int]:
        return {round(c["from"] * 10): c["count"] for c in cells
                if c["lane"] == lane and c["kind"] == kind}

    assert buckets("root", "orchestrator decision") == {b: 1 for b in range(0, 10)}
    assert buckets("root", "spawn or despawn") == {10: 2}
    assert buckets("root", "return or aggregate") == {b: 1 for b in range(70, 80)}
    assert buckets("a", "tool call") == {b: 1 for b in range(20, 40)}
    assert buckets("a", "return or aggregate") == {50: 1}
    assert buckets("b", "message") == {b: 1 for b in range(20, 50)}
    assert buckets("b", "return or aggregate") == {60: 1}
    assert buckets("search", "tool result") == {40: 1}
    assert found["tallest"] == 2
    assert len(cells) == 10 + 1 + 10 + 20 + 1 + 30 + 1 + 1


def test_an_instantaneous_event_lies_in_exactly_one_bucket(large):
    all_instant = replayed(swarm_trace([40] * 12, waves=3))  # no call_seconds: no durations
    cells = trace_charts.binned_frames(all_instant)["cells"]
    assert sum(c["count"] for c in cells) == all_instant.metrics["events"]
    cells = trace_charts.binned_frames(large)["cells"]
    assert sum(c["count"] for c in cells) >= large.metrics["events"]


def test_columns_and_stripes_stay_in_their_lane_and_never_overlap(large):
    found = trace_charts.binned_frames(large)
    cells, stripes = found["cells"], found["stripes"]
    seconds = found["seconds"]
    px = seconds / (found["buckets"] * seconds) * trace_charts.BINNED_WIDTH
    assert px >= trace_charts.MIN_CELL_PX
    columns: dict[tuple, list[dict]] = {}
    for cell in cells:
        columns.setdefault((cell["lane_index"], cell["from"]), []).append(cell)
    for (lane, start), column in columns.items():
        assert len({c["to"] for c in column}) == 1
        assert column[0]["to"] == pytest.approx(start + seconds)
        # segments stacked bottom-up without gaps or overlaps, inside the lane's bar area
        ys = sorted(((c["y"], c["y2"]) for c in column), reverse=True)
        assert ys[0][0] == pytest.approx(lane + trace_charts.BAR_BASE)
        for (bottom, top), (next_bottom, _) in zip(ys, ys[1:]):
            assert top < bottom and next_bottom == pytest.approx(top)
        assert ys[-1][1] >= lane + trace_charts.BAR_BASE - trace_charts.BAR_HEIGHT - 1e-9
        assert column[0]["events"] == sum(c["count"] for c in column)
    keys = [(c["lane_index"], c["from"], c["kind"]) for c in cells]
    assert len(keys) == len(set(keys))
    # stripes: below the bars, one per run of buckets, runs of one lane apart
    assert (trace_charts.STRIPE_TOP > trace_charts.BAR_BASE)
    lanes: dict[int, list[dict]] = {}
    for stripe in stripes:
        lanes.setdefault(stripe["lane_index"], []).append(stripe)
    for runs in lanes.values():
        runs.sort(key=lambda r: r["from"])
        assert all(b["from"] > a["to"] for a, b in zip(runs, runs[1:]))
    assert trace_charts.LANE_PX >= 30


def test_more_agents_than_lanes_share_the_last_and_critical_agents_keep_theirs(large):
    names, lane_of = trace_charts.lanes(large)
    agents = agent_order(large.run)
    assert len(agents) == 61 and len(names) == trace_charts.MAX_LANES
    assert names[-1] == trace_charts.other_lane(61 - (trace_charts.MAX_LANES - 1))
    assert names[:-1] == [a for a in agents if lane_of[a] == a]  # in spawn-tree order
    events = large.run.trace.events
    critical = {events.agent(i) for i in range(len(events.ids))
                if events.ids[i] in set(large.metrics["critical_path"])}
    assert critical <= set(names)
    found = trace_charts.binned_frames(large)
    assert {c["lane"] for c in found["cells"]} <= set(names)
    assert {b["lane"] for b in found["bands"]} <= set(names[:-1])  # the shared lane has no one life


def test_every_critical_event_is_under_a_stripe_of_its_lane(large):
    found = trace_charts.binned_frames(large)
    stripes = found["stripes"]
    events = large.run.trace.events
    position = {event_id: i for i, event_id in enumerate(events.ids)}
    for event_id in large.metrics["critical_path"]:
        i = position[event_id]
        lane = events.agent(i)
        assert any(s["lane"] == lane and s["from"] <= events.start[i] + 1e-9 < s["to"] + 1e-9
                   and events.start[i] < s["to"] for s in stripes), event_id
    assert sum(s["critical"] for s in stripes) == large.metrics["critical_steps"]


def test_the_binned_chart_names_every_lane_on_its_axis(large):
    spec = trace_charts.binned_gantt(large)
    names = trace_charts.lanes(large)[0]
    axis = spec["layer"][0]["encoding"]["y"]["axis"]
    assert axis["values"] == [i + 0.5 for i in range(len(names))]
    expression = axis["labelExpr"]
    assert expression.endswith("[floor(datum.value)]")
    assert json.loads(expression.removesuffix("[floor(datum.value)]")) == names
    assert spec["height"] == trace_charts.LANE_PX * len(names)
    assert spec["width"] == trace_charts.BINNED_WIDTH
    assert spec["title"]["text"] == "Timeline of large-swarm"
    # the run lasts 135.5 s: buckets of 6 px at 720 px are 1.13 s at least, so 2 s
    assert large.metrics["wall_clock"] == 135.5
    assert "4,933 events in 2 s buckets" in spec["title"]["subtitle"][0]
    assert spec["description"].startswith("Binned timeline of 4933 events over ")


def test_lane_names_are_text_in_the_binned_svg():
    found = hostile_replay()
    figure = charts.show(trace_charts.binned_gantt(found))
    assert "<img" not in figure.svg and "&lt;img" in figure.svg
    assert HOSTILE in figure.description


def test_the_timeline_of_a_large_trace_is_static_binned_and_live_zoomable(large):
    drawn = trace_charts.timeline(large)
    assert drawn.description.startswith("Binned timeline of 4933 events")
    figure = charts.show(drawn.static, interactive=True, live=drawn.live)
    spec = json.loads(re.search(r'class="masrl-spec">(.*?)</script>', figure._repr_html_(),
                                re.S).group(1))
    overview, detail = spec["vconcat"]
    columns = overview["layer"][1]
    (window,) = columns["params"]
    assert columns["name"] == "overview_columns"
    assert window["name"] == "window" and window["select"]["encodings"] == ["x"]
    start, end = window["value"]["x"]
    events = trace_charts.event_rows(large)
    inside = [e for e in events if start <= e["start"] <= end]
    assert len(inside) >= trace_charts.LIVE_WINDOW_EVENTS
    assert len(inside) < 2 * trace_charts.LIVE_WINDOW_EVENTS
    assert all(layer["encoding"]["x"]["scale"]["domain"] == {"param": "window"}
               for layer in detail["layer"])
    drawn_events = sum(len(spec["datasets"][layer["data"]["name"]]) for layer in detail["layer"]
                       if "tooltip" in layer["encoding"]
                       and "tokens" in str(layer["encoding"]["tooltip"]))
    assert drawn_events == large.metrics["events"]
    # the static chart draws columns, not events: far fewer marks than events
    assert figure.svg.count("<path") < large.metrics["events"] / 2
    # a small trace keeps its event-by-event interactive timeline
    small_drawn = trace_charts.timeline(example("debate"))
    assert small_drawn.description.startswith("Gantt chart of 18 events")
    assert small_drawn.live is small_drawn.static


def test_the_binned_chart_is_the_same_bytes_twice(large):
    first = charts.show(trace_charts.binned_gantt(large))
    assert charts.show(trace_charts.binned_gantt(large)).svg == first.svg
    assert vega.embedded_spec(trace_charts.timeline(large).live) == vega.embedded_spec(
        trace_charts.timeline(large).live)


# --------------------------------------------------------------------- a log without a clock

def without_clock(document: dict) -> dict:
    """The trace with every event at t = 0 and no durations: a log that only orders events."""
    for event in document["events"]:
        event["t"] = 0
        event.pop("t_end", None)
        event.pop("duration", None)
    return document


def test_a_log_without_a_clock_is_drawn_on_a_step_axis():
    from replay_examples import EXAMPLES

    document = without_clock(json.loads((EXAMPLES / "debate.json").read_text(encoding="utf-8")))
    found = replayed(document)
    spec = trace_charts.gantt(found)
    axis = spec["layer"][0]["encoding"]["x"]["title"]
    assert axis == trace_charts.STEP_TITLE and axis.startswith("step")
    events = trace_charts.event_rows(found)
    # each event at its place in the run's order: 1, 2, 3... as the report's tables count
    # steps (never fractions of a second)
    assert sorted(e["start"] for e in events) == list(range(1, len(events) + 1))
    assert all(e["instant"] for e in events)
    order = [found.run.trace.events.ids[i] for i in found.run.timeline.tolist()]
    assert [e["event"] for e in events] == order
    path = trace_charts.path_rows(found)
    assert all(float(row["time"]).is_integer() for row in path)
    assert "over 18 steps (the log records the order of events, not their times)" in \
        spec["description"]
    tips = [t["title"] for t in spec["layer"][2]["encoding"]["tooltip"]]
    assert "step" in tips and "start (s)" not in tips
    bands = trace_charts.lifetime_rows(found)
    assert all(band["start"] <= band["end"] for band in bands)


def test_a_crowded_log_without_a_clock_is_binned_in_steps(large):
    document = without_clock(swarm_trace([40] * 20, waves=4, trace_id="no-clock"))
    found = replayed(document)
    assert trace_charts.is_binned(found)
    binned = trace_charts.binned_frames(found)
    span = found.metrics["events"] - 1  # steps 1 to n
    assert binned["clock"] == "steps" and binned["seconds"] == trace_charts.bucket_steps(span)
    assert binned["seconds"] * trace_charts.BINNED_WIDTH / span >= trace_charts.MIN_CELL_PX
    assert [trace_charts.bucket_steps(n, width=760) for n in (36, 130, 1700, 100_000)] == [
        1, 2, 20, 1000]  # the shortest of 1, 2, 5, 10, 20... at least 6 px wide
    spec = trace_charts.binned_gantt(found)
    assert f"events in buckets of {binned['seconds']:g} steps" in spec["title"]["subtitle"][0]
    assert spec["layer"][0]["encoding"]["x"]["title"] == trace_charts.STEP_TITLE


def test_a_few_touching_ticks_of_a_short_run_stay_event_by_event():
    """Eight events of which four touch (a tool call and its result a millisecond apart):
    crowded by share, too few to smear; drawn event by event."""
    events = [("m1", 0.0046, 0.315, "message"), ("c1", 0.3169, 0.3199, "tool_call"),
              ("r1", 0.3199, None, "tool_result"), ("m2", 0.3211, 0.5559, "message"),
              ("c2", 0.5574, 0.5583, "tool_call"), ("r2", 0.5583, None, "tool_result"),
              ("m3", 0.5595, 1.1528, "message"), ("m4", 1.1547, 1.7929, "message")]
    trace = {"trace_id": "short", "task_id": "t", "topology": "unknown", "rewards": {},
             "costs": {"tokens": 0, "wall_clock_s": 1.8}, "events": [], "edges": []}
    for k, (event_id, start, end, kind) in enumerate(events):
        event = {"id": event_id, "t": start, "type": kind, "agent": "agent"}
        if kind.startswith("tool"):
            event["tool"] = "search"
        if end is not None:
            event["t_end"] = end
        trace["events"].append(event)
        if k:
            trace["edges"].append({"src": events[k - 1][0], "dst": event_id, "type": "causal"})
    found = replayed(trace)
    assert trace_charts.crowded_share(found) > trace_charts.MAX_CROWDED_SHARE
    assert not trace_charts.is_binned(found)


# ----------------------------------------------------------------------------------- labels

def labelled(document: dict, event: str, agent: str) -> Replay:
    document = json.loads(json.dumps(document))
    document["schema_version"] = "1.2"
    document["labels"] = [
        {"name": "mistake_agent", "value": agent, "kind": "gold", "source": "t", "agent": agent},
        {"name": "mistake_step", "value": 1, "kind": "gold", "source": "t", "event": event},
        {"name": "score", "value": 0.5, "kind": "annotation", "source": "t"}]
    return replayed(document)


def layer_named(spec: dict, name: str) -> tuple[dict, list[dict]]:
    for layer in spec["layer"]:
        if layer["data"]["name"] == name:
            return layer, spec["datasets"][name]
    raise AssertionError(f"no layer {name}")


def test_the_labelled_step_and_agent_are_marked_with_legend_entries():
    from replay_examples import EXAMPLES

    document = json.loads((EXAMPLES / "centralized.json").read_text(encoding="utf-8"))
    target = document["events"][3]
    found = labelled(document, target["id"], target["agent"])
    spec = trace_charts.gantt(found)
    layer, rows = layer_named(spec, "labelled")
    assert [(r["event"], r["agent"], r["labels"]) for r in rows] == [
        (target["id"], target["agent"], "mistake_step")]
    start = {e["event"]: e["start"] for e in trace_charts.event_rows(found)}
    assert rows[0]["start"] == start[target["id"]]  # drawn where the event starts
    shape = layer["encoding"]["shape"]
    assert shape["scale"] == {"domain": [trace_charts.LABELLED_STEP],
                              "range": ["triangle-down"]}
    assert shape["legend"] is not None  # its own legend entry
    assert layer["mark"]["color"] == trace_charts.LABELLED_COLOUR
    bands = {b["agent"]: b["band"] for b in trace_charts.lifetime_rows(found)}
    assert bands[target["agent"]] == trace_charts.LABELLED_AGENT
    assert list(bands.values()).count(trace_charts.LABELLED_AGENT) == 1
    colour = spec["layer"][0]["encoding"]["color"]["scale"]
    assert trace_charts.LABELLED_AGENT in colour["domain"]  # a legend entry in the colours
    assert "A dark red triangle marks each labelled step: step" in spec["description"]
    assert f"tinted red: {target['agent']}." in spec["description"]
    unlabelled = trace_charts.gantt(example("centralized"))
    assert "labelled" not in unlabelled["datasets"]
    assert trace_charts.LABELLED_AGENT not in \
        unlabelled["layer"][0]["encoding"]["color"]["scale"]["domain"]


def test_labels_are_marked_on_the_step_axis_of_a_log_without_a_clock():
    from replay_examples import EXAMPLES

    document = without_clock(json.loads((EXAMPLES / "debate.json").read_text(encoding="utf-8")))
    target = document["events"][5]
    found = labelled(document, target["id"], target["agent"])
    _, rows = layer_named(trace_charts.gantt(found), "labelled")
    order = [found.run.trace.events.ids[i] for i in found.run.timeline.tolist()]
    assert rows[0]["start"] == rows[0]["step"] == order.index(target["id"]) + 1


def test_a_binned_timeline_marks_the_labelled_step_on_its_lane(large):
    document = large.run.trace.document
    target = document["events"][len(document["events"]) // 2]
    found = labelled(document, target["id"], target["agent"])
    assert trace_charts.is_binned(found)
    binned = trace_charts.binned_frames(found)
    (row,) = binned["labelled"]
    assert binned["lanes"][row["lane_index"]] == row["lane"]
    assert row["lane"] in (target["agent"], binned["lanes"][-1])  # its lane, or the shared one
    assert row["lane_index"] < row["top"] < row["lane_index"] + trace_charts.BAR_BASE
    static = trace_charts.binned_gantt(found)
    layer, rows = layer_named(static, "labelled")
    assert rows == [row] and layer["encoding"]["shape"]["legend"] is not None
    live = trace_charts.timeline(found).live
    overview, detail = live["vconcat"]
    assert any(layer["data"]["name"] == "overview_labelled" for layer in overview["layer"])
    (mark,) = [layer for layer in detail["layer"] if layer["data"]["name"] == "detail_labelled"]
    assert mark["mark"]["clip"] is True and mark["encoding"]["shape"]["legend"] is None
