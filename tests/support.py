"""Helpers importable by any test (``tests/`` is on pytest's ``pythonpath``); fixtures live in
the conftest files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def replace_in(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in one data file copy, insisting that ``old`` is there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def build_book(source: Path, output: Path, strict: bool = True) -> Path:
    """Build a Jupyter Book (strictly: warnings are errors) and return its html directory."""
    strict_flags = ["-W", "--keep-going"] if strict else []
    result = subprocess.run(
        [str(Path(sys.executable).with_name("jupyter-book")), "build", str(source),
         "--path-output", str(output), *strict_flags],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return output / "_build" / "html"


def problem_lines(name: str, data_dir) -> list[str]:
    """The ``FILE:ROW:FIELD: message`` lines that the dataset attribute ``name`` (a data file,
    e.g. ``"papers"``) raises for a damaged data copy."""
    import pytest

    from masrl.data.dataset import Dataset
    from masrl.data.problems import DataError

    with pytest.raises(DataError) as info:
        getattr(Dataset(data_dir), name)
    return [str(p) for p in info.value.problems]
