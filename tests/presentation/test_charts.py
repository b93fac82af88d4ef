"""Chart builders: titles, text alternatives, palette, and SVG rendered with no network."""

from __future__ import annotations

import pandas as pd
import pytest

from masrl.presentation import charts


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


def test_not_applicable_is_kept_out_of_the_bars_and_said_in_the_caption():
    series = pd.Series({"a": 3, "NA": 40, "b": 0})
    chart = charts.bar_counts(series, field="v", title="T", description="D a 3, NA 40, b 0",
                              na_meaning="No design.")
    spec = chart.to_dict()
    values = spec["datasets"][next(iter(spec["datasets"]))]
    assert [row["v"] for row in values] == ["a", "b"]  # NA is no bar, so sets no scale
    figure = charts.show(chart)
    assert figure.note == ("NA (No design): 40 papers, not drawn, so that the bars compare the "
                           "values that apply.")
    assert "<figcaption" in figure._repr_html_() and "not drawn" in figure._repr_html_()


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
    assert '"width":"container"' in figure.spec  # the live chart takes its container's width
    assert "<title" not in figure.svg and ">T<" not in figure.svg  # the title is the caption
    assert '<span class="masrl-title">T</span>' in figure._repr_html_()
