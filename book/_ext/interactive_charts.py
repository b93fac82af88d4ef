"""Sphinx extension: the book's own static files, and the local copy of Vega for the charts that
readers can explore (``masrl.presentation.charts.show(chart, interactive=True)``).

* ``book/_static`` (our stylesheet and chart script) is added to the static files of the build.
* Vega, Vega-Lite and vega-embed come from ``node_modules``, installed from the npm registry
  by ``npm ci`` (``make book`` runs it; versions pinned in ``package.json`` and
  ``package-lock.json``). Their built files are copied into ``_static/vega`` of the output,
  never committed, never referenced on a CDN. A build without them stops with a message saying
  so.
* A page that holds an interactive chart (``figure.masrl-interactive``) loads the three
  libraries and ``masrl-charts.js``; other pages load none of them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.errors import ExtensionError

STATIC = Path(__file__).resolve().parents[1] / "_static"
VENDOR = {  # file served from _static/vega -> where npm ci puts it
    "vega.min.js": "vega/build/vega.min.js",
    "vega-lite.min.js": "vega-lite/build/vega-lite.min.js",
    "vega-embed.min.js": "vega-embed/build/vega-embed.min.js",
}
MARKER = "masrl-interactive"
SCRIPTS = [f"vega/{name}" for name in VENDOR] + ["masrl-charts.js"]


def node_modules(app) -> Path:
    return Path(app.confdir) / "node_modules"


def vendor_files(app) -> dict[str, Path]:
    """Served name -> installed file; an :class:`ExtensionError` names what is missing."""
    found = {name: node_modules(app) / path for name, path in VENDOR.items()}
    missing = [str(p) for p in found.values() if not p.is_file()]
    if missing:
        raise ExtensionError("the chart libraries are not installed (" + ", ".join(missing)
                             + "): run `npm ci` in the repository (make book does)")
    return found


def add_static(app, config) -> None:
    config.html_static_path.append(str(STATIC))
    vendor_files(app)  # fail early, before anything is read


def load_on_chart_pages(app, pagename, templatename, context, doctree) -> None:
    if MARKER in context.get("body", ""):
        for script in SCRIPTS:
            app.add_js_file(script, priority=600)


def copy_vendor(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "vega"
    target.mkdir(parents=True, exist_ok=True)
    for name, source in vendor_files(app).items():
        shutil.copyfile(source, target / name)


def setup(app):
    app.connect("config-inited", add_static)
    app.add_css_file("masrl.css")
    app.connect("html-page-context", load_on_chart_pages)
    app.connect("build-finished", copy_vendor)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
