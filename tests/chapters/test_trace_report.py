"""The trace-report chapter run with papermill on other traces: an invalid or missing trace gets
its problems and a clear message in every later section, never a traceback; a trace whose agent
names are markup is reported with that markup shown as text. Each run executes a copy of the
chapter in a temporary directory, so the committed notebook is never overwritten."""

from __future__ import annotations

import importlib.util
import json
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from hostile_traces import spawn_chain
from replay_examples import EXAMPLES, HOSTILE
from trace_helpers import FIXTURES

from masrl import paths

CHAPTER = paths.REPO_ROOT / "notebooks" / "22_trace_report.md"
SECTIONS_AFTER_VALIDATION = 10  # metrics, counts, tree, agents, timeline, path, credit x4


def execute_copy(tmp_path: Path, trace_path: str | Path) -> nbformat.NotebookNode:
    spec = importlib.util.spec_from_file_location(
        "execute_notebook", paths.REPO_ROOT / "scripts" / "execute_notebook.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    source = tmp_path / CHAPTER.name
    shutil.copy(CHAPTER, source)
    return nbformat.read(runner.execute(source, {"trace_path": str(trace_path)}), as_version=4)


def outputs(notebook, mime: str) -> list[str]:
    return ["".join(o["data"][mime]) for c in notebook.cells for o in c.get("outputs", [])
            if mime in o.get("data", {}) and "scrapbook" not in o.get("metadata", {})]


def glued(notebook) -> dict[str, str]:
    """Every value the notebook glued, as its plain-text form."""
    values = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            scrap = output.get("metadata", {}).get("scrapbook")
            if scrap:
                values[scrap["name"]] = "".join(
                    output["data"][scrap.get("mime_prefix", "") + "text/plain"])
    return values


def assert_no_errors(notebook) -> None:
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error"
            assert output.get("name") != "stderr", output.get("text")


def test_an_invalid_trace_shows_its_problems_and_skips_the_rest(tmp_path):
    notebook = execute_copy(tmp_path, FIXTURES / "not_json.json")
    assert_no_errors(notebook)
    assert glued(notebook)["verdict"] == "'invalid: 1 error(s), 0 warning(s)'"
    html = outputs(notebook, "text/html")
    assert "not-json" in html[0]
    skipped = [h for h in html if "Skipped: the trace is invalid" in h]
    assert len(skipped) == SECTIONS_AFTER_VALIDATION
    assert not any("masrl-chart" in h for h in html)


def test_a_missing_trace_is_a_problem_not_a_traceback(tmp_path):
    notebook = execute_copy(tmp_path, tmp_path / "nowhere.json")
    assert_no_errors(notebook)
    assert "cannot read: no such file" in outputs(notebook, "text/html")[0]


def test_trace_text_is_shown_as_text(tmp_path):
    text = (EXAMPLES / "debate.json").read_text(encoding="utf-8")
    hostile = tmp_path / "hostile.json"
    hostile.write_text(text.replace('"debater_1"', json.dumps(HOSTILE)), encoding="utf-8")
    notebook = execute_copy(tmp_path, hostile)
    assert_no_errors(notebook)
    html = outputs(notebook, "text/html")
    assert sum("masrl-chart" in h for h in html) == 1
    assert sum("&lt;img" in h for h in html) >= 5
    assert not any("<img" in h for h in html)
    assert glued(notebook)["verdict"] == "'valid: 0 error(s), 0 warning(s)'"


@pytest.mark.parametrize("name", ["swarm"])
def test_an_example_given_relative_to_the_notebooks_directory(tmp_path, name):
    notebook = execute_copy(tmp_path, f"../src/masrl/traces/resources/examples/{name}.json")
    assert_no_errors(notebook)
    assert glued(notebook)["trace_id"] == f"'example-{name}'"


def test_a_1500_deep_spawn_chain_is_reported_in_seconds(tmp_path):
    """No recursion down the tree, and no quadratic text: past 40 levels the tree stops
    indenting and says each agent's depth."""
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(spawn_chain(1500)), encoding="utf-8")
    start = time.perf_counter()
    notebook = execute_copy(tmp_path, path)
    seconds = time.perf_counter() - start
    assert_no_errors(notebook)
    assert glued(notebook)["verdict"] == "'valid: 0 error(s), 0 warning(s)'"
    tree = next(h for h in outputs(notebook, "text/html") if "a1500" in h and "depth" in h)
    assert "[depth 1500] a1500 (worker): spawned by s1499" in tree
    assert len(tree) < 400 * 1500
    assert seconds < 120


def test_figures_that_overflow_are_a_problem_not_a_traceback(tmp_path):
    document = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
    document["events"][0]["tokens"] = document["events"][3]["tokens"] = 1.5e308
    path = tmp_path / "overflow.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    notebook = execute_copy(tmp_path, path)
    assert_no_errors(notebook)
    assert glued(notebook)["verdict"] == "'invalid: 1 error(s), 0 warning(s)'"
    html = outputs(notebook, "text/html")
    assert "tokens.total is inf" in html[0]
    assert len([h for h in html if "Skipped: the trace is invalid" in h]) == \
        SECTIONS_AFTER_VALIDATION


# ---------------------------------------------------------------- the chapter as a report page

def committed_notebook() -> nbformat.NotebookNode:
    return nbformat.read(CHAPTER.with_suffix(".ipynb"), as_version=4)


def test_the_book_keeps_the_chapter_s_place_and_the_report_page_drops_it():
    """The book shows the prerequisites, the rerun recipe and what comes next (cells tagged
    book-only); the report page, about one trace, shows none of them and pastes every glued
    value into its prose."""
    from masrl.presentation import report_page

    notebook = committed_notebook()
    book_only = ["".join(c["source"]) for c in notebook.cells
                 if report_page.BOOK_ONLY in c.get("metadata", {}).get("tags", [])]
    assert [text.split()[0] for text in book_only] == ["**Prerequisites.**", "##"]
    assert "masrl report my_trace.json -o report.html" in book_only[0]
    page = report_page.render(notebook, title="Trace report: example-hierarchical")
    assert "{glue" not in page and "glue:text" not in page
    assert "Prerequisites" not in page and "What's next" not in page
    assert "worked examples" not in page
    values = glued(notebook)
    for name in ("verdict", "trace_id", "topology", "n_events"):
        assert f'<span class="pasted-text">{values[name].strip(chr(39))}</span>' in page, name
    assert 'class="cell_input' not in page  # code is never shown


def test_a_chapter_the_report_cannot_render_is_an_error_not_a_page_with_holes():
    from masrl.presentation import report_page

    notebook = committed_notebook()
    notebook.cells.append(nbformat.v4.new_markdown_cell("See [the schema](20_trace_schema)."))
    with pytest.raises(report_page.RenderError, match="20_trace_schema"):
        report_page.render(notebook, title="t")
