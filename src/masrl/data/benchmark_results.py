"""The recorded benchmark figures (``benchmarks/results/*.json``), which chapters quote.

Benchmarks are scripts that print figures and record the last run's (see ``benchmarks/``); a
chapter reads the record rather than timing anything itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from masrl import paths

THROUGHPUT_KEYS = ("agents", "events", "file_bytes", "json_load_peak_mib", "json_load_s",
                   "memory_ratio", "ratio", "replay_peak_mib", "replay_s", "tool_calls")


def throughput_results(path: str | os.PathLike | None = None) -> dict | None:
    """The figures of the last run of ``benchmarks/trace_throughput.py`` (its results file), or
    ``None`` when no run has been recorded. Raises ``ValueError`` naming a missing key."""
    target = Path(path) if path else paths.BENCHMARK_RESULTS / "trace_throughput.json"
    if not target.exists():
        return None
    figures = json.loads(target.read_text(encoding="utf-8"))
    missing = [key for key in THROUGHPUT_KEYS if key not in figures]
    if missing:
        raise ValueError(f"{target}: missing {', '.join(missing)}")
    return figures
