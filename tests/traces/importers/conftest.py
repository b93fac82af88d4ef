"""Fixtures of the importer tests: hand-written logs under tests/fixtures/importers, copied to a
temporary directory when a test damages them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from importer_helpers import FIXTURES, edit


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copy one fixture folder (``otel``, ``claude_code``, ``who_and_when``) to a temporary
    directory and return the copy's path; the committed fixtures are never modified."""
    def copy(folder: str) -> Path:
        target = tmp_path / folder
        shutil.copytree(FIXTURES / folder, target)
        return target
    return copy


@pytest.fixture
def edit_file():
    """:func:`importer_helpers.edit`: replace text in a fixture copy, insisting it is there."""
    return edit
