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
CORPUS_KEYS = ("corpus_bytes", "corpus_cpu_s", "corpus_peak_mib", "corpus_s", "events",
               "events_per_s", "json_load_cpu_s", "json_load_s", "load_1m_at_start",
               "metrics_only_ratio", "metrics_only_s", "parquet_bytes", "ratio", "repeat",
               "traces", "workers")
DECODER_KEYS = ("events", "file_bytes", "readers", "repeat")
READER_KEYS = ("cpu_ratio", "cpu_s", "native", "peak_mib", "wall_s")


def results_file(name: str, path: str | os.PathLike | None = None) -> Path:
    """Where a benchmark's figures are read from: ``path``, else ``benchmarks/results/<name>``
    (the one place, so that every error names the file read)."""
    return Path(path) if path else paths.BENCHMARK_RESULTS / name


def load_results(name: str, keys: tuple[str, ...],
                 path: str | os.PathLike | None = None) -> dict | None:
    """The figures of a benchmark's last recorded run (:func:`results_file`), or ``None`` when
    none was recorded. Raises ``ValueError`` naming the file and a missing key."""
    target = results_file(name, path)
    if not target.exists():
        return None
    figures = json.loads(target.read_text(encoding="utf-8"))
    missing = [key for key in keys if key not in figures]
    if missing:
        raise ValueError(f"{target}: missing {', '.join(missing)}")
    return figures


def throughput_results(path: str | os.PathLike | None = None) -> dict | None:
    """``benchmarks/trace_throughput.py``'s figures (see :func:`load_results`)."""
    return load_results("trace_throughput.json", THROUGHPUT_KEYS, path)


def corpus_results(path: str | os.PathLike | None = None) -> dict | None:
    """``benchmarks/corpus_throughput.py``'s figures (see :func:`load_results`)."""
    return load_results("corpus_throughput.json", CORPUS_KEYS, path)


def decoder_floor_results(path: str | os.PathLike | None = None) -> dict | None:
    """``benchmarks/decoder_floor.py``'s figures (see :func:`load_results`): per reader its CPU
    and wall seconds, peak memory, CPU ratio to ``json.load`` and whether it is a native
    columnar reader. Raises ``ValueError`` naming a
    reader that lacks one of them."""
    figures = load_results("decoder_floor.json", DECODER_KEYS, path)
    if figures is None:
        return None
    target = results_file("decoder_floor.json", path)
    if "json.load" not in figures["readers"]:
        raise ValueError(f"{target}: readers: missing json.load")
    for name, reader in figures["readers"].items():
        missing = [key for key in READER_KEYS if key not in reader]
        if missing:
            raise ValueError(f"{target}: readers: {name}: missing {', '.join(missing)}")
    return figures
