"""Chart builders: titles, text alternatives, palette, and SVG rendered with no network."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from masrl.data.dataset import Dataset
from masrl.presentation import chart_layouts, charts


def test_bar_counts_keeps_zero_values_and_renders_svg():
    series = pd.Series({"a": 3, "b": 0}, name="n")
    figure = charts.show(charts.bar_counts(series, field="value", title="T", description="D a 3, b 0"))
    assert figure.svg.startswith("<svg")
    html = figure._repr_html_()
    assert 'role="img"' in html and 'aria-label="T. D a 3, b 0"' in html
    assert repr(figure) == "Chart: T. D a 3, b 0"
    assert "http" not in html.replace("http://www.w3.org", "")


def test_text_alternative_is_escaped():
    series = pd.Series({"a": 1})
    figure = charts.show(charts.bar_counts(series, field="v", title='<b>"x"</b>', description="d"))
    assert 'aria-label="&lt;b&gt;&quot;x&quot;&lt;/b&gt;. d"' in figure._repr_html_()


def test_charts_must_have_title_and_description():
    import altair as alt

    with pytest.raises(ValueError):
        charts.show(alt.Chart(pd.DataFrame({"x": [1]})).mark_bar().encode(x="x:Q"))


def test_heatmap_uses_the_whole_grid_and_palette():
    table = pd.DataFrame([[1, 0], [0, 4]], index=["r1", "r2"], columns=["c1", "c2"])
    chart = charts.heatmap(table, row="row", column="col", title="H", description="D")
    spec = chart.to_dict()
    values = spec["datasets"][next(iter(spec["datasets"]))]
    assert len(values) == 4  # zeros kept
    assert spec["config"]["range"]["category"] == charts.OKABE_ITO


def test_not_applicable_is_a_grey_bar_of_its_own_last_and_said_in_the_caption():
    field = Dataset().vocabulary["reward_type"]
    series = pd.Series({"shared": 3, "NA": 40, "tool": 0})
    chart = charts.bar_counts(series, field="reward_type", title="T", description="D",
                              labels=field.labels, vocabulary_field=field)
    spec = chart.to_dict()
    values = spec["datasets"][next(iter(spec["datasets"]))]
    assert {row["reward_type"]: row["not applicable"] for row in values} == {
        "Shared team reward": False, "Not applicable": True, "Tool call": False}
    order = spec["layer"][0]["encoding"]["y"]["sort"]
    assert order == ["Shared team reward", "Tool call", "Not applicable"]  # NA last, not first
    bars = spec["layer"][0]["encoding"]["color"]
    assert bars["condition"]["value"] == charts.NA_BAR and bars["value"] == charts.OKABE_ITO[0]
    figure = charts.show(chart)
    assert figure.note == ("Not applicable, in grey: no reward design in this work (benchmarks, "
                           "surveys, prompted systems).")
    assert "Not applicable" in figure.svg and "Not applicable" in figure.narrow_svg
    assert "shared" not in figure.svg  # the code is never shown, its label is


def test_the_narrow_layout_puts_each_label_above_its_bar():
    series = pd.Series({"a long value label": 3, "b": 10})
    chart = charts.bar_counts(series, field="v", title="T", description="D")
    narrow = chart.to_dict()["usermeta"]["narrow"]
    assert narrow["layer"][0]["encoding"]["y"]["axis"] is None  # no axis of labels on the left
    label = narrow["layer"][1]
    assert label["mark"]["baseline"] == "bottom" and label["encoding"]["text"]["field"] == "v"
    figure = charts.show(chart)
    assert 'width="340"' in figure.narrow_svg and 'width="760"' in figure.svg
    html = figure._repr_html_()
    assert '<div class="masrl-wide"><svg' in html and '<div class="masrl-narrow"><svg' in html


def test_every_chart_text_is_at_least_the_minimum_font():
    series = pd.Series({"a": 3})
    spec = charts.bar_counts(series, field="v", title="T", description="D").to_dict()
    small = {**spec, "layer": [{**spec["layer"][1], "mark": {"type": "text", "fontSize": 9}}]}
    raised = chart_layouts.legible(small)
    assert raised["layer"][0]["mark"]["fontSize"] == chart_layouts.MIN_FONT
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)px"', charts.show(
        charts.bar_counts(series, field="v", title="T", description="D")).narrow_svg)]
    assert sizes and min(sizes) >= chart_layouts.MIN_FONT


def test_panels_side_by_side_are_stacked_and_fitted_to_a_phone():
    import altair as alt

    frame = pd.DataFrame({"x": [1, 2, 3, 4], "y": ["p", "q", "p", "q"], "panel": list("abab")})
    panel = alt.Chart(frame).mark_bar().encode(x="x:Q", y="y:N").properties(width=300)
    chart = charts.finish(alt.hconcat(panel, panel), "T", "D")
    figure = charts.show(chart)
    assert chart_layouts.drawn_width(figure.narrow_svg) <= charts.NARROW_WIDTH
    assert chart_layouts.drawn_width(figure.svg) <= charts.COLUMN_WIDTH
    narrow = chart_layouts.narrow_spec(chart.to_dict())
    assert "vconcat" in narrow and "hconcat" not in narrow
    assert narrow["config"]["legend"]["orient"] == "bottom"
    faceted = charts.finish(alt.Chart(frame).mark_bar().encode(
        x="x:Q", y="y:N", column="panel:N").properties(width=300), "T", "D")
    assert "row" in chart_layouts.narrow_spec(faceted.to_dict())["encoding"]


def test_the_heatmap_colour_scale_is_set_by_the_informative_cells():
    table = pd.DataFrame([[1, 4], [2, 50]], index=["r1", "NA"], columns=["c1", "NA"])
    spec = charts.heatmap(table, row="row", column="col", title="H", description="D").to_dict()
    colour = spec["layer"][0]["encoding"]["color"]
    assert colour["condition"]["scale"]["domain"] == [0, 1]  # r1 x c1 is the only informative cell
    assert colour["value"] == charts.MUTED  # NA rows and columns are grey
    assert "grey" in spec["usermeta"]["note"]


def test_charts_fill_the_column_and_scale_with_it():
    series = pd.Series({"a": 3})
    chart = charts.bar_counts(series, field="v", title="T", description="D")
    spec = chart.to_dict()
    assert spec["width"] == charts.COLUMN_WIDTH and spec["autosize"]["type"] == "fit-x"
    figure = charts.show(chart, interactive=True)
    assert f'viewBox="0 0 {charts.COLUMN_WIDTH} ' in figure.svg  # the SVG scales by its viewBox
    assert f'viewBox="0 0 {charts.NARROW_WIDTH} ' in figure.narrow_svg
    assert '"width":"container"' in figure.spec  # the live chart takes its container's width
    assert '"width":"container"' in figure.narrow_spec
    assert f'data-narrow-below="{charts.NARROW_BELOW}"' in figure._repr_html_()
    assert "<title" not in figure.svg and ">T<" not in figure.svg  # the title is the caption
    assert '<span class="masrl-title">T</span>' in figure._repr_html_()
