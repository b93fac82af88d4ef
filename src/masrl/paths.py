"""The one place that knows where the project's data lives.

Every loader takes an optional ``data_dir``; when it is ``None`` the directory comes from the
``MASRL_DATA_DIR`` environment variable, else from ``data/`` at the repository root (the package
is installed in editable mode from the repository).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA_DIR = REPO_ROOT / "data"

PAPERS = "papers.csv"
EXCLUDED = "excluded.csv"
SPOTCHECK = "spotcheck.csv"
BIBTEX = "papers.bib"
VOCABULARY = "vocabulary.yaml"


def data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Resolve the data directory: the argument, then ``$MASRL_DATA_DIR``, then ``data/``."""
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get("MASRL_DATA_DIR")
    return Path(env) if env else DEFAULT_DATA_DIR


def data_file(name: str, data_dir_: str | os.PathLike | None = None) -> Path:
    """Path of one named data file inside the resolved data directory."""
    return data_dir(data_dir_) / name


def reference_dir() -> Path:
    """Where the survey artifact's reference files sit on a developer machine (may not exist)."""
    return REPO_ROOT.parent / "shared" / "reference" / "awesome-llm-mas-rl"


BENCHMARK_RESULTS = REPO_ROOT / "benchmarks" / "results"
