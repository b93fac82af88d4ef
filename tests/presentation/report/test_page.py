"""The report page: one self-contained HTML page (styles and scripts inside, nothing outside it
referenced), the chart libraries from vl-convert's bundle, cached on disk under vl-convert's
version, and the same sections giving the same bytes."""

from __future__ import annotations

import re

import vl_convert
from replay_examples import EXAMPLES
from trace_helpers import FIXTURES

from masrl.presentation.report import Subject, build, bundle, page, replayed
from masrl.traces import validate_file

LIBRARIES = "window.vegaEmbed = function () { return Promise.resolve(); };"


def sections_of(path, label="t.json"):
    checked = validate_file(path, source=label)
    return build(checked, replayed(checked), Subject(label, label))


def outside_addresses(markup: str) -> list[str]:
    """Every address the page's markup would load (script text left out)."""
    markup = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", markup, flags=re.S)
    found = re.findall(r'\b(?:src|href)\s*=\s*"([^"]*)"', markup)
    found += re.findall(r"url\(([^)]*)\)", markup)
    return [a for a in found if not a.startswith(("#", "data:"))]


def test_a_page_holds_everything_it_needs():
    markup = page.render(sections_of(EXAMPLES / "swarm.json"), "Trace report: example-swarm",
                         libraries=LIBRARIES)
    assert markup.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    assert "<title>Trace report: example-swarm</title>" in markup
    assert outside_addresses(markup) == [] and "<link" not in markup
    assert re.findall(r"<script\b[^>]*\bsrc=", markup) == []
    assert LIBRARIES in markup and "figure.masrl-interactive" in markup  # script, and style
    assert page.chart_script() in markup
    assert markup.count('<figure class="masrl-chart masrl-interactive"') == 1
    # without JavaScript, the chart's place says what it shows
    assert re.search(r'<div class="masrl-live"></div><p class="masrl-alt">Gantt chart of 39 '
                     r"events", markup)
    assert [h for h in re.findall(r"<h2>(.*?)</h2>", markup)] == [
        "In short", "Validation", "The run in numbers", "Who worked with whom", "Timeline",
        "Critical path", "Credit"]


def test_same_sections_same_bytes():
    one = page.render(sections_of(EXAMPLES / "hierarchical.json"), "t", libraries=LIBRARIES)
    two = page.render(sections_of(EXAMPLES / "hierarchical.json"), "t", libraries=LIBRARIES)
    assert one == two


def test_a_page_without_charts_carries_no_scripts():
    markup = page.render(sections_of(FIXTURES / "not_json.json"), "t", libraries=LIBRARIES)
    assert "<script" not in markup and "Skipped: the trace is invalid" in markup


def test_a_script_that_could_close_its_element_travels_as_data():
    assert page.inline_script("var a = 1;") == "<script>var a = 1;</script>"
    hostile = page.inline_script('var s = "</script><img>";')
    assert hostile.startswith('<script src="data:text/javascript;base64,')
    assert "</script><img>" not in hostile


def test_the_bundle_is_made_once_per_vl_convert_version(tmp_path, monkeypatch):
    made = []

    def fake_bundle():
        made.append(1)
        return "// the libraries"

    monkeypatch.setenv(bundle.CACHE_VARIABLE, str(tmp_path))
    monkeypatch.setattr(vl_convert, "javascript_bundle", fake_bundle)
    assert bundle.javascript_bundle() == "// the libraries"
    assert bundle.javascript_bundle() == "// the libraries"
    assert made == [1]
    assert [p.name for p in tmp_path.iterdir()] == [
        f"vl-convert-{vl_convert.__version__}-vega-bundle.js"]


def test_an_unwritable_cache_costs_the_bundling_and_nothing_else(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(bundle.CACHE_VARIABLE, str(blocked / "masrl"))
    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda: "// again")
    assert bundle.javascript_bundle() == "// again"


def test_the_cache_folder_follows_the_platform(monkeypatch, tmp_path):
    monkeypatch.delenv(bundle.CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(bundle.sys, "platform", "linux")
    assert bundle.cache_dir() == tmp_path / "masrl"
