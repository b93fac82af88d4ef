"""Our orchestration-trace schema: where it lives, its version, and its compiled validator.

The schema file ``data/schema/trace.schema.json`` (JSON Schema 2020-12) is the single source of
truth for the structure of a trace; the book's schema reference page is generated from its
descriptions. Validation uses ``jsonschema-rs`` (Rust, validates Python objects in place): on a
one-million-event trace it takes about 0.7 s where the pure-Python ``jsonschema`` needs minutes.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema_rs

from masrl.paths import DEFAULT_DATA_DIR

SCHEMA_PATH = DEFAULT_DATA_DIR / "schema" / "trace.schema.json"
SCHEMA_VERSION = "1.0"


@cache
def load_schema(path: Path = SCHEMA_PATH) -> dict:
    """The schema as a dictionary (cached; do not mutate it)."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


@cache
def schema_validator(path: Path = SCHEMA_PATH) -> jsonschema_rs.Draft202012Validator:
    """A compiled Draft 2020-12 validator for the schema at ``path``."""
    return jsonschema_rs.Draft202012Validator(load_schema(path))


def schema_enum(definition: str, name: str) -> list[str]:
    """The allowed values of property ``name`` of ``$defs/<definition>``."""
    return load_schema()["$defs"][definition]["properties"][name]["enum"]
