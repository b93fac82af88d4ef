"""Replay a whole training run: many traces validated, replayed and written as Parquet tables.

One way through::

    SRC files, folders, JSON Lines  -> sources (stable ids, order, shards)
    -> engine (local processes) or ray_engine (Ray Data): per shard, validate, replay, metrics,
       credit, reward terms -> tables (five Parquet tables) -> writer (atomic, resumable)
    -> summary (read back from the tables)

:func:`build` is the Python entry point; ``masrl corpus`` (:mod:`.commands`) wraps it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from masrl.traces.corpus import engine, sources
from masrl.traces.corpus.sources import SourceMissing
from masrl.traces.corpus.tables import TABLE_NAMES
from masrl.traces.corpus.writer import CorpusWriter, OutputConflict

DEFAULT_SHARD_SIZE = 256


class NoTraces(ValueError):
    """The sources hold no trace file."""


def selection(names: Sequence[str]) -> tuple[str, ...]:
    """The tables to write, in the canonical order, ``traces`` and ``problems`` always among
    them; an unknown name is a ``ValueError``."""
    unknown = sorted(set(names) - set(TABLE_NAMES))
    if unknown:
        raise ValueError(f"unknown tables {', '.join(unknown)}: choose among "
                         f"{', '.join(TABLE_NAMES)}")
    wanted = {*names, "traces", "problems"}
    return tuple(name for name in TABLE_NAMES if name in wanted)


@dataclass
class Built:
    """What :func:`build` did: traces and shards planned, shards found done, workers used."""

    traces: int
    shards: int
    resumed: int
    workers: int


def build(arguments: Sequence[str | os.PathLike], out: str | os.PathLike, *,
          engine_name: str = "local", workers: int | None = None,
          shard_size: int = DEFAULT_SHARD_SIZE, ray_address: str | None = None,
          on_progress: Callable[[int], None] | None = None,
          on_plan: Callable[[int, int], None] | None = None,
          tables: Sequence[str] = TABLE_NAMES) -> Built:
    """Validate and replay every trace of ``arguments`` into the tables of the folder ``out``.

    Resumes a run over the same inputs that stopped (shards already written are kept). Raises
    :class:`SourceMissing`, :class:`NoTraces`, :class:`OutputConflict` or, for the Ray engine
    without Ray, ``ModuleNotFoundError`` before any work.
    ``on_plan(total traces, traces already done)`` is called once the work is known and
    ``on_progress(traces)`` after each shard is written. ``tables`` names the tables to write
    (in any order; ``traces`` and ``problems`` are always written): leaving out ``events`` and
    ``credit``, the two with a row per event or item, halves the work.
    """
    if engine_name not in ("local", "ray"):
        raise ValueError(f"unknown engine {engine_name!r}: local or ray")
    selected = selection(tables)
    if engine_name == "ray":
        import ray  # noqa: F401 - fail before anything is written when Ray is missing
    found = sources.trace_sources(sources.find_files(arguments))
    if not found:
        raise NoTraces("no trace files (*.json, *.jsonl, *.ndjson) in "
                       + ", ".join(map(str, arguments)))
    plan = sources.shards(found, shard_size)
    writer = CorpusWriter(out, sources.fingerprint(found, shard_size), len(plan), shard_size,
                          len(found), selected)
    writer.open()
    todo = [shard for shard in plan if not writer.done(shard.index)]
    workers = workers or engine.default_workers()
    if on_plan is not None:
        on_plan(len(found), len(found) - sum(len(s.sources) for s in todo))

    def on_output(output: engine.ShardOutput) -> None:
        writer.write(output.index, output.files)
        if on_progress is not None:
            on_progress(output.traces)

    if engine_name == "ray":
        from masrl.traces.corpus.ray_engine import run_ray
        run_ray(todo, on_output, workers, ray_address, selected)
    else:
        engine.run_local(todo, on_output, workers, selected)
    return Built(len(found), len(plan), len(plan) - len(todo), workers)


__all__ = ["DEFAULT_SHARD_SIZE", "Built", "NoTraces", "OutputConflict", "SourceMissing", "build",
           "selection"]
