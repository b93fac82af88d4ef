"""Our trace schema: well-formed, documented, versioned, and a superset of the published one."""

from __future__ import annotations

import json

import jsonschema
import pytest
from trace_helpers import FIXTURES

from masrl.traces import resources
from masrl.traces.schema import (
    BASE_VERSION,
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    load_schema,
    schema_validator,
)

EXAMPLES = sorted(resources.EXAMPLES.glob("*.json"))


def read(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_schema_is_draft_2020_12():
    schema = load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_version_is_stated_once_everywhere():
    schema = load_schema()
    assert schema["x-schema-version"] == SCHEMA_VERSION
    assert schema["$id"].endswith(f":{SCHEMA_VERSION}")
    assert schema["properties"]["schema_version"]["enum"] == list(SCHEMA_VERSIONS)
    assert SCHEMA_VERSIONS[-1] == SCHEMA_VERSION and BASE_VERSION == "1.0"


def test_versions_of_one_major_grow_by_minor_steps():
    """The policy of masrl.traces.schema: schema_version accepts every version of the current
    major, each one minor step after the last."""
    majors = {v.split(".")[0] for v in SCHEMA_VERSIONS}
    minors = [int(v.split(".")[1]) for v in SCHEMA_VERSIONS]
    assert len(majors) == 1 and minors == list(range(minors[0], minors[0] + len(minors)))


def _properties(node, where="#"):
    """(where, name, subschema) of every property declared anywhere in the schema."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{where}/properties/{name}", name, sub
        for key, sub in node.items():
            yield from _properties(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for k, sub in enumerate(node):
            yield from _properties(sub, f"{where}/{k}")


def test_every_property_has_a_description():
    undocumented = [where for where, _, sub in _properties(load_schema())
                    if "$ref" not in sub and not sub.get("description")]
    assert undocumented == []


def test_the_added_fields_are_optional():
    schema = load_schema()
    assert schema["required"] == ["trace_id", "task_id", "events", "edges", "rewards", "costs"]
    assert schema["$defs"]["event"]["required"] == ["id", "t", "type", "agent"]
    assert schema["$defs"]["edge"]["required"] == ["src", "dst", "type"]
    assert schema["$defs"]["event"]["properties"]["decision"]["enum"] == [
        "spawn", "delegate", "communicate", "aggregate", "stop"]
    assert schema["$defs"]["edge"]["properties"]["mode"]["enum"] == ["blocking", "handoff", "async"]


@pytest.mark.parametrize("path", [*EXAMPLES, FIXTURES / "small.json",
                                  FIXTURES / "published_only.json"], ids=lambda p: p.name)
def test_our_traces_satisfy_our_schema(path):
    assert list(schema_validator().iter_errors(read(path))) == []


def test_one_example_per_topology():
    assert sorted(read(p)["topology"] for p in EXAMPLES) == [
        "centralized", "debate", "harness", "hierarchical", "planner_executor_critic", "swarm"]


@pytest.mark.reference
@pytest.mark.parametrize("name", ["example_trace.json", "published_only.json"])
def test_traces_valid_under_the_published_schema_are_valid_under_ours(reference_dir, name):
    published = jsonschema.Draft202012Validator(read(reference_dir / "trace_schema.json"))
    path = reference_dir / name if name == "example_trace.json" else FIXTURES / name
    trace = read(path)
    published.validate(trace)  # the premise: the published schema accepts it
    assert list(schema_validator().iter_errors(trace)) == []


@pytest.mark.reference
def test_published_vocabularies_are_kept(reference_dir):
    published, ours = read(reference_dir / "trace_schema.json"), load_schema()
    assert (published["properties"]["topology"]["enum"]
            == ours["properties"]["topology"]["enum"])
    for definition in ("event", "edge"):
        assert (published["$defs"][definition]["properties"]["type"]["enum"]
                == ours["$defs"][definition]["properties"]["type"]["enum"])
        assert set(published["$defs"][definition]["properties"]) <= set(
            ours["$defs"][definition]["properties"])


def test_topologies_are_the_vocabularys_orchestration_forms():
    """The schema's topology enum is the vocabulary's orchestration forms (``NA`` aside) plus
    the two values a trace may need and a paper never does: ``mixed`` and ``unknown``."""
    from masrl.data.dataset import Dataset

    forms = [v for v in Dataset().vocabulary.values("orchestration_form") if v != "NA"]
    assert load_schema()["properties"]["topology"]["enum"] == [*forms, "mixed", "unknown"]


def test_a_writer_records_the_oldest_version_with_every_field_it_writes():
    from masrl.traces.schema import oldest_version

    plain = {"events": [{"id": "a"}]}
    assert oldest_version(plain) == "1.0"
    assert oldest_version({**plain, "labels": []}) == "1.2"
    assert oldest_version({"events": [{"id": "a", "content": {"text": "x"}}]}) == "1.2"
    assert oldest_version({**plain, "provenance": {"content": {}}}) == "1.2"
    assert oldest_version({**plain, "counterfactuals": {"unit": "turn", "outcomes": []}}) == "1.1"
    assert oldest_version({**plain, "counterfactuals": {"unit": "agent",
                                                        "outcomes": [{"id": "r1"}]}}) == "1.1"
