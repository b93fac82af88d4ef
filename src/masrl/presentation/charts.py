"""Altair chart builders and the one place where offline rendering is set.

Charts render to static SVG through vl-convert (the ``svg`` renderer), so the built book needs no
JavaScript and references nothing outside ``_build/html``. Every chart gets a title, labelled
axes, a text alternative (Vega-Lite ``description``, which Vega writes into the SVG's
``aria-label``) and a colour-blind-safe palette (Okabe-Ito).

A chart fills the book's column and reads on a phone: it is laid out twice
(:mod:`masrl.presentation.chart_layouts`), wide (:data:`COLUMN_WIDTH` pixels, axes and legend
included) and narrow (:data:`NARROW_WIDTH` pixels: labels above bars, panels stacked, legends
below, fewer ticks), both rendered to SVG that keep their ``viewBox``; the stylesheet shows the
one that fits the figure's width, scaled to it, so that no chart text is under 11 px. Its title
is not drawn in the SVG but written as the figure's caption (``<figcaption>``), which wraps on a
narrow screen and which the book numbers per chapter (``book/_ext/numbering.py``); a note set
with ``finish(..., note=...)`` follows the title in the caption. Values of the vocabulary are
shown by their labels (``data/vocabulary.yaml``), and the not-applicable value ``NA`` as a grey
bar of its own, last.

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

from masrl.data.vocabulary import Field
from masrl.presentation.chart_layouts import (
    COLUMN_WIDTH,
    FONTS,
    NARROW_BELOW,
    NARROW_CONFIG,
    NARROW_WIDTH,
    fitted,
    is_compound,
    legible,
    narrow_spec,
    stacked_legends,
    with_config,
)
from masrl.presentation.vega import OKABE_ITO, embedded_spec, title_text

SEQUENTIAL = "blues"  # single-hue ramp, readable in grey and for every colour-vision type

_RENDERING_SET = False


def use_offline_rendering() -> None:
    """Render every Altair chart as inline SVG (vl-convert); no CDN, no JavaScript."""
    global _RENDERING_SET
    if not _RENDERING_SET:
        alt.data_transformers.disable_max_rows()
        alt.renderers.enable("svg")
        _RENDERING_SET = True


__all__ = ["COLUMN_WIDTH", "NARROW_BELOW", "NARROW_WIDTH", "OKABE_ITO"]  # re-exported for the builders
NOT_APPLICABLE = "NA"  # the vocabulary's "not applicable" value (data/vocabulary.yaml)
MUTED = "#e4e4e4"  # the fill of cells that carry no information of the colour scale
NA_BAR = "#a6a6a6"  # the bar of the not-applicable value: grey, apart from the values that apply
NA_TEXT = "#5f5f5f"  # its label (4.5:1 on white at the least)


def finish(chart: alt.TopLevelMixin, title: str, description: str, *, width: int | None = None,
           height: int | None = None, note: str | None = None,
           narrow: alt.TopLevelMixin | None = None) -> alt.TopLevelMixin:
    """Give a chart its title, text alternative, palette and fonts; the one finishing step.

    A single or layered view is laid out to fill the column (:data:`COLUMN_WIDTH`, axes and
    legend included), whatever ``width`` says (kept as a parameter for the builders that name
    one); a faceted or concatenated chart keeps the sizes of its panels (narrowed if it is wider
    than the column when shown). ``note`` is a sentence for the caption under the title (kept in
    the specification's ``usermeta``). ``narrow`` is the builder's own layout for a phone
    (unfinished, finished here alike); without it, one is derived when the chart is shown
    (:func:`masrl.presentation.chart_layouts.narrow_spec`)."""
    use_offline_rendering()
    props: dict = {"title": title, "description": description}
    if isinstance(chart, (alt.Chart, alt.LayerChart)) and not is_compound(chart.to_dict()):
        props["width"] = COLUMN_WIDTH
        props["autosize"] = alt.AutoSizeParams(type="fit-x", contains="padding")
    elif width is not None:
        props["width"] = width
    if height is not None:
        props["height"] = height
    meta = {}
    if note:
        meta["note"] = note
    if narrow is not None:
        meta["narrow"] = finish(narrow, title, description).to_dict()
    if meta:
        props["usermeta"] = meta
    return (
        chart.properties(**props)
        .configure_range(category=OKABE_ITO)
        .configure_axis(**FONTS["axis"])
        .configure_legend(**FONTS["legend"])
        .configure_header(**FONTS["header"])
        .configure_text(**FONTS["text"])
        .configure_title(**FONTS["title"])
    )


def na_note(field: Field | None, label: str) -> str | None:
    """The caption's sentence on the grey not-applicable bar: what ``NA`` means for the field."""
    meaning = field.meanings.get(NOT_APPLICABLE) if field is not None else None
    if not meaning:
        return f"{label}, in grey: the value does not apply."
    return f"{label}, in grey: {meaning[0].lower()}{meaning[1:].rstrip('.')}."


def hbars(frame: pd.DataFrame, *, category: str, value: str, order: list[str],
          x_title: str, y_title: str | None, colour: alt.Color | None = None,
          muted: str | None = None) -> tuple[alt.LayerChart, alt.LayerChart]:
    """Horizontal bars of ``value`` per ``category`` (in ``order``), each with its value written
    at its end; the rows where column ``muted`` is true in grey, their label too. Returns the
    wide layout (labels on the axis) and the narrow one (each label above its bar, so that the
    bars keep the width of the phone)."""
    grey = alt.datum[muted] if muted else None
    if colour is not None:
        fill = colour
    elif grey is not None:
        fill = alt.condition(grey, alt.value(NA_BAR), alt.value(OKABE_ITO[0]))
    else:
        fill = alt.value(OKABE_ITO[0])
    ink = (alt.condition(grey, alt.value(NA_TEXT), alt.value("black")) if grey is not None
           else alt.value("black"))
    x = alt.X(f"{value}:Q", title=x_title)
    greyed = _muted(frame, category, muted)
    axis = alt.Axis(labelLimit=0, labelColor=alt.ExprRef(
        expr=f"indexof({greyed!r}, datum.value) >= 0 ? '{NA_TEXT}' : 'black'"))
    wide_base = alt.Chart(frame).encode(
        y=alt.Y(f"{category}:N", sort=order, title=y_title, axis=axis), x=x)
    wide = alt.layer(wide_base.mark_bar().encode(color=fill),
                     wide_base.mark_text(align="left", dx=3).encode(text=f"{value}:Q"))
    rows = alt.Chart(frame).encode(y=alt.Y(f"{category}:N", sort=order, title=None, axis=None))
    narrow = alt.layer(
        rows.mark_bar(size=14, yOffset=8).encode(x=x, color=fill),
        rows.mark_text(align="left", baseline="bottom", dy=-1).encode(
            x=alt.value(0), text=f"{category}:N", color=ink),
        rows.mark_text(align="left", baseline="middle", dx=4, dy=8).encode(
            x=alt.X(f"{value}:Q"), text=f"{value}:Q"),
    ).properties(height=alt.Step(38))
    return wide, narrow


def _muted(frame: pd.DataFrame, category: str, muted: str | None) -> list[str]:
    return [] if muted is None else [str(c) for c in frame.loc[frame[muted], category]]


def bar_counts(counts: pd.Series, *, field: str, title: str, description: str,
               labels: dict[str, str] | None = None, axis_title: str | None = None,
               vocabulary_field: Field | None = None) -> alt.LayerChart:
    """Horizontal bars of value -> count, largest first, zero counts kept and labelled; each
    value shown by its label (``labels``, a vocabulary field's). The not-applicable value
    (``NA``) is a grey bar of its own, last, so that it does not read as the largest category;
    the caption says what it means (``vocabulary_field``'s meaning of ``NA``)."""
    labels = labels or {}
    frame = counts.rename_axis("value").reset_index(name="papers")
    frame["value"] = frame["value"].astype(str)
    frame[field] = [labels.get(v, v) for v in frame["value"]]
    frame["not applicable"] = frame["value"] == NOT_APPLICABLE
    ranked = frame.sort_values(["not applicable", "papers", field],
                               ascending=[True, False, True])
    wide, narrow = hbars(frame, category=field, value="papers", order=list(ranked[field]),
                         x_title="papers in the retained pool",
                         y_title=axis_title or field.replace("_", " "), muted="not applicable")
    note = (na_note(vocabulary_field, labels.get(NOT_APPLICABLE, NOT_APPLICABLE))
            if frame["not applicable"].any() else None)
    return finish(wide, title, description, note=note, narrow=narrow)


def heatmap(table: pd.DataFrame, *, row: str, column: str, title: str, description: str,
            row_field: Field | None = None, column_field: Field | None = None) -> alt.LayerChart:
    """A cross-tab (rows x columns of counts) as a heatmap with the count written in each cell;
    values shown by their labels when the vocabulary fields of the rows and columns are given.
    Cells in a not-applicable (``NA``) row or column are drawn in a muted grey, outside the
    colour scale, whose range is set by the informative cells alone (the NA x NA cell, often
    the largest, would otherwise wash every other cell out)."""
    long = table.rename_axis(index=row, columns=column).stack().rename("papers").reset_index()
    long["applies"] = (long[row] != NOT_APPLICABLE) & (long[column] != NOT_APPLICABLE)
    top = int(long.loc[long["applies"], "papers"].max()) if long["applies"].any() else 1
    row_label = row_field.label_of if row_field is not None else str
    column_label = column_field.label_of if column_field is not None else str
    long[row] = [row_label(v) for v in long[row]]
    long[column] = [column_label(v) for v in long[column]]
    base = alt.Chart(long).encode(
        x=alt.X(f"{column}:N", sort=[column_label(c) for c in table.columns],
                title=column_field.label if column_field else column.replace("_", " "),
                axis=alt.Axis(labelAngle=-40, labelLimit=0)),
        y=alt.Y(f"{row}:N", sort=[row_label(r) for r in table.index],
                title=row_field.label if row_field else row.replace("_", " "),
                axis=alt.Axis(labelLimit=0)),
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
    na = (row_field or column_field).label_of(NOT_APPLICABLE) \
        if (row_field or column_field) else NOT_APPLICABLE
    note = (f"Cells in a row or column of {na} are grey, outside the colour scale."
            if not long["applies"].all() else None)
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
        spec, narrow = _layouts(_spec(chart))
        self.title = title_text(spec.pop("title", ""))
        narrow.pop("title", None)
        self.description = spec.get("description", "")
        if not self.title or not self.description:
            raise ValueError("every chart needs a title and a description (text alternative)")
        self.note = " ".join(part for part in (caption, (spec.get("usermeta") or {}).get("note"))
                             if part)
        spec, self.svg = fitted(legible(spec), COLUMN_WIDTH)
        narrow, self.narrow_svg = fitted(legible(narrow), NARROW_WIDTH)
        self.spec = self.narrow_spec = None
        if live is not None:  # the page draws another chart than the static one
            live_spec, live_narrow = _layouts(_spec(live))
            live_spec.pop("title", None)
            live_narrow.pop("title", None)
            self.spec = embedded_spec(responsive(legible(live_spec), COLUMN_WIDTH))
            self.narrow_spec = embedded_spec(responsive(legible(live_narrow), NARROW_WIDTH))
        elif interactive:
            self.spec = embedded_spec(responsive(spec, COLUMN_WIDTH))
            self.narrow_spec = embedded_spec(responsive(narrow, NARROW_WIDTH))

    def _caption(self) -> str:
        note = f' <span class="masrl-note">{html.escape(self.note)}</span>' if self.note else ""
        return (f'<figcaption class="masrl-caption"><span class="masrl-title">'
                f"{html.escape(self.title)}</span>{note}</figcaption>")

    def _repr_html_(self) -> str:
        label = html.escape(f"{self.title}. {self.description}", quote=True)
        static = (f'<div class="masrl-static"><div class="masrl-wide">{self.svg}</div>'
                  f'<div class="masrl-narrow">{self.narrow_svg}</div></div>')
        if self.spec is None:
            return (f'<figure class="masrl-chart" role="img" aria-label="{label}">'
                    f"{static}{self._caption()}</figure>")
        return (f'<figure class="masrl-chart masrl-interactive" role="img" aria-label="{label}" '
                f'data-narrow-below="{NARROW_BELOW}">{static}<div class="masrl-live"></div>'
                f'<script type="application/json" class="masrl-spec">{self.spec}</script>'
                f'<script type="application/json" class="masrl-spec-narrow">{self.narrow_spec}'
                f"</script>{self._caption()}</figure>")

    def __repr__(self) -> str:
        note = f" {self.note}" if self.note else ""
        return f"Chart: {self.title}. {self.description}{note}"


def _spec(chart: alt.TopLevelMixin | dict) -> dict:
    """A chart's Vega-Lite specification: a dictionary as given (copied), an Altair chart's
    ``to_dict()``."""
    return dict(chart) if isinstance(chart, dict) else chart.to_dict()


def _layouts(spec: dict) -> tuple[dict, dict]:
    """A finished chart's wide specification and its narrow one (the builder's, kept in
    ``usermeta``, or derived), both with the book's fonts."""
    usermeta = dict(spec.get("usermeta") or {})
    narrow = usermeta.pop("narrow", None)
    spec = {**spec, "usermeta": usermeta} if usermeta else \
        {k: v for k, v in spec.items() if k != "usermeta"}
    if narrow is None:
        narrow = narrow_spec(spec)
    else:
        narrow = with_config(stacked_legends({k: v for k, v in narrow.items()
                                              if k != "usermeta"}), NARROW_CONFIG)
    return spec, narrow


def responsive(spec: dict, width: int = COLUMN_WIDTH) -> dict:
    """The specification an interactive chart is drawn from in the page: a single or layered
    view takes the width of its container (and is drawn again when that width changes); a
    faceted or concatenated chart keeps its panel sizes, fitted to ``width``."""
    if is_compound(spec):
        return fitted(spec, width)[0]
    return {**spec, "width": "container",
            "autosize": {"type": "fit-x", "contains": "padding", "resize": True}}


def show(chart: alt.TopLevelMixin | dict, *, interactive: bool = False,
         caption: str | None = None, live: alt.TopLevelMixin | dict | None = None) -> Figure:
    """Render a finished chart (an Altair chart, or a specification finished by
    :func:`masrl.presentation.vega.finish`) for display (the last expression of a notebook cell); with
    ``interactive``, the built book also draws it with tooltips (see the module docstring);
    with ``live``, the built book draws that chart instead (say, one a reader can zoom), and
    the static SVG of ``chart`` stays for pages without JavaScript. ``caption`` adds a sentence
    to the figure's caption, after the chart's title."""
    return Figure(chart, interactive, caption, live)


def screening_flow(flow: pd.DataFrame, *, title: str, description: str) -> alt.LayerChart:
    """The screening flow as ordered horizontal bars: audited, excluded by stage, retained."""
    kinds = ["audited", "excluded", "retained"]
    colour = alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=OKABE_ITO[:3]),
                       title="records that are")
    wide, narrow = hbars(flow, category="step", value="records", order=list(flow["step"]),
                         x_title="records", y_title="screening step", colour=colour)
    return finish(wide, title, description, narrow=narrow)


def field_counts(counts: pd.Series, field: Field) -> alt.LayerChart:
    """Papers per value of one vocabulary field (zero counts kept), titled, labelled and
    described from the vocabulary: the charts of the statistics chapter."""
    return bar_counts(
        counts, field=field.name, title=f"{field.label}: papers per value",
        description=f"Bar chart of retained papers per {field.label.lower()}: "
        + ", ".join(f"{field.label_of(value)} {n}" for value, n in counts.items()),
        labels=field.labels, axis_title=field.label, vocabulary_field=field)
