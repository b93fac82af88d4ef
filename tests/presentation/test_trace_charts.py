"""The timeline (Gantt) chart: one band per agent, one mark per event, the critical path marked,
a finished chart (title, text alternative, Okabe-Ito) rendered to SVG with trace text escaped."""

from __future__ import annotations

import pytest
from replay_examples import HOSTILE, NAMES, example, hostile_replay

from masrl.presentation import charts
from masrl.presentation import trace_charts as trace_charts
from masrl.presentation import trace_views as views


@pytest.fixture(scope="module")
def examples() -> dict:
    return {name: example(name) for name in NAMES}


def layer_data(chart, k: int) -> list[dict]:
    """The rows drawn by layer ``k`` of a finished layered chart."""
    spec = chart.to_dict()
    return spec["datasets"][spec["layer"][k]["data"]["name"]]


@pytest.mark.parametrize("name", NAMES)
def test_one_band_per_agent(examples, name):
    found = examples[name]
    bands = trace_charts.lifetimes_frame(found)
    assert list(bands["agent"]) == views.agent_order(found.run)
    assert len(bands) == len(found.run.agents)
    assert (bands["end"] >= bands["start"]).all()
    chart = trace_charts.gantt(found)
    assert len(layer_data(chart, 0)) == len(found.run.agents)


@pytest.mark.parametrize("name", NAMES)
def test_one_mark_per_event_and_the_critical_path_marked(examples, name):
    found = examples[name]
    events = trace_charts.events_frame(found)
    assert len(events) == found.metrics["events"]
    chart = trace_charts.gantt(found)
    assert len(layer_data(chart, 1)) + len(layer_data(chart, 2)) == found.metrics["events"]
    critical = set(events.loc[events["critical"], "event"])
    assert critical == set(found.metrics["critical_path"])
    path = layer_data(chart, 3)
    assert len(path) == 2 * found.metrics["critical_steps"]
    assert [row["event"] for row in path[::2]] == found.metrics["critical_path"]


def test_spawned_bands_are_lifetimes_and_root_bands_span_their_events(examples):
    bands = trace_charts.lifetimes_frame(examples["hierarchical"]).set_index("agent")
    assert list(bands.loc["analyst_finance_1", ["start", "end", "band"]]) == [
        3.6, 6.7, trace_charts.SPAWNED_LIFE]
    assert list(bands.loc["director", ["start", "end", "band"]]) == [
        0.0, pytest.approx(18.1), trace_charts.ROOT_LIFE]
    assert list(bands.loc["sql.query", ["start", "end"]]) == [4.85, pytest.approx(7.2)]


def test_instantaneous_events_are_ticks(examples):
    events = trace_charts.events_frame(examples["centralized"]).set_index("event")
    assert events.loc["s1", "instant"] and events.loc["r4", "instant"]
    assert not events.loc["d1", "instant"]
    assert events.loc["d1", "kind"] == "orchestrator decision"
    assert events.loc["ret1", "kind"] == "return or aggregate"


def test_the_chart_is_finished_with_the_palette_and_the_path_in_black(examples):
    chart = trace_charts.gantt(examples["harness"])
    spec = chart.to_dict()
    assert spec["title"] == "Timeline of example-harness"
    assert "critical path of 19 events: h1 -> d1 -> c1" in spec["description"]
    assert spec["description"].endswith("-> ...."), "long paths are cut in the description"
    assert spec["config"]["range"]["category"] == charts.OKABE_ITO
    scale = spec["layer"][3]["encoding"]["color"]["scale"]
    assert scale["range"][scale["domain"].index("critical path")] == "#000000"
    assert spec["layer"][0]["encoding"]["y"]["scale"]["domain"] == views.agent_order(
        examples["harness"].run)
    assert spec["layer"][0]["encoding"]["x"]["title"] == "time since the start of the run (s)"
    assert "human or safety" in scale["domain"]
    assert "message" in scale["domain"] and "tool result" in scale["domain"]


def test_colours_stay_fixed_across_traces(examples):
    for found in examples.values():
        scale = trace_charts.gantt(found).to_dict()["layer"][1]["encoding"]["color"]["scale"]
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
