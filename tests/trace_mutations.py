"""Single-field mutations of every trace fixture and example: a corpus of some thousands of
documents, about half of them schema-valid, on which two ways of judging a trace must agree
(tests/traces/test_fast_path.py: the typed records and the schema;
tests/traces/test_quick_verdict.py: the quick verdict and the real validation)."""

from __future__ import annotations

import copy
import json

from trace_helpers import FIXTURES

from masrl.traces import resources
from masrl.traces.schema import load_schema, schema_validator
from masrl.traces.validate import parse

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
