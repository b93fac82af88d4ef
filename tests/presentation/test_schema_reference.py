"""The schema chapter's tables are derived from the schema file itself."""

from __future__ import annotations

import json

from masrl import traces
from masrl.presentation import schema_reference


def test_every_property_of_every_object_is_documented():
    schema = json.loads(traces.SCHEMA_PATH.read_text(encoding="utf-8"))
    sections = schema_reference.reference(schema)
    assert list(sections) == ["trace", *schema["$defs"]]
    for name, section in sections.items():
        spec = schema if name == "trace" else schema["$defs"][name]
        table = section["table"]
        assert list(table["property"]) == list(spec["properties"])
        assert set(table.loc[table["required"] == "yes", "property"]) == set(spec.get("required", []))
        assert (table["description"].str.len() > 0).all(), f"{name}: a property lacks a description"
    assert sections["trace"]["extra"] is False


def test_type_descriptions():
    describe = schema_reference.describe_type
    assert describe({"type": "number", "minimum": 0}) == "number (>= 0)"
    assert describe({"enum": ["a", "b"]}) == "one of a, b"
    assert describe({"type": "array", "items": {"$ref": "#/$defs/event"}}) == "array of event"
    assert describe({"type": "object", "additionalProperties": {"type": "number"}}) == \
        "object of name -> number"
