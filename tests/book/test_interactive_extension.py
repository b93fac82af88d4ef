"""The Sphinx extension that serves the chart libraries: a build without them stops with a
message that says what to run, and only pages with an interactive chart load them."""

from __future__ import annotations

import importlib.util
import types

import pytest
from sphinx.errors import ExtensionError

from masrl import paths

SPEC = importlib.util.spec_from_file_location(
    "interactive_charts", paths.REPO_ROOT / "book" / "_ext" / "interactive_charts.py")
extension = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(extension)


def fake_app(confdir):
    added: list[str] = []
    return types.SimpleNamespace(confdir=str(confdir), added=added,
                                 add_js_file=lambda name, **kw: added.append(name))


def test_missing_libraries_stop_the_build_with_what_to_run(tmp_path):
    with pytest.raises(ExtensionError, match=r"run `npm ci`"):
        extension.vendor_files(fake_app(tmp_path))


def test_the_libraries_come_from_node_modules(tmp_path):
    for path in extension.VENDOR.values():
        target = tmp_path / "node_modules" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("// a library", encoding="utf-8")
    with pytest.raises(ExtensionError, match="mathjax"):  # MathJax is needed too
        extension.vendor_files(fake_app(tmp_path))
    (tmp_path / "node_modules" / "mathjax/es5/input/tex/extensions").mkdir(parents=True)
    (tmp_path / "node_modules" / "mathjax/es5/tex-svg.js").write_text("// MathJax")
    found = extension.vendor_files(fake_app(tmp_path))
    assert sorted(found) == ["mathjax/input/tex/extensions", "mathjax/tex-svg.js",
                             "vega-embed.min.js", "vega-lite.min.js", "vega.min.js"]


def test_only_pages_with_an_interactive_chart_load_the_scripts(tmp_path):
    app = fake_app(tmp_path)
    extension.load_on_chart_pages(app, "notebooks/10", "page.html", {"body": "<p>text</p>"}, None)
    assert app.added == []
    extension.load_on_chart_pages(app, "notebooks/21", "page.html",
                                  {"body": '<figure class="masrl-chart masrl-interactive">'}, None)
    assert app.added == ["vega/vega.min.js", "vega/vega-lite.min.js",
                         "vega/vega-embed.min.js", "masrl-charts.js"]


def test_the_pinned_versions_match_the_python_renderer():
    """The page draws with the Vega that vl-convert draws the static SVG with."""
    import json

    import vl_convert

    lock = json.loads((paths.REPO_ROOT / "package-lock.json").read_text(encoding="utf-8"))
    installed = {name.removeprefix("node_modules/"): entry["version"]
                 for name, entry in lock["packages"].items() if name}
    assert installed["vega"] == vl_convert.get_vega_version()
    assert installed["vega-embed"] == vl_convert.get_vega_embed_version()
    assert installed["vega-lite"].rsplit(".", 1)[0] in vl_convert.get_vegalite_versions()


def test_the_chart_script_is_served_from_the_package(tmp_path):
    """The script that draws the charts ships inside masrl (the report page carries it too);
    the book copies it into its _static folder with the libraries."""
    script = extension.chart_script()
    assert script.is_file() and "vegaEmbed" in script.read_text(encoding="utf-8")
    for path in extension.VENDOR.values():
        target = tmp_path / "node_modules" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("// a library", encoding="utf-8")
    (tmp_path / "node_modules" / "mathjax/es5/input/tex/extensions").mkdir(parents=True)
    (tmp_path / "node_modules" / "mathjax/es5/tex-svg.js").write_text("// MathJax")
    app = types.SimpleNamespace(confdir=str(tmp_path), outdir=str(tmp_path / "html"),
                                builder=types.SimpleNamespace(format="html"))
    extension.copy_vendor(app, None)
    copied = tmp_path / "html" / "_static" / "masrl-charts.js"
    assert copied.read_bytes() == script.read_bytes()
    assert (tmp_path / "html" / "_static" / "vega" / "vega.min.js").is_file()
