"""The documented schema of the corpus tables is the one written, and it does not drift.

The expected columns are spelled out here on purpose: changing a table must change this test
and ``CORPUS_SCHEMA_VERSION`` together.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
from corpus_helpers import make_corpus

from masrl.commands import main
from masrl.traces.corpus import tables

S, INT, F, B = "string", "int64", "double", "bool"
MAP = "map<string, double>"
REASONS = "map<string, string>"
LIST = "list<item: string>"
EXPECTED = {
    "traces": [
        ("source", S), ("file", S), ("line", INT), ("bytes", INT), ("valid", B), ("errors", INT),
        ("warnings", INT), ("trace_id", S), ("task_id", S), ("system", S), ("topology", S),
        ("schema_version", S), ("events", INT), ("edges", INT), ("agents", INT),
        ("spawned_agents", INT), ("tool_calls", INT), ("messages", INT),
        ("event_types", "struct<orchestrator_decision: int64, spawn: int64, despawn: int64, "
                        "message: int64, tool_call: int64, tool_result: int64, return: int64, "
                        "aggregate: int64, human_intervention: int64, safety_event: int64>"),
        ("decisions", "struct<spawn: int64, delegate: int64, communicate: int64, "
                      "aggregate: int64, stop: int64, unspecified: int64>"),
        ("edge_types", "struct<temporal: int64, causal: int64, spawn: int64, message: int64, "
                       "tool_dependency: int64, return: int64, aggregate: int64, "
                       "safety_flow: int64>"),
        ("edge_modes", "struct<blocking: int64, handoff: int64, async: int64, "
                       "unspecified: int64>"),
        ("critical_steps", INT), ("parallelism", F), ("spawn_depth", INT), ("max_concurrency", INT),
        ("wall_clock", F), ("busy_time", F), ("speedup", F), ("tokens", F), ("cost_usd", F),
        ("team_reward", F), ("rewards", MAP), ("costs", MAP), ("metrics", MAP),
        ("reward_outcome", F), ("reward_process", F), ("reward_tool_use", F),
        ("reward_parallelism_speedup", F), ("reward_critical_steps_ratio", F),
        ("reward_token_penalty", F), ("reward_cost_penalty", F),
        ("clock", S), ("cost_usd_estimated", F), ("price_table", S), ("unknown_models", LIST),
        ("not_recorded", REASONS),
    ],
    "agents": [
        ("source", S), ("agent", S), ("acting", B), ("role", S), ("parent", S), ("depth", INT),
        ("children", INT), ("spawn_event", S), ("spawned_at", F), ("ended_at", F),
        ("events", INT), ("busy_time", F), ("tokens", F), ("cost_usd", F),
        ("subtree_tokens", F), ("subtree_cost_usd", F),
    ],
    "events": [
        ("source", S), ("position", INT), ("id", S), ("type", S), ("agent", S), ("role", S),
        ("tool", S), ("decision", S), ("t", F), ("end", F), ("tokens", F), ("cost_usd", F),
        ("reward", F), ("critical", B),
    ],
    "credit": [
        ("source", S), ("unit", S), ("item", S), ("subdecision", S), ("consumed", B),
        ("equal", F), ("recorded", F), ("leave_one_out", F), ("shapley", F),
        ("shapley_standard_error", F),
    ],
    "problems": [
        ("source", S), ("severity", S), ("code", S), ("where", S), ("pointer", S),
        ("message", S),
    ],
}


def columns(schema: pa.Schema) -> list[tuple[str, str]]:
    return [(field.name, _type(field.type)) for field in schema]


def _type(kind: pa.DataType) -> str:
    """The type as text; a map or list read back from Parquet names its entries after the
    column (or "element"), which is no difference of type."""
    if pa.types.is_map(kind):
        return f"map<{kind.key_type}, {kind.item_type}>"
    if pa.types.is_list(kind):
        return f"list<item: {kind.value_type}>"
    return str(kind)


def test_the_documented_schemas_are_the_expected_ones():
    assert tables.CORPUS_SCHEMA_VERSION == "3"
    assert list(tables.SCHEMAS) == list(tables.TABLE_NAMES) == list(EXPECTED)
    for name, expected in EXPECTED.items():
        assert columns(tables.SCHEMAS[name]) == expected, name


def test_every_column_is_documented():
    documented = tables.documentation()
    assert len(documented) == sum(len(c) for c in EXPECTED.values())
    assert all(len(row["meaning"].split()) >= 2 for row in documented), documented


def test_written_files_have_the_documented_schema_even_when_empty(tmp_path):
    corpus = make_corpus(tmp_path)
    out = tmp_path / "out"
    main(["corpus", str(corpus / "not_json.json"), str(corpus / "small.json"), "-o", str(out),
          "--shard-size", "1"])
    for name, expected in EXPECTED.items():
        files = sorted((out / name).glob("*.parquet"))
        assert len(files) == 2
        for path in files:
            assert columns(pq.read_schema(path)) == expected, path
    assert pq.read_metadata(out / "events" / "part-00000.parquet").num_rows == 0  # not JSON
