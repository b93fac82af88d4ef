"""The fast path of validation (typed msgspec records) agrees with the schema and the full path.

:func:`masrl.traces.validate.fast_trace` decodes a file into Structs that state the schema's
event and edge rules; anything they reject takes the full path (dictionaries, jsonschema-rs).
Correctness needs one direction only (records accept => schema valid); the tests check both, so
that a valid trace also stays fast, on every fixture and example and on systematic single-field
mutations of them. Where the records accept, the indexed trace, the problems and the replay must
be exactly those of the full path.
"""

from __future__ import annotations

import copy
import json
import typing

import msgspec
import numpy as np
import pytest
from trace_helpers import FIXTURES

from masrl.traces import replay, resources
from masrl.traces.schema import (
    EdgeRecord,
    EventRecord,
    TraceRecord,
    load_schema,
    schema_validator,
)
from masrl.traces.validate import (
    fast_trace,
    graph_problems,
    index_trace,
    parse,
    validate_file,
)

EXAMPLES = sorted(resources.EXAMPLES.glob("*.json"))
FILES = sorted(FIXTURES.glob("*.json")) + EXAMPLES
VALID = [p for p in FILES if p.name not in ("non_finite.json", "not_json.json")]

# Values tried in every field: each JSON type, bounds, enum members and near misses.
VALUES = [None, True, False, 0, 1, -1, 0.5, -0.0, -1e-9, 1e300, 10**30, "", "x", "spawn",
          "causal", "async", "1.0", "agent", "swarm", "é", [], ["a"], {}, {"a": 1}]

# A provenance as an importer writes it, with the parts importers leave out (notes, a free-form
# fact); it is added to a few documents whose mutations then reach into it.
PROVENANCE = {
    "format": "claude-code",
    "notes": ["hand-written for the tests"],
    "repaired": {"event time raised to the time of an event it depends on": 2},
    "skipped": {"assistant block: thinking": 3, "blank line": 0},
    "sources": [{"name": "s1.jsonl", "sha256": "0123456789abcdef" * 4},
                {"name": "s1/subagents/agent-b1.jsonl", "sha256": "f" * 64}],
    "x_importer_version": "1",
}
WITH_PROVENANCE = ("small.json", "harness.json")
# Values tried in the provenance's strings and counts beyond VALUES: hash near misses, names that
# look absolute (valid: the schema states the rule but has no pattern for it) and counts.
PROVENANCE_VALUES = ["F" * 64, "f" * 63, "f" * 65, "sha256:" + "f" * 64, "/home/u/s1.jsonl",
                     "C:\\logs\\s1.jsonl", "../s1.jsonl", 2, 1.0, 1.5, -0.5, 2**63, -(2**63)]
# Where a path of keys leads, the definition whose properties are tried there.
DEFINITIONS = {"events": "event", "edges": "edge", "provenance": "provenance",
               "sources": "source_file", "content": "content", "labels": "label"}
# The fields of version 1.2 as an import writes them (labels, an event's kept text), and values
# tried in them beyond VALUES: the bound of a text and its near misses.
LABELS = [{"name": "mistake_step", "value": 3, "kind": "gold", "source": "Who&When",
           "event": "e1", "comment": "a reason", "truncated": False}]
CONTENT = {"text": "hello", "truncated": True, "bytes": 10}
TEXT_VALUES = ["x" * 4096, "x" * 4097, "é" * 4096, 3.0, 2**40, "gold", "annotation"]


def schema_valid(data: bytes) -> bool:
    """The verdict of the full path's first two steps: strict JSON, then the JSON Schema."""
    document, problems = parse(data)
    return not problems and schema_validator().is_valid(document)


def mutations(document: dict):
    """(label, document) for single-field changes of the document, its events and its edges."""
    yield "as is", document
    yield from _mutate(document, [], document)
    for array in ("events", "edges"):
        for k in sorted({0, 1, len(document[array]) - 1} & set(range(len(document[array])))):
            yield from _mutate(document, [array, k], document[array][k])
        for value in VALUES:
            changed = copy.deepcopy(document)
            changed[array][0] = value
            yield f"{array}[0] = {value!r}", changed
        changed = copy.deepcopy(document)
        changed[array] = []
        yield f"{array} empty", changed
    both = copy.deepcopy(document)
    both["events"][0].update(t_end=both["events"][0]["t"], duration=0)
    yield "t_end and duration", both


def _mutate(document: dict, parts: list, item: dict, values: list = VALUES):
    keys = sorted({*item, *_declared(parts), "extra"})
    for key in keys:
        for value in [*values, "(absent)"]:
            changed = copy.deepcopy(document)
            target = changed
            for part in parts:
                target = target[part]
            if value == "(absent)":
                if key not in target:
                    continue
                del target[key]
            else:
                target[key] = value
            yield f"{'/'.join(map(str, parts))}/{key} = {value!r}", changed


def provenance_mutations(document: dict):
    """(label, document) for changes of the provenance: of its properties, of its first source
    and of its counts, each to every value of VALUES and PROVENANCE_VALUES."""
    values = [*VALUES, *PROVENANCE_VALUES]
    yield "as is", document
    for parts in (["provenance"], ["provenance", "sources", 0], ["provenance", "skipped"],
                  ["provenance", "repaired"]):
        yield from _mutate(document, parts, _at(document, parts), values)
    for array in ("sources", "notes"):
        for value in values:
            changed = copy.deepcopy(document)
            changed["provenance"][array][0] = value
            yield f"provenance/{array}[0] = {value!r}", changed


def _at(document: dict, parts: list):
    for part in parts:
        document = document[part]
    return document


def _declared(parts: list) -> list[str]:
    schema = load_schema()
    if not parts:
        return list(schema["properties"])
    definition = DEFINITIONS.get([p for p in parts if isinstance(p, str)][-1])
    return list(schema["$defs"][definition]["properties"]) if definition else []


def _corpus():
    for path in VALID:
        document = json.loads(path.read_text(encoding="utf-8"))
        for label, changed in mutations(document):
            yield f"{path.name}: {label}", json.dumps(changed).encode()
    for path in VALID:
        if path.name in WITH_PROVENANCE:
            document = json.loads(path.read_text(encoding="utf-8"))
            document["provenance"] = copy.deepcopy(PROVENANCE)
            for label, changed in provenance_mutations(document):
                yield f"{path.name} with provenance: {label}", json.dumps(changed).encode()
    for path in VALID:
        if path.name in WITH_PROVENANCE:
            document = json.loads(path.read_text(encoding="utf-8"))
            document.update(schema_version="1.2", labels=copy.deepcopy(LABELS))
            document["events"][0]["content"] = dict(CONTENT)
            for label, changed in text_mutations(document):
                yield f"{path.name} with labels and content: {label}", json.dumps(
                    changed).encode()
    for path in FILES:
        yield path.name, path.read_bytes()


def text_mutations(document: dict):
    """(label, document) for changes of the fields of 1.2: a label and an event's content."""
    values = [*VALUES, *TEXT_VALUES]
    yield "as is", document
    for parts in (["labels", 0], ["events", 0, "content"]):
        yield from _mutate(document, parts, _at(document, parts), values)
    for value in values:
        changed = copy.deepcopy(document)
        changed["labels"] = value
        yield f"labels = {value!r}", changed


CORPUS = list(_corpus())


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
