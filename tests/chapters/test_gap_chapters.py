"""The gap chapters run with papermill on other data and other parameters: the readings chapter
reproduces each reading's table through its ``reading`` parameter, and the claims chapter
reports a claim that a changed tag makes fail. Each run executes a copy of the chapter in a
temporary directory, so the committed notebooks are never overwritten."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import nbformat
import pytest
from support import replace_in

from masrl import paths

NOTEBOOKS = paths.REPO_ROOT / "notebooks"


def execute_copy(chapter: str, tmp_path: Path, **parameters) -> nbformat.NotebookNode:
    """Run ``notebooks/<chapter>.md`` with scripts/execute_notebook.py on a copy in tmp_path."""
    spec = importlib.util.spec_from_file_location(
        "execute_notebook", paths.REPO_ROOT / "scripts" / "execute_notebook.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    source = tmp_path / f"{chapter}.md"
    shutil.copy(NOTEBOOKS / f"{chapter}.md", source)
    target = runner.execute(source, {k: str(v) for k, v in parameters.items()})
    assert target.parent == tmp_path
    return nbformat.read(target, as_version=4)


def glued(notebook) -> dict[str, str]:
    """Every value the notebook glued, as its plain-text form."""
    values = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                values[name] = "".join(output["data"]["text/plain"])
    return values


def printed(notebook) -> str:
    return "\n".join("".join(o.get("text", "")) for c in notebook.cells
                     for o in c.get("outputs", []) if o.get("output_type") == "stream")


def test_the_claims_chapter_reports_a_failing_claim(tmp_path, data_copy):
    replace_in(data_copy / "audit.csv", "\nowl2025,,strict,", "\nowl2025,,broad,")
    notebook = execute_copy("35_claims", tmp_path, data_dir=data_copy)
    values = glued(notebook)
    assert values["n_failed"] == "5"
    assert "orchestrator-credit" in values["failed_ids"]
    assert "FAIL: 5 of" in printed(notebook)
    assert "orchestrator-credit" in printed(notebook)


@pytest.mark.parametrize("reading, message, orchestrator, kept", [
    ("broad", "2", "8", "84"),
    ("strict", "1", "5", "80"),
    ("spotcheck", "2", "9", "84"),
])
def test_the_reading_parameter_reproduces_each_table(tmp_path, reading, message, orchestrator, kept):
    values = glued(execute_copy("31_readings", tmp_path, reading=reading))
    assert values["reading"] == repr(reading)
    assert values["reading_rows"] == kept
    assert values["reading_message"] == message
    assert values["reading_orchestrator"] == orchestrator
    assert values[f"orchestrator_{reading}"] == orchestrator  # agrees with the side-by-side table


def test_an_unknown_reading_stops_the_chapter(tmp_path):
    import papermill

    with pytest.raises(papermill.PapermillExecutionError, match="unknown reading 'lenient'"):
        execute_copy("31_readings", tmp_path, reading="lenient")
