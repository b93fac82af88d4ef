"""Fixtures of the importer tests: hand-written logs under tests/fixtures/importers, copied to a
temporary directory when a test damages them, and the public logs of ../shared/traces."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from masrl import paths

FIXTURES = paths.REPO_ROOT / "tests" / "fixtures" / "importers"


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copy one fixture folder (``otel``, ``claude_code``, ``who_and_when``) to a temporary
    directory and return the copy's path; the committed fixtures are never modified."""
    def copy(folder: str) -> Path:
        target = tmp_path / folder
        shutil.copytree(FIXTURES / folder, target)
        return target
    return copy


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a fixture copy, insisting that ``old`` occurs ``count``
    times."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == count, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def edit_file():
    return edit
