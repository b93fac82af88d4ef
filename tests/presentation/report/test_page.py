"""The report page: one self-contained HTML page (styles and scripts inside, nothing outside it
referenced), the chart libraries from vl-convert's bundle, cached on disk under vl-convert's
version, and the same sections giving the same bytes."""

from __future__ import annotations

import re

import vl_convert
from replay_examples import EXAMPLES, hostile_content_trace
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
        "In short", "Validation", "The run in numbers", "Labels", "Who worked with whom",
        "Timeline", "Critical path", "Step by step", "Credit"]


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


def test_hostile_names_are_shown_escaped_everywhere_on_the_page(tmp_path):
    """An agent id, a tool name and a trace id holding control characters and bidirectional
    controls (an U+202E in a tool name turned round the rest of its step line, "at 13.3 s"
    read "s 3.31 ta"): nowhere on the page (headline, tables, the agent graph, the chart's
    data) is such a character left as it is; each is written as its escape."""
    import json

    document = json.loads((EXAMPLES / "centralized.json").read_text(encoding="utf-8"))
    evil_agent, evil_tool = "re\u202esearcher_1\x07", "web\u2067.search\u200f\x1b[2J"
    text = json.dumps(document).replace('"researcher_1"', json.dumps(evil_agent))
    text = text.replace('"web.search"', json.dumps(evil_tool))
    text = text.replace('"example-centralized"', json.dumps("run\u202e1"))
    path = tmp_path / "names.json"
    path.write_text(text, encoding="utf-8")
    markup = page.render(sections_of(path), "Trace report: run\u202e1", libraries=LIBRARIES)
    hidden = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
    assert re.findall(hidden, markup) == []
    assert "re\\u202esearcher_1\\x07" in markup  # the agent, as its escapes show it
    assert "web\\u2067.search\\u200f\\x1b[2J" in markup  # the tool
    specs = re.findall(r'<script type="application/json" class="masrl-spec">(.*?)</script>',
                       markup, flags=re.S)
    assert specs and all("re\\\\u202esearcher_1\\\\x07" in spec for spec in specs)


def test_hostile_text_and_labels_never_reach_the_page_as_markup(tmp_path):
    """A trace whose kept text and labels hold markup, a script's end tag, control characters
    and a very long line: the page holds them as text only (outside its own scripts, no tag
    from the trace; nowhere a control character)."""
    import json

    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile_content_trace()), encoding="utf-8")
    markup = page.render(sections_of(path), "Trace report: <b>x</b>", libraries=LIBRARIES)
    assert re.findall(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]", markup) == []
    outside_scripts = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", markup,
                             flags=re.S)
    tags = set(re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", outside_scripts))
    assert tags <= {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2",
                    "section", "p", "code", "div", "table", "caption", "thead", "tbody", "tr",
                    "th", "td", "span", "details", "summary", "ul", "li", "strong", "pre",
                    "figure", "figcaption", "script", "footer", "svg", "g", "rect", "text",
                    "path", "line", "defs", "marker", "tspan", "polygon",
                        "wbr"}, tags
    assert "<img" not in outside_scripts and "<b>" not in outside_scripts
    # the text is there, escaped, and the specification of the chart cannot end its element
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in markup
    specs = re.findall(r'<script type="application/json" class="masrl-spec">(.*?)</script>',
                       markup, flags=re.S)
    assert specs and all("<" not in spec for spec in specs)
    assert "\\u003c/script\\u003e\\u003cb\\u003ename" in specs[0]  # the label, in the timeline
