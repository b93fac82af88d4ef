"""Fixtures of the failure-attribution tests: the tiny hand-written gold directory with both
subsets (tests/fixtures/attribution/gold), a copy of it a test may damage, and a writer of
prediction files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from attribution_helpers import GOLD


@pytest.fixture
def gold_dir() -> Path:
    return GOLD


@pytest.fixture
def gold_copy(tmp_path: Path) -> Path:
    """A copy of the gold directory that a test may change."""
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
