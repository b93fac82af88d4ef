"""Read OpenTelemetry spans in every shape they are exported in, as :class:`RawSpan` records:
OTLP JSON, the Python and JavaScript SDKs' span JSON, any-agent traces, flat span dicts and
AWS ADOT bundles, Phoenix's spans. A span printed at its start and at its end is merged into
one; a container of the wrong type is an error naming its place.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.traces import piecewise_json, strict_json
from masrl.traces.importers._kit.common import (
    SourceError,
    json_type,
    json_values,
    read_bytes,
    source_error,
    utf8_text,
)
from masrl.traces.importers._kit.numbers import amount
from masrl.traces.importers._kit.timestamps import MAX_NS, NS, is_int, moment_ns
from masrl.traces.importers.spans.tree import fingerprint

HEX = re.compile(r"[0-9a-fA-F]+")
SPAN_KEYS = {"context", "traceId", "spanContext", "_spanContext", "trace_id", "context.span_id",
             "startTime"}  # what makes an object a span (with the checks of :func:`is_span`)
OPENINFERENCE_KINDS = {"LLM", "TOOL", "AGENT", "CHAIN", "RETRIEVER", "EMBEDDING", "RERANKER",
                       "GUARDRAIL", "EVALUATOR", "PROMPT", "UNKNOWN"}
MAX_ID = 256  # characters of an id that is not hex
MICROSECONDS = 1_000_000  # ticks per second of the JavaScript console exporter's times

# shapes, as :attr:`RawSpan.shape` names them (and ``provenance.recognised`` reports them)
OTLP, PYTHON, ANY_AGENT, PHOENIX, FLAT, PANDAS, JS, JS_NO_IDS = (
    "OTLP JSON", "Python SDK span JSON", "any-agent AgentTrace", "Phoenix REST spans",
    "flat span dicts", "Phoenix dataframe records", "JavaScript SDK spans",
    "JavaScript spans without ids")


@dataclass(slots=True)
class RawSpan:
    """One OpenTelemetry span, whatever its shape: hex ids, integer nanosecond times."""

    where: str
    trace_id: str | None  # None: the span was printed without ids (its file is one trace)
    span_id: str
    parent_id: str | None
    name: str
    start: int
    end: int | None  # None: printed at its start, before it ended
    attributes: dict
    error: bool
    service: str | None
    fingerprint: str
    shape: str = ""  # which of the module's shapes the span came in
    kind_field: str | None = None  # an OpenInference span kind given as a field (Phoenix)
    scope: str | None = None  # the instrumentation scope's name, when the shape gives it
    time_keys: tuple[str, str] = ("start time", "end time")  # the fields the times come from


@dataclass
class Reading:
    """What a file holds: its spans in file order, and its other records (values that are no
    span, ``(where, what)``), repairs made while reading (``reason -> count``), and the span
    annotations it holds beside the spans (Phoenix's, ``(where, annotation)``)."""

    spans: list[RawSpan]
    others: list[tuple[str, str]]
    repairs: dict
    annotations: list[tuple[str, dict]] = field(default_factory=list)


def read(path: Path) -> list[RawSpan]:
    """Every span in the file at ``path``, in file order (:func:`read_all` without the other
    records; a file of one JSON value that holds no span is an error)."""
    return read_all(path).spans


PIECEWISE_FROM = 1 << 20  # bytes from which a document of spans is decoded a span at a time


def read_all(path: Path) -> Reading:
    """Every span in the file at ``path``, in file order, and its other records. A large
    document of spans (``{"spans": [...]}`` or an array) is decoded a span at a time, and JSON
    Lines a line at a time (:mod:`masrl.traces.piecewise_json`), so that the file's text and
    what is decoded from it are not alive at once; whenever that decode cannot vouch for the
    file, or a span is refused on the way, the file is read the whole way, which finds its
    first fault."""
    document = piecewise_json.read(path, "spans", PIECEWISE_FROM)
    if document is not None:
        try:
            found = document.value
            reading = _reading(path, _numbered(found) if isinstance(found, piecewise_json.Lines)
                               else [("", found)])
            if document.finished:
                return reading
        except (SourceError, piecewise_json.Unsure):
            pass
        finally:
            document.close()
    return _reading(path, values(path))


class _numbered:
    """The values of :class:`piecewise_json.Lines` placed as :func:`values` places them."""

    def __init__(self, lines: piecewise_json.Lines):
        self.lines = lines

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self):
        return ((str(line), value) for line, value in self.lines)


def _reading(path: Path, found) -> Reading:
    """The spans and other records of the file's JSON ``found`` (see :func:`values`)."""
    reading = Reading([], [], {})
    for where, value in found:
        if is_annotation(value):
            reading.annotations.append((where, value))
            continue
        if len(found) > 1 and not _holds_spans(value):
            reading.others.append((where, _what(value)))
            continue
        reading.spans.extend(_value_spans(path, where, value, reading))
    return reading


NO_END = "span without an end time (printed before it ended: ends when it starts)"


def merge_prints(spans: list[RawSpan]) -> tuple[list[RawSpan], int, int]:
    """Merge each span printed at its start (no end time) into its print at the end (same
    trace and span id; the end print's attributes win). Returns the spans in order of first
    print, how many start prints were merged, and how many spans never got an end print (they
    end when they start)."""
    if None not in {span.end for span in spans}:  # every span ended: nothing to merge
        return list(spans), 0, 0
    groups: dict[tuple, list[RawSpan]] = {}
    for span in spans:
        groups.setdefault((span.trace_id, span.span_id), []).append(span)
    kept: list[RawSpan] = []
    merged = open_ended = 0
    for group in groups.values():
        ended = [s for s in group if s.end is not None]
        started = [s for s in group if s.end is None]
        if ended and started:
            last = ended[0]
            attributes = {}
            for s in started:
                attributes.update(s.attributes)
            attributes.update(last.attributes)
            last.attributes = attributes
            last.start = min(last.start, *(s.start for s in started))
            merged += len(started)
            group = ended
        for s in group:
            if s.end is None:
                s.end = s.start
                open_ended += 1
        kept.extend(group)
    order = {id(s): k for k, s in enumerate(spans)}
    kept.sort(key=lambda s: order[id(s)])
    return kept, merged, open_ended


def _holds_spans(value: Any) -> bool:
    if isinstance(value, list):
        return True
    return isinstance(value, dict) and ("resourceSpans" in value or "spans" in value
                                        or isinstance(value.get("data"), list)
                                        or is_mlflow_trace(value) or is_span(value))


def is_mlflow_trace(value: Any) -> bool:
    """An MLflow trace as ``Trace.to_json()`` writes it: ``{"info": {...}, "data": {"spans":
    [...]}}``, its spans flat span dicts whose attribute values are JSON texts."""
    return (isinstance(value, dict) and isinstance(value.get("info"), dict)
            and isinstance(value.get("data"), dict) and "spans" in value["data"])


def is_annotation(value: Any) -> bool:
    """A span annotation as Phoenix exports it (``{span_id, name, annotator_kind, result:
    {label, score, explanation}}``): a judgement on a span, not a span."""
    return (isinstance(value, dict) and "span_id" in value and isinstance(value.get("name"), str)
            and ("result" in value or "annotator_kind" in value)
            and not any(key in value for key in ("trace_id", "context", "start_time")))


def is_span(value: Any) -> bool:
    """An object in one of the span shapes of this module."""
    if not isinstance(value, dict):
        return False
    if "context" in value or "traceId" in value or "spanContext" in value \
            or "_spanContext" in value or "context.span_id" in value:
        return True
    if "trace_id" in value and "span_id" in value:
        return True
    return "startTime" in value and "name" in value  # a JS span printed without ids


def _what(value: Any) -> str:
    """What a value that is no span is, for the count of the file's other records."""
    if isinstance(value, dict):
        if "resource_metrics" in value or "resourceMetrics" in value:
            return "metrics record (not a span)"
        if "resourceLogs" in value or "body" in value and (
                "severity_text" in value or "severity_number" in value):
            return "log record (not a span)"
        keys = ", ".join(sorted(value)[:6]) or "(none)"
        return f"unknown record type: object with keys {keys}"
    return f"unknown record type: {json_type(value)}"


def values(path: Path) -> list[tuple[str, Any]]:
    """The JSON values of a file: ``[("", document)]`` for one document, else ``(line, value)``
    for each value of a sequence (JSON Lines or concatenated objects)."""
    data = read_bytes(path)
    document = strict_json.fast_value(data)  # bytes msgspec reads whole are UTF-8
    if document is not strict_json.UNSURE:
        return [("", document)]
    text = utf8_text(path, data)
    del data
    document, findings = strict_json.parse(text)
    if not findings:
        return [("", document)]
    if findings[0].parts is not None:  # one document, with a fault inside
        raise source_error(path, None, findings[0])
    return [(str(line), value) for line, value in json_values(path, text)]


def _value_spans(path: Path, where: str, value: Any, reading: Reading) -> Iterator[RawSpan]:
    at = f"{where}:" if where else ""
    if isinstance(value, dict) and "resourceSpans" in value:
        yield from _otlp(path, at, value["resourceSpans"])
    elif isinstance(value, dict) and "spans" in value:
        yield from _bundle(path, at, value, reading)
    elif is_mlflow_trace(value):  # MLflow's Trace.to_json(): {info, data: {spans}}
        yield from _bundle(path, f"{at}data.", value["data"], reading)
    elif isinstance(value, dict) and isinstance(value.get("data"), list) and not is_span(value):
        for k, raw in enumerate(value["data"]):
            if is_annotation(raw):
                reading.annotations.append((f"{at}data[{k}]", raw))
                continue
            yield _span(path, f"{at}data[{k}]", raw)
    elif isinstance(value, (list, piecewise_json.Items)):
        for k, raw in enumerate(value):
            if is_annotation(raw):
                reading.annotations.append((f"{at}[{k}]", raw))
            elif isinstance(raw, dict) and "resourceSpans" in raw:
                yield from _otlp(path, f"{at}[{k}].", raw["resourceSpans"])
            elif isinstance(raw, dict) and "spans" in raw and not is_span(raw):
                yield from _bundle(path, f"{at}[{k}].", raw, reading)
            else:
                yield _span(path, f"{at}[{k}]", raw)
    elif is_span(value):
        yield _span(path, where or None, value)
    else:
        keys = ", ".join(sorted(value)[:8]) if isinstance(value, dict) else ""
        raise SourceError(path, where or None, "expected OpenTelemetry spans: OTLP JSON "
                          "({'resourceSpans': [...]}), {'spans': [...]}, a list of spans or "
                          f"span objects; found {json_type(value)}"
                          + (f" with keys {keys}" if keys else ""))


def _bundle(path: Path, at: str, value: dict, reading: Reading) -> Iterator[RawSpan]:
    """``{"spans": [...]}``: an any-agent trace or an ADOT bundle (``session_id``,
    ``span_count``); ``at`` prefixes the places of its spans."""
    items = _list(path, f"{at}spans", value["spans"], "spans")
    count = value.get("span_count")
    if is_int(count) and count != len(items):
        reason = "bundle whose span_count differs from the spans it holds"
        reading.repairs[reason] = reading.repairs.get(reason, 0) + 1
    for k, raw in enumerate(items):
        yield _span(path, f"{at}spans[{k}]", raw)


# ---------------------------------------------------------------------------------- OTLP

def _otlp(path: Path, at: str, resources: Any) -> Iterator[RawSpan]:
    for r, resource in enumerate(_list(path, f"{at}resourceSpans", resources, "resources")):
        where_r = f"{at}resourceSpans[{r}]"
        _object(path, where_r, resource)
        res = _empty(resource.get("resource"), {})
        _object(path, f"{where_r}.resource", res)
        service = _otlp_attributes(path, where_r, res.get("attributes"),
                                   ".resource.attributes").get("service.name")
        key = "scopeSpans" if "scopeSpans" in resource else "instrumentationLibrarySpans"
        for s, scope in enumerate(_list(path, f"{where_r}.{key}", _absent(resource.get(key)),
                                        "scopes")):
            where_s = f"{where_r}.{key}[{s}]"
            _object(path, where_s, scope)
            for k, raw in enumerate(_list(path, f"{where_s}.spans", _absent(scope.get("spans")),
                                          "spans")):
                yield _otlp_span(path, f"{where_s}.spans[{k}]", raw, service,
                                 _scope_name(scope.get("scope") or scope.get(
                                     "instrumentationLibrary")))


def _scope_name(scope: Any) -> str | None:
    name = scope.get("name") if isinstance(scope, dict) else None
    return name if isinstance(name, str) and name else None


def _otlp_span(path: Path, where: str, raw: Any, service: Any, scope: str | None) -> RawSpan:
    # each check's usual case is decided inline (exact types, as msgspec decodes them); any
    # other value takes the check's own function, which words its fault
    if type(raw) is not dict:
        _object(path, where, raw, "a span")
    get = raw.get
    trace_id = _otlp_id(path, where, "traceId", get("traceId"), 16)
    span_id = _otlp_id(path, where, "spanId", get("spanId"), 8)
    parent = get("parentSpanId")
    parent_id = _otlp_id(path, where, "parentSpanId", parent, 8) if parent else None
    status = get("status")
    if status is None:
        status = {}
    elif type(status) is not dict:
        _object(path, f"{where}.status", status)
    start = _nanos(path, where, "startTimeUnixNano", get("startTimeUnixNano"))
    end = _nanos(path, where, "endTimeUnixNano", get("endTimeUnixNano"))
    name = get("name")
    return RawSpan(where, trace_id, span_id, parent_id, name if isinstance(name, str) else "",
                   start, end, _otlp_attributes(path, where, get("attributes"), ".attributes"),
                   status.get("code") in (2, "2", "STATUS_CODE_ERROR"),
                   service if isinstance(service, str) else None, fingerprint(raw), OTLP,
                   scope=scope, time_keys=("startTimeUnixNano", "endTimeUnixNano"))


def _otlp_id(path: Path, where: str, key: str, value: Any, size: int) -> str:
    """A hex id (``size`` bytes); base64 of ``size`` bytes is accepted and turned into hex."""
    if not isinstance(value, str) or not value:
        raise SourceError(path, where, f"{key} must be a non-empty hex string, found "
                          f"{json_type(value)}")
    if len(value) == 2 * size and HEX.fullmatch(value):
        return value.lower()
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    if len(decoded) == size:
        return decoded.hex()
    raise SourceError(path, where, f"{key} {value!r} is neither {2 * size} hex digits nor "
                      f"base64 of {size} bytes")


def _otlp_attributes(path: Path, where: str, items: Any, below: str = "") -> dict:
    """The attributes of an OTLP list ``[{key, value: AnyValue}]`` as a dict; ``where`` +
    ``below`` is the list's place (joined only to name a fault: most lists have none)."""
    if items is None:
        return {}
    if type(items) is not list:
        items = _list(path, where + below, items, "attributes")
    found = {}
    plain = PLAIN_VALUES
    for k, item in enumerate(items):
        if type(item) is dict:
            key, value = item.get("key"), item.get("value")
            if type(key) is str and type(value) is dict and len(value) == 1:
                for name, held in value.items():  # the one entry
                    if name in plain:
                        found[key] = held
                        break
                    if name == "intValue":
                        found[key] = int(held) if isinstance(held, str) and INT_TEXT.fullmatch(
                            held) else held
                        break
                else:
                    found[key] = _otlp_value(path, f"{where}{below}[{k}].value", value)
                continue
        if not (isinstance(item, dict) and isinstance(item.get("key"), str)):
            raise SourceError(path, f"{where}{below}[{k}]", "an attribute must be {key, value}, "
                              f"found {json_type(item)}")
        found[item["key"]] = _otlp_value(path, f"{where}{below}[{k}].value", item.get("value"))
    return found


PLAIN_VALUES = frozenset(("stringValue", "boolValue", "doubleValue", "bytesValue"))
INT_TEXT = re.compile(r"-?[0-9]+")  # an intValue written as its digits (OTLP's 64-bit ints)


SNAKE_VALUES = {"string_value": "stringValue", "bool_value": "boolValue",
                "double_value": "doubleValue", "int_value": "intValue",
                "bytes_value": "bytesValue", "array_value": "arrayValue",
                "kvlist_value": "kvlistValue"}  # protobuf's field names, as Phoenix writes them


def _otlp_value(path: Path, where: str, value: Any) -> Any:
    if value is None:
        return None
    _object(path, where, value, "an AnyValue")
    if SNAKE_VALUES.keys() & value.keys():
        value = {SNAKE_VALUES.get(k, k): v for k, v in value.items() if v is not None}
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "doubleValue" in value:
        return value["doubleValue"]
    if "intValue" in value:
        number = value["intValue"]
        return int(number) if isinstance(number, str) and INT_TEXT.fullmatch(number) else number
    if "bytesValue" in value:
        return value["bytesValue"]
    if "arrayValue" in value:
        array = _empty(value["arrayValue"], {})
        _object(path, f"{where}.arrayValue", array)
        return [_otlp_value(path, f"{where}.arrayValue.values[{k}]", v) for k, v in
                enumerate(_list(path, f"{where}.arrayValue.values", _absent(array.get("values")),
                                "values"))]
    if "kvlistValue" in value:
        kvlist = _empty(value["kvlistValue"], {})
        _object(path, f"{where}.kvlistValue", kvlist)
        return _otlp_attributes(path, f"{where}.kvlistValue.values", kvlist.get("values"))
    return None


# ---------------------------------------------------------------------------------- SDK spans

def _span(path: Path, where: str | None, raw: Any) -> RawSpan:
    """A Python (``context``), flat (``trace_id``, ``span_id``) or JavaScript (``traceId``)
    span object."""
    _object(path, where, raw, "a span")
    if "context" in raw:
        return _python_span(path, where, raw)
    if "context.span_id" in raw or "trace_id" in raw and "span_id" in raw:
        return _flat_span(path, where, raw)
    if "traceId" in raw or "spanContext" in raw or "_spanContext" in raw or is_span(raw):
        return _js_span(path, where, raw)
    raise SourceError(path, where, "a span needs context {trace_id, span_id} (Python), "
                      "trace_id and span_id (a flat span) or traceId and spanId (JavaScript); "
                      "found keys " + (", ".join(sorted(raw)[:8]) or "(none)"))


def _python_span(path: Path, where: str | None, raw: dict) -> RawSpan:
    context = raw["context"]
    _object(path, _at(where, "context"), context)
    kind = _kind_field(raw)
    phoenix = kind is not None or "status_code" in raw
    ids = _phoenix_id if phoenix else _python_id
    trace_id = ids(path, where, "context.trace_id", context.get("trace_id"), 32)
    span_id = ids(path, where, "context.span_id", context.get("span_id"), 16)
    if "parent_id" in raw:
        parent = raw["parent_id"]
        parent_id = None if parent is None else ids(path, where, "parent_id", parent, 16)
    else:
        parent_obj = _empty(raw.get("parent"), {})
        _object(path, _at(where, "parent"), parent_obj)
        parent = parent_obj.get("span_id")
        parent_id = None if parent is None else ids(path, where, "parent.span_id", parent, 16)
    attributes = _attributes(path, _at(where, "attributes"), raw.get("attributes"))
    status = _empty(raw.get("status"), {})
    _object(path, _at(where, "status"), status)
    code = str(status.get("status_code", raw.get("status_code", ""))).lower().rsplit(".", 1)[-1]
    shape = PHOENIX if phoenix else ANY_AGENT if is_int(context.get("span_id")) else PYTHON
    return RawSpan(where or "", trace_id, span_id, parent_id, _text(raw.get("name")),
                   _time(path, where, "start_time", raw.get("start_time"), NS),
                   _end(path, where, "end_time", raw, NS), attributes,
                   code == "error", _service(path, where, raw), fingerprint(raw), shape,
                   kind, _scope_name(raw.get("instrumentation_scope") or raw.get("scope")),
                   ("start_time", "end_time"))


def _flat_span(path: Path, where: str | None, raw: dict) -> RawSpan:
    """A span dict with its ids at the top (chapter 23 of the book), or a record of a
    Phoenix spans dataframe (``context.span_id``, ``attributes.*``)."""
    pandas = "context.span_id" in raw
    trace_id = _any_id(path, where, "trace_id", raw.get("context.trace_id" if pandas
                                                        else "trace_id"))
    span_id = _any_id(path, where, "span_id", raw.get("context.span_id" if pandas
                                                      else "span_id"))
    parent_key = next((k for k in ("parent_span_id", "parent_id") if k in raw), "parent_id")
    parent = raw.get(parent_key)
    parent_id = _any_id(path, where, parent_key, parent) if parent not in (None, "") else None
    if pandas:
        attributes = _attributes(path, where, {k[len("attributes."):]: v for k, v in raw.items()
                                               if k.startswith("attributes.") and v is not None})
    elif isinstance(raw.get("attributes"), list):
        attributes = _otlp_attributes(path, _at(where, "attributes"), raw["attributes"])
    else:
        attributes = _attributes(path, _at(where, "attributes"), raw.get("attributes"))
    status = _empty(raw.get("status"), {})
    _object(path, _at(where, "status"), status)
    code = status.get("code", raw.get("status_code", ""))
    error = code in (2, "2") or str(code).upper().rsplit("_", 1)[-1] == "ERROR"
    times = ("start_time", "end_time") if "start_time" in raw or "end_time" in raw \
        else ("start_time_unix_nano", "end_time_unix_nano")
    return RawSpan(where or "", trace_id, span_id, parent_id, _text(raw.get("name")),
                   _time(path, where, times[0], raw.get(times[0]), None),
                   _end(path, where, times[1], raw, None), attributes, error,
                   _service(path, where, raw), fingerprint(raw), PANDAS if pandas else FLAT,
                   _kind_field(raw), _scope_name(raw.get("scope")), times)


def _any_id(path: Path, where: str | None, key: str, value: Any) -> str:
    """An id kept as written (hex lowercased): any non-empty text of printable characters."""
    if is_int(value) and value >= 0:
        return f"{value:x}"
    if isinstance(value, str) and value and len(value) <= MAX_ID and value.isprintable():
        return value.lower() if HEX.fullmatch(value) else value
    raise SourceError(path, where, f"{key} must be a non-empty id (a string of up to {MAX_ID} "
                      f"printable characters), found {_shown(value)}")


def _kind_field(raw: dict) -> str | None:
    """An OpenInference span kind given as the field ``span_kind`` (other values, such as
    OpenTelemetry's own span kinds, are not)."""
    kind = raw.get("span_kind")
    if isinstance(kind, str) and kind.upper() in OPENINFERENCE_KINDS:
        return kind.upper()
    return None


def _attributes(path: Path, where: str | None, value: Any) -> dict:
    """An attributes object, nested objects flattened to dotted keys (``{"llm": {"model_name":
    ...}}`` is ``llm.model_name``)."""
    value = _empty(value, {})
    _object(path, where, value)
    if not any(isinstance(v, dict) for v in value.values()):
        return value
    flat: dict = {}
    stack = [("", value)]
    while stack:
        prefix, node = stack.pop()
        for key, item in node.items():
            if isinstance(item, dict) and item:
                stack.append((f"{prefix}{key}.", item))
            else:
                flat[f"{prefix}{key}"] = item
    return dict(sorted(flat.items()))


def _python_id(path: Path, where: str | None, key: str, value: Any, digits: int) -> str:
    """An integer id (any-agent) or a ``0x``-prefixed hex id (``to_json``), as hex."""
    if is_int(value) and value >= 0:
        return f"{value:0{digits}x}"
    if isinstance(value, str):
        text = value[2:] if value.lower().startswith("0x") else value
        if text and len(text) <= digits and HEX.fullmatch(text):
            return text.lower().rjust(digits, "0")
    raise SourceError(path, where, f"{key} must be an integer or a hex string like "
                      f"'0x{'0' * (digits - 1)}1', found {_shown(value)}")


def _phoenix_id(path: Path, where: str | None, key: str, value: Any, digits: int) -> str:
    """A Phoenix span id: hex as :func:`_python_id` reads it, else any id as written (Phoenix
    stores the ids of spans logged to it as opaque text, such as ``s01``)."""
    text = value[2:] if isinstance(value, str) and value.lower().startswith("0x") else value
    if (is_int(value) and value >= 0) or (
            isinstance(text, str) and text and len(text) <= digits and HEX.fullmatch(text)):
        return _python_id(path, where, key, value, digits)
    return _any_id(path, where, key, value)


def _js_span(path: Path, where: str | None, raw: dict) -> RawSpan:
    context = _empty(raw.get("spanContext", raw.get("_spanContext")), {})
    _object(path, _at(where, "spanContext"), context)
    trace_id = raw.get("traceId", context.get("traceId"))
    span_id = raw.get("spanId", raw.get("id", context.get("spanId")))
    parent_context = _empty(raw.get("parentSpanContext"), {})
    _object(path, _at(where, "parentSpanContext"), parent_context)
    parent = raw.get("parentSpanId", raw.get("parentId", parent_context.get("spanId")))
    no_ids = trace_id is None and span_id is None
    trace_hex = None if no_ids else _js_id(path, where, "traceId", trace_id, 32)
    span_hex = f"#{where}" if no_ids else _js_id(path, where, "spanId", span_id, 16)
    parent_hex = _js_id(path, where, "parentSpanId", parent, 16) if parent else None
    if "startTime" in raw or "endTime" in raw:
        start = _time(path, where, "startTime", raw.get("startTime"), None)
        end = _end(path, where, "endTime", raw, None)
        keys = ("startTime", "endTime")
    else:  # the console exporter: both in microseconds (hrTimeToMicroseconds)
        start = _time(path, where, "timestamp", raw.get("timestamp"), MICROSECONDS)
        duration = amount(raw.get("duration"), path, where, "duration", what="a duration")
        if duration is None:
            raise SourceError(path, where, "a span needs startTime and endTime (or timestamp "
                              "and duration), found no duration")
        end = start + round(duration * (NS // MICROSECONDS))
        keys = ("timestamp", "duration")
    attributes = _empty(raw.get("attributes"), {})
    _object(path, _at(where, "attributes"), attributes)
    status = _empty(raw.get("status"), {})
    _object(path, _at(where, "status"), status)
    return RawSpan(where or "", trace_hex, span_hex, parent_hex, _text(raw.get("name")),
                   start, end, attributes, status.get("code") in (2, "ERROR"),
                   _service(path, where, raw), fingerprint(raw), JS_NO_IDS if no_ids else JS,
                   scope=_scope_name(raw.get("instrumentationLibrary")
                                     or raw.get("instrumentationScope")), time_keys=keys)


def _js_id(path: Path, where: str | None, key: str, value: Any, digits: int) -> str:
    if isinstance(value, str) and value and HEX.fullmatch(value) and len(value) <= digits:
        return value.lower().rjust(digits, "0")
    raise SourceError(path, where, f"{key} must be a hex string of up to {digits} digits, "
                      f"found {_shown(value)}")


def _service(path: Path, where: str | None, raw: dict) -> str | None:
    resource = _empty(raw.get("resource"), {})
    _object(path, _at(where, "resource"), resource)
    attributes = _empty(resource.get("attributes"), {})
    _object(path, _at(where, "resource.attributes"), attributes)
    service = attributes.get("service.name")
    return service if isinstance(service, str) else None


def _end(path: Path, where: str | None, key: str, raw: dict, unit: int | None) -> int | None:
    """The end time, or ``None`` for a span printed before it ended (the key absent or null)."""
    value = raw.get(key)
    return None if value is None else _time(path, where, key, value, unit)


def _time(path: Path, where: str | None, key: str, value: Any, unit: int | None) -> int:
    """Nanoseconds of a time (:func:`.timestamps.moment_ns`): epoch numbers of ``unit`` ticks
    per second (``None``: told by their size), ISO-8601 text or an ``HrTime``."""
    return moment_ns(value, path, where, key, unit=unit)


def _nanos(path: Path, where: str, key: str, value: Any) -> int:
    """OTLP's integer nanoseconds (a number or its decimal digits)."""
    if type(value) is str and len(value) < 20 and value.isdigit() and value.isascii():
        found = int(value)  # the usual case: what moment_ns reads, decided here
    elif type(value) is int and value >= 0:
        found = value
    else:
        found = MAX_NS
    if found < MAX_NS:
        return found
    return moment_ns(value, path, where, key, unit=NS, iso=False)


# ---------------------------------------------------------------------------------- checks

def _shown(value: Any) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = json.dumps(value)
        return f"{json_type(value)} {text if len(text) <= 40 else text[:37] + '...'}"
    return json_type(value)


def _object(path: Path, where: str | None, value: Any, what: str = "an object") -> None:
    if not isinstance(value, dict):
        raise SourceError(path, where, f"must be {what} (a JSON object), found "
                          f"{json_type(value)}")


def _list(path: Path, where: str, value: Any, what: str) -> list:
    if not isinstance(value, (list, piecewise_json.Items)):
        raise SourceError(path, where, f"{what} must be a list, found {json_type(value)}")
    return value


def _absent(value: Any) -> Any:
    """An absent (or null) list is an empty one; any other value is checked as it is."""
    return _empty(value, [])


def _empty(value: Any, empty: Any) -> Any:
    """``empty`` for an absent (null) value; any other value is checked as it is."""
    return empty if value is None else value


def _at(where: str | None, key: str) -> str:
    return f"{where}.{key}" if where else key


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
