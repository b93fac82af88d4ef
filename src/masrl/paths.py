"""The one place that knows where the survey's files live: every data file's name, the data
directory, the benchmark results, the book's sources and the public logs beside the repository.
(The trace toolkit's own files, its schema and examples, ship inside the package:
:mod:`masrl.traces.resources`.)

Every loader takes a data directory; ``None`` means the ``MASRL_DATA_DIR`` environment variable,
else ``data/`` at the repository root (the package is installed in editable mode from it).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA_DIR = REPO_ROOT / "data"

# --- the survey's data files (one loader each, in masrl.data) -------------------------------
VOCABULARY = "vocabulary.yaml"
PAPERS = "papers.csv"
EXCLUDED = "excluded.csv"
SPOTCHECK = "spotcheck.csv"
BIBTEX = "papers.bib"
TAXONOMY = "taxonomy.yaml"
PUBLISHED = "published.yaml"
AUDIT = "audit.csv"
NEAR_MISSES = "near_misses.csv"
BENCHMARK_COVERAGE = "benchmark_coverage.csv"
ENVELOPES = "envelopes.csv"
CLAIMS = "claims.yaml"
LOG_SOURCES = "log_sources.csv"
WHO_AND_WHEN_PUBLISHED = "who_and_when_published.yaml"
SEARCH_PROTOCOL = "search_protocol.yaml"
CANDIDATES = "candidates.csv"
CREDIT_EVIDENCE = "credit_evidence.csv"
CODING_RULES = "coding_rules.yaml"
TAG_EVIDENCE = "tag_evidence.csv"

BENCHMARK_RESULTS = REPO_ROOT / "benchmarks" / "results"

# --- the book ---------------------------------------------------------------------------------
TOC = REPO_ROOT / "_toc.yml"  # the chapters in reading order (masrl.data.book_toc)
NOTEBOOKS = REPO_ROOT / "notebooks"  # the chapters that compute (MyST markdown sources)


def data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Resolve the data directory: the argument, then ``$MASRL_DATA_DIR``, then ``data/``."""
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get("MASRL_DATA_DIR")
    return Path(env) if env else DEFAULT_DATA_DIR


def data_file(name: str, data_dir_: str | os.PathLike | None = None) -> Path:
    """Path of one named data file inside the resolved data directory."""
    return data_dir(data_dir_) / name


def shared_dir() -> Path:
    """``../shared`` beside the repository: reference material and public logs that are not ours
    (present on developer machines and in CI, absent on a fresh clone elsewhere)."""
    return REPO_ROOT.parent / "shared"


def reference_dir() -> Path:
    """The survey artifact's reference files (may not exist)."""
    return shared_dir() / "reference" / "awesome-llm-mas-rl"


def public_logs_dir() -> Path:
    """The public logs of real multi-agent runs (may not exist)."""
    return shared_dir() / "traces"
