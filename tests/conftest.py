"""Shared fixtures: a private copy of the data directory that a test may damage, the reference
files, and the hand-written traces and logs under tests/fixtures (copied when a test damages
them)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from attribution_helpers import GOLD
from importer_helpers import FIXTURES as IMPORTER_FIXTURES
from importer_helpers import edit
from trace_helpers import FIXTURES as TRACE_FIXTURES

from masrl import paths

_SMALL = json.loads((TRACE_FIXTURES / "small.json").read_text(encoding="utf-8"))


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A copy of ``data/`` in a temporary directory; the real data files are never modified."""
    target = tmp_path / "data"
    shutil.copytree(paths.DEFAULT_DATA_DIR, target)
    return target


@pytest.fixture
def reference_dir() -> Path:
    """The survey artifact's reference files; skips the test when ``../shared`` is absent."""
    ref = paths.reference_dir()
    if not ref.is_dir():
        pytest.skip(f"reference data not available at {ref} (a fresh clone has no ../shared)")
    return ref


@pytest.fixture
def small() -> dict:
    """A fresh copy of ``small.json`` (9 events, 10 edges; its metrics are computed by hand in
    test_metrics.py) that a test may change."""
    return copy.deepcopy(_SMALL)


@pytest.fixture
def write_trace(tmp_path: Path):
    """Write a document (or raw text) to a file in a temporary directory; return its path."""
    def write(document, name: str = "trace.json") -> Path:
        path = tmp_path / name
        text = document if isinstance(document, str) else json.dumps(document)
        path.write_text(text, encoding="utf-8")
        return path
    return write


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copy one fixture folder (``otel``, ``claude_code``, ``who_and_when``) to a temporary
    directory and return the copy's path; the committed fixtures are never modified."""
    def copy_folder(folder: str) -> Path:
        target = tmp_path / folder
        shutil.copytree(IMPORTER_FIXTURES / folder, target)
        return target
    return copy_folder


@pytest.fixture
def edit_file():
    """:func:`importer_helpers.edit`: replace text in a fixture copy, insisting it is there."""
    return edit


# --- failure attribution: the tiny hand-written gold directory with both subsets ---------------

@pytest.fixture
def gold_dir() -> Path:
    return GOLD


@pytest.fixture
def gold_copy(tmp_path: Path) -> Path:
    """A copy of the gold directory (tests/fixtures/attribution/gold) that a test may change."""
    target = tmp_path / "gold"
    shutil.copytree(GOLD, target)
    return target


@pytest.fixture
def write_predictions(tmp_path: Path):
    """Write predictions (dicts, or raw text lines) as a JSON Lines file; return its path."""
    def write(lines, name: str = "predictions.jsonl") -> Path:
        path = tmp_path / name
        text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                       for line in lines)
        path.write_text(text, encoding="utf-8")
        return path
    return write
