"""Vega-Lite specifications as plain dictionaries: the one finishing step, the palette and the
column width that every chart of the book and of the trace report share.

Nothing here imports Altair, pandas or vl-convert: the trace report builds its charts with these
functions and draws them in the reader's browser; the book (:mod:`masrl.presentation.charts`)
renders the same dictionaries, or Altair charts finished with the same values, to static SVG.
"""

from __future__ import annotations

import json

from masrl.presentation.escaping import shown

# Okabe & Ito (2008), the palette recommended for colour-vision deficiencies.
OKABE_ITO = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
]
COLUMN_WIDTH = 760  # px: the book's text column at 1440 px; charts are laid out this wide
CONFIG = {  # what every chart is finished with: palette, axis, legend and title fonts (no
    # text under 11 px: Vega's own default for a legend's labels is 10)
    "range": {"category": OKABE_ITO},
    "axis": {"labelFontSize": 11, "titleFontSize": 12},
    "legend": {"labelFontSize": 12, "titleFontSize": 12},
    "title": {"fontSize": 14, "anchor": "start"},
}
COMPOSED = ("facet", "hconcat", "vconcat", "concat", "repeat")


def finish(spec: dict, title: str | dict, description: str, *, height: int | None = None,
           note: str | None = None) -> dict:
    """``spec`` with its title, text alternative (``description``), palette and fonts. A single
    or layered view is laid out :data:`COLUMN_WIDTH` pixels wide, axes and legend included
    (``autosize: fit-x``); a composed one keeps the sizes of its panels. ``note`` is a sentence
    for the caption under the title (kept in ``usermeta``)."""
    if not title or not description:
        raise ValueError("every chart needs a title and a description (text alternative)")
    finished = {"title": title, "description": description, **spec}
    if not any(key in spec for key in COMPOSED):
        finished["width"] = COLUMN_WIDTH
        finished["autosize"] = {"type": "fit-x", "contains": "padding"}
    if height is not None:
        finished["height"] = height
    if note:
        finished["usermeta"] = {"note": note}
    finished["config"] = CONFIG
    return finished


def title_text(title) -> str:
    """A specification's title as one line of text (its ``text``, lines joined)."""
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(title)
    return str(title)


def responsive(spec: dict) -> dict:
    """The specification an interactive chart is drawn from in a page: a single or layered view
    takes the width of its container (and is drawn again when that width changes); faceted and
    concatenated charts keep their panel sizes."""
    if any(key in spec for key in COMPOSED):
        return spec
    return {**spec, "width": "container",
            "autosize": {"type": "fit-x", "contains": "padding", "resize": True}}


def embedded_spec(spec: dict) -> str:
    """A Vega-Lite specification as JSON that is safe inside an HTML ``<script>`` element:
    sorted keys, no ``$schema`` address (a page names no outside host), every text shown as a
    reader can see it (:func:`masrl.presentation.escaping.shown`: a control or bidirectional
    character of a name in the data drawn as its escape, not hidden nor turning the label
    round), and ``<``, ``>``, ``&`` written as JSON escapes, so that no text of the data can
    close the element."""
    text = json.dumps(_shown({k: v for k, v in spec.items() if k != "$schema"}), sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _shown(value):
    """``value`` with :func:`~masrl.presentation.escaping.shown` applied to every text in it."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {key: _shown(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown(item) for item in value]
    return value
