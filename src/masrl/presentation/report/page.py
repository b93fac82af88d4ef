"""The report as one self-contained HTML page: the sections of :mod:`.sections` under a title,
the stylesheet and, when a chart is on the page, the scripts that draw it, all inside.

Nothing outside the page is referenced or fetched: the chart libraries come from
:mod:`.bundle` (vl-convert's own copy of Vega, Vega-Lite and vega-embed), the drawing script
from the package (``masrl/presentation/masrl-charts.js``, the book's too). Without JavaScript
the page still reads: tables and the agent graph are HTML and SVG, and each chart's place holds
its text alternative. The same sections give the same bytes (no dates, no generator line).
"""

from __future__ import annotations

import base64
from importlib import resources

from masrl import __version__
from masrl.presentation.escaping import html_text
from masrl.presentation.report.blocks import Chart, Section

STYLESHEET = "report.css"  # beside this module
CHART_SCRIPT = "masrl-charts.js"  # in masrl.presentation


def stylesheet() -> str:
    return (resources.files("masrl.presentation.report") / STYLESHEET).read_text(encoding="utf-8")


def chart_script() -> str:
    return (resources.files("masrl.presentation") / CHART_SCRIPT).read_text(encoding="utf-8")


def inline_script(text: str) -> str:
    """A script as an HTML ``<script>`` element of the page: its text as it is, unless it holds
    ``</script`` or ``<!--`` (which the HTML parser would read as markup), then as a base64
    ``data:`` address, which nothing in the text can break."""
    lowered = text.lower()
    if "</script" not in lowered and "<!--" not in lowered:
        return f"<script>{text}</script>"
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f'<script src="data:text/javascript;base64,{encoded}"></script>'


def has_charts(sections: list[Section]) -> bool:
    return any(isinstance(block, Chart) for section in sections for block in section.blocks)


# Before the charts are drawn: in a column narrower than a chart was laid out for (a phone),
# the panels of a composed chart (the zoomable timeline of a crowded run: an overview above a
# detail, each of a fixed width) are narrowed to the column, and legends take one or two
# columns instead of four, so that the chart fits instead of sliding sideways or being cut.
FIT_PANELS = """(function () {
  "use strict";
  var GUTTER = 190;  // the lane names and the axis title, left of the plot
  var NARROW = 600;  // a column narrower than this gets a legend of one or two columns
  document.querySelectorAll("figure.masrl-interactive").forEach(function (figure) {
    var source = figure.querySelector("script.masrl-spec");
    if (!source) { return; }
    var spec = JSON.parse(source.textContent);
    var column = figure.clientWidth;
    var panels = spec.vconcat || [spec];
    var widest = Math.max.apply(null, panels.map(function (p) {
      return typeof p.width === "number" ? p.width : 0; }));
    if (column >= NARROW && column - GUTTER >= widest) { return; }
    panels.forEach(function (panel) {
      if (spec.vconcat && column - GUTTER < widest) {
        panel.width = Math.max(160, column - GUTTER);
      }
      (panel.layer || []).forEach(function (layer) {
        var colour = (layer.encoding || {}).color;
        if (colour && colour.legend) { colour.legend.columns = column < 400 ? 1 : 2; }
      });
    });
    source.textContent = JSON.stringify(spec);
  });
})();"""


def scripts(libraries: str | None = None) -> str:
    """The scripts that draw a page's charts, as ``<script>`` elements: the chart libraries
    (``libraries``, by default :func:`.bundle.javascript_bundle`), run in a function of their
    own so that their top-level names stay out of the page's, :data:`FIT_PANELS`, then the
    drawing script."""
    if libraries is None:
        from masrl.presentation.report.bundle import javascript_bundle

        libraries = javascript_bundle()
    return (inline_script(f"(function () {{\n{libraries}\n}}).call(window);") + "\n"
            + inline_script(FIT_PANELS) + "\n" + inline_script(chart_script()) + "\n")


def render(sections: list[Section], title: str, *, libraries: str | None = None,
           command: str = "masrl report") -> str:
    """The page: ``title`` (plain text) as its heading and in the browser's tab, the sections in
    order, a footer naming what wrote it (``command``). ``libraries`` is the chart libraries' script (by
    default :func:`.bundle.javascript_bundle`, read only when a section holds a chart)."""
    body = "\n".join(section.page_html() for section in sections)
    drawing = scripts(libraries) if has_charts(sections) else ""
    drawn = ("the charts are drawn in this page by the copy of Vega it carries, and "
             if drawing else "")
    footer = (f"Written by masrl {html_text(__version__)} (<code>{html_text(command)}</code>) "
              f"from the traces alone; {drawn}nothing is fetched.")
    return ("<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html_text(title)}</title>\n<style>\n{stylesheet()}</style>\n</head>\n"
            f"<body>\n<main>\n<h1>{html_text(title)}</h1>\n{body}\n"
            f"<footer>{footer}</footer>\n</main>\n{drawing}</body>\n</html>\n")
