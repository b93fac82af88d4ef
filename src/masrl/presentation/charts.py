"""Altair chart builders and the one place where offline rendering is set.

Charts render to static SVG through vl-convert (the ``svg`` renderer), so the built book needs no
JavaScript and references nothing outside ``_build/html``. Every chart gets a title, labelled
axes, a text alternative (Vega-Lite ``description``, which Vega writes into the SVG's
``aria-label``) and a colour-blind-safe palette (Okabe-Ito).

Where a reader wants detail (the id, type, agent and tokens of one event of a timeline), a chart
is shown with ``show(chart, interactive=True)``: the static SVG is still there (the text
alternative, the page without JavaScript, the notebook tests), and the chart's Vega-Lite
specification travels with it; in the built book, ``book/_static/masrl-charts.js`` redraws it
with vega-embed, from the book's own copy of Vega (``book/_ext/interactive_charts.py``), with
tooltips. Nothing is fetched from elsewhere.
"""

from __future__ import annotations

import html
import json

import altair as alt
import pandas as pd
import vl_convert as vlc

from masrl.data.vocabulary import Field

# Okabe & Ito (2008), the palette recommended for colour-vision deficiencies.
OKABE_ITO = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
]
SEQUENTIAL = "blues"  # single-hue ramp, readable in grey and for every colour-vision type

_RENDERING_SET = False


def use_offline_rendering() -> None:
    """Render every Altair chart as inline SVG (vl-convert); no CDN, no JavaScript."""
    global _RENDERING_SET
    if not _RENDERING_SET:
        alt.data_transformers.disable_max_rows()
        alt.renderers.enable("svg")
        _RENDERING_SET = True


def finish(chart: alt.Chart, title: str, description: str, *, width: int | None = None,
           height: int | None = None) -> alt.Chart:
    """Give a chart its title, text alternative, palette and fonts; the one finishing step."""
    use_offline_rendering()
    props = {"title": title, "description": description}
    if width is not None:
        props["width"] = width
    if height is not None:
        props["height"] = height
    return (
        chart.properties(**props)
        .configure_range(category=OKABE_ITO)
        .configure_axis(labelFontSize=11, titleFontSize=12)
        .configure_title(fontSize=14, anchor="start")
    )


def bar_counts(counts: pd.Series, *, field: str, title: str, description: str) -> alt.Chart:
    """Horizontal bars of value -> count, largest first, zero counts kept and labelled."""
    frame = counts.rename_axis(field).reset_index(name="papers")
    order = list(frame.sort_values(["papers", field], ascending=[False, True])[field])
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{field}:N", sort=order, title=field.replace("_", " ")),
        x=alt.X("papers:Q", title="papers in the retained pool"),
    )
    bars = base.mark_bar(color=OKABE_ITO[0])
    labels = base.mark_text(align="left", dx=3).encode(text="papers:Q")
    return finish(alt.layer(bars, labels), title, description, width=420)


def heatmap(table: pd.DataFrame, *, row: str, column: str, title: str, description: str) -> alt.Chart:
    """A cross-tab (rows x columns of counts) as a heatmap with the count written in each cell."""
    long = table.rename_axis(index=row, columns=column).stack().rename("papers").reset_index()
    base = alt.Chart(long).encode(
        x=alt.X(f"{column}:N", sort=list(table.columns), title=column.replace("_", " ")),
        y=alt.Y(f"{row}:N", sort=list(table.index), title=row.replace("_", " ")),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("papers:Q", scale=alt.Scale(scheme=SEQUENTIAL), title="papers"),
    )
    text = base.mark_text().encode(
        text="papers:Q",
        color=alt.condition(alt.datum.papers > table.to_numpy().max() / 2,
                            alt.value("white"), alt.value("black")),
    )
    return finish(alt.layer(cells, text), title, description)


class Figure:
    """A chart rendered once to static SVG, shown inline in notebooks and in the book.

    The HTML is a ``<figure>`` holding the SVG itself (no JavaScript, nothing fetched) with the
    chart's text alternative as its accessible name; the plain-text form is that text
    alternative, so notebook tests compare something a reader would recognise.

    An *interactive* figure holds, beside the SVG, the chart's specification as JSON in a
    ``<script type="application/json">`` (every ``<``, ``>`` and ``&`` escaped, so that no text
    of the data can close the element), keys sorted so that the same chart gives the same bytes.
    """

    def __init__(self, chart: alt.TopLevelMixin, interactive: bool = False,
                 live: alt.TopLevelMixin | None = None):
        spec = chart.to_dict()
        self.title = _title_text(spec.get("title", ""))
        self.description = spec.get("description", "")
        if not self.title or not self.description:
            raise ValueError("every chart needs a title and a description (text alternative)")
        self.svg = vlc.vegalite_to_svg(spec)
        if live is not None:  # the page draws another chart than the static one
            spec = live.to_dict()
        self.spec = embedded_spec(spec) if interactive or live is not None else None

    def _repr_html_(self) -> str:
        label = html.escape(f"{self.title}. {self.description}", quote=True)
        if self.spec is None:
            return (f'<figure class="masrl-chart" role="img" aria-label="{label}">'
                    f"{self.svg}</figure>")
        return (f'<figure class="masrl-chart masrl-interactive" role="img" aria-label="{label}">'
                f'<div class="masrl-static">{self.svg}</div><div class="masrl-live"></div>'
                f'<script type="application/json" class="masrl-spec">{self.spec}</script>'
                "</figure>")

    def __repr__(self) -> str:
        return f"Chart: {self.title}. {self.description}"


def embedded_spec(spec: dict) -> str:
    """A Vega-Lite specification as JSON that is safe inside an HTML ``<script>`` element:
    sorted keys, no ``$schema`` address (the book names no outside host; the page's script says
    the mode), and ``<``, ``>``, ``&`` written as JSON escapes."""
    text = json.dumps({k: v for k, v in spec.items() if k != "$schema"}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def show(chart: alt.TopLevelMixin, *, interactive: bool = False,
         live: alt.TopLevelMixin | None = None) -> Figure:
    """Render a finished chart for display (the last expression of a notebook cell); with
    ``interactive``, the built book also draws it with tooltips (see the module docstring);
    with ``live``, the built book draws that chart instead (say, one a reader can zoom), and
    the static SVG of ``chart`` stays for pages without JavaScript."""
    return Figure(chart, interactive, live)


def _title_text(title) -> str:
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(title)
    return str(title)


def screening_flow(flow: pd.DataFrame, *, title: str, description: str) -> alt.Chart:
    """The screening flow as ordered horizontal bars: audited, excluded by stage, retained."""
    kinds = ["audited", "excluded", "retained"]
    base = alt.Chart(flow).encode(
        y=alt.Y("step:N", sort=list(flow["step"]), title="screening step"),
        x=alt.X("records:Q", title="records"),
    )
    bars = base.mark_bar().encode(
        color=alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=OKABE_ITO[:3]),
                        title="records that are"),
    )
    labels = base.mark_text(align="left", dx=3).encode(text="records:Q")
    return finish(alt.layer(bars, labels), title, description, width=420)


def field_counts(counts: pd.Series, field: Field) -> alt.Chart:
    """Papers per value of one vocabulary field (zero counts kept), titled and described from
    the vocabulary: the chart of each section of the statistics chapter."""
    return bar_counts(
        counts, field=field.name, title=f"{field.label}: papers per value",
        description=f"Bar chart of retained papers per {field.name}: "
        + ", ".join(f"{value} {n}" for value, n in counts.items()))
