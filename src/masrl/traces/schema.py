"""Our orchestration-trace schema: where it lives, its version, its compiled validator, and the
typed records that decode a valid trace quickly.

The schema file ``trace.schema.json`` (JSON Schema 2020-12), shipped inside the package
(:mod:`masrl.traces.resources`), is the single source of truth for the structure of a trace;
the book's schema reference page is generated from its descriptions. Validation uses
``jsonschema-rs`` (Rust, validates Python objects in place): on a one-million-event trace it
takes about 0.5 s where the pure-Python ``jsonschema`` needs minutes.

The fast path. Decoding a million events into dictionaries and then validating them costs about
1.5 s. :class:`TraceRecord` instead decodes a file straight into msgspec Structs
(:class:`EventRecord`, :class:`EdgeRecord`), which checks the rules of ``$defs/event`` and
``$defs/edge`` in C while decoding and allocates one small object per event instead of a
dictionary: about 0.7 s. Everything else of the document (``trace_id``, ``rewards``, ``costs``,
``counterfactuals``, ``provenance``...) is decoded by strict JSON (:mod:`.strict_json`) and
checked by the real schema (:func:`head_validator`), so only the event and edge rules are
written twice, here and in the file. The contract is one-sided: a document the records accept
must be valid under the schema and strict JSON (else an invalid trace could slip through); a
valid document they reject merely takes the full path (strict JSON + jsonschema-rs), which
reports exactly what it always did. What the records cannot see themselves (bytes that are not
UTF-8 in fields they skip, a repeated key, at the top level or inside an event or edge) is
checked around them (see :func:`decode_records` and :mod:`.repeated_keys`).
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

import codecs
import copy
import json
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema_rs
import msgspec
import numpy as np
from msgspec import UNSET, Meta, Raw, Struct

from masrl.traces import repeated_keys, resources, strict_json

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
    return jsonschema_rs.Draft202012Validator(load_schema(path))


@cache
def head_validator() -> jsonschema_rs.Draft202012Validator:
    """The schema without ``events`` and ``edges``: it checks a document's head, the rest."""
    schema = copy.deepcopy(load_schema())
    schema["required"] = [key for key in schema["required"] if key not in BULK]
    for key in BULK:
        del schema["properties"][key]
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


class EventRecord(Struct, gc=False, omit_defaults=True):
    """One event, fields as in ``$defs/event`` (unknown fields are allowed and skipped).

    ``omit_defaults``: encoded again, an event holds exactly the fields the text gave it, which
    :mod:`.repeated_keys` counts. ``gc=False``: an event holds only strings and numbers, so it
    can never be part of a reference cycle; untracked, a million of them add nothing to
    garbage-collection passes.
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
    the events, only when the text names ``"x_model"`` (see :func:`decode_records`)."""

    x_model: Any = None
    x_usage: Any = None


MODEL_MARK = b'"x_model"'


class EdgeRecord(Struct, gc=False, forbid_unknown_fields=True, omit_defaults=True):
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
    typed records, the head's members by strict JSON (:mod:`masrl.traces.strict_json`).
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


@dataclass
class DecodedTrace:
    """What the fast path decoded: the head as plain JSON values, events and edges as records."""

    head: dict
    events: list[EventRecord]
    edges: list[EdgeRecord]
    model_calls: list[ModelCallRecord] | None = None  # None when no event names a model


_TOP = msgspec.json.Decoder(TraceRecord)
_EVENTS = msgspec.json.Decoder(Annotated[list[EventRecord], Meta(min_length=1)])
_EDGES = msgspec.json.Decoder(list[EdgeRecord])
_MODEL_CALLS = msgspec.json.Decoder(list[ModelCallRecord])
_MEMBER_GAP = re.compile(rb'\s*[{,]\s*"(?:[^"\\\x00-\x1f]|\\.)*"\s*:\s*')
_CLOSING = re.compile(rb"\s*}\s*")


def decode_records(data: bytes) -> DecodedTrace | None:
    """The trace in ``data`` as records if its head and every event and edge follow the schema.

    ``None`` does not mean invalid: it means "take the full path", which decides and explains.
    The caller still has to check the one event rule records cannot state (see above).

    What the records cannot see is sent down the full path too, so that the fast path never
    accepts what strict JSON refuses:

    * bytes that are not UTF-8 anywhere, unknown event fields included (msgspec checks the
      strings it decodes, not those it skips): a scan for non-ASCII bytes, then, only when there
      are some, a UTF-8 decode;
    * a repeated top-level key: every top-level member is located in the file (Raw members are
      slices of it), and the text between consecutive members must be exactly one key;
    * a repeated key, a non-finite number or a lone surrogate in the head: its members are
      read by strict JSON.

    * a repeated key inside an event or an edge (msgspec checks every occurrence of a field
      but keeps the last): :mod:`.repeated_keys` counts the keys against the records, and
      scans the structure only when the count cannot tell.
    """
    try:
        if not _utf8(data):
            return None
        top = _TOP.decode(data)
        members = top.members()
        if not _one_key_each(data, members.values()):
            return None
        events, edges = _EVENTS.decode(top.events), _EDGES.decode(top.edges)
        if not (_each_key_once(top.events, events) and _each_key_once(top.edges, edges)):
            return None
        head = {name: strict_json.loads(bytes(raw)) for name, raw in members.items()
                if name not in BULK}
        calls = _MODEL_CALLS.decode(top.events) if _mentions(data, MODEL_MARK) else None
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError,
            strict_json.StrictJSONError):  # not JSON, or a rule of the records broken
        return None
    if not head_validator().is_valid(head):
        return None
    return DecodedTrace(head, events, edges, calls)


def _mentions(data, mark: bytes) -> bool:
    """Whether ``mark`` occurs in ``data`` (bytes, a memory map or another buffer)."""
    find = getattr(data, "find", None)
    return (find(mark) if find is not None else bytes(data).find(mark)) >= 0


def _each_key_once(raw: Raw, records: list) -> bool:
    """Whether no object of the array ``raw`` repeats a key (see :mod:`.repeated_keys`)."""
    if repeated_keys.keys_match_records(raw, records):
        return True
    return not repeated_keys.may_repeat_keys(raw)


def _utf8(data) -> bool:
    """Whether the bytes are UTF-8 text (ASCII checked in one vectorised pass)."""
    view = np.frombuffer(data, dtype=np.uint8)
    if not len(view) or int(view.max()) < 0x80:
        return True
    try:
        codecs.utf_8_decode(data, "strict", True)
    except UnicodeDecodeError:
        return False
    return True


def _one_key_each(data, members) -> bool:
    """Whether the text around the located members is ``{"key": ... , "key": ... }`` with one
    key before each member and nothing else: a repeated key leaves the value it lost there."""
    base = np.frombuffer(data, dtype=np.uint8).ctypes.data
    spans = sorted((np.frombuffer(raw, dtype=np.uint8).ctypes.data - base, len(raw))
                   for raw in members)
    position = 0
    for start, size in spans:
        if not 0 <= start - position <= 4096:
            return False
        if _MEMBER_GAP.fullmatch(bytes(data[position:start])) is None:
            return False
        position = start + size
    return _CLOSING.fullmatch(bytes(data[position:])) is not None
