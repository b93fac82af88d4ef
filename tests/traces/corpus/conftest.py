"""Fixtures of the ``masrl corpus`` tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_helpers import make_corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The small corpus of :mod:`corpus_helpers`, written afresh."""
    return make_corpus(tmp_path)
