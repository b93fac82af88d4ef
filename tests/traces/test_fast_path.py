"""The fast path of validation (typed msgspec records) agrees with the schema and the full path.

:func:`masrl.traces.validate.fast_trace` decodes a file into Structs that state the schema's
event and edge rules; anything they reject takes the full path (dictionaries, jsonschema-rs).
Correctness needs one direction only (records accept => schema valid); the tests check both, so
that a valid trace also stays fast, on every fixture and example and on systematic single-field
mutations of them. Where the records accept, the indexed trace, the problems and the replay must
be exactly those of the full path.
"""

from __future__ import annotations

import json
import typing

import msgspec
import numpy as np
import pytest
from trace_helpers import FIXTURES
from trace_mutations import CORPUS, FILES, PROVENANCE, schema_valid

from masrl.traces import replay
from masrl.traces.schema import (
    EdgeRecord,
    EventRecord,
    TraceRecord,
    load_schema,
)
from masrl.traces.validate import (
    fast_trace,
    graph_problems,
    index_trace,
    parse,
    validate_file,
)


def test_the_corpus_is_large_and_mixed():
    verdicts = [schema_valid(data) for _, data in CORPUS]
    assert len(CORPUS) > 5000 and 0.2 < sum(verdicts) / len(verdicts) < 0.8


def test_records_and_schema_give_the_same_verdict():
    disagree = [label for label, data in CORPUS
                if (fast_trace(data) is not None) != schema_valid(data)]
    assert disagree == []


def test_the_corpus_tries_valid_and_invalid_provenances():
    verdicts = [schema_valid(data) for label, data in CORPUS if "with provenance" in label]
    assert len(verdicts) > 1000 and 0.2 < sum(verdicts) / len(verdicts) < 0.8


def test_a_provenance_takes_the_fast_path_and_is_kept():
    document = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
    document["provenance"] = PROVENANCE
    fast = fast_trace(json.dumps(document).encode())
    assert fast is not None and fast.head["provenance"] == PROVENANCE


def test_a_repeated_field_cannot_hide_an_invalid_value():
    """JSON lets a key repeat (the last one wins). The records check every occurrence, so an
    invalid first value sends the document down the full path, which refuses the repeat."""
    text = (FIXTURES / "small.json").read_text(encoding="utf-8")
    data = text.replace('"id": "e1",', '"id": "", "id": "e1",', 1).encode()
    assert fast_trace(data) is None
    assert [f.code for f in parse(data)[1]] == ["duplicate-key"]


@pytest.mark.parametrize(("old", "new"), [
    ('"id": "e1",', '"id": "e0", "id": "e1",'),  # a field of an event, both values valid
    ('"src": "e1",', '"src": "e1", "src": "e1",'),  # a field of an edge, the same value twice
    ('"id": "e1",', '"x_note": {"k": 1, "k": 2}, "id": "e1",'),  # inside a field of its own
])
def test_a_repeated_key_with_valid_values_takes_the_full_path_and_is_refused(old, new):
    """msgspec keeps the last of two valid values; the fast path must not accept what strict
    JSON refuses (issue 9: reject duplicate keys)."""
    text = (FIXTURES / "small.json").read_text(encoding="utf-8")
    assert old in text
    data = text.replace(old, new, 1).encode()
    assert fast_trace(data) is None
    assert [f.code for f in parse(data)[1]] == ["duplicate-key"]


def test_a_field_of_its_own_holding_objects_stays_on_the_fast_path():
    text = (FIXTURES / "small.json").read_text(encoding="utf-8")
    data = text.replace('"id": "e1",', '"x_note": {"k": [{"k": 1}], "j": "k"}, "id": "e1",', 1)
    assert fast_trace(data.encode()) is not None


@pytest.mark.parametrize("label_data", [c for c in CORPUS if schema_valid(c[1])][::7],
                         ids=lambda c: c[0])
def test_fast_and_full_paths_build_the_same_trace(label_data):
    _, data = label_data
    fast, full = fast_trace(data), index_trace(parse(data)[0])
    assert fast is not None
    assert fast.head == full.head
    assert fast.document == full.document
    for name in ("ids", "agent_names"):
        assert getattr(fast.events, name) == getattr(full.events, name)
    for name in ("types", "agent_codes", "start", "end"):
        np.testing.assert_array_equal(getattr(fast.events, name), getattr(full.events, name))
    for name in ("src", "dst"):
        np.testing.assert_array_equal(getattr(fast.edges, name), getattr(full.edges, name))
    assert fast.life == full.life
    for key in ("tokens", "cost_usd", "reward"):
        np.testing.assert_array_equal(fast.numeric(key), full.numeric(key))
    contents = [None if c is None else c if isinstance(c, dict) else msgspec.to_builtins(c)
                for c in fast.event_records.optional("content")]
    assert contents == full.event_records.optional("content")  # version 1.2: events' text
    for records, keys in (("event_records", ("role", "to", "decision", "tool", "from",
                                             "content_ref", "trusted")),
                          ("edge_records", ("mode", "id", "type"))):
        fast_records, full_records = getattr(fast, records), getattr(full, records)
        for key in keys:
            assert fast_records.optional(key, "-") == full_records.optional(key, "-")
            assert fast_records.counts(key, "-") == full_records.counts(key, "-")
    fast_problems, full_problems = graph_problems(fast), graph_problems(full)
    assert fast_problems == full_problems
    np.testing.assert_array_equal(fast.order, full.order)
    if not any(p.severity == "error" for p in fast_problems):
        assert replay(fast).to_dict() == replay(full).to_dict()


def _fields(struct) -> dict[str, bool]:
    """JSON name -> required, of a Struct's fields."""
    info = typing.get_type_hints(struct)
    names = dict(zip(struct.__struct_fields__, struct.__struct_encode_fields__))
    defaults = len(struct.__struct_defaults__)
    required = struct.__struct_fields__[:len(struct.__struct_fields__) - defaults]
    assert set(info) >= set(names)
    return {names[f]: f in required for f in struct.__struct_fields__}


@pytest.mark.parametrize(("struct", "where"), [
    (TraceRecord, ()), (EventRecord, ("$defs", "event")), (EdgeRecord, ("$defs", "edge"))])
def test_records_declare_exactly_the_schema_properties(struct, where):
    node = load_schema()
    for key in where:
        node = node[key]
    required = set(node["required"]) - ({"trace_id", "task_id", "rewards", "costs"}
                                          if struct is TraceRecord else set())
    assert {name: name in required for name in node["properties"]} == _fields(struct)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_mapped_file_reports_the_same(path):
    """``keep_document=False`` maps the file instead of copying it; nothing else changes."""
    kept, mapped = validate_file(path), validate_file(path, keep_document=False)
    assert mapped.problems == kept.problems
    if kept.trace is not None:
        assert replay(mapped.trace).to_dict() == replay(kept.trace).to_dict()
        assert kept.trace.document == json.loads(path.read_text(encoding="utf-8"))
        with pytest.raises(ValueError, match="not kept"):
            mapped.trace.document  # noqa: B018


def test_an_empty_file_is_not_json(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    for keep in (True, False):
        assert [p.code for p in validate_file(empty, keep_document=keep).problems] == ["not-json"]
