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


def test_descriptions_are_escaped_html_that_keeps_flags_as_written():
    schema = json.loads(traces.SCHEMA_PATH.read_text(encoding="utf-8"))
    sections = schema_reference.reference(schema)
    content = schema_reference.description(sections["content"])._repr_html_()
    assert "--keep-content" in content and "\u2013" not in content
    assert content.endswith("No other properties are allowed.</p>")
    hostile = {"description": "<b>x</b> & {role}`y`", "extra": True}
    markup = schema_reference.description(hostile)._repr_html_()
    assert "<b>" not in markup and "&lt;b&gt;x&lt;/b&gt; &amp;" in markup
    assert markup.endswith("Other properties are allowed.</p>")
    assert repr(schema_reference.heading("a`b")) == "### ``a`b``"
