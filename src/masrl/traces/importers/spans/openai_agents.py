"""Import OpenAI Agents SDK traces (its trace and span records, as processors and the backend
exporter get them) as orchestration traces, one per trace id. Spans become spans of
:mod:`.tree` by their ``span_data.type``. Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import ImportResult, SourceError, json_type, one_run
from masrl.traces.importers._kit.numbers import count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers.spans import tree as spans
from masrl.traces.importers.spans.otel_shapes import values
from masrl.traces.importers.spans.tree import AGENT, EVENT, HANDOFF, MODEL, OTHER, TOOL, Span

FORMAT = "openai-agents"
KINDS = {"agent": AGENT, "generation": MODEL, "response": MODEL, "function": TOOL,
         "handoff": HANDOFF}
NO_END = "span without ended_at (ends when it starts)"
PARTS = {"cached_input": ("input_tokens_details", "cached_tokens"),
         "reasoning_output": ("output_tokens_details", "reasoning_tokens")}


def import_file(path: str | Path) -> ImportResult:
    """The trace of an OpenAI Agents SDK export of one trace (chapter 23 of the book); a file
    of several traces is an error naming them (:func:`import_traces` reads it)."""
    return one_run(Path(path), FORMAT, import_traces(path), "traces", lead="spans of ")


def import_traces(path: str | Path) -> list[ImportResult]:
    """One trace per ``trace_id`` of the file's spans, in order of their first record, never
    merged. Records of an unknown ``object`` are counted as skipped records of their trace
    (their ``trace_id``), else of the first one."""
    path = Path(path)
    traces: dict[str, dict] = {}  # trace id -> its trace record
    groups: dict[str, list[tuple[str | None, dict]]] = {}  # trace id -> its span records
    unknown: list[tuple[str | None, str]] = []  # (trace id, object) of records of no known kind
    for where, record in _records(path):
        kind = record.get("object")
        if kind == "trace":
            traces[str(record.get("id"))] = record
            groups.setdefault(str(record.get("id")), [])
        elif kind == "trace.span":
            groups.setdefault(str(record.get("trace_id")), []).append((where, record))
        else:
            tid = record.get("trace_id")
            unknown.append((str(tid) if tid is not None else None, f"{kind!r}"))
    if not any(groups.values()):
        raise SourceError(path, None, "the file holds no spans (records with object "
                          "'trace.span')")
    results = []
    for tid, records in groups.items():
        if not records:
            continue
        result = _import(path, tid, traces.get(tid, {}), records, tid in traces)
        results.append(result)
    first = results[0]
    by_id = {r.trace["trace_id"].removeprefix("openai-agents:"): r for r in results}
    for tid, kind in unknown:
        result = by_id.get(tid or "", first)
        result.account.read()
        result.account.skip(f"unknown record type: object {kind}")
    return [r.with_provenance() for r in results]


def _import(path: Path, trace_id: str, trace: dict, records: list[tuple[str | None, dict]],
            has_trace: bool) -> ImportResult:
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
    account = result.account
    account.unit = "record"
    if has_trace:
        account.read()
        account.map()  # carried by the run's fields: workflow name and group
    account.read(len(records))
    types: Counter = Counter()
    read = []
    for where, record in records:
        span = _span(path, where, record, result.repairs)
        types[span.label] += 1
        read.append(span)
    workflow = trace.get("workflow_name") if isinstance(trace.get("workflow_name"), str) else None
    group = trace.get("group_id") if isinstance(trace.get("group_id"), str) else None
    linked = spans.link(path, read, result.repairs, account)
    mapped = spans.map_spans(path, linked, workflow or "agent", account, result.repairs)
    result.time_origin = iso_from_ns(mapped.t0)
    system = "OpenAI Agents SDK" + (f": {workflow}" if workflow else "")
    result.recognised = {
        "system": system, "shape": "trace and trace.span records",
        "evidence": "span types " + ", ".join(f"{k} ({n})" for k, n in sorted(types.items()))
        + ("" if has_trace else "; no trace record")}
    result.trace = mapped.build.document(
        trace_id=f"openai-agents:{trace_id}", task_id=f"openai-agents:{group or trace_id}",
        system=system, topology="unknown", rewards={}, costs=mapped.costs)
    return result


def _records(path: Path) -> list[tuple[str, dict]]:
    found = []
    for where, value in values(path):
        at = f"{where}:" if where else ""
        if isinstance(value, dict) and "data" in value and "object" not in value:
            items, at = value["data"], f"{at}data"
        elif isinstance(value, list):
            items = value
        else:
            items, at = [value], None
        if not isinstance(items, list):
            raise SourceError(path, at, f"data must be a list of records, found "
                              f"{json_type(items)}")
        for k, item in enumerate(items):
            place = (where or None) if at is None else f"{at}[{k}]"
            if not isinstance(item, dict):
                raise SourceError(path, place, f"a record must be an object, found "
                                  f"{json_type(item)}")
            found.append((place, item))
    return found


def _span(path: Path, where: str | None, raw: dict, repairs) -> Span:
    sid, data = raw.get("id"), raw.get("span_data")
    if not isinstance(sid, str) or not sid:
        raise SourceError(path, where, f"span without an id (found {json_type(sid)})")
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise SourceError(path, where, f"span {sid}: span_data must be an object with a type, "
                          f"found {json_type(data)}")
    start, end = spans.iso_interval(path, where, raw, ("started_at", "ended_at"), f"span {sid}",
                                    repairs, NO_END)
    parent = raw.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        raise SourceError(path, where, f"span {sid}: parent_id must be a string or null, found "
                          f"{json_type(parent)}")
    kind = data["type"]
    span = Span(sid, parent or None, start, end, KINDS.get(kind, OTHER), where or "",
                name=_text(data.get("name")) or kind, label=kind,
                fingerprint=spans.fingerprint(raw), error=raw.get("error") is not None)
    if span.kind == MODEL:
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}

        def read(name: str, value: Any) -> int | None:
            return count(value, path, where, f"span_data.usage.{name}", repairs)

        for key, names in (("input", ("input_tokens", "prompt_tokens")),
                           ("output", ("output_tokens", "completion_tokens"))):
            name = next((n for n in names if usage.get(n) is not None), None)
            value = None if name is None else read(name, usage[name])
            if value is not None:
                span.usage[key] = value
        for part, (details, name) in PARTS.items():
            found = usage.get(details)
            value = read(f"{details}.{name}", found.get(name)) if isinstance(found, dict) \
                else None
            if span.usage and value:
                span.parts[part] = value
        total = read("total_tokens", usage.get("total_tokens"))
        if not span.usage and total is not None:
            span.total_tokens = total
        span.model = _text(data.get("model"))
        span.output = data.get("output")
    elif span.kind == TOOL:
        span.tool = _text(data.get("name"))
        span.input, span.output = data.get("input"), data.get("output")
    elif span.kind == HANDOFF:
        span.handoff_to = _text(data.get("to_agent"))
    elif kind == "guardrail" and data.get("triggered") is True:
        span.kind, span.event_type = EVENT, "safety_event"
        span.output = None
    return span


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def sniff(sample: Sample) -> str | None:
    """Records with ``object`` ``trace.span`` (alone, in a list, under ``data``, or one per
    line)."""
    items = sample.records
    document = sample.document
    if items is None and isinstance(document, dict):
        items = document.get("data") if isinstance(document.get("data"), list) else [document]
    elif items is None and isinstance(document, list):
        items = document
    for item in items or []:
        if isinstance(item, dict) and isinstance(item.get("data"), list):
            item = next(iter(item["data"]), None)
        if isinstance(item, dict) and item.get("object") in ("trace", "trace.span"):
            return "OpenAI Agents SDK records: object trace / trace.span"
    return None




def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return ('looks for records with object trace.span (alone, in a list, under data, or one '
            'per line)')
