"""Chapter 22 shows what ``masrl report`` shows: its sections are the report's sections (the
same builders, in the same order, under the same headings), its committed outputs are what those
builders give today, and it runs on an invalid trace without a traceback."""

from __future__ import annotations

import re

import nbformat
import pytest
from chapter_helpers import execute_copy
from trace_helpers import FIXTURES

from masrl import paths
from masrl.presentation import report
from masrl.traces import validate_file

CHAPTER = paths.REPO_ROOT / "notebooks" / "22_trace_report.md"
CELL = re.compile(r'^## (.+?)\n\n```\{code-cell\} ipython3\n:tags: \[remove-input\]\n\n'
                  r'sections\["(\w+)"\]\n```', re.MULTILINE)


def test_the_chapter_shows_every_section_of_the_report_under_its_heading():
    text = CHAPTER.read_text(encoding="utf-8")
    shown = CELL.findall(text)
    assert shown == [(title, key) for key, title in report.SECTIONS.items()]
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings == [*report.SECTIONS.values(), "Summary", "What's next"]


def committed_outputs() -> list[str]:
    notebook = nbformat.read(CHAPTER.with_suffix(".ipynb"), as_version=4)
    return ["".join(output["data"]["text/html"]) for cell in notebook.cells
            for output in cell.get("outputs", []) if "text/html" in output.get("data", {})]


def test_the_committed_outputs_are_what_the_builders_give():
    """The chapter cannot drift from the report: each output is the section built now."""
    label = "hierarchical.json (a worked example)"
    checked = validate_file(paths.REPO_ROOT / "src/masrl/traces/resources/examples/"
                            "hierarchical.json", source=label)
    sections = report.build(checked, report.replayed(checked),
                            report.Subject(label, "../src/masrl/traces/resources/examples/"
                                           "hierarchical.json"))
    assert committed_outputs() == [section._repr_html_() for section in sections]


@pytest.mark.parametrize("trace", [FIXTURES / "not_json.json", "nowhere.json"])
def test_an_invalid_or_missing_trace_shows_its_problems_and_skips_the_rest(tmp_path, trace):
    notebook = execute_copy("22_trace_report", tmp_path, trace_path=trace, trace_label="t")
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error"
            assert output.get("name") != "stderr", output.get("text")
    html = ["".join(o["data"]["text/html"]) for c in notebook.cells
            for o in c.get("outputs", []) if "text/html" in o.get("data", {})]
    assert len(html) == len(report.SECTIONS)
    assert "is invalid" in html[0]
    assert ("not-json" if "not_json" in str(trace) else "cannot read: no such file") in html[1]
    assert all("Skipped: the trace is invalid" in h for h in html[2:])
