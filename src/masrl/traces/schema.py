"""Our orchestration-trace schema: where it lives, its version, its compiled validator, and the
typed records that decode a valid trace quickly.

The schema file ``trace.schema.json`` (JSON Schema 2020-12), shipped inside the package
(:mod:`masrl.traces.resources`), is the single source of truth for the structure of a trace;
the book's schema reference page is generated from its descriptions. Validation uses
``jsonschema-rs`` (Rust, validates Python objects in place): on a one-million-event trace it
takes about 0.5 s where the pure-Python ``jsonschema`` needs minutes.

The fast path. Decoding a million events into dictionaries and then validating them costs about
1.5 s. :class:`TraceRecord` instead decodes a file into msgspec Structs (:class:`EventRecord`,
:class:`EdgeRecord`), which check the rules of ``$defs/event`` and ``$defs/edge`` in C while
decoding (:mod:`masrl.traces.columns` decodes them a chunk at a time, straight into columns).
Everything else of the document (``trace_id``, ``rewards``, ``costs``, ``counterfactuals``,
``provenance``...) is decoded by strict JSON (:mod:`.strict_json`) and checked by the real
schema (:func:`head_validator`), so only the event and edge rules are written twice, here and
in the file. The contract is one-sided: a document the records accept must be valid under the
schema and strict JSON (else an invalid trace could slip through); a valid document they reject
merely takes the full path (strict JSON + jsonschema-rs), which reports exactly what it always
did. What the records cannot see themselves (bytes that are not UTF-8 in fields they skip, a
repeated key, at the top level or inside an event or edge, a number out of range in a field
they skip) is checked around them (see :mod:`masrl.traces.columns`).
``tests/traces/test_fast_path.py`` checks both directions on every fixture and example and on
systematic single-field mutations of them.

Versions. The schema's version is ``MAJOR.MINOR``. A change that only adds optional fields or
values, so that every trace valid under the previous version stays valid with the same meaning,
raises the minor version; any other change (a field removed, renamed or given another meaning, a
new required field, a rule made stricter) raises the major version. ``schema_version`` accepts
every version of the current major (:data:`SCHEMA_VERSIONS`); a trace without it is read as
:data:`BASE_VERSION`. Writers record the oldest version that has every field they write (an
imported trace records 1.0 unless it holds labels or text, then 1.2:
:func:`oldest_version`), so that older readers keep reading them.

* 1.0: the first version.
* 1.1: counterfactual rollouts of any unit (``counterfactuals.unit`` ``turn``, ``orchestrator``,
  ``message``, ``tool_call``, ``event``), rollouts that name the players they ``changed`` and
  how, and rollout ``id`` (all optional; :mod:`masrl.traces.credit`).
* 1.2: the source's ``labels`` (gold answers and annotations, ``$defs/label``), an event's
  ``content`` (its text, kept on request and bounded, ``$defs/content``) and
  ``provenance.content`` (the bounds and what they left out); all optional.
"""

from __future__ import annotations

import copy
import json
import math
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Raw, Struct

from masrl.traces import resources

if TYPE_CHECKING:
    import jsonschema_rs

SCHEMA_PATH = resources.SCHEMA
SCHEMA_VERSIONS = ("1.0", "1.1", "1.2")  # every version schema_version accepts, oldest first
SCHEMA_VERSION = SCHEMA_VERSIONS[-1]  # the current version
BASE_VERSION = SCHEMA_VERSIONS[0]  # how a trace without schema_version is read
BULK = ("events", "edges")  # the arrays the records decode; the rest is the document's head


@cache
def load_schema(path: Path = SCHEMA_PATH) -> dict:
    """The schema as a dictionary (cached; do not mutate it)."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


@cache
def schema_validator(path: Path = SCHEMA_PATH) -> jsonschema_rs.Draft202012Validator:
    """A compiled Draft 2020-12 validator for the schema at ``path``."""
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(load_schema(path))


SCHEMA_CHECK = Path(__file__).with_name("schema_check.py")  # generated: schema_check_code()
# The keywords the schema may use for the generated check to mean what it means in 2020-12: the
# generator (fastjsonschema) knows draft 7, where these keywords read the same (a $ref with
# siblings, prefixItems or unevaluated* would not). tests/traces/test_schema_check.py holds us to it.
DRAFT7_SAFE_KEYWORDS = frozenset({
    "$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "required",
    "properties", "additionalProperties", "items", "minItems", "uniqueItems", "minimum",
    "minLength", "maxLength", "pattern", "not", "oneOf",
})


def schema_check_code(path: Path = SCHEMA_PATH) -> str:
    """The Python source of :mod:`masrl.traces.schema_check`: the schema compiled by
    fastjsonschema into plain functions, which ``masrl validate`` runs on a small file (see
    :mod:`masrl.traces.quick_verdict`) instead of importing jsonschema-rs, msgspec and numpy.
    It is generated from the schema file, never edited (``scripts/generate_schema_check.py``);
    the schema file stays the one source of truth."""
    import fastjsonschema

    schema = {key: value for key, value in load_schema(path).items() if key != "$id"}
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"  # see DRAFT7_SAFE_KEYWORDS
    code = fastjsonschema.compile_to_code(schema, detailed_exceptions=False)
    for line, replacement in _STANDALONE.items():  # the code needs neither package at run time
        if code.count(line) != 1:
            raise RuntimeError(f"the generated code no longer reads {line!r}: revise _STANDALONE")
        code = code.replace(line, replacement)
    header = ('"""The trace schema as plain Python checks (generated by fastjsonschema from '
              "trace.schema.json:\nscripts/generate_schema_check.py writes this file; never "
              'edit it)."""\n# ruff: noqa\n')
    return header + code


# Lines of the generated code and what replaces them, so that running it imports neither
# fastjsonschema (the generator, 3 ms at start-up) nor decimal: the checks raise their own
# exception class, and a document parsed from JSON text never holds a Decimal.
_STANDALONE = {
    "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n": (
        "class JsonSchemaValueException(ValueError):\n"
        "    def __init__(self, message, **details):\n"
        "        super().__init__(message)\n"
        "JsonSchemaValuesException = JsonSchemaValueException\n"),
    "from decimal import Decimal\n": "Decimal = float\n",
}


@cache
def head_validator() -> jsonschema_rs.Draft202012Validator:
    """The schema without ``events`` and ``edges``: it checks a document's head, the rest."""
    schema = copy.deepcopy(load_schema())
    schema["required"] = [key for key in schema["required"] if key not in BULK]
    for key in BULK:
        del schema["properties"][key]
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema)


@cache
def subdecision_ids() -> dict[str, str]:
    """Sub-decision name (``spawn``...) -> the survey's id (``O1``...), as the schema declares
    them (``x-subdecision-ids`` of an event's ``decision``; the survey's taxonomy,
    ``data/taxonomy.yaml``, must agree, which ``masrl check-data`` checks)."""
    return dict(load_schema()["$defs"]["event"]["properties"]["decision"]["x-subdecision-ids"])


def oldest_version(document: dict) -> str:
    """The oldest version that has every field ``document`` uses, as far as importers write them:
    1.2 for ``labels``, an event's ``content`` or ``provenance.content``, 1.1 for the
    counterfactual fields of 1.1, else 1.0."""
    provenance = document.get("provenance")
    if document.get("labels") is not None or any("content" in e for e in document["events"]) \
            or (isinstance(provenance, dict) and "content" in provenance):
        return "1.2"
    counterfactuals = document.get("counterfactuals")
    if isinstance(counterfactuals, dict) and (
            counterfactuals.get("unit") not in (None, "agent", "role")
            or any("changed" in o or "id" in o for o in counterfactuals.get("outcomes", ())
                   if isinstance(o, dict))):
        return "1.1"
    return BASE_VERSION


def schema_enum(definition: str, name: str) -> list[str]:
    """The allowed values of property ``name`` of ``$defs/<definition>``."""
    return load_schema()["$defs"][definition]["properties"][name]["enum"]


# ---------------------------------------------------------------------------------- records
# Field by field, the rules of $defs/event and $defs/edge. A JSON Schema "number" is a float here
# (msgspec accepts integers for it, rejects booleans and null, as the schema does). Absent
# optional fields read as None for strings and NaN for numbers: neither can be a valid value
# (null is rejected because the annotated type excludes it; JSON has no NaN), so None / NaN mean
# "absent" exactly, as dict.get would say. The one rule a Struct cannot state, "not both t_end
# and duration", is checked on the columns (masrl.traces.validate.fast_trace).

_NAN = math.nan
_Name = Annotated[str, Meta(min_length=1)]
_NonNegative = Annotated[float, Meta(ge=0)]
CONTENT_BYTES = 4096  # bytes of UTF-8 an event's content.text holds at most ($defs/content)


def _one_of(definition: str, name: str):
    return Literal[tuple(schema_enum(definition, name))]


class ContentRecord(Struct, gc=False, forbid_unknown_fields=True, omit_defaults=True):
    """An event's ``content`` (version 1.2), fields as in ``$defs/content``."""

    text: Annotated[str, Meta(max_length=CONTENT_BYTES)]
    truncated: bool = None
    bytes: _NonNegative = _NAN


class EventRecord(Struct, gc=False):
    """One event, fields as in ``$defs/event`` (unknown fields are allowed and skipped).

    ``gc=False``: an event holds only strings, numbers and its ``content`` (a
    :class:`ContentRecord`, of a string, a boolean and a number), so it can never be part of a
    reference cycle; untracked, records add nothing to garbage-collection passes.
    """

    id: _Name
    t: _NonNegative
    type: _one_of("event", "type")
    agent: _Name
    role: str = None
    from_: str = msgspec.field(default=None, name="from")
    to: str = None
    tool: str = None
    content_ref: str = None
    trusted: bool = None
    decision: _one_of("event", "decision") = None
    tokens: _NonNegative = _NAN
    cost_usd: _NonNegative = _NAN
    reward: float = _NAN
    t_end: _NonNegative = _NAN
    duration: _NonNegative = _NAN
    content: ContentRecord = None


class ModelCallRecord(Struct):
    """The two extension fields of an event that the cost estimate reads
    (:mod:`masrl.traces.cost_estimate`): ``x_model`` and ``x_usage``, as written (any JSON value:
    validation does not check ``x_`` fields). The fast path decodes them, in a second pass over
    a chunk of events, only when its text names ``"x_model"`` (see :mod:`.columns`)."""

    x_model: Any = None
    x_usage: Any = None


MODEL_MARK = b'"x_model"'


class EdgeRecord(Struct, gc=False, forbid_unknown_fields=True):
    """One edge, fields as in ``$defs/edge`` (no other field allowed)."""

    src: _Name
    dst: _Name
    type: _one_of("edge", "type")
    mode: _one_of("edge", "mode") = None
    id: _Name = None


class TraceRecord(Struct, forbid_unknown_fields=True):
    """A whole trace's top level, every member as its raw JSON text (``UNSET`` if absent).

    The top-level property names are those of the schema (a test keeps them in step); an
    unknown one is rejected here, as the schema's ``additionalProperties: false`` does. Raw
    members are slices of the file, not copies: ``events`` and ``edges`` are then decoded as
    typed records (:mod:`masrl.traces.columns`), the head's members by strict JSON
    (:mod:`masrl.traces.strict_json`).
    """

    events: Raw
    edges: Raw
    schema_version: Raw = UNSET
    trace_id: Raw = UNSET
    task_id: Raw = UNSET
    system: Raw = UNSET
    topology: Raw = UNSET
    rewards: Raw = UNSET
    costs: Raw = UNSET
    metrics: Raw = UNSET
    counterfactuals: Raw = UNSET
    labels: Raw = UNSET
    provenance: Raw = UNSET

    def members(self) -> dict[str, Raw]:
        """The members present, by name."""
        return {name: value for name in self.__struct_fields__
                if (value := getattr(self, name)) is not UNSET}
