"""Running a chapter in a test: a copy executed with papermill in a temporary directory (the
committed notebooks are never overwritten), and what it glued or printed."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import nbformat

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


def chapters_needing_real_logs() -> set[str]:
    """The chapter names (``24_real_runs``) of ``notebooks/needs_real_logs.txt``: computed from
    ``../shared/traces``, so they can only be executed where those logs are."""
    listed = (NOTEBOOKS / "needs_real_logs.txt").read_text(encoding="utf-8").splitlines()
    return {Path(line.strip()).stem for line in listed if line.strip() and not line.startswith("#")}
