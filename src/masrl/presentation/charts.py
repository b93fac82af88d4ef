"""Altair chart builders and the one place where offline rendering is set.

Charts render to static SVG through vl-convert (the ``svg`` renderer), so the built book needs no
JavaScript and references nothing outside ``_build/html``. Every chart gets a title, labelled
axes, a text alternative (Vega-Lite ``description``, which Vega writes into the SVG's
``aria-label``) and a colour-blind-safe palette (Okabe-Ito).

A chart fills the book's column: single and layered views are laid out :data:`COLUMN_WIDTH`
pixels wide, axes and legend included (Vega-Lite ``autosize: fit-x``), and the SVG keeps its
``viewBox`` so that the stylesheet scales it to whatever width the column has (a phone's
included). Its title is not drawn in the SVG but written as the figure's caption
(``<figcaption>``), which wraps on a narrow screen and which the book numbers per chapter
(``book/_ext/numbering.py``); a note set with ``finish(..., note=...)`` (a value kept out of
the bars, for instance) follows the title in the caption.

Where a reader wants detail (the id, type, agent and tokens of one event of a timeline), a chart
is shown with ``show(chart, interactive=True)``: the static SVG is still there (the text
alternative, the page without JavaScript, the notebook tests), and the chart's Vega-Lite
specification travels with it; in the built book, ``masrl/presentation/masrl-charts.js`` redraws it
with vega-embed, from the book's own copy of Vega (``book/_ext/interactive_charts.py``), with
tooltips. Nothing is fetched from elsewhere.
"""

from __future__ import annotations

import html

import altair as alt
import pandas as pd
import vl_convert as vlc

from masrl.data.vocabulary import Field
from masrl.presentation.vega import (  # noqa: F401  (embedded_spec, responsive: used by callers)
    COLUMN_WIDTH,
    OKABE_ITO,
    embedded_spec,
    responsive,
    title_text,
)

SEQUENTIAL = "blues"  # single-hue ramp, readable in grey and for every colour-vision type

_RENDERING_SET = False


def use_offline_rendering() -> None:
    """Render every Altair chart as inline SVG (vl-convert); no CDN, no JavaScript."""
    global _RENDERING_SET
    if not _RENDERING_SET:
        alt.data_transformers.disable_max_rows()
        alt.renderers.enable("svg")
        _RENDERING_SET = True


NOT_APPLICABLE = "NA"  # the vocabulary's "not applicable" value (data/vocabulary.yaml)
MUTED = "#e4e4e4"  # the fill of cells that carry no information of the colour scale


def finish(chart: alt.TopLevelMixin, title: str, description: str, *, width: int | None = None,
           height: int | None = None, note: str | None = None) -> alt.TopLevelMixin:
    """Give a chart its title, text alternative, palette and fonts; the one finishing step.

    A single or layered view is laid out to fill the column (:data:`COLUMN_WIDTH`, axes and
    legend included), whatever ``width`` says (kept as a parameter for the builders that name
    one); a faceted or concatenated chart keeps the sizes of its panels. ``note`` is a sentence
    for the caption under the title (kept in the specification's ``usermeta``)."""
    use_offline_rendering()
    props: dict = {"title": title, "description": description}
    if isinstance(chart, (alt.Chart, alt.LayerChart)):
        props["width"] = COLUMN_WIDTH
        props["autosize"] = alt.AutoSizeParams(type="fit-x", contains="padding")
    elif width is not None:
        props["width"] = width
    if height is not None:
        props["height"] = height
    if note:
        props["usermeta"] = {"note": note}
    return (
        chart.properties(**props)
        .configure_range(category=OKABE_ITO)
        .configure_axis(labelFontSize=11, titleFontSize=12)
        .configure_title(fontSize=14, anchor="start")
    )


def apart_note(counts: pd.Series, meaning: str | None = None) -> str | None:
    """The caption's sentence for the not-applicable count kept out of a chart (``None`` when
    there is none): ``NA (no reward design): 23 papers, not drawn.``"""
    if NOT_APPLICABLE not in counts.index:
        return None
    n = int(counts[NOT_APPLICABLE])
    what = f" ({meaning.rstrip('.')})" if meaning else ""
    return (f"{NOT_APPLICABLE}{what}: {n} {'paper' if n == 1 else 'papers'}, not drawn, so "
            "that the bars compare the values that apply.")


def bar_counts(counts: pd.Series, *, field: str, title: str, description: str,
               na_meaning: str | None = None) -> alt.Chart:
    """Horizontal bars of value -> count, largest first, zero counts kept and labelled. The
    not-applicable value (``NA``) is kept out of the bars and written under the chart
    (:func:`apart_note`; ``na_meaning`` says what it stands for), so that it neither sets the
    scale nor reads as the largest category; the text alternative still lists it."""
    frame = counts.drop(NOT_APPLICABLE, errors="ignore").rename_axis(field) \
        .reset_index(name="papers")
    order = list(frame.sort_values(["papers", field], ascending=[False, True])[field])
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{field}:N", sort=order, title=field.replace("_", " ")),
        x=alt.X("papers:Q", title="papers in the retained pool"),
    )
    bars = base.mark_bar(color=OKABE_ITO[0])
    labels = base.mark_text(align="left", dx=3).encode(text="papers:Q")
    return finish(alt.layer(bars, labels), title, description,
                  note=apart_note(counts, na_meaning))


def heatmap(table: pd.DataFrame, *, row: str, column: str, title: str, description: str) -> alt.Chart:
    """A cross-tab (rows x columns of counts) as a heatmap with the count written in each cell.
    Cells in a not-applicable (``NA``) row or column are drawn in a muted grey, outside the
    colour scale, whose range is set by the informative cells alone (the NA x NA cell, often
    the largest, would otherwise wash every other cell out)."""
    long = table.rename_axis(index=row, columns=column).stack().rename("papers").reset_index()
    long["applies"] = (long[row] != NOT_APPLICABLE) & (long[column] != NOT_APPLICABLE)
    top = int(long.loc[long["applies"], "papers"].max()) if long["applies"].any() else 1
    base = alt.Chart(long).encode(
        x=alt.X(f"{column}:N", sort=list(table.columns), title=column.replace("_", " ")),
        y=alt.Y(f"{row}:N", sort=list(table.index), title=row.replace("_", " ")),
    )
    cells = base.mark_rect().encode(
        color=alt.condition(
            alt.datum.applies,
            alt.Color("papers:Q", scale=alt.Scale(scheme=SEQUENTIAL, domain=[0, max(top, 1)]),
                      title="papers"),
            alt.value(MUTED)),
    )
    text = base.mark_text().encode(
        text="papers:Q",
        color=alt.condition((alt.datum.papers > top / 2) & alt.datum.applies,
                            alt.value("white"), alt.value("black")),
    )
    note = (f"Cells in an {NOT_APPLICABLE} row or column (not applicable) are grey, outside "
            "the colour scale." if not long["applies"].all() else None)
    return finish(alt.layer(cells, text), title, description, note=note)


class Figure:
    """A chart rendered once to static SVG, shown inline in notebooks and in the book.

    The HTML is a ``<figure>`` holding the SVG itself (no JavaScript, nothing fetched) with the
    chart's text alternative as its accessible name; the plain-text form is that text
    alternative, so notebook tests compare something a reader would recognise.

    An *interactive* figure holds, beside the SVG, the chart's specification as JSON in a
    ``<script type="application/json">`` (every ``<``, ``>`` and ``&`` escaped, so that no text
    of the data can close the element), keys sorted so that the same chart gives the same bytes.
    """

    def __init__(self, chart: alt.TopLevelMixin | dict, interactive: bool = False,
                 caption: str | None = None, live: alt.TopLevelMixin | dict | None = None):
        spec = _spec(chart)
        self.title = title_text(spec.pop("title", ""))
        self.description = spec.get("description", "")
        if not self.title or not self.description:
            raise ValueError("every chart needs a title and a description (text alternative)")
        self.note = " ".join(part for part in (caption, (spec.get("usermeta") or {}).get("note"))
                             if part)
        self.svg = vlc.vegalite_to_svg(spec)
        if live is not None:  # the page draws another chart than the static one
            live_spec = _spec(live)
            live_spec.pop("title", None)
            self.spec = embedded_spec(responsive(live_spec))
        else:
            self.spec = embedded_spec(responsive(spec)) if interactive else None

    def _caption(self) -> str:
        note = f' <span class="masrl-note">{html.escape(self.note)}</span>' if self.note else ""
        return (f'<figcaption class="masrl-caption"><span class="masrl-title">'
                f"{html.escape(self.title)}</span>{note}</figcaption>")

    def _repr_html_(self) -> str:
        label = html.escape(f"{self.title}. {self.description}", quote=True)
        if self.spec is None:
            return (f'<figure class="masrl-chart" role="img" aria-label="{label}">'
                    f'<div class="masrl-static">{self.svg}</div>{self._caption()}</figure>')
        return (f'<figure class="masrl-chart masrl-interactive" role="img" aria-label="{label}">'
                f'<div class="masrl-static">{self.svg}</div><div class="masrl-live"></div>'
                f'<script type="application/json" class="masrl-spec">{self.spec}</script>'
                f"{self._caption()}</figure>")

    def __repr__(self) -> str:
        note = f" {self.note}" if self.note else ""
        return f"Chart: {self.title}. {self.description}{note}"


def _spec(chart: alt.TopLevelMixin | dict) -> dict:
    """A chart's Vega-Lite specification: a dictionary as given (copied), an Altair chart's
    ``to_dict()``."""
    return dict(chart) if isinstance(chart, dict) else chart.to_dict()


def show(chart: alt.TopLevelMixin | dict, *, interactive: bool = False,
         caption: str | None = None, live: alt.TopLevelMixin | dict | None = None) -> Figure:
    """Render a finished chart (an Altair chart, or a specification finished by
    :func:`masrl.presentation.vega.finish`) for display (the last expression of a notebook cell); with
    ``interactive``, the built book also draws it with tooltips (see the module docstring);
    with ``live``, the built book draws that chart instead (say, one a reader can zoom), and
    the static SVG of ``chart`` stays for pages without JavaScript. ``caption`` adds a sentence
    to the figure's caption, after the chart's title."""
    return Figure(chart, interactive, caption, live)


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
    return finish(alt.layer(bars, labels), title, description)


def field_counts(counts: pd.Series, field: Field) -> alt.Chart:
    """Papers per value of one vocabulary field (zero counts kept), titled and described from
    the vocabulary: the chart of each section of the statistics chapter."""
    return bar_counts(
        counts, field=field.name, title=f"{field.label}: papers per value",
        description=f"Bar chart of retained papers per {field.name}: "
        + ", ".join(f"{value} {n}" for value, n in counts.items()),
        na_meaning=field.meanings.get(NOT_APPLICABLE))
