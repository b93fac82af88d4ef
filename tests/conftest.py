"""Shared fixtures: a private copy of the data directory that a test may damage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from masrl import paths


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

