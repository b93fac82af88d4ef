"""Sphinx extension: the book's own static files, and the local copy of Vega for the charts that
readers can explore (``masrl.presentation.charts.show(chart, interactive=True)``).

* ``book/_static`` (our stylesheet) is added to the static files of the build; the script that
  draws the interactive charts ships inside the package (``masrl/presentation/masrl-charts.js``,
  which ``masrl report`` writes into its pages too) and is copied into ``_static`` from there.
* Vega, Vega-Lite and vega-embed come from ``node_modules``, installed from the npm registry
  by ``npm ci`` (``make book`` runs it; versions pinned in ``package.json`` and
  ``package-lock.json``). Their built files are copied into ``_static/vega`` of the output,
  never committed, never referenced on a CDN. A build without them stops with a message saying
  so.
* A page that holds an interactive chart (``figure.masrl-interactive``) loads the three
  libraries and ``masrl-charts.js``; other pages load none of them.
* MathJax, which draws the formulas (``$...$`` in a chapter, ``dollarmath``), comes from the
  same ``node_modules`` (the ``mathjax`` package, pinned likewise): its single-file TeX-to-SVG
  build and the TeX extensions it may load on demand are copied into ``_static/mathjax``, and
  Sphinx's ``mathjax_path`` points there (set here, so that no page names a CDN). Sphinx adds
  it only to pages that hold a formula.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from sphinx.errors import ExtensionError

STATIC = Path(__file__).resolve().parents[1] / "_static"
VENDOR = {  # file served from _static/vega -> where npm ci puts it
    "vega.min.js": "vega/build/vega.min.js",
    "vega-lite.min.js": "vega-lite/build/vega-lite.min.js",
    "vega-embed.min.js": "vega-embed/build/vega-embed.min.js",
}
MATHJAX = {  # file or folder served from _static/mathjax -> where npm ci puts it
    "tex-svg.js": "mathjax/es5/tex-svg.js",
    "input/tex/extensions": "mathjax/es5/input/tex/extensions",
}
MATHJAX_PATH = "mathjax/tex-svg.js"  # relative to _static
MARKER = "masrl-interactive"
CHART_SCRIPT = "masrl-charts.js"  # package data of masrl.presentation
SCRIPTS = [f"vega/{name}" for name in VENDOR] + [CHART_SCRIPT]


def node_modules(app) -> Path:
    return Path(app.confdir) / "node_modules"


def vendor_files(app) -> dict[str, Path]:
    """Served name -> installed file; an :class:`ExtensionError` names what is missing."""
    found = {name: node_modules(app) / path for name, path in VENDOR.items()}
    found.update({f"mathjax/{name}": node_modules(app) / path for name, path in MATHJAX.items()})
    missing = [str(p) for p in found.values() if not p.exists()]
    if missing:
        raise ExtensionError("the chart libraries are not installed (" + ", ".join(missing)
                             + "): run `npm ci` in the repository (make book does)")
    return found


def add_static(app, config) -> None:
    config.html_static_path.append(str(STATIC))
    config.mathjax_path = MATHJAX_PATH
    vendor_files(app)  # fail early, before anything is read


def load_on_chart_pages(app, pagename, templatename, context, doctree) -> None:
    if MARKER in context.get("body", ""):
        for script in SCRIPTS:
            app.add_js_file(script, priority=600)


def chart_script() -> Path:
    """The chart script, where the installed package keeps it."""
    return Path(str(resources.files("masrl.presentation") / CHART_SCRIPT))


def copy_vendor(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(chart_script(), static / CHART_SCRIPT)
    for name, source in vendor_files(app).items():
        target = static / name if name.startswith("mathjax/") else static / "vega" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(source, target)


def setup(app):
    app.connect("config-inited", add_static)
    app.add_css_file("masrl.css")
    app.connect("html-page-context", load_on_chart_pages)
    app.connect("build-finished", copy_vendor)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
