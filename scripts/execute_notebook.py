"""Execute one chapter: read its MyST source (``notebooks/NN_name.md``), run it with papermill,
strip what changes from run to run (timestamps, durations), and write the paired ``.ipynb``.

Usage: python scripts/execute_notebook.py notebooks/10_statistics.md [-p name value ...]

The output is written to a temporary file and renamed, so a failed run never leaves a
half-written notebook; a cell error exits non-zero (and fails ``make book``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import jupytext
import nbformat
import papermill
import yaml

from masrl.files import write_text_atomically

VOLATILE_METADATA = ("papermill", "execution")


def strip_volatile(notebook: nbformat.NotebookNode) -> None:
    for key in VOLATILE_METADATA:
        notebook.metadata.pop(key, None)
    for cell in notebook.cells:
        for key in VOLATILE_METADATA:
            cell.metadata.pop(key, None)


def execute(source: Path, parameters: dict[str, str]) -> Path:
    target = source.with_suffix(".ipynb")
    notebook = jupytext.read(source)
    for index, cell in enumerate(notebook.cells):  # stable ids: same source, same bytes out
        cell.id = f"cell-{index:03d}"
    notebook.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3",
                                                "language": "python"})
    with tempfile.TemporaryDirectory() as tmp:
        unexecuted = Path(tmp) / "input.ipynb"
        nbformat.write(notebook, unexecuted)
        executed = papermill.execute_notebook(
            str(unexecuted), None, parameters=parameters, cwd=str(source.parent),
            kernel_name="python3", progress_bar=False, log_output=False,
        )
    strip_volatile(executed)
    return write_text_atomically(target, nbformat.writes(executed) + "\n")


def _typed(value: str):
    """Numbers, booleans and null as papermill's own command line reads them; text otherwise."""
    parsed = yaml.safe_load(value)
    return parsed if isinstance(parsed, (int, float, bool)) or parsed is None else value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    args = parser.parse_args(argv)
    try:
        target = execute(args.source, {name: _typed(value) for name, value in args.p})
    except papermill.PapermillExecutionError as exc:
        print(f"{args.source}: cell {exc.exec_count} failed: {exc.ename}: {exc.evalue}",
              file=sys.stderr)
        return 1
    print(f"executed {args.source} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
