"""The work on one shard of a corpus, and the local engine that runs shards on all cores.

For each trace of a shard: validate it (:func:`masrl.traces.validate.validate_bytes`, the
typed fast path first), and if it is valid reconstruct the run, compute its metrics
(:mod:`masrl.traces.metrics`), its credit per unit (:mod:`masrl.traces.credit`) and its reward
terms (:mod:`masrl.traces.rewards`). The rows of the five tables (:mod:`.tables`) are gathered
as columns (NumPy arrays and the lists the trace already holds; strings that repeat, such as
event types and agent names, as dictionary codes) and turned into Arrow tables once per shard,
then into Parquet bytes: :func:`encode_shard` is a pure function of the shard, which is why
every engine and every number of workers writes the same bytes.

A trace that cannot be read, or is invalid, is one row of ``traces`` with ``valid`` false and
its problems in ``problems``; it never stops the run. A failure of the analysis itself (a bug)
is recorded the same way, code ``internal-error``, so that one trace cannot sink a long run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import chain

import msgspec
import numpy as np
import pyarrow as pa

from masrl.traces import consumption, credit, metrics
from masrl.traces.corpus import tables
from masrl.traces.corpus.sources import Shard, TraceSource, read_shard
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.replay import Replay
from masrl.traces.rewards import TERMS
from masrl.traces.run import reconstruct
from masrl.traces.schema import BASE_VERSION
from masrl.traces.validate import (
    ERROR,
    Trace,
    ValidationReport,
    collector_paused,
    validate_bytes,
)

IDENTITY = ("trace_id", "task_id", "system", "topology", "schema_version")
COUNTED = {name: tables.SCHEMAS["traces"].field(name).type.names
           for name in ("event_types", "decisions", "edge_types", "edge_modes")}


@dataclass
class ShardOutput:
    """What a shard produced: its Parquet files (table -> bytes) and a few counts."""

    index: int
    files: dict[str, bytes]
    traces: int
    invalid: int
    events: int


@dataclass
class _Columns:
    """Columns of one table being gathered: name -> list of chunks (lists or arrays)."""

    chunks: dict[str, list] = field(default_factory=dict)

    def add(self, name: str, values) -> None:
        self.chunks.setdefault(name, []).append(values)


class ShardBuilder:
    """Gathers the rows of every table for the traces of one shard, in source order."""

    def __init__(self, selected: tuple[str, ...] = tables.TABLE_NAMES) -> None:
        self.selected = selected  # the tables to gather; traces and problems always are
        self.sources: list[str] = []
        self.trace_rows: list[dict] = []
        self.agent_rows: list[dict] = []
        self.problem_rows: list[dict] = []
        self.events = _Columns()
        self.credit = _Columns()
        self.agent_names: list[str] = []  # dictionary of the events' agent column
        self.invalid = 0
        self.event_count = 0

    # ------------------------------------------------------------------ one trace
    def add(self, source: TraceSource, data: bytes | str) -> None:
        """Validate and analyse one trace (``data`` is its bytes, or why it is unreadable)."""
        self.sources.append(source.source)
        if isinstance(data, str):
            self._problem(source.source, ERROR, "unreadable", "", "", data)
            self._trace_row(source, None, None, errors=1)
            self.invalid += 1
            return
        try:
            report = validate_bytes(data, source.source, keep_document=False)
        except Exception as exc:  # noqa: BLE001 - a bug must not sink the run; it is recorded
            return self._crashed(source, len(data), exc)
        for p in report.problems:
            self._problem(source.source, p.severity, p.code, p.where, p.pointer, p.message)
        if not report.valid:
            self.invalid += 1
            self._trace_row(source, len(data), report, head=_loose_head(data))
            return
        try:
            self._valid(source, len(data), report)
        except Exception as exc:  # noqa: BLE001
            self._crashed(source, len(data), exc)

    def _crashed(self, source: TraceSource, size: int, exc: Exception) -> None:
        self._problem(source.source, ERROR, "internal-error", "", "",
                      f"masrl failed on this trace: {type(exc).__name__}: {exc}")
        self._trace_row(source, size, None, errors=1)
        self.invalid += 1

    def _problem(self, source: str, severity: str, code: str, where: str, pointer: str,
                 message: str) -> None:
        self.problem_rows.append({"source": source, "severity": severity, "code": code,
                                  "where": where, "pointer": pointer, "message": message})

    def _trace_row(self, source: TraceSource, size: int | None,
                   report: ValidationReport | None, head: dict | None = None,
                   errors: int | None = None, values: dict | None = None) -> None:
        head = head or {}
        row = {"source": source.source, "file": source.file, "line": source.line,
               "bytes": size, "valid": errors is None and report is not None and report.valid,
               "errors": errors if errors is not None else len(report.errors),
               "warnings": 0 if report is None else len(report.warnings)}
        for key in IDENTITY:
            value = head.get(key)
            row[key] = value if isinstance(value, str) else None
        if values is not None:
            row.update(values)
        self.trace_rows.append(row)

    def _valid(self, source: TraceSource, size: int, report: ValidationReport) -> None:
        trace = report.trace
        run = reconstruct(trace)
        measured = metrics.compute(run)
        result = Replay(run, measured, {})  # credit goes to the credit table instead
        head = dict(trace.head)
        head.setdefault("schema_version", BASE_VERSION)
        acting = credit.acting(run)
        values = {
            "events": measured["events"], "edges": measured["edges"],
            "agents": int(acting.sum()), "spawned_agents": len(trace.life.spawn_event),
            "tool_calls": measured["tool_calls"], "messages": measured["messages"],
            **{key: _every(key, measured[key]) for key in COUNTED},
            "critical_steps": measured["critical_steps"],
            "parallelism": measured["parallelism"], "spawn_depth": measured["spawn_depth"],
            "max_concurrency": measured["max_concurrency"],
            "wall_clock": measured["wall_clock"],
            "busy_time": _sum(measured["busy_time"]),
            "speedup": measured["speedup"],
            "tokens": measured["tokens"]["total"], "cost_usd": measured["cost_usd"]["total"],
            "team_reward": credit.team_reward(run),
            "rewards": _numbers(head.get("rewards")), "costs": _numbers(head.get("costs")),
            "metrics": _numbers(head.get("metrics")),
            **{f"reward_{name}": term(result) for name, term in TERMS.items()},
        }
        self._trace_row(source, size, report, head=head, values=values)
        if "agents" in self.selected:
            self._agents(source.source, run, measured, acting)
        if "events" in self.selected:
            self._events(source.source, trace, measured)
        else:
            self.event_count += trace.events.count
        if "credit" in self.selected:
            self._credit(source.source, run)

    # ------------------------------------------------------------------ agents
    def _agents(self, source: str, run, measured: dict, acting: np.ndarray) -> None:
        events = run.trace.events
        own_events = dict(zip(events.agent_names,
                              np.bincount(events.agent_codes,
                                          minlength=len(events.agent_names)).tolist()))
        acts = dict(zip(events.agent_names, acting.tolist()))
        tokens, cost = measured["tokens"]["per_agent"], measured["cost_usd"]["per_agent"]
        busy = measured["busy_time"]  # each None when the trace does not record it
        for name, life in run.agents.items():
            family = run.subtree(name) if life.children else [name]
            self.agent_rows.append({
                "source": source, "agent": name, "acting": acts.get(name, False),
                "role": life.role, "parent": life.parent, "depth": life.depth,
                "children": len(life.children), "spawn_event": life.spawn_event,
                "spawned_at": life.spawned_at, "ended_at": life.ended_at,
                "events": own_events.get(name, 0),
                "busy_time": None if busy is None else busy.get(name, 0.0),
                "tokens": None if tokens is None else tokens[name],
                "cost_usd": None if cost is None else cost[name],
                "subtree_tokens": _sum(tokens, family),
                "subtree_cost_usd": _sum(cost, family),
            })

    # ------------------------------------------------------------------ events
    def _events(self, source: str, trace: Trace, measured: dict) -> None:
        events, records = trace.events, trace.event_records
        n = events.count
        columns = self.events
        columns.add("source", np.full(n, len(self.sources) - 1, dtype=np.int32))
        columns.add("position", np.arange(n, dtype=np.int64))
        columns.add("id", events.ids)
        columns.add("type", events.types)
        columns.add("agent", (events.agent_codes + len(self.agent_names)).astype(np.int32))
        self.agent_names.extend(events.agent_names)
        for key in ("role", "tool", "decision"):
            columns.add(key, records.optional(key))
        columns.add("t", events.start)
        columns.add("end", events.end)
        for key in ("tokens", "cost_usd", "reward"):
            columns.add(key, trace.recorded(key))  # NaN where absent: null in the table
        critical = np.zeros(n, dtype=bool)
        critical[events.index.positions(measured["critical_path"])] = True
        columns.add("critical", critical)
        self.event_count += n

    # ------------------------------------------------------------------ credit
    def _credit(self, source: str, run) -> None:
        reward, rewards = credit.team_reward(run), credit.event_rewards(run)
        games = credit.game_units(run)  # from the recorded rollouts; None without them
        solved = {} if games is None else games["units"]
        subdecisions = credit.subdecision_ids()
        columns = self.credit
        for unit in credit.UNITS:
            found, of, weight = credit.items(run, unit)
            names = list(found)
            count = len(names)
            equal = (np.full(count, np.nan) if reward is None
                     else credit.equal_shares(reward, weight).astype(np.float64))
            recorded = credit.recorded_shares(rewards, of, count)
            consumed = consumption.consumed_items(run, of, count).astype(np.float64)
            decided: list = [None] * count
            if unit == "orchestrator":
                decided = [subdecisions.get(credit.decision_of(run, i))
                           for i in found.positions.tolist()]
            game = solved.get(unit)
            if game is not None:
                extra = [p for p in game["leave_one_out"] or game["shapley"] or {}
                         if p not in set(names)]
                if extra:  # players the unit has no item for (an agent that never acts)
                    pad = np.full(len(extra), np.nan)
                    names = [*names, *extra]
                    equal, recorded = np.concatenate([equal, pad]), np.concatenate([recorded, pad])
                    consumed = np.concatenate([consumed, pad])
                    decided = [*decided, *[None] * len(extra)]
                    count = len(names)
            columns.add("source", np.full(count, len(self.sources) - 1, dtype=np.int32))
            columns.add("unit", np.full(count, credit.UNITS.index(unit), dtype=np.int8))
            columns.add("item", names)
            columns.add("subdecision", decided)
            columns.add("consumed", consumed)
            for key, values in (("equal", equal), ("recorded", recorded)):
                columns.add(key, values)
            for key in ("leave_one_out", "shapley", "shapley_standard_error"):
                values = (game or {}).get(key) or {}
                columns.add(key, np.array([values.get(name, np.nan) for name in names],
                                          dtype=np.float64))

    # ------------------------------------------------------------------ tables
    def tables(self) -> dict[str, pa.Table]:
        """The selected tables of the shard, with the schemas of :mod:`.tables`."""
        sources = pa.array(self.sources, type=pa.string())
        build = {
            "traces": lambda: _from_rows("traces", self.trace_rows),
            "agents": lambda: _from_rows("agents", self.agent_rows),
            "events": lambda: self._event_table(sources),
            "credit": lambda: self._credit_table(sources),
            "problems": lambda: _from_rows("problems", self.problem_rows),
        }
        return {name: build[name]() for name in self.selected}

    def _event_table(self, sources: pa.Array) -> pa.Table:
        chunks = self.events.chunks
        if not chunks:
            return tables.empty("events")
        agent_names = pa.array(self.agent_names, type=pa.string())
        arrays = {
            "source": _decoded(_concat(chunks["source"]), sources),
            "position": pa.array(_concat(chunks["position"])),
            "id": pa.array(_joined(chunks["id"]), type=pa.string()),
            "type": _decoded(_concat(chunks["type"]), pa.array(EVENT_TYPES, type=pa.string())),
            "agent": _decoded(_concat(chunks["agent"]), agent_names),
            **{key: pa.array(_joined(chunks[key]), type=pa.string())
               for key in ("role", "tool", "decision")},
            "t": pa.array(_concat(chunks["t"])), "end": pa.array(_concat(chunks["end"])),
            **{key: _nullable(_concat(chunks[key])) for key in ("tokens", "cost_usd", "reward")},
            "critical": pa.array(_concat(chunks["critical"])),
        }
        return pa.table(arrays, schema=tables.SCHEMAS["events"])

    def _credit_table(self, sources: pa.Array) -> pa.Table:
        chunks = self.credit.chunks
        if not chunks:
            return tables.empty("credit")
        arrays = {
            "source": _decoded(_concat(chunks["source"]), sources),
            "unit": _decoded(_concat(chunks["unit"]), pa.array(credit.UNITS, type=pa.string())),
            "item": pa.array(_joined(chunks["item"]), type=pa.string()),
            "subdecision": pa.array(_joined(chunks["subdecision"]), type=pa.string()),
            "consumed": _nullable_flags(_concat(chunks["consumed"])),
            **{key: _nullable(_concat(chunks[key]))
               for key in ("equal", "recorded", "leave_one_out", "shapley",
                           "shapley_standard_error")},
        }
        return pa.table(arrays, schema=tables.SCHEMAS["credit"])


def _concat(chunks: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(chunks) if len(chunks) > 1 else np.asarray(chunks[0])


def _joined(chunks: list[list]) -> list:
    return chunks[0] if len(chunks) == 1 else list(chain.from_iterable(chunks))


def _nullable(values: np.ndarray) -> pa.Array:
    """Floats with NaN as null (JSON has no NaN, so NaN only ever means absent)."""
    return pa.array(values, mask=np.isnan(values), type=pa.float64())


def _nullable_flags(values: np.ndarray) -> pa.Array:
    """1.0 / 0.0 as true / false, NaN as null."""
    return pa.array(values == 1.0, mask=np.isnan(values), type=pa.bool_())


def _decoded(codes: np.ndarray, dictionary: pa.Array) -> pa.Array:
    """The strings ``dictionary[codes]`` (taken in Arrow, no Python object per row)."""
    return dictionary.take(pa.array(codes))


def _every(key: str, counts: dict[str, int]) -> dict[str, int]:
    """Counts for every field of the table's struct column ``key`` (0 where none)."""
    return {name: counts.get(name, 0) for name in COUNTED[key]}


def _numbers(mapping) -> list[tuple[str, float]] | None:
    """A JSON object of numbers as map entries, keys sorted (null when absent)."""
    if not isinstance(mapping, dict):
        return None
    return [(key, float(value)) for key, value in sorted(mapping.items())]


def _loose_head(data: bytes) -> dict:
    """The top-level object of an invalid trace, if it parses to one; else nothing."""
    try:
        document = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return {}
    if not isinstance(document, dict):
        return {}
    return {key: document.get(key) for key in IDENTITY}


def _from_rows(name: str, rows: list[dict]) -> pa.Table:
    if not rows:
        return tables.empty(name)
    schema = tables.SCHEMAS[name]
    return pa.Table.from_pylist(rows, schema=schema)


# ---------------------------------------------------------------------------------- shards

def build_shard(shard: Shard, selected: tuple[str, ...] = tables.TABLE_NAMES) -> ShardBuilder:
    """The rows of every trace of one shard.

    The cyclic garbage collector is paused meanwhile: a shard keeps hundreds of thousands of
    strings and arrays alive until its tables are written, and each collection would walk all
    of them again (it doubled the time per trace). Reference counting still frees everything.
    """
    builder = ShardBuilder(selected)
    with collector_paused():
        for source, data in read_shard(shard):
            builder.add(source, data)
    return builder


def encode_shard(shard: Shard, selected: tuple[str, ...] = tables.TABLE_NAMES) -> ShardOutput:
    """The shard's tables as Parquet bytes, and its counts: a pure function of the shard.

    The collector stays paused until the rows are dropped (re-enabled in between, its first
    pass would walk every row of the shard once more)."""
    with collector_paused():
        builder = build_shard(shard, selected)
        files = {name: tables.parquet_bytes(table) for name, table in builder.tables().items()}
        output = ShardOutput(shard.index, files, len(builder.sources), builder.invalid,
                             builder.event_count)
        del builder
    return output


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not Linux
        return max(os.cpu_count() or 1, 1)


def run_local(shards: Iterable[Shard], on_output: Callable[[ShardOutput], None],
              workers: int, selected: tuple[str, ...] = tables.TABLE_NAMES) -> None:
    """Encode every shard on ``workers`` processes (in this one when ``workers`` is 1) and hand
    each output to ``on_output`` in this process, as it completes. At most two shards per
    worker are in flight, so memory stays bounded however long the corpus."""
    pending = iter(shards)
    if workers <= 1:
        for shard in pending:
            on_output(encode_shard(shard, selected))
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        running = set()
        for shard in pending:
            running.add(pool.submit(encode_shard, shard, selected))
            if len(running) >= 2 * workers:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    on_output(future.result())
        for future in running:
            on_output(future.result())


def _sum(values: dict | None, keys=None) -> float | None:
    """The sum of a replay's per-agent figures (of ``keys``, else all); ``None`` when the
    replay says the trace does not record the figure (:mod:`masrl.traces.recorded`)."""
    if values is None:
        return None
    return float(sum(values.values() if keys is None else (values[k] for k in keys)))
