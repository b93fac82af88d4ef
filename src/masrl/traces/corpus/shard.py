"""The work on one shard of a corpus: every trace validated and analysed, the five tables built
as columns, and the Parquet bytes.

For each trace: validate it (:func:`masrl.traces.validate.validate_bytes`, the typed fast path
first), and if it is valid reconstruct the run, compute its metrics (:mod:`masrl.traces.metrics`),
its credit per unit (:mod:`masrl.traces.credit`) and its reward terms
(:mod:`masrl.traces.rewards`). What a trace adds to each table is appended to that table's
columns, never as a row object: NumPy arrays for numbers and flags, the lists the trace already
holds for strings, integer codes into the shard's own lists for strings that repeat (event
types, agents, roles, tools, decisions, credit units and items), and for a column that holds
one value per trace or per credit unit (a source, a unit) that value and how many rows it
covers (:class:`_Runs`). Each table is made once per shard from its columns
(:meth:`ShardBuilder.tables`); event ids and credit items are taken from one Arrow array of the
shard's event ids, and the credit methods that only counterfactual rollouts fill are written
where a game exists, null elsewhere, without a lookup per item.

:func:`encode_shard` is a pure function of the shard, which is why every engine and every
number of workers writes the same bytes.

A trace that cannot be read, or is invalid, is one row of ``traces`` with ``valid`` false and
its problems in ``problems``; it never stops the run. A failure of the analysis itself (a bug)
is recorded the same way, code ``internal-error``, so that one trace cannot sink a long run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import NamedTuple

import msgspec
import numpy as np
import pyarrow as pa

from masrl.traces import collector, consumption, cost_estimate, credit, metrics, recorded
from masrl.traces.corpus import tables
from masrl.traces.corpus.sources import Shard, TraceSource, read_shard, trace_digest
from masrl.traces.graph import EVENT_TYPES, FirstSeen
from masrl.traces.replay import READ_FIELDS, NonFiniteResult, Replay, check_finite
from masrl.traces.rewards import TERMS
from masrl.traces.run import reconstruct
from masrl.traces.schema import BASE_VERSION
from masrl.traces.validate import ERROR, ValidationReport, validate_bytes

IDENTITY = ("trace_id", "task_id", "system", "topology", "schema_version")
COUNTED = {name: tables.SCHEMAS["traces"].field(name).type.names
           for name in ("event_types", "decisions", "edge_types", "edge_modes")}
TRACE_HEAD = ("source", "file", "line", "bytes", "valid", "errors", "warnings", *IDENTITY)
TRACE_FIGURES = tuple(name for name, _, _ in tables.COLUMNS["traces"] if name not in TRACE_HEAD)
AGENT_COLUMNS = tuple(name for name, _, _ in tables.COLUMNS["agents"])
PROBLEM_COLUMNS = tuple(name for name, _, _ in tables.COLUMNS["problems"])
CREDIT_GAME = ("leave_one_out", "shapley", "shapley_standard_error")
# The event fields the analysis and the events table read: the others (content_ref, from,
# trusted, content) are checked while decoding but not turned into columns.
EVENT_FIELDS = (*READ_FIELDS, "tool")
LABELS = ("role", "tool", "decision")  # event columns of few values, kept as codes


@dataclass
class ShardOutput:
    """What a shard produced: its Parquet files (table -> bytes) and a few counts."""

    index: int
    files: dict[str, bytes]
    traces: int
    invalid: int
    events: int
    inputs: dict[str, str] = field(default_factory=dict)  # source -> sources.trace_digest


@dataclass
class _Columns:
    """Columns of one table being gathered: name -> list of chunks (lists or arrays)."""

    chunks: dict[str, list] = field(default_factory=dict)

    def add(self, name: str, values) -> None:
        self.chunks.setdefault(name, []).append(values)

    def array(self, name: str) -> np.ndarray:
        found = self.chunks[name]
        return np.concatenate(found) if len(found) > 1 else np.asarray(found[0])

    def joined(self, name: str) -> list:
        found = self.chunks[name]
        return found[0] if len(found) == 1 else list(chain.from_iterable(found))


class _Runs:
    """Columns that hold one value per run of rows (a trace's source in the events table, a
    credit chunk's source and unit), kept as each run's length and values, one Python append
    each: the shard's columns are then made at once (:meth:`column`), where a NumPy call per
    run and per column would cost a few microseconds each, dozens of times per trace."""

    def __init__(self, *keys: str) -> None:
        self.lengths: list[int] = []
        self.values: dict[str, list[int]] = {key: [] for key in keys}
        self._lists = tuple(self.values.values())

    def add(self, length: int, *values: int) -> None:
        """One run of ``length`` rows with a value for each key, in order."""
        self.lengths.append(length)
        for found, value in zip(self._lists, values):
            found.append(value)

    def __len__(self) -> int:
        return len(self.lengths)

    def truncate(self, runs: int) -> None:
        """Keep the first ``runs`` runs only."""
        for found in (self.lengths, *self._lists):
            del found[runs:]

    def column(self, key: str, dtype) -> np.ndarray:
        """Each row's value of ``key``."""
        return np.repeat(np.array(self.values[key], dtype=dtype), self.lengths)

    def starts(self) -> np.ndarray:
        """Each run's first row."""
        ends = np.cumsum(self.lengths, dtype=np.int64)
        return ends - np.array(self.lengths, dtype=np.int64)

    def offsets(self) -> np.ndarray:
        """Each row's place in its run (0 up)."""
        total = sum(self.lengths)
        return np.arange(total, dtype=np.int64) - np.repeat(self.starts(), self.lengths)


class _Mark(NamedTuple):
    """How much each column of a :class:`ShardBuilder` holds (see its ``_mark``)."""

    traces: int
    agents: int
    events: dict
    credit_chunks: dict
    event_runs: int
    critical: int
    credit_runs: int
    ids: int
    id_count: int
    names: int
    items: int
    credit_rows: int
    games: int
    event_count: int


class ShardBuilder:
    """Gathers the columns of every table for the traces of one shard, in source order."""

    def __init__(self, selected: tuple[str, ...] = tables.TABLE_NAMES) -> None:
        self.selected = selected  # the tables to gather; traces and problems always are
        self.sources: list[str] = []
        self.trace_columns: dict[str, list] = {
            name: [] for name, _, _ in tables.COLUMNS["traces"]}
        self.agent_columns: dict[str, list] = {
            name: [] for name, _, _ in tables.COLUMNS["agents"]}
        self.problem_columns: dict[str, list] = {
            name: [] for name, _, _ in tables.COLUMNS["problems"]}
        self.events = _Columns()
        self.event_runs = _Runs("source", "agent")  # per trace: source, first agent code
        self.critical: list[list[int]] = []  # per trace: positions on its critical path
        self.credit = _Columns()
        self.credit_runs = _Runs("source", "unit")  # per unit of each trace
        self.ids: list[list[str]] = []  # the event ids of each valid trace, for events and credit
        self.id_count = 0  # ids gathered so far: the first event's place in the shard's ids
        self.agent_names: list[str] = []  # dictionary of the events' agent column
        # value -> code of the events' role, tool and decision columns (None: absent)
        self.labels: dict[str, FirstSeen] = {key: FirstSeen() for key in LABELS}
        self.items: list[str] = []  # credit items that are not event ids (team, agents, turns)
        self.credit_rows = 0
        self.game_rows: list[np.ndarray] = []  # credit rows a counterfactual game fills
        self.game_values: dict[str, list[np.ndarray]] = {key: [] for key in CREDIT_GAME}
        self.invalid = 0
        self.event_count = 0
        self.inputs: dict[str, str] = {}  # source -> digest of what was read
        self.keep_ids = "events" in selected or "credit" in selected

    # ------------------------------------------------------------------ one trace
    def add(self, source: TraceSource, data: bytes | str) -> None:
        """Validate and analyse one trace (``data`` is its bytes, or why it is unreadable)."""
        self.sources.append(source.source)
        self.inputs[source.source] = trace_digest(data)
        if isinstance(data, str):
            self._problem(source.source, ERROR, "unreadable", "", "", data)
            self._trace_row(source, None, None, errors=1)
            self.invalid += 1
            return
        try:
            report = validate_bytes(data, source.source, keep_document=False,
                                    fields=EVENT_FIELDS)
        except Exception as exc:  # noqa: BLE001 - a bug must not sink the run; it is recorded
            return self._crashed(source, len(data), exc)
        for p in report.problems:
            self._problem(source.source, p.severity, p.code, p.where, p.pointer, p.message)
        if not report.valid:
            self.invalid += 1
            self._trace_row(source, len(data), report, head=_loose_head(data))
            return
        mark = self._mark()
        try:
            with np.errstate(over="ignore", invalid="ignore"):  # overflow: checked next
                self._valid(source, len(data), report)
            self._check_finite(mark)
        except NonFiniteResult as exc:  # as masrl replay and masrl report: an error of the trace
            self._rollback(mark)
            self._problem(source.source, ERROR, "non-finite", exc.key, "", str(exc))
            self._trace_row(source, len(data), report, head=report.trace.head, errors=1)
            self.invalid += 1
        except Exception as exc:  # noqa: BLE001
            self._rollback(mark)  # nothing of the trace stays but its row saying it failed
            self._crashed(source, len(data), exc)

    def _check_finite(self, mark: _Mark) -> None:
        """Raise :class:`~masrl.traces.replay.NonFiniteResult` at the first figure the trace
        just added (since ``mark``) that overflowed a double, as a replay does: its row's
        figures, then its credit shares (where NaN stands for null, so an infinity is what
        tells an overflow)."""
        check_finite({name: self.trace_columns[name][-1] for name in TRACE_FIGURES})
        added = mark.credit_chunks
        for column in ("equal", "recorded"):
            chunks = self.credit.chunks.get(column, [])[added.get(column, 0):]
            for unit, values in zip(credit.UNITS, chunks):
                infinite = values[np.isinf(values)]
                if infinite.size:
                    raise NonFiniteResult(f"credit.{column}.{unit}", float(infinite[0]))
        for key, games in self.game_values.items():
            for values in games[mark.games:]:
                infinite = values[np.isinf(values)]
                if infinite.size:
                    raise NonFiniteResult(f"credit.counterfactual.{key}", float(infinite[0]))

    def _mark(self) -> _Mark:
        """How much every column holds: what :meth:`_rollback` returns to. The columns of the
        traces and agents tables grow a whole row at a time, so one length stands for all."""
        return _Mark(len(self.trace_columns["source"]), len(self.agent_columns["source"]),
                {name: len(chunks) for name, chunks in self.events.chunks.items()},
                {name: len(chunks) for name, chunks in self.credit.chunks.items()},
                len(self.event_runs), len(self.critical), len(self.credit_runs),
                len(self.ids), self.id_count, len(self.agent_names), len(self.items),
                self.credit_rows, len(self.game_rows), self.event_count)

    def _rollback(self, mark: _Mark) -> None:
        """Drop what a trace added after :meth:`_mark` (its analysis failed half-way)."""
        (traces, agents, events, credit_chunks, event_runs, critical, credit_runs, ids,
         self.id_count, names, items, self.credit_rows, games, self.event_count) = mark
        for columns, rows in ((self.trace_columns, traces), (self.agent_columns, agents)):
            for values in columns.values():
                del values[rows:]
        for columns, lengths in ((self.events.chunks, events),
                                 (self.credit.chunks, credit_chunks)):
            for name in list(columns):
                del columns[name][lengths.get(name, 0):]
        self.event_runs.truncate(event_runs)
        self.credit_runs.truncate(credit_runs)
        del self.critical[critical:]
        del self.ids[ids:], self.agent_names[names:], self.items[items:]
        del self.game_rows[games:]
        for values in self.game_values.values():
            del values[games:]

    def _crashed(self, source: TraceSource, size: int, exc: Exception) -> None:
        self._problem(source.source, ERROR, "internal-error", "", "",
                      f"masrl failed on this trace: {type(exc).__name__}: {exc}")
        self._trace_row(source, size, None, errors=1)
        self.invalid += 1

    def _problem(self, source: str, severity: str, code: str, where: str, pointer: str,
                 message: str) -> None:
        for name, value in zip(PROBLEM_COLUMNS,
                               (source, severity, code, where, pointer, message)):
            self.problem_columns[name].append(value)

    def _trace_row(self, source: TraceSource, size: int | None,
                   report: ValidationReport | None, head: dict | None = None,
                   errors: int | None = None, values: dict | None = None) -> None:
        head = head or {}
        row = (source.source, source.file, source.line, size,
               errors is None and report is not None and report.valid,
               errors if errors is not None else len(report.errors),
               0 if report is None else len(report.warnings),
               *(value if isinstance(value := head.get(key), str) else None
                 for key in IDENTITY))
        columns = self.trace_columns
        for name, value in zip(TRACE_HEAD, row):
            columns[name].append(value)
        values = values or {}
        for name in TRACE_FIGURES:
            columns[name].append(values.get(name))

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
            "clock": measured["clock"],
        }
        estimate = cost_estimate.estimate(run)
        table = estimate["price_table"]
        values.update({
            "cost_usd_estimated": estimate["total"],
            "price_table": None if table["version"] is None
            else f"{table['source']} {table['version']}",
            "unknown_models": estimate["unknown_models"],
        })
        values["not_recorded"] = _not_recorded(values, measured, estimate, run)
        self._trace_row(source, size, report, head=head, values=values)
        first_id = self.id_count
        if self.keep_ids:
            self.ids.append(trace.events.ids)
            self.id_count += trace.events.count
        if "agents" in self.selected:
            self._agents(source.source, run, measured, acting)
        if "events" in self.selected:
            self._events(run, measured)
        self.event_count += trace.events.count
        if "credit" in self.selected:
            self._credit(run, first_id)

    # ------------------------------------------------------------------ agents
    def _agents(self, source: str, run, measured: dict, acting: np.ndarray) -> None:
        events = run.trace.events
        own_events = dict(zip(events.agent_names,
                              np.bincount(events.agent_codes,
                                          minlength=len(events.agent_names)).tolist()))
        acts = dict(zip(events.agent_names, acting.tolist()))
        tokens, cost = measured["tokens"]["per_agent"], measured["cost_usd"]["per_agent"]
        busy = measured["busy_time"]  # each None when the trace does not record it
        columns = self.agent_columns
        for name, life in run.agents.items():
            family = run.subtree(name) if life.children else [name]
            row = (source, name, acts.get(name, False), life.role, life.parent, life.depth,
                   len(life.children), life.spawn_event, life.spawned_at, life.ended_at,
                   own_events.get(name, 0), None if busy is None else busy.get(name, 0.0),
                   None if tokens is None else tokens[name],
                   None if cost is None else cost[name],
                   _sum(tokens, family), _sum(cost, family))
            for column, value in zip(AGENT_COLUMNS, row):
                columns[column].append(value)

    # ------------------------------------------------------------------ events
    def _events(self, run, measured: dict) -> None:
        trace = run.trace
        events, records = trace.events, trace.event_records
        n = events.count
        columns = self.events
        self.event_runs.add(n, len(self.sources) - 1, len(self.agent_names))
        columns.add("type", events.types)
        columns.add("agent", events.agent_codes)  # the trace's own codes: shifted per shard
        self.agent_names.extend(events.agent_names)
        for key in LABELS:  # codes into the shard's own values: no string per event
            columns.add(key, records.codes(key, self.labels[key], dtype=np.int32)[0])
        timed = measured["clock"] == recorded.SECONDS
        columns.add("t", events.start if timed else np.full(n, np.nan))  # steps: no time
        columns.add("end", events.end if timed else np.full(n, np.nan))
        for key in ("tokens", "cost_usd", "reward"):
            columns.add(key, trace.recorded(key))  # NaN where absent: null in the table
        self.critical.append(metrics.critical_path(run))  # positions, not ids looked up

    # ------------------------------------------------------------------ credit
    def _credit(self, run, first_id: int) -> None:
        """One row per item of every unit. An item is kept as an integer: an event's place in
        the shard's ids (0 up) or, for an item that is not an event, minus one minus its place
        in :attr:`items`; :meth:`_credit_table` turns both into text at once."""
        reward, rewards = credit.team_reward(run), credit.event_rewards(run)
        facts = run.recorded  # what the trace records (masrl.traces.recorded)
        games = credit.game_units(run)  # from the recorded rollouts; None without them
        solved = {} if games is None else games["units"]
        columns = self.credit
        source = len(self.sources) - 1
        for unit in credit.UNITS:
            found, of, weight = credit.items(run, unit)
            count = len(found)
            if isinstance(found, credit.EventNames):
                item = found.positions.astype(np.int64) + first_id
            else:
                item = -1 - len(self.items) - np.arange(count, dtype=np.int64)
                self.items.extend(found)
            counted = unit != "token" or facts.tokens  # as credit.compute: unknown is null
            equal = (np.full(count, np.nan) if reward is None or not counted
                     else credit.equal_shares(reward, weight).astype(np.float64))
            recorded = (credit.recorded_shares(rewards, of, count)
                        if facts.event_rewards and counted else np.full(count, np.nan))
            consumed = consumption.consumed_items(run, of, count).astype(np.float64)
            decided = None
            if unit == "orchestrator" and count:
                ids = credit.subdecision_ids()
                decided = [ids.get(credit.decision_of(run, i))
                           for i in found.positions.tolist()]
            game = solved.get(unit)
            if game is not None:
                names = list(found)
                listed = set(names)
                extra = [p for p in game["leave_one_out"] or game["shapley"] or {}
                         if p not in listed]
                if extra:  # players the unit has no item for (an agent that never acts)
                    pad = np.full(len(extra), np.nan)
                    item = np.concatenate([item, -1 - len(self.items)
                                           - np.arange(len(extra), dtype=np.int64)])
                    self.items.extend(extra)
                    names = [*names, *extra]
                    equal, recorded = np.concatenate([equal, pad]), np.concatenate([recorded, pad])
                    consumed = np.concatenate([consumed, pad])
                    if decided is not None:
                        decided = [*decided, *[None] * len(extra)]
                    count = len(names)
                self.game_rows.append(np.arange(self.credit_rows, self.credit_rows + count))
                for key in CREDIT_GAME:
                    values = game.get(key) or {}
                    self.game_values[key].append(
                        np.array([values.get(name, np.nan) for name in names], dtype=np.float64))
            if decided is not None:
                columns.add("subdecision_rows", np.arange(self.credit_rows,
                                                          self.credit_rows + count))
                columns.add("subdecision", decided)
            self.credit_runs.add(count, source, credit.UNITS.index(unit))
            columns.add("item", item)
            columns.add("consumed", consumed)
            columns.add("equal", equal)
            columns.add("recorded", recorded)
            self.credit_rows += count

    # ------------------------------------------------------------------ tables
    def tables(self) -> dict[str, pa.Table]:
        """The selected tables of the shard, with the schemas of :mod:`.tables`."""
        sources = pa.array(self.sources, type=pa.string())
        ids = pa.array(chain.from_iterable(self.ids), type=pa.string(), size=self.id_count)
        build = {
            "traces": lambda: _from_columns("traces", self.trace_columns),
            "agents": lambda: _from_columns("agents", self.agent_columns),
            "events": lambda: self._event_table(sources, ids),
            "credit": lambda: self._credit_table(sources, ids),
            "problems": lambda: _from_columns("problems", self.problem_columns),
        }
        return {name: build[name]() for name in self.selected}

    def _event_table(self, sources: pa.Array, ids: pa.Array) -> pa.Table:
        columns = self.events
        if not columns.chunks:
            return tables.empty("events")
        runs = self.event_runs
        agent_names = pa.array(self.agent_names, type=pa.string())
        agent = columns.array("agent") + runs.column("agent", np.int64)
        arrays = {
            "source": _decoded(runs.column("source", np.int32), sources),
            "position": pa.array(runs.offsets()),
            "id": ids,
            "type": _decoded(columns.array("type"), pa.array(EVENT_TYPES, type=pa.string())),
            "agent": _decoded(agent.astype(np.int32), agent_names),
            **{key: _decoded(columns.array(key), pa.array(list(self.labels[key]),
                                                          type=pa.string()))
               for key in LABELS},
            "t": _nullable(columns.array("t")), "end": _nullable(columns.array("end")),
            **{key: _nullable(columns.array(key)) for key in ("tokens", "cost_usd", "reward")},
            "critical": pa.array(self._critical()),
        }
        return _table("events", arrays)

    def _critical(self) -> np.ndarray:
        """The events table's critical flags, from each trace's critical positions."""
        counts = [len(path) for path in self.critical]
        positions = np.fromiter(chain.from_iterable(self.critical), dtype=np.int64,
                                count=sum(counts))
        flags = np.zeros(sum(self.event_runs.lengths), dtype=bool)
        flags[positions + np.repeat(self.event_runs.starts(), counts)] = True
        return flags

    def _credit_table(self, sources: pa.Array, ids: pa.Array) -> pa.Table:
        columns = self.credit
        if not self.credit_rows:
            return tables.empty("credit")
        item = columns.array("item")
        named = item < 0  # not an event: an index into self.items, counted down from -1
        strings = pa.concat_arrays([ids, pa.array(self.items, type=pa.string())])
        item = np.where(named, self.id_count - 1 - item, item)
        subdecision = pa.nulls(self.credit_rows, type=pa.string())
        if "subdecision" in columns.chunks:
            rows = columns.array("subdecision_rows")
            codes = np.full(self.credit_rows, -1, dtype=np.int64)
            decided = columns.joined("subdecision")
            dictionary = sorted({d for d in decided if d is not None})
            lookup = {d: k for k, d in enumerate(dictionary)}
            codes[rows] = [-1 if d is None else lookup[d] for d in decided]
            subdecision = pa.array(dictionary, type=pa.string()).take(
                pa.array(codes, mask=codes < 0))
        game = {}
        for key in CREDIT_GAME:
            values = np.full(self.credit_rows, np.nan)
            if self.game_rows:
                values[np.concatenate(self.game_rows)] = np.concatenate(self.game_values[key])
            game[key] = _nullable(values)
        arrays = {
            "source": _decoded(self.credit_runs.column("source", np.int32), sources),
            "unit": _decoded(self.credit_runs.column("unit", np.int8),
                             pa.array(credit.UNITS, type=pa.string())),
            "item": strings.take(pa.array(item)),
            "subdecision": subdecision,
            "consumed": _nullable_flags(columns.array("consumed")),
            "equal": _nullable(columns.array("equal")),
            "recorded": _nullable(columns.array("recorded")),
            **game,
        }
        return _table("credit", arrays)


def _table(name: str, arrays: dict[str, pa.Array]) -> pa.Table:
    schema = tables.SCHEMAS[name]
    return pa.Table.from_arrays([arrays[column] for column in schema.names], schema=schema)


def _from_columns(name: str, columns: dict[str, list]) -> pa.Table:
    """A table from one Python list per column (the few rows per trace of traces, agents and
    problems), each converted by Arrow in one call."""
    schema = tables.SCHEMAS[name]
    return pa.Table.from_arrays([pa.array(columns[f.name], type=f.type) for f in schema],
                                schema=schema)


def _nullable(values: np.ndarray) -> pa.Array:
    """Floats with NaN as null (JSON has no NaN, so NaN only ever means absent)."""
    return pa.array(values, mask=np.isnan(values), type=pa.float64())


def _nullable_flags(values: np.ndarray) -> pa.Array:
    """1.0 / 0.0 as true / false, NaN as null."""
    return pa.array(values == 1.0, mask=np.isnan(values), type=pa.bool_())


def _decoded(codes: np.ndarray, dictionary: pa.Array) -> pa.Array:
    """The strings ``dictionary[codes]`` (taken in Arrow, no Python object per row)."""
    return dictionary.take(pa.array(codes))


# traces column -> its dotted key in masrl replay --json, whose reason it takes
REPLAY_KEYS = {"wall_clock": "wall_clock", "busy_time": "busy_time", "speedup": "speedup",
               "tokens": "tokens.total", "cost_usd": "cost_usd.total",
               "cost_usd_estimated": "cost_usd_estimated.total",
               "team_reward": "credit.team_reward"}
# reward term columns -> the column whose reason explains theirs
TERM_INPUTS = {"reward_outcome": "team_reward", "reward_parallelism_speedup": "speedup"}
TERM_REASONS = {
    "reward_process": recorded.NO_EVENT_REWARDS,
    "reward_tool_use": "no tool_call or tool_result event records a reward",
    "reward_token_penalty": "no event records tokens and the trace's costs give no tokens",
    "reward_cost_penalty": "no event records cost_usd and the trace's costs give no usd",
}


def _not_recorded(values: dict, measured: dict, estimate: dict, run) -> list[tuple[str, str]]:
    """Column -> reason for every null figure of a valid trace's row, as map entries sorted by
    column: the reasons of :func:`masrl.traces.recorded.not_recorded` for the figures
    ``masrl replay --json`` also has, the reward terms' from their inputs, and the recorded
    maps' absence; anything else null is :data:`masrl.traces.recorded.UNEXPLAINED`."""
    figures = {key: measured[key] for key in ("wall_clock", "busy_time", "speedup")}
    figures.update({"tokens": {"total": measured["tokens"]["total"]},
                    "cost_usd": {"total": measured["cost_usd"]["total"]},
                    "cost_usd_estimated": {**estimate, "priced_at": 0,
                                           "price_table": {"version": 0}},
                    "credit": {"team_reward": values["team_reward"]}})
    said = recorded.not_recorded(figures, run.recorded)
    reasons = {}
    for column, value in values.items():
        if value is not None or column in ("not_recorded", "price_table"):
            continue
        if column in REPLAY_KEYS:
            reasons[column] = said.get(REPLAY_KEYS[column], recorded.UNEXPLAINED)
        elif column in TERM_INPUTS:
            reasons[column] = said.get(REPLAY_KEYS[TERM_INPUTS[column]], recorded.UNEXPLAINED)
        elif column in TERM_REASONS:
            reasons[column] = TERM_REASONS[column]
        elif column in ("rewards", "costs", "metrics"):
            reasons[column] = f"the trace records no {column}"
        else:
            reasons[column] = recorded.UNEXPLAINED
    if values["price_table"] is None:
        reasons["price_table"] = recorded.INSTALL
    return sorted(reasons.items())


def _sum(values: dict | None, keys=None) -> float | None:
    """The sum of a replay's per-agent figures (of ``keys``, else all), those not recorded
    left out; ``None`` when the replay says the trace does not record the figure, or none of
    these agents records it (:mod:`masrl.traces.recorded`)."""
    if values is None:
        return None
    known = [v for v in (values.values() if keys is None else (values[k] for k in keys))
             if v is not None]
    return float(sum(known)) if known else None


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
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return {}
    if not isinstance(document, dict):
        return {}
    return {key: document.get(key) for key in IDENTITY}


# ---------------------------------------------------------------------------------- shards

def build_shard(shard: Shard, selected: tuple[str, ...] = tables.TABLE_NAMES) -> ShardBuilder:
    """The columns of every trace of one shard.

    The cyclic garbage collector is paused meanwhile: a shard keeps hundreds of thousands of
    strings and arrays alive until its tables are written, and each collection would walk all
    of them again (it doubled the time per trace). Reference counting still frees everything.
    """
    builder = ShardBuilder(selected)
    with collector.paused():
        for source, data in read_shard(shard):
            builder.add(source, data)
    return builder


def encode_shard(shard: Shard, selected: tuple[str, ...] = tables.TABLE_NAMES) -> ShardOutput:
    """The shard's tables as Parquet bytes, and its counts: a pure function of the shard.

    The collector stays paused until the columns are dropped (re-enabled in between, its first
    pass would walk every value of the shard once more)."""
    with collector.paused():
        builder = build_shard(shard, selected)
        files = {name: tables.parquet_bytes(table) for name, table in builder.tables().items()}
        output = ShardOutput(shard.index, files, len(builder.sources), builder.invalid,
                             builder.event_count, builder.inputs)
        del builder
    return output
