"""The two layouts of every chart: wide for a desktop's column, narrow for a phone's.

A chart is not shrunk to fit a phone: scaled from the 760 px of a desktop column to the 358 px
of a phone's, its text would be 5 px high. Each chart is laid out twice, as Vega-Lite
specifications, and the page shows the one that fits its width (``book/_static/masrl.css``: the
narrow one below :data:`NARROW_BELOW` px):

* **wide**: :data:`COLUMN_WIDTH` px wide, the chart as its builder made it;
* **narrow**: :data:`NARROW_WIDTH` px wide. A builder may give its own (bar charts put each
  label above its bar, :func:`masrl.presentation.charts.bar_counts`); otherwise
  :func:`narrow_spec` derives one: side-by-side panels stacked, a facet in one column, legends
  below the plot, fewer ticks on quantitative axes.

Both layouts keep every text at least :data:`MIN_FONT` px at the size they are laid out at
(:func:`legible`), and a chart of several panels is fitted to its width (:func:`fitted`: its
panels narrowed until the drawing is no wider), so that no text on screen is under 11 CSS px:
the wide layout is shown at 0.92 of its size at the least (a 700 px column), the narrow one at
0.96 (a 328 px column, the narrowest phone).
"""

from __future__ import annotations

import copy
import re
import textwrap
from collections.abc import Callable

import vl_convert as vlc

from masrl.presentation.vega import COLUMN_WIDTH  # noqa: F401  (wide layouts are laid out this wide)

NARROW_WIDTH = 340  # px: a phone's column (358 px at 390, 328 px at 360); narrow layouts
NARROW_BELOW = 700  # px of a figure's width under which its narrow layout shows (masrl.css)
MIN_FONT = 12  # px: the smallest text of a chart at the size it is laid out at

# Font sizes of every chart (Vega-Lite ``config``), none under MIN_FONT.
FONTS = {
    "axis": {"labelFontSize": MIN_FONT, "titleFontSize": MIN_FONT},
    "legend": {"labelFontSize": MIN_FONT, "titleFontSize": MIN_FONT, "labelLimit": 0},
    "header": {"labelFontSize": MIN_FONT, "titleFontSize": MIN_FONT},
    "text": {"fontSize": MIN_FONT},
    "title": {"fontSize": 14, "anchor": "start"},
}
# What the narrow layout changes besides its width.
NARROW_CONFIG = {
    # below the plot: symbol legends one entry a line (columns), colour ramps lying flat
    "legend": {"orient": "bottom", "columns": 1, "gradientLength": 220},
    "axisQuantitative": {"tickCount": 4},
}
_FONT_KEYS = {"fontSize", "labelFontSize", "titleFontSize"}
_CHANNELS = {"x", "y", "x2", "y2", "color", "shape", "size", "opacity", "row", "column", "facet"}
TITLE_CHARS = 40  # an axis or legend title longer than this goes on two lines or more (narrow)
# the header of each panel of a faceted chart, on a phone: above its panel, not beside it
TOP_HEADER = {"labelOrient": "top", "labelAngle": 0, "labelAlign": "left",
              "labelAnchor": "start", "titleOrient": "top"}
_COMPOUND = ("facet", "hconcat", "vconcat", "concat", "repeat")
_SVG_WIDTH = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"')


def is_compound(spec: dict) -> bool:
    """A chart of several panels: a facet, a concatenation, or a view faceted by row/column."""
    encoding = spec.get("encoding") or {}
    return any(key in spec for key in _COMPOUND) or "row" in encoding or "column" in encoding


def legible(spec: dict) -> dict:
    """``spec`` with every font size it names (marks, axes, legends, headers, config) raised to
    :data:`MIN_FONT` at the least, and the sizes it leaves to Vega's defaults (a legend's labels
    are 10 px there) set to :data:`MIN_FONT` in its config."""
    config = copy.deepcopy(spec.get("config") or {})
    for section, sizes in FONTS.items():
        if section == "title":
            continue
        own = config.setdefault(section, {})
        for key in _FONT_KEYS & sizes.keys():
            own.setdefault(key, MIN_FONT)
    spec = {**spec, "config": config}

    def walk(node):
        if isinstance(node, dict):
            return {key: (max(value, MIN_FONT) if key in _FONT_KEYS
                          and isinstance(value, (int, float)) else walk(value))
                    for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(spec)


def with_config(spec: dict, config: dict) -> dict:
    """``spec`` with ``config`` merged into its own, section by section (``config`` wins)."""
    merged = copy.deepcopy(spec.get("config") or {})
    for section, values in config.items():
        merged[section] = {**(merged.get(section) or {}), **values}
    return {**spec, "config": merged}


def wrapped_titles(spec: dict, chars: int = TITLE_CHARS) -> dict:
    """``spec`` with every long title of an encoding channel (axis, legend, header) split into
    lines of at most ``chars`` characters, so that it never sets the chart's width."""

    def wrap(title):
        if isinstance(title, str) and len(title) > chars:
            return textwrap.wrap(title, chars)
        return title

    def walk(node):
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        found = {}
        for key, value in node.items():
            if key == "encoding" and isinstance(value, dict):
                found[key] = {channel: ({**walk(definition), "title": wrap(definition["title"])}
                                        if isinstance(definition, dict) and "title" in definition
                                        and channel in _CHANNELS else walk(definition))
                              for channel, definition in value.items()}
            else:
                found[key] = walk(value)
        return found

    return walk(spec)


def stacked_legends(spec: dict) -> dict:
    """``spec`` with every legend a builder set below the plot in several columns set in one
    column (a narrow layout has no room for entries side by side) and its labels whole."""

    def walk(node):
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        found = {key: walk(value) for key, value in node.items()}
        legend = found.get("legend")
        if isinstance(legend, dict) and ("columns" in legend or "labelLimit" in legend):
            found["legend"] = {**legend, "columns": 1, "labelLimit": 0}
        return found

    return walk(spec)


def narrow_spec(spec: dict) -> dict:
    """The narrow layout derived from a wide one (see the module docstring)."""
    narrow = stacked_legends(wrapped_titles(copy.deepcopy(spec)))
    encoding = narrow.get("encoding") or {}
    if "column" in encoding and "row" not in encoding:
        encoding["row"] = encoding.pop("column")  # panels side by side go one under another
    if "row" in encoding:
        encoding["row"]["header"] = {**(encoding["row"].get("header") or {}), **TOP_HEADER}
    if "hconcat" in narrow:
        narrow["vconcat"] = narrow.pop("hconcat")
    facet = narrow.get("facet")
    if "concat" in narrow or (isinstance(facet, dict) and "field" in facet):
        narrow["columns"] = 1  # a wrapped facet or concatenation: one panel a row
    elif isinstance(facet, dict) and "column" in facet and "row" not in facet:
        facet["row"] = facet.pop("column")
    if isinstance(facet, dict):
        target = facet if "field" in facet else facet.get("row")
        if isinstance(target, dict):
            target["header"] = {**(target.get("header") or {}), **TOP_HEADER}
    if not is_compound(narrow):
        narrow["width"] = NARROW_WIDTH
        narrow["autosize"] = {"type": "fit-x", "contains": "padding"}
    return with_config(narrow, NARROW_CONFIG)


def drawn_width(svg: str) -> float:
    """The width of a rendered chart (its ``<svg width>``)."""
    found = _SVG_WIDTH.search(svg)
    if not found:
        raise ValueError("the rendered chart names no width")
    return float(found.group(1))


def _panels(spec: dict) -> tuple[list[dict], int]:
    """The views whose ``width`` sets a compound chart's width, and how many sit side by side."""
    if "facet" in spec or "repeat" in spec:
        return [spec["spec"]], int(spec.get("columns") or 1)
    for key, across in (("hconcat", True), ("vconcat", False), ("concat", None)):
        if key in spec:
            views = [view for view in spec[key] if isinstance(view, dict)]
            side = len(views) if across else 1 if across is False else \
                int(spec.get("columns") or len(views))
            return views, max(side, 1)
    encoding = spec.get("encoding") or {}
    return [spec], 1 if "column" not in encoding else 2  # a rough start; fitting corrects it


def fitted(spec: dict, width: float, render: Callable[[dict], str] | None = None,
           tries: int = 4) -> tuple[dict, str]:
    """``spec`` laid out no wider than ``width`` px, and its SVG. A single or layered view is
    set to ``width`` (fit-x); a compound chart has its panels narrowed, by the excess over the
    panels side by side, until its drawing fits (a panel never under 80 px)."""
    render = render or vlc.vegalite_to_svg
    spec = copy.deepcopy(spec)
    if not is_compound(spec):
        spec["width"] = width
        spec["autosize"] = {"type": "fit-x", "contains": "padding"}
        return spec, render(spec)
    svg = render(spec)
    for _ in range(tries):
        excess = drawn_width(svg) - width
        if excess <= 0.5:
            break
        views, side = _panels(spec)
        for view in views:
            current = view.get("width")
            current = current if isinstance(current, (int, float)) else 200
            view["width"] = max(80, int(current - excess / side - 1))
        svg = render(spec)
    return spec, svg
