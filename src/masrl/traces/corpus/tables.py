"""The Parquet tables ``masrl corpus`` writes: their schemas, field by field, and how they are
written.

Every table has the column ``source``, the trace's stable id (see :mod:`.sources`), and its rows
are sorted by source order (then as stated per table), so the same inputs give the same rows in
the same order whatever the engine or the number of workers. Names of metrics are those of
``masrl replay --json`` (:mod:`masrl.traces.metrics`), where their definitions are.

* ``traces``: one row per trace read, valid or not (metrics are null for an invalid trace).
* ``agents``: one row per agent of each valid trace.
* ``events``: one row per event of each valid trace, in file order.
* ``credit``: one row per item of each credit unit of each valid trace, one column per method.
* ``problems``: one row per problem (errors and warnings) of each trace, in the order
  validation reports them; an unreadable trace has one problem, code ``unreadable``.

Each table is a folder of Parquet files, one per shard (``traces/part-00000.parquet``...):
DuckDB reads one with ``read_parquet('OUT/traces/*.parquet')``. The files are written with fixed
settings (:data:`PARQUET_OPTIONS`) and carry no time, so they are byte for byte the same from run
to run; the footer's ``created_by`` names the pyarrow version that wrote them.

Unknown is not zero (the contract of :mod:`masrl.traces.recorded`, as ``masrl replay --json``
follows it): a figure the trace cannot support is null, never 0, and the ``traces`` table's
``not_recorded`` column says why, column by column. Every column of every table is nullable;
each column's meaning below says when it is null.

The schema version (:data:`CORPUS_SCHEMA_VERSION`) changes whenever a column is added, removed,
renamed or retyped; ``tests/traces/corpus/test_corpus_tables.py`` holds the columns to that
promise. Version 2 added the credit table's ``subdecision``, ``consumed`` and
``shapley_standard_error``, and fills ``leave_one_out`` and ``shapley`` at every unit the
recorded rollouts reach (version 1 filled them for the rollouts' own unit only). Version 3 adds
``traces.clock``, ``traces.cost_usd_estimated``, ``traces.price_table``,
``traces.unknown_models`` and ``traces.not_recorded``, and writes null instead of 0 for what a
trace does not record (busy time, wall clock and speedup without durations or clock, tokens
and cost nothing records, credit splits without rewards, event times without a clock).
"""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from masrl.traces.credit import UNITS
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.metrics import UNSPECIFIED
from masrl.traces.rewards import TERMS
from masrl.traces.schema import schema_enum

CORPUS_SCHEMA_VERSION = "3"
TABLE_NAMES = ("traces", "agents", "events", "credit", "problems")
PARQUET_OPTIONS = {
    "compression": "zstd", "compression_level": 3,
    "write_statistics": True, "version": "2.6", "data_page_version": "1.0",
    "row_group_size": 1 << 20, "store_schema": True, "write_page_index": False,
}
# Columns whose few distinct values repeat row after row: dictionary-encoded in the files. The
# others (ids, numbers) are written plain: a dictionary of nearly unique values costs time to
# build and is then dropped by the writer anyway.
DICTIONARY_COLUMNS = {
    "traces": ("task_id", "system", "topology", "schema_version", "clock", "price_table"),
    "agents": ("source", "agent", "role", "parent"),
    "events": ("source", "type", "agent", "role", "tool", "decision"),
    "credit": ("source", "unit"),
    "problems": ("source", "severity", "code"),
}

STRING, INT, FLOAT, BOOL = pa.string(), pa.int64(), pa.float64(), pa.bool_()
NUMBERS = pa.map_(pa.string(), pa.float64())
REASONS = pa.map_(pa.string(), pa.string())
NAMES = pa.list_(pa.string())


def _counts(values) -> pa.DataType:
    return pa.struct([pa.field(v, INT) for v in values])


EVENT_TYPE_COUNTS = _counts(EVENT_TYPES)
DECISION_COUNTS = _counts([*schema_enum("event", "decision"), UNSPECIFIED])
EDGE_TYPE_COUNTS = _counts(schema_enum("edge", "type"))
EDGE_MODE_COUNTS = _counts([*schema_enum("edge", "mode"), UNSPECIFIED])

SOURCE = ("source", STRING, "the trace's stable id: its file (relative to the folder holding "
                            "every SRC) and, for a JSON Lines file, ':' and the line number")

# (name, type, meaning): the meanings are the documentation (the book prints them).
COLUMNS: dict[str, list[tuple[str, pa.DataType, str]]] = {
    "traces": [
        SOURCE,
        ("file", STRING, "the file the trace was read from, as in source"),
        ("line", INT, "the line of a JSON Lines file (1-based); null for a JSON file"),
        ("bytes", INT, "size of the trace's JSON text in bytes"),
        ("valid", BOOL, "no validation error (warnings allowed)"),
        ("errors", INT, "number of validation errors"),
        ("warnings", INT, "number of validation warnings"),
        ("trace_id", STRING, "the trace's trace_id (also read from an invalid trace when it is "
                             "a string)"),
        ("task_id", STRING, "the trace's task_id (likewise)"),
        ("system", STRING, "the trace's system, if recorded"),
        ("topology", STRING, "the trace's topology, if recorded"),
        ("schema_version", STRING, "the trace's schema_version (1.0 when absent)"),
        ("events", INT, "number of events"),
        ("edges", INT, "number of edges"),
        ("agents", INT, "agents that act in an event other than a tool_result (the credited "
                        "agents)"),
        ("spawned_agents", INT, "agents that some spawn event creates"),
        ("tool_calls", INT, "tool_call events"),
        ("messages", INT, "message events"),
        ("event_types", EVENT_TYPE_COUNTS, "events per type, every type of the schema"),
        ("decisions", DECISION_COUNTS, "orchestrator_decision events per sub-decision"),
        ("edge_types", EDGE_TYPE_COUNTS, "edges per type"),
        ("edge_modes", EDGE_MODE_COUNTS, "edges per mode"),
        ("critical_steps", INT, "events on a longest dependency path"),
        ("parallelism", FLOAT, "events / critical_steps"),
        ("spawn_depth", INT, "largest depth of a spawned agent"),
        ("max_concurrency", INT, "largest number of spawned agents alive at once"),
        ("wall_clock", FLOAT, "latest event end minus earliest event start, seconds; null "
                              "when the log has no clock (clock steps)"),
        ("busy_time", FLOAT, "sum over agents of the union of their events' intervals, "
                             "seconds; null when no event records an end time or a duration, "
                             "or without a clock"),
        ("speedup", FLOAT, "busy_time / wall_clock; null without durations or clock"),
        ("tokens", FLOAT, "sum of the events' tokens; null when no event records tokens"),
        ("cost_usd", FLOAT, "sum of the events' cost_usd, as recorded; null when no event "
                            "records one (never an estimate: see cost_usd_estimated)"),
        ("team_reward", FLOAT, "rewards.team; null when absent"),
        ("rewards", NUMBERS, "the trace's rewards, channel -> value, as recorded"),
        ("costs", NUMBERS, "the trace's costs (tokens, wall_clock_s...), as recorded"),
        ("metrics", NUMBERS, "the trace's own metrics, as recorded; null when absent"),
        *[(f"reward_{name}", FLOAT, f"reward term {name} ({term.family}) of "
                                    "masrl.traces.rewards; null when the trace lacks its input")
          for name, term in TERMS.items()],
        ("clock", STRING, "seconds when the events' times measure time; steps when the log "
                          "records only their order (every t equal, no end or duration): the "
                          "trace is then replayed in step order and every figure in seconds "
                          "is null"),
        ("cost_usd_estimated", FLOAT, "cost of the model calls estimated from their tokens "
                                      "with the price table (price_table), kept apart from "
                                      "cost_usd; null when no call can be priced"),
        ("price_table", STRING, "the price table's library and version, e.g. genai-prices "
                                "0.0.40; null when it is not installed"),
        ("unknown_models", NAMES, "models the log names that the price table does not know "
                                  "(their calls are left out of the estimate)"),
        ("not_recorded", REASONS, "column -> why it is null: every null figure of a valid "
                                  "trace (the reasons of masrl replay --json); empty when "
                                  "everything is recorded, null for an invalid trace"),
    ],
    "agents": [
        SOURCE,
        ("agent", STRING, "the agent's name"),
        ("acting", BOOL, "acts in an event other than a tool_result (a credited agent)"),
        ("role", STRING, "its role (see masrl.traces.replay); null if none"),
        ("parent", STRING, "the agent that spawned it; null for a root"),
        ("depth", INT, "0 for a root, else the spawner's depth + 1"),
        ("children", INT, "agents it spawned"),
        ("spawn_event", STRING, "id of the event that spawned it; null for a root"),
        ("spawned_at", FLOAT, "start of its spawn event; null for a root"),
        ("ended_at", FLOAT, "start of its first return or despawn; null if never ended"),
        ("events", INT, "events it makes (its own, tool results included)"),
        ("busy_time", FLOAT, "union of its events' intervals, seconds; null when the trace's "
                             "busy_time is (see its not_recorded)"),
        ("tokens", FLOAT, "sum of its events' tokens; null when none of its events records "
                          "tokens (unknown, not zero)"),
        ("cost_usd", FLOAT, "sum of its events' cost_usd; null when none of its events "
                            "records one"),
        ("subtree_tokens", FLOAT, "tokens of it and every agent it spawned, directly or not, "
                                  "as far as they record them; null when none does"),
        ("subtree_cost_usd", FLOAT, "cost_usd likewise"),
    ],
    "events": [
        SOURCE,
        ("position", INT, "0-based position of the event in the trace's events array"),
        ("id", STRING, "the event id"),
        ("type", STRING, "the event type"),
        ("agent", STRING, "who acts"),
        ("role", STRING, "role, as recorded on the event"),
        ("tool", STRING, "tool, as recorded"),
        ("decision", STRING, "orchestration sub-decision, as recorded"),
        ("t", FLOAT, "start, seconds; null when the trace has no clock (clock steps: "
                     "position orders the events)"),
        ("end", FLOAT, "t_end, t + duration, or t; null likewise"),
        ("tokens", FLOAT, "tokens, as recorded; null when absent"),
        ("cost_usd", FLOAT, "cost_usd, as recorded; null when absent"),
        ("reward", FLOAT, "reward, as recorded; null when absent"),
        ("critical", BOOL, "on the critical path that critical_steps counts"),
    ],
    "credit": [
        SOURCE,
        ("unit", STRING, f"the credit unit: {', '.join(UNITS)}"),
        ("item", STRING, "the credited item: team, an event id (orchestrator, message, "
                         "tool_call, token), a role, an agent, or a turn agent#k"),
        ("subdecision", STRING, "for an orchestrator item, the sub-decision it takes (O1-O5, "
                                "as the trace schema numbers them); null when unspecified or another unit"),
        ("consumed", BOOL, "a path of edges leads from one of the item's events to the run's "
                           "outcome (masrl.traces.consumption); null for a player the trace "
                           "has no item for"),
        ("equal", FLOAT, "team reward split equally over the unit's items (by tokens for "
                         "token); null without a team reward, and for token when no event "
                         "records tokens"),
        ("recorded", FLOAT, "sum of the recorded rewards of the item's events; null when no "
                            "event of the trace records a reward (and for token when none "
                            "records tokens)"),
        ("leave_one_out", FLOAT, "v(N) - v(N minus the item), from the trace's counterfactual "
                                 "rollouts, at every unit they reach (0 for an unconsumed "
                                 "item); null where no rollout measures the item"),
        ("shapley", FLOAT, "Shapley value of the item in the same game (exact up to 12 "
                           "players, else a seeded estimate); null likewise"),
        ("shapley_standard_error", FLOAT, "standard error of an estimated Shapley value; "
                                          "null when exact or not measured"),
    ],
    "problems": [
        SOURCE,
        ("severity", STRING, "error or warning"),
        ("code", STRING, "the problem's code (masrl.traces.validate), or unreadable"),
        ("where", STRING, "where it is, e.g. events[3] (id e4) /events/3/t"),
        ("pointer", STRING, "JSON pointer into the trace"),
        ("message", STRING, "what is wrong"),
    ],
}

SCHEMAS: dict[str, pa.Schema] = {
    name: pa.schema([pa.field(column, kind) for column, kind, _ in columns],
                    metadata={"masrl.table": name, "masrl.corpus_schema": CORPUS_SCHEMA_VERSION})
    for name, columns in COLUMNS.items()
}


def empty(name: str) -> pa.Table:
    """A table with no rows and the schema of ``name``."""
    return SCHEMAS[name].empty_table()


def parquet_bytes(table: pa.Table) -> bytes:
    """The table as a Parquet file, written with :data:`PARQUET_OPTIONS` (dictionary encoding
    for the :data:`DICTIONARY_COLUMNS` of the table named in its schema's metadata)."""
    name = (table.schema.metadata or {}).get(b"masrl.table", b"").decode()
    sink = io.BytesIO()
    pq.write_table(table, sink, **PARQUET_OPTIONS,
                   use_dictionary=list(DICTIONARY_COLUMNS.get(name, ())))
    return sink.getvalue()


def documentation() -> list[dict[str, str]]:
    """Every column of every table: ``{"table", "column", "type", "meaning"}``."""
    return [{"table": table, "column": column, "type": str(kind), "meaning": meaning}
            for table, columns in COLUMNS.items() for column, kind, meaning in columns]
