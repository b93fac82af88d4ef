"""The chapters: each MyST source agrees with its executed notebook, which starts with a
parameters cell and was executed completely (nbval then re-executes and compares outputs)."""

from __future__ import annotations

import jupytext
import nbformat
import pytest

from masrl import paths

NOTEBOOKS = paths.REPO_ROOT / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("*.md"))


def sources(notebook) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in notebook.cells]


def test_there_are_chapters():
    assert len(CHAPTERS) >= 7


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_paired_sources_agree(chapter):
    executed = chapter.with_suffix(".ipynb")
    assert executed.exists(), f"{executed.name} is missing: run make notebooks"
    text = jupytext.read(chapter)
    stored = nbformat.read(executed, as_version=4)
    assert sources(text) == sources(stored), (
        f"{chapter.name} and {executed.name} disagree: run make notebooks")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_parameters_cell_and_complete_execution(chapter):
    stored = nbformat.read(chapter.with_suffix(".ipynb"), as_version=4)
    code = [c for c in stored.cells if c.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", []), "the first code cell must be the parameters cell"
    counts = [c.execution_count for c in code]
    assert all(counts), "some cells were never executed"
    assert counts == sorted(counts)
    for cell in code:
        for output in cell.outputs:
            assert output.output_type != "error", f"a cell failed: {output.get('ename')}"
    assert "papermill" not in stored.metadata, "volatile papermill metadata must be stripped"


def test_chapters_that_read_the_public_logs_are_listed_for_a_fresh_clone():
    """A chapter computed from ../shared/traces must be in notebooks/needs_real_logs.txt, which
    the Makefile (render from committed outputs) and notebooks/conftest.py (skip nbval) read."""
    listed = {line.strip() for line in (NOTEBOOKS / "needs_real_logs.txt").read_text(
        encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")}
    readers = ("paths.public_logs_dir()", "real_runs.import_all(")  # the ways to reach the logs
    reading = {c.with_suffix(".ipynb").name for c in CHAPTERS
               if any(reader in c.read_text(encoding="utf-8") for reader in readers)}
    assert reading == listed
    assert "notebooks/needs_real_logs.txt" in (paths.REPO_ROOT / "Makefile").read_text(
        encoding="utf-8")
