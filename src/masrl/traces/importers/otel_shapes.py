"""Read OpenTelemetry spans in every shape they are exported in, as :class:`RawSpan` records.

Files: one JSON document, or several JSON values one after another (JSON Lines, or the
indented objects that the Python ``ConsoleSpanExporter`` prints one after the other). Each
value is one of:

* **OTLP JSON** (the collector's file exporter, ``OTLPSpanExporter`` payloads):
  ``{"resourceSpans": [{"resource": {"attributes": [...]}, "scopeSpans": [{"spans": [...]}]}]}``
  (``instrumentationLibrarySpans`` in older versions); ids ``traceId`` / ``spanId`` /
  ``parentSpanId`` in hex (base64, as protobuf's JSON mapping writes bytes, is accepted too);
  ``startTimeUnixNano`` / ``endTimeUnixNano`` (integers or decimal strings); ``attributes`` a
  list of ``{key, value}`` with ``value`` one of ``stringValue``, ``intValue`` (an integer or a
  decimal string), ``doubleValue``, ``boolValue``, ``bytesValue``, ``arrayValue.values`` or
  ``kvlistValue.values`` (read as a list and an object); ``status.code`` 2 (or
  ``STATUS_CODE_ERROR``) is an error.
* **Python spans**: ``ReadableSpan.to_json()`` as the ``ConsoleSpanExporter`` writes it
  (``context.trace_id`` / ``context.span_id`` as ``0x``-prefixed hex, ``parent_id``, ISO-8601
  ``start_time`` / ``end_time``, ``status.status_code`` ``ERROR``), and the any-agent
  ``AgentTrace`` export (``{"spans": [...]}``, the same span with integer ids, ``parent.span_id``
  and integer nanosecond times). ``attributes`` and ``resource.attributes`` are objects.
* **JavaScript spans** (the JS SDK's span JSON as the Vercel AI SDK and Mastra log it):
  ``traceId``, ``spanId`` (or ``id``, or ``spanContext`` / ``_spanContext``), ``parentSpanId``
  (or ``parentId``, or ``parentSpanContext.spanId``), ``startTime`` / ``endTime`` as ``HrTime``
  ``[seconds, nanoseconds]``, an ISO-8601 text or an epoch number, or the console exporter's
  ``timestamp`` and ``duration`` in microseconds; ``attributes`` an object; ``status.code`` 2 is
  an error. An epoch number is read by its size: below 10^14 milliseconds, below 10^17
  microseconds, else nanoseconds.

A list of such values, or ``{"spans": [...]}``, is read item by item. Every container of the
wrong type (spans that are not a list, attributes that are not an object...) is an error naming
its place: a path inside the document (``resourceSpans[0].scopeSpans[1].spans[2]``), prefixed
with the line where the value starts when the file holds several.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl.traces import strict_json
from masrl.traces.importers.common import (
    SourceError,
    json_type,
    json_values,
    read_text,
    source_error,
)
from masrl.traces.importers.spans import fingerprint
from masrl.traces.importers.timestamps import NS, hrtime_ns, is_int, iso_ns

HEX = re.compile(r"[0-9a-fA-F]+")
SPAN_KEYS = {"context", "traceId", "spanContext", "_spanContext"}  # what makes an object a span


@dataclass
class RawSpan:
    """One OpenTelemetry span, whatever its shape: hex ids, integer nanosecond times."""

    where: str
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int
    end: int
    attributes: dict
    error: bool
    service: str | None
    fingerprint: str


def read(path: Path) -> list[RawSpan]:
    """Every span in the file at ``path``, in file order."""
    spans: list[RawSpan] = []
    for where, value in values(path):
        spans.extend(_value_spans(path, where, value))
    return spans


def values(path: Path) -> list[tuple[str, Any]]:
    """The JSON values of a file: ``[("", document)]`` for one document, else ``(line, value)``
    for each value of a sequence (JSON Lines or concatenated objects)."""
    text = read_text(path)
    document, findings = strict_json.parse(text)
    if not findings:
        return [("", document)]
    if findings[0].parts is not None:  # one document, with a fault inside
        raise source_error(path, None, findings[0])
    return [(str(line), value) for line, value in json_values(path, text)]


def _value_spans(path: Path, where: str, value: Any) -> Iterator[RawSpan]:
    at = f"{where}:" if where else ""
    if isinstance(value, dict) and "resourceSpans" in value:
        yield from _otlp(path, at, value["resourceSpans"])
    elif isinstance(value, dict) and "spans" in value:
        items = _list(path, f"{at}spans", value["spans"], "spans")
        for k, raw in enumerate(items):
            yield _span(path, f"{at}spans[{k}]", raw)
    elif isinstance(value, list):
        for k, raw in enumerate(value):
            if isinstance(raw, dict) and "resourceSpans" in raw:
                yield from _otlp(path, f"{at}[{k}].", raw["resourceSpans"])
            else:
                yield _span(path, f"{at}[{k}]", raw)
    elif isinstance(value, dict) and SPAN_KEYS & set(value):
        yield _span(path, where or None, value)
    else:
        keys = ", ".join(sorted(value)[:8]) if isinstance(value, dict) else ""
        raise SourceError(path, where or None, "expected OpenTelemetry spans: OTLP JSON "
                          "({'resourceSpans': [...]}), {'spans': [...]}, a list of spans or "
                          f"span objects; found {json_type(value)}"
                          + (f" with keys {keys}" if keys else ""))


# ---------------------------------------------------------------------------------- OTLP

def _otlp(path: Path, at: str, resources: Any) -> Iterator[RawSpan]:
    for r, resource in enumerate(_list(path, f"{at}resourceSpans", resources, "resources")):
        where_r = f"{at}resourceSpans[{r}]"
        _object(path, where_r, resource)
        res = _empty(resource.get("resource"), {})
        _object(path, f"{where_r}.resource", res)
        service = _otlp_attributes(path, f"{where_r}.resource.attributes",
                                   res.get("attributes")).get("service.name")
        key = "scopeSpans" if "scopeSpans" in resource else "instrumentationLibrarySpans"
        for s, scope in enumerate(_list(path, f"{where_r}.{key}", _absent(resource.get(key)),
                                        "scopes")):
            where_s = f"{where_r}.{key}[{s}]"
            _object(path, where_s, scope)
            for k, raw in enumerate(_list(path, f"{where_s}.spans", _absent(scope.get("spans")),
                                          "spans")):
                yield _otlp_span(path, f"{where_s}.spans[{k}]", raw, service)


def _otlp_span(path: Path, where: str, raw: Any, service: Any) -> RawSpan:
    _object(path, where, raw, "a span")
    trace_id = _otlp_id(path, where, "traceId", raw.get("traceId"), 16)
    span_id = _otlp_id(path, where, "spanId", raw.get("spanId"), 8)
    parent = raw.get("parentSpanId")
    parent_id = _otlp_id(path, where, "parentSpanId", parent, 8) if parent else None
    status = _empty(raw.get("status"), {})
    _object(path, f"{where}.status", status)
    start = _nanos(path, where, "startTimeUnixNano", raw.get("startTimeUnixNano"))
    end = _nanos(path, where, "endTimeUnixNano", raw.get("endTimeUnixNano"))
    return RawSpan(where, trace_id, span_id, parent_id, _text(raw.get("name")), start, end,
                   _otlp_attributes(path, f"{where}.attributes", raw.get("attributes")),
                   status.get("code") in (2, "2", "STATUS_CODE_ERROR"),
                   service if isinstance(service, str) else None, fingerprint(raw))


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


def _otlp_attributes(path: Path, where: str, items: Any) -> dict:
    found = {}
    for k, item in enumerate(_list(path, where, _absent(items), "attributes")):
        if not (isinstance(item, dict) and isinstance(item.get("key"), str)):
            raise SourceError(path, f"{where}[{k}]", "an attribute must be {key, value}, found "
                              f"{json_type(item)}")
        found[item["key"]] = _otlp_value(path, f"{where}[{k}].value", item.get("value"))
    return found


def _otlp_value(path: Path, where: str, value: Any) -> Any:
    if value is None:
        return None
    _object(path, where, value, "an AnyValue")
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "doubleValue" in value:
        return value["doubleValue"]
    if "intValue" in value:
        number = value["intValue"]
        return int(number) if isinstance(number, str) and re.fullmatch(r"-?\d+", number) \
            else number
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
    """A Python (``context``) or JavaScript (``traceId``) span object."""
    _object(path, where, raw, "a span")
    if "context" in raw:
        return _python_span(path, where, raw)
    if "traceId" in raw or "spanContext" in raw or "_spanContext" in raw:
        return _js_span(path, where, raw)
    raise SourceError(path, where, "a span needs context {trace_id, span_id} (Python) or "
                      "traceId and spanId (JavaScript); found keys "
                      + (", ".join(sorted(raw)[:8]) or "(none)"))


def _python_span(path: Path, where: str | None, raw: dict) -> RawSpan:
    context = raw["context"]
    _object(path, _at(where, "context"), context)
    trace_id = _python_id(path, where, "context.trace_id", context.get("trace_id"), 32)
    span_id = _python_id(path, where, "context.span_id", context.get("span_id"), 16)
    if "parent_id" in raw:
        parent = raw["parent_id"]
        parent_id = None if parent is None else _python_id(path, where, "parent_id", parent, 16)
    else:
        parent_obj = _empty(raw.get("parent"), {})
        _object(path, _at(where, "parent"), parent_obj)
        parent = parent_obj.get("span_id")
        parent_id = None if parent is None else _python_id(path, where, "parent.span_id",
                                                            parent, 16)
    attributes = _empty(raw.get("attributes"), {})
    _object(path, _at(where, "attributes"), attributes)
    status = _empty(raw.get("status"), {})
    _object(path, _at(where, "status"), status)
    code = str(status.get("status_code", "")).lower().rsplit(".", 1)[-1]
    return RawSpan(where or "", trace_id, span_id, parent_id, _text(raw.get("name")),
                   _time(path, where, "start_time", raw.get("start_time"), NS),
                   _time(path, where, "end_time", raw.get("end_time"), NS), attributes,
                   code == "error", _service(path, where, raw), fingerprint(raw))


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


def _js_span(path: Path, where: str | None, raw: dict) -> RawSpan:
    context = _empty(raw.get("spanContext", raw.get("_spanContext")), {})
    _object(path, _at(where, "spanContext"), context)
    trace_id = raw.get("traceId", context.get("traceId"))
    span_id = raw.get("spanId", raw.get("id", context.get("spanId")))
    parent_context = _empty(raw.get("parentSpanContext"), {})
    _object(path, _at(where, "parentSpanContext"), parent_context)
    parent = raw.get("parentSpanId", raw.get("parentId", parent_context.get("spanId")))
    trace_hex = _js_id(path, where, "traceId", trace_id, 32)
    span_hex = _js_id(path, where, "spanId", span_id, 16)
    parent_hex = _js_id(path, where, "parentSpanId", parent, 16) if parent else None
    if "startTime" in raw or "endTime" in raw:
        start = _time(path, where, "startTime", raw.get("startTime"), None)
        end = _time(path, where, "endTime", raw.get("endTime"), None)
    else:
        start = _time(path, where, "timestamp", raw.get("timestamp"), 1000)
        duration = raw.get("duration")
        if not is_int(duration) and not isinstance(duration, float):
            raise SourceError(path, where, "a span needs startTime and endTime (or timestamp "
                              f"and duration), found duration {_shown(duration)}")
        end = start + round(duration * 1000)
    attributes = _empty(raw.get("attributes"), {})
    _object(path, _at(where, "attributes"), attributes)
    status = _empty(raw.get("status"), {})
    _object(path, _at(where, "status"), status)
    return RawSpan(where or "", trace_hex, span_hex, parent_hex, _text(raw.get("name")),
                   start, end, attributes, status.get("code") in (2, "ERROR"),
                   _service(path, where, raw), fingerprint(raw))


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


def _time(path: Path, where: str | None, key: str, value: Any, unit: int | None) -> int:
    """Nanoseconds of a time: integer ticks of ``unit`` per second (``None``: epoch number read
    by its size), an ISO-8601 text or an ``HrTime``."""
    if isinstance(value, str):
        found = iso_ns(value)
        if found is None and re.fullmatch(r"\d+", value):
            found = int(value) * (NS // unit) if unit else _epoch(int(value))
    elif isinstance(value, list):
        found = hrtime_ns(value)
    elif is_int(value) or isinstance(value, float):
        found = round(value * (NS // unit)) if unit else _epoch(value)
        found = found if found >= 0 else None
    else:
        found = None
    if found is None:
        raise SourceError(path, where, f"{key} must be a time (integer nanoseconds, ISO-8601 "
                          f"text, [seconds, nanoseconds] or epoch milliseconds), found "
                          f"{_shown(value)}")
    return found


def _epoch(number: float) -> int:
    if number < 1e14:
        return round(number * 1_000_000)  # milliseconds
    if number < 1e17:
        return round(number * 1_000)  # microseconds
    return round(number)


def _nanos(path: Path, where: str, key: str, value: Any) -> int:
    if isinstance(value, str) and re.fullmatch(r"\d+", value):
        return int(value)
    if is_int(value) and value >= 0:
        return value
    raise SourceError(path, where, f"{key} must be integer nanoseconds (a number or a decimal "
                      f"string), found {_shown(value)}")


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
    if not isinstance(value, list):
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
