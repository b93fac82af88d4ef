"""Execute one chapter: read its MyST source (``notebooks/NN_name.md``), run it with papermill,
strip what changes from run to run (timestamps, durations), and write the paired ``.ipynb``
(:mod:`masrl.commands.notebooks` runs it).

Usage: python scripts/execute_notebook.py notebooks/10_statistics.md [-p name value ...]

The output is written to a temporary file and renamed, so a failed run never leaves a
half-written notebook; a cell error exits non-zero (and fails ``make book``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
import papermill
import yaml

from masrl.commands.notebooks import execute as run_chapter
from masrl.files import write_text_atomically


def execute(source: Path, parameters: dict[str, str]) -> Path:
    """Run the chapter ``source`` and write its paired ``.ipynb``; return that path."""
    executed = run_chapter(source, parameters)
    return write_text_atomically(source.with_suffix(".ipynb"), nbformat.writes(executed) + "\n")


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
