"""Import a Langfuse trace export (one trace with its observations) as an orchestration trace.

Source: one JSON file holding a trace as Langfuse's public API returns it
(``GET /api/public/traces/{traceId}``, also what the UI's JSON download holds): an object with
``id``, ``name``, ``timestamp`` and ``observations``, a list of observations each with ``id``,
``traceId``, ``parentObservationId``, ``type``, ``name``, ``startTime`` / ``endTime`` (ISO-8601),
``model``, ``usage`` (``{input, output, total}``) / ``usageDetails`` (``{input, output, total,
...}``), ``costDetails`` (``{input, output, total}``) / ``calculatedTotalCost``, ``level``,
``input`` and ``output``. A list of such traces, or the list endpoint's ``{"data": [...]}``, is
read when it holds exactly one trace.

Observations become spans of :mod:`.spans` (id ``<observation id>``; the shared mapping below):

* ``AGENT`` -> an agent named by the observation's ``name``;
* ``GENERATION`` -> a model call: tokens ``usageDetails.input`` + ``usageDetails.output``
  (else ``usageDetails.total``, else the same keys of ``usage``), ``x_usage`` {input, output};
  cost ``costDetails.total``, else ``calculatedTotalCost``, else ``usage.totalCost``; ``model``;
  ``content_ref`` of ``output``;
* ``TOOL`` -> a tool call (``name``; ``content_ref`` of ``input``) and its result (of ``output``);
* ``EVENT`` (an instant), ``SPAN``, ``CHAIN``, ``RETRIEVER``, ``EMBEDDING``, ``EVALUATOR``,
  ``GUARDRAIL`` and any other type -> no event, counted as skipped (``span: EVENT``...);
* ``level`` ``ERROR`` -> ``x_error: true``.

An observation without ``endTime`` (still running, or an ``EVENT``) ends when it starts, counted
as a repair. Spans above every agent belong to an agent named by the trace's ``name`` (else
``agent``). Run fields: ``trace_id`` and ``task_id`` ``langfuse:<trace id>``; ``system``
``Langfuse`` (Langfuse records no framework); ``topology`` ``unknown``; no rewards (Langfuse
``scores`` are evaluations of the run, not rewards of the schema, and are left out).

What is lost: inputs, outputs and metadata (hashed or dropped), scores, sessions, users, tags,
prompts, model parameters, cost and usage breakdowns beyond input / output / total.

Errors (exit 1): not JSON; no trace object or several traces; observations that are ids only
(the list endpoint: fetch the trace itself); an observation without ``id``, ``type`` or a valid
``startTime``, with an end before its start, or of another trace; a container of the wrong type.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from masrl.traces.importers import spans
from masrl.traces.importers.common import ImportResult, SourceError, json_type, read_json
from masrl.traces.importers.spans import AGENT, MODEL, OTHER, TOOL, Span
from masrl.traces.importers.timestamps import is_number

FORMAT = "langfuse"
KINDS = {"AGENT": AGENT, "GENERATION": MODEL, "TOOL": TOOL}
NO_END = "observation without endTime (ends when it starts)"


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Langfuse trace export (see the module docstring for the mapping)."""
    path = Path(path)
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
    trace, where = _trace(path, read_json(path))
    observations = trace.get("observations")
    if not isinstance(observations, list):
        raise SourceError(path, f"{where}observations", "observations must be a list, found "
                          f"{json_type(observations)}")
    if not observations:
        raise SourceError(path, f"{where}observations", "the trace holds no observations")
    trace_id = trace.get("id")
    if not isinstance(trace_id, str) or not trace_id:
        raise SourceError(path, where.rstrip(".") or None, "the trace has no id")
    read = [_observation(path, f"{where}observations[{k}]", raw, trace_id, result.repairs)
            for k, raw in enumerate(observations)]
    linked = spans.link(path, read, result.repairs)
    name = trace.get("name")
    mapped = spans.map_spans(path, linked, name if isinstance(name, str) and name else "agent",
                             result.skipped, result.repairs)
    result.trace = mapped.build.document(
        trace_id=f"langfuse:{trace_id}", task_id=f"langfuse:{trace_id}", system="Langfuse",
        topology="unknown", rewards={}, costs=mapped.costs)
    return result.with_provenance()


def _trace(path: Path, document: Any) -> tuple[dict, str]:
    """The one trace object of the file and its place (``""``, ``"[0]."``, ``"data[0]."``)."""
    if isinstance(document, dict) and "observations" in document:
        return document, ""
    items, prefix = None, ""
    if isinstance(document, list):
        items = document
    elif isinstance(document, dict) and isinstance(document.get("data"), list):
        items, prefix = document["data"], "data"
    if items is None:
        raise SourceError(path, None, "expected a Langfuse trace ({'id', 'observations': [...]})"
                          ", a list of traces or {'data': [...]}; found " + json_type(document))
    traces = [(k, t) for k, t in enumerate(items) if isinstance(t, dict)]
    if len(traces) != 1 or len(items) != 1:
        ids = ", ".join(str(t.get("id")) for _, t in traces)
        raise SourceError(path, prefix or None, f"{len(items)} traces ({ids}); import one "
                          "trace per file")
    k, trace = traces[0]
    where = f"{prefix}[{k}]."
    observations = trace.get("observations")
    if isinstance(observations, list) and observations and all(
            isinstance(o, str) for o in observations):
        raise SourceError(path, f"{where}observations", "observations are ids only (as the "
                          "trace list returns them); export the trace itself "
                          "(GET /api/public/traces/{traceId})")
    return trace, where


def _observation(path: Path, where: str, raw: Any, trace_id: str, repairs) -> Span:
    if not isinstance(raw, dict):
        raise SourceError(path, where, f"an observation must be an object, found "
                          f"{json_type(raw)}")
    oid, kind = raw.get("id"), raw.get("type")
    if not isinstance(oid, str) or not oid:
        raise SourceError(path, where, f"observation without an id (found {json_type(oid)})")
    if not isinstance(kind, str):
        raise SourceError(path, where, f"observation {oid} has no type (found "
                          f"{json_type(kind)})")
    if raw.get("traceId") not in (None, trace_id):
        raise SourceError(path, where, f"observation {oid} belongs to trace "
                          f"{raw.get('traceId')}, not {trace_id}")
    start, end = spans.iso_interval(path, where, raw, ("startTime", "endTime"),
                                    f"observation {oid}", repairs, NO_END)
    parent = raw.get("parentObservationId")
    if parent is not None and not isinstance(parent, str):
        raise SourceError(path, where, f"parentObservationId must be a string or null, found "
                          f"{json_type(parent)}")
    name = raw.get("name") if isinstance(raw.get("name"), str) else ""
    span = Span(oid, parent or None, start, end, KINDS.get(kind.upper(), OTHER), where,
                name=name or kind.lower(), label=kind, fingerprint=spans.fingerprint(raw),
                error=raw.get("level") == "ERROR")
    if span.kind == MODEL:
        _usage(path, where, span, raw)
        span.model = raw.get("model") if isinstance(raw.get("model"), str) else None
        span.output = raw.get("output")
    elif span.kind == TOOL:
        span.tool = name or None
        span.input, span.output = raw.get("input"), raw.get("output")
    return span


def _usage(path: Path, where: str, span: Span, raw: dict) -> None:
    details, usage = _object(path, where, raw, "usageDetails"), _object(path, where, raw, "usage")
    costs = _object(path, where, raw, "costDetails")
    for source in (details, usage):
        found = {k: source[k] for k in ("input", "output") if is_number(source.get(k))}
        if found:
            span.usage = found
            break
        if is_number(source.get("total")):
            span.total_tokens = source["total"]
            break
    for value in (costs.get("total"), raw.get("calculatedTotalCost"), usage.get("totalCost")):
        if is_number(value):
            span.cost = value
            break


def _object(path: Path, where: str, raw: dict, key: str) -> dict:
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SourceError(path, f"{where}.{key}", f"must be an object, found {json_type(value)}")
    return value


def sniff(sample) -> str | None:
    """A trace with ``observations`` (alone, in a list, or under ``data``); see
    :mod:`masrl.traces.importers.detect`."""
    document = sample.document
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        document = document["data"]
    if isinstance(document, list) and document:
        document = document[0]
    if isinstance(document, dict) and isinstance(document.get("observations"), list):
        return "a Langfuse trace: observations"
    return None


__doc__ = f"{__doc__}\n{spans.MAPPING}"
