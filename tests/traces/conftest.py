"""Fixtures of the trace-toolkit tests: small hand-written traces under tests/fixtures/traces."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from trace_helpers import FIXTURES

_SMALL = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))


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
