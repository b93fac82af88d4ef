"""Chart builders for the gap analyses (sparse cells, benchmark coverage, scale gap).

Built on :mod:`masrl.presentation.charts`: every chart is finished there (title, text alternative, Okabe-Ito
palette) and rendered offline to static SVG with ``charts.show``.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from masrl.data.vocabulary import Vocabulary
from masrl.presentation.charts import OKABE_ITO, finish

# One colour per cell mark; grey-free so every mark stays distinct for colour-vision deficiencies.
MARK_COLOURS = {
    "populated": OKABE_ITO[0],   # blue
    "thin": OKABE_ITO[1],        # orange
    "empty": OKABE_ITO[3],       # vermillion
    "inherited": OKABE_ITO[5],   # sky blue
    "not applicable": "#FFFFFF",
}
COVERAGE_COLOURS = {"full": OKABE_ITO[2], "partial": OKABE_ITO[6], "none": "#FFFFFF",
                    "unknown": OKABE_ITO[4]}
# Categories drawn dark enough that their tile text is written in white.
DARK = {"populated", "empty", "full"}
KIND_COLOURS = {"industrial": OKABE_ITO[3], "academic": OKABE_ITO[0]}


def _tile_grid(long: pd.DataFrame, *, row: str, column: str, category: str, colours: dict,
               text: str, legend: str, row_title: str, column_title: str,
               row_order: list, column_order: list) -> alt.LayerChart:
    base = alt.Chart(long).encode(
        x=alt.X(f"{column}:N", sort=column_order, title=column_title,
                axis=alt.Axis(labelAngle=-40)),
        y=alt.Y(f"{row}:N", sort=row_order, title=row_title, axis=alt.Axis(labelLimit=320)),
    )
    tiles = base.mark_rect(stroke="#777777", strokeWidth=0.5).encode(
        color=alt.Color(f"{category}:N", title=legend,
                        scale=alt.Scale(domain=list(colours), range=list(colours.values()))),
    )
    labels = base.mark_text(fontSize=12).encode(
        text=f"{text}:N",
        color=alt.condition(alt.FieldOneOfPredicate(field=category, oneOf=sorted(DARK)),
                            alt.value("white"), alt.value("black")),
    )
    return alt.layer(tiles, labels)


def marked_grid(cells: pd.DataFrame, *, title: str, description: str,
                vocabulary: Vocabulary | None = None) -> alt.LayerChart:
    """A cross-tab in long form (row value, column value, ``papers``, ``mark``) as tiles coloured
    by mark (populated, thin, empty, inherited, not applicable) with the count written in each;
    with ``vocabulary``, rows and columns (named after their fields) show the values' labels."""
    row, column = cells.columns[:2]
    cells = cells.copy()
    titles = {}
    for name in (row, column):
        field = vocabulary.fields.get(name) if vocabulary is not None else None
        if field is not None:
            cells[name] = [field.label_of(v) for v in cells[name]]
        titles[name] = field.label if field is not None else name.replace("_", " ")
    chart = _tile_grid(
        cells, row=row, column=column, category="mark", colours=MARK_COLOURS, text="papers",
        legend="cell", row_title=titles[row], column_title=titles[column],
        row_order=list(cells[row].unique()), column_order=list(cells[column].unique()))
    return finish(chart, title, description)


def coverage_grid(matrix: pd.DataFrame, measures: list[str], *, title: str,
                  description: str) -> alt.LayerChart:
    """Benchmarks x evaluation measures, tiles coloured by coverage (full, partial, none,
    unknown) with the level written in each tile."""
    long = (matrix[measures].rename_axis("benchmark").reset_index()
            .melt(id_vars="benchmark", var_name="measure", value_name="coverage"))
    chart = _tile_grid(
        long, row="benchmark", column="measure", category="coverage", colours=COVERAGE_COLOURS,
        text="coverage", legend="coverage", row_title="benchmark", column_title="measure",
        row_order=list(matrix.index), column_order=measures)
    return finish(chart, title, description, width=260)


def label_sides(points: pd.DataFrame, x_max: float) -> list[str]:
    """Where each point's label goes so that labels do not overlap: ``left`` when another point
    sits at the same height less than a factor of three to its right (or the point is near the
    right edge), ``below`` when there is such a neighbour on both sides, ``right`` otherwise."""
    sides = []
    for agents, horizon in zip(points["agents"], points["horizon"]):
        level = points["agents"][points["horizon"] == horizon]
        right = ((level > agents) & (level <= 3 * agents)).any() or agents * 10 > x_max
        left = ((level < agents) & (level >= agents / 2)).any()
        sides.append("below" if right and left else "left" if right else "right")
    return sides


def scale_scatter(points: pd.DataFrame, *, title: str, description: str) -> alt.LayerChart:
    """Agents per run against task horizon, both on log scales; each point labelled with its
    system and unit and linked to its source (``href``), coloured and shaped by kind."""
    x_max, y_max = points["agents"].max() * 10, points["horizon"].max() * 3
    frame = points.assign(side=label_sides(points, x_max))
    base = alt.Chart(frame).encode(
        x=alt.X("agents:Q", scale=alt.Scale(type="log", domain=[0.5, x_max]),
                title="agents per run (log scale)"),
        y=alt.Y("horizon:Q", scale=alt.Scale(type="log", domain=[0.5, y_max]),
                title="horizon of one task (log scale)"),
        href="source:N",
    )
    dots = base.mark_point(size=70, filled=True, opacity=0.9).encode(
        color=alt.Color("kind:N", title="envelope",
                        scale=alt.Scale(domain=list(KIND_COLOURS), range=list(KIND_COLOURS.values())),
                        legend=alt.Legend(orient="bottom")),
        shape=alt.Shape("kind:N", title="envelope",
                        scale=alt.Scale(domain=list(KIND_COLOURS), range=["diamond", "circle"])),
    )
    right = base.mark_text(align="left", baseline="middle", dx=7).encode(
        text="label:N").transform_filter(alt.datum.side == "right")
    left = base.mark_text(align="right", baseline="middle", dx=-7).encode(
        text="label:N").transform_filter(alt.datum.side == "left")
    below = base.mark_text(align="center", baseline="top", dy=7).encode(
        text="label:N").transform_filter(alt.datum.side == "below")
    return finish(alt.layer(dots, right, left, below), title, description, width=560, height=380)
