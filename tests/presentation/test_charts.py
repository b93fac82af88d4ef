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
