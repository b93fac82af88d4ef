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
from dataclasses import dataclass, field

from masrl.traces.corpus import engine, sources
from masrl.traces.corpus.sources import SourceConflict, SourceMissing
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
    """What :func:`build` did: traces and shards planned, shards found done, workers used (the
    local engine's: the processes it started, at most one per shard left to write), and
    the notes (files left out or read once, shards computed again, workers capped)."""

    traces: int
    shards: int
    resumed: int
    workers: int
    notes: list[str] = field(default_factory=list)


def build(arguments: Sequence[str | os.PathLike], out: str | os.PathLike, *,
          engine_name: str = "local", workers: int | None = None,
          shard_size: int = DEFAULT_SHARD_SIZE, ray_address: str | None = None,
          on_progress: Callable[[int], None] | None = None,
          on_plan: Callable[[int, int], None] | None = None,
          on_note: Callable[[str], None] | None = None,
          tables: Sequence[str] = TABLE_NAMES) -> Built:
    """Validate and replay every trace of ``arguments`` into the tables of the folder ``out``.

    Resumes a run over the same inputs that stopped: a shard already written is kept when its
    inputs and its files are unchanged (:mod:`.writer`), computed again otherwise. Raises
    :class:`SourceMissing`, :class:`SourceConflict`, :class:`NoTraces`,
    :class:`OutputConflict`, for the Ray engine
    :class:`~masrl.traces.corpus.ray_engine.RayUnavailable` or, without Ray,
    ``ModuleNotFoundError``, all before any work.
    ``on_plan(total traces, traces already done)`` is called once the work is known,
    ``on_progress(traces)`` after each shard is written, ``on_note(text)`` for each note (also
    kept in :attr:`Built.notes`). ``workers`` is capped by the cores this process may use
    (:func:`~masrl.traces.corpus.engine.available_cores`; a note says so), except for a Ray
    cluster, which has its own. ``tables`` names the tables to write (in any order;
    ``traces`` and ``problems`` are always written): leaving out ``events`` and ``credit``,
    the two with a row per event or item, halves the work.
    """
    if engine_name not in ("local", "ray"):
        raise ValueError(f"unknown engine {engine_name!r}: local or ray")
    selected = selection(tables)
    notes: list[str] = []

    def note(text: str) -> None:
        notes.append(text)
        if on_note is not None:
            on_note(text)

    address = None
    if engine_name == "ray":
        import ray  # noqa: F401 - fail before anything is written when Ray is missing

        from masrl.traces.corpus import ray_engine

        address = ray_engine.checked_address(ray_address)  # RayUnavailable in seconds
    found = sources.find(arguments, output=out)
    for text in found.notes:
        note(text)
    traces = sources.trace_sources(found.files)
    if not traces:
        raise NoTraces("no trace files (*.json, *.jsonl, *.ndjson) in "
                       + ", ".join(map(str, arguments)))
    plan = sources.shards(traces, shard_size)
    writer = CorpusWriter(out, sources.fingerprint(traces, shard_size), len(plan), shard_size,
                          len(traces), selected)
    writer.open()
    todo = [shard for shard in plan if not _still_done(writer, shard, note)]
    workers = _workers(workers, engine_name == "local" or address is None, note)
    if on_plan is not None:
        on_plan(len(traces), len(traces) - sum(len(s.sources) for s in todo))

    def on_output(output: engine.ShardOutput) -> None:
        writer.write(output.index, output.files, output.inputs)
        if on_progress is not None:
            on_progress(output.traces)

    if engine_name == "ray":
        ray_engine.run_ray(todo, on_output, workers, address, selected)
    else:
        engine.run_local(todo, on_output, workers, selected)
        workers = engine.local_workers(workers, len(todo))  # what was started, not asked
    return Built(len(traces), len(plan), len(plan) - len(todo), workers, notes)


def _still_done(writer: CorpusWriter, shard: sources.Shard,
                note: Callable[[str], None]) -> bool:
    """Whether a shard written by an earlier run can be kept: its files are intact and its
    inputs have the digests they had (read again); otherwise a note says why it is redone."""
    record, damaged = writer.done(shard.index)
    if record is None:
        if damaged:
            note(f"{damaged}; shard {shard.index} computed again")
        return False
    now = sources.input_digests(shard)
    changed = [source for source, value in now.items() if record.inputs.get(source) != value]
    if not changed and len(now) == len(record.inputs):
        return True
    more = f" (and {len(changed) - 1} more traces)" if len(changed) > 1 else ""
    first = changed[0] if changed else shard.sources[0].source
    note(f"{first}: its content changed since shard {shard.index} was written{more}; "
         "the shard is computed again")
    return False


def _workers(asked: int | None, local: bool, note: Callable[[str], None]) -> int:
    """The workers to start: ``asked``, or every core; capped by the cores this process may
    use when they run here (``local``), with a note."""
    cores = engine.available_cores()
    if asked is None:
        return cores
    if local and asked > cores:
        note(f"--workers {asked}: this process may use {cores} cores; {cores} workers")
        return cores
    return asked


__all__ = ["DEFAULT_SHARD_SIZE", "Built", "NoTraces", "OutputConflict", "SourceConflict",
           "SourceMissing", "build", "selection"]
