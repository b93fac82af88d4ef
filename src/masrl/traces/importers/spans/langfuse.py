"""Import Langfuse traces (with their observations) as orchestration traces, one per Langfuse
trace: the API's trace, the UI's download, a list of them or one per line. Observations become
spans of :mod:`.tree` by their type. Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from masrl.traces import strict_json
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    json_type,
    json_values,
    read_text,
    several_runs,
    source_error,
)
from masrl.traces.importers._kit.content import ANNOTATION, label
from masrl.traces.importers._kit.numbers import amount, count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers.spans import otel
from masrl.traces.importers.spans import tree as spans
from masrl.traces.importers.spans.tree import AGENT, EVENT, HANDOFF, MODEL, OTHER, TOOL, Span

FORMAT = "langfuse"
KINDS = {"AGENT": AGENT, "GENERATION": MODEL, "TOOL": TOOL, "EVENT": EVENT}
NO_END = "observation without endTime (ends when it starts)"
DOWNLOAD, API = "UI download {trace, observations}", "API trace with observations"
LISTED = "API observations {data: [observation]} (GET /api/public/v2/observations)"
USAGE_AMOUNTS = ("inputCost", "outputCost", "totalCost", "unit")  # usage fields that are no count
SIDES = (("input", ("input", "prompt", "cache_read", "cache_creation")),
         ("output", ("output", "completion", "reasoning")))


def import_file(path: str | Path) -> ImportResult:
    """The trace of a Langfuse export of one trace (chapter 23 of the book)."""
    path = Path(path)
    found = _traces(path)
    if len(found) != 1:
        raise several_runs(path, FORMAT, [str(trace.get("id")) for _, trace, *_ in found],
                           "traces")
    return _import(path, *found[0])


def import_traces(path: str | Path) -> list[ImportResult]:
    """One trace per Langfuse trace of the file, in file order, never merged."""
    path = Path(path)
    found = _traces(path)
    if not found:
        raise SourceError(path, None, "the file holds no trace")
    return [_import(path, *item) for item in found]


# ---------------------------------------------------------------------------------- reading

def _traces(path: Path) -> list[tuple[str, dict, list, str, list[str] | None]]:
    """``(place, trace, observations, shape, places of the observations)`` of every trace of
    the file (the places are ``None`` for a trace's own list of observations)."""
    text = read_text(path)
    document, findings = strict_json.parse_fast(text)
    if not findings:
        values = [("", document)]
    elif findings[0].parts is not None:
        raise source_error(path, None, findings[0])
    else:
        values = [(f"{line}:", value) for line, value in json_values(path, text)]
    listed = _listed(path, values)
    if listed is not None:
        return listed
    found = []
    for at, value in values:
        if isinstance(value, dict) and "observations" in value:
            found.append(_trace(path, at, value))
        elif isinstance(value, list):
            found.extend(_trace(path, f"{at}[{k}].", item) for k, item in enumerate(value))
        elif isinstance(value, dict) and isinstance(value.get("data"), list):
            found.extend(_trace(path, f"{at}data[{k}].", item)
                         for k, item in enumerate(value["data"]))
        else:
            raise SourceError(path, at.rstrip(":") or None, "expected a Langfuse trace ({'id', "
                              "'observations': [...]}, or {'trace', 'observations'}), a list of "
                              "traces or {'data': [...]}; found " + json_type(value))
    return found


def _is_observation(value: Any) -> bool:
    """An observation as the observations API lists it: a ``traceId``, a ``type`` and a
    ``startTime``, and no ``observations`` of its own."""
    return isinstance(value, dict) and "observations" not in value \
        and isinstance(value.get("traceId"), str) and isinstance(value.get("type"), str) \
        and "startTime" in value


def _listed(path: Path, values: list[tuple[str, Any]]
            ) -> list[tuple[str, dict, list, str, list[str] | None]] | None:
    """The traces of observations listed without their trace (the observations API of
    Langfuse 3 and later, ``{data: [...], meta}``, or a list of its items), grouped by
    ``traceId`` in the order they first appear; ``None`` when the file is not that."""
    if len(values) != 1:
        return None
    at, value = values[0]
    prefix = at
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        value, prefix = value["data"], f"{at}data"
    if not isinstance(value, list) or not value or not all(map(_is_observation, value)):
        return None
    groups: dict[str, tuple[list, list[str]]] = {}
    for k, observation in enumerate(value):
        held, places = groups.setdefault(observation["traceId"], ([], []))
        held.append(observation)
        places.append(f"{prefix}[{k}]")
    found = []
    for trace_id, (held, places) in groups.items():
        root = next((o for o in held if o.get("parentObservationId") is None), held[0])
        name = root.get("traceName")
        trace = {"id": trace_id, **({"name": name} if isinstance(name, str) else {})}
        found.append((prefix, trace, held, LISTED, places))
    return found


def _trace(path: Path, where: str, item: Any) -> tuple[str, dict, list, str, None]:
    place = where.rstrip(".:") or None
    if not isinstance(item, dict):
        raise SourceError(path, place, f"a trace must be an object, found {json_type(item)}")
    observations = item.get("observations")
    if not isinstance(observations, list):
        raise SourceError(path, f"{where}observations", "observations must be a list, found "
                          f"{json_type(observations)}")
    if observations and all(isinstance(o, str) for o in observations):
        raise SourceError(path, f"{where}observations", "observations are ids only (as the "
                          "trace list returns them); export the trace itself "
                          "(GET /api/public/traces/{traceId})")
    trace, shape = item, API
    if isinstance(item.get("trace"), dict):
        trace, shape = item["trace"], DOWNLOAD
        repeated = trace.get("observations")
        if isinstance(repeated, list):
            ours = {o.get("id") for o in observations if isinstance(o, dict)}
            extra = [o.get("id") if isinstance(o, dict) else o for o in repeated
                     if (o.get("id") if isinstance(o, dict) else o) not in ours]
            if extra:
                raise SourceError(path, f"{where}trace.observations", f"the trace repeats "
                                  f"observations the file's list does not hold ({extra[0]}...)")
    trace_id = trace.get("id")
    if not isinstance(trace_id, str) or not trace_id:
        raise SourceError(path, place, "the trace has no id" + (
            " (its trace object has none)" if shape == DOWNLOAD else ""))
    return where, trace, observations, shape, None


def _import(path: Path, where: str, trace: dict, observations: list, shape: str,
            places: list[str] | None = None) -> ImportResult:
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
    account = result.account
    account.unit = "observation"
    if not observations:
        raise SourceError(path, f"{where}observations", "the trace holds no observations")
    account.read(len(observations))
    trace_id = trace["id"]
    evidence: Counter = Counter()
    if places is None:
        places = [f"{where}observations[{k}]" for k in range(len(observations))]
    read = [_observation(path, places[k], raw, trace_id, result.repairs,
                         evidence) for k, raw in enumerate(observations)]
    _langgraph_tools(read, evidence)
    linked = spans.link(path, [span for span, _ in read], result.repairs, account)
    name = trace.get("name")
    mapped = spans.map_spans(path, linked, name if isinstance(name, str) and name else "agent",
                             account, result.repairs)
    result.time_origin = iso_from_ns(mapped.t0)
    scopes = sorted({info["scope"] for _, info in read if info["scope"]})
    result.recognised = {"system": "Langfuse", "shape": shape,
                         "evidence": _evidence(evidence, scopes)}
    result.trace = mapped.build.document(
        trace_id=f"langfuse:{trace_id}", task_id=f"langfuse:{trace_id}", system="Langfuse",
        topology="unknown", rewards={}, costs=mapped.costs)
    result.labels = scores(path, where, trace, shape, mapped.build.events, result)
    return result.with_provenance()


SCORE_SOURCES = ("API", "EVAL", "ANNOTATION")  # who made a score, as Langfuse names it


def scores(path: Path, where: str, trace: dict, shape: str, events: list[dict],
           result: ImportResult) -> list[dict]:
    """The trace's Langfuse scores as labels (kind annotation, schema 1.2): each score's name,
    its value (a number, a category or true/false, by its ``dataType``), who made it
    (``source``), its comment, and the event of the observation it scores."""
    found = trace.get("scores")
    if found is None:
        return []
    place = f"{where}{'trace.' if shape == DOWNLOAD else ''}scores"
    if not isinstance(found, list):
        raise SourceError(path, place, f"scores must be an array, found {json_type(found)}")
    first_event: dict[str, str] = {}
    for event in events:
        first_event.setdefault(event.get("x_source", ""), event["id"])
    labels = []
    for k, score in enumerate(found):
        at = f"{place}[{k}]"
        if isinstance(score, str):  # the list endpoint gives score ids only
            result.account.skip_part("score given by its id only (the score itself is not in "
                                     "the file)")
            continue
        if not isinstance(score, dict) or not isinstance(score.get("name"), str) \
                or not score["name"]:
            raise SourceError(path, at, "a score must be an object with a name, found "
                              + json_type(score))
        value = _score_value(path, at, score)
        observation = score.get("observationId")
        event = first_event.get(f"span {observation}") if isinstance(observation, str) else None
        source = score.get("source")
        comment = score.get("comment")
        ident = score.get("id")
        labels.append(label(
            score["name"], value, ANNOTATION,
            f"langfuse {source}" if source in SCORE_SOURCES else "langfuse",
            event=event, comment=comment if isinstance(comment, str) else None,
            id=ident if isinstance(ident, str) else None,
            where=at + (f" (observation {observation}, which gives no event)"
                        if isinstance(observation, str) and event is None else "")))
    return labels


def _score_value(path: Path, where: str, score: dict):
    """A score's value by its ``dataType``: NUMERIC a number, CATEGORICAL its ``stringValue``,
    BOOLEAN true or false (Langfuse stores 1 or 0)."""
    kind, value, text = score.get("dataType"), score.get("value"), score.get("stringValue")
    if kind == "CATEGORICAL" and isinstance(text, str):
        return text
    if kind == "BOOLEAN" and value in (0, 1) and not isinstance(value, bool):
        return value == 1
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, (str, bool)):
        return value
    if value is None and isinstance(text, str):
        return text
    raise SourceError(path, where, f"score {score['name']!r}: value must be a number, a string "
                      f"or true/false, found {json_type(value)}")


def _evidence(evidence: Counter, scopes: list[str]) -> str:
    parts = [f"{reason} ({n})" for reason, n in sorted(evidence.items())]
    if scopes:
        parts.append("source instrumentation " + ", ".join(scopes[:4])
                     + (", ..." if len(scopes) > 4 else ""))
    return "; ".join(parts) or "observation types only"


def _observation(path: Path, where: str, raw: Any, trace_id: str, repairs: Counter,
                 evidence: Counter) -> tuple[Span, dict]:
    """The span of one observation, with what else it says: its source scope, LangGraph node
    and level."""
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
    metadata = _metadata(raw.get("metadata"))
    attributes = _metadata(metadata.get("attributes"))
    scope = (metadata.get("scope") or {}).get("name") if isinstance(metadata.get("scope"),
                                                                    dict) else None
    span_kind, label = KINDS.get(kind.upper(), OTHER), kind
    by_source = otel.kind_of(attributes, name, scope=scope) if attributes or scope else None
    if by_source is not None and by_source[2] == otel.BEEAI:
        span_kind, label = by_source[0], by_source[1] or kind
        evidence["BeeAI emitter events read by their start"] += 1
    elif span_kind == OTHER and by_source is not None and by_source[0] in (AGENT, TOOL, MODEL,
                                                                           HANDOFF):
        span_kind = by_source[0]
        evidence[f"{kind} read as {span_kind} by {by_source[2]}"] += 1
    elif by_source is not None and by_source[2] == otel.CREWAI:
        span_kind, label = OTHER, by_source[1]
    span = Span(oid, parent or None, start, end, span_kind, where,
                name=name or kind.lower(), label=label, fingerprint=spans.fingerprint(raw),
                error=raw.get("level") == "ERROR")
    _usage(path, where, span, raw, repairs)
    if span_kind == AGENT:
        named = next((attributes[k] for k in otel.AGENT_NAME
                      if isinstance(attributes.get(k), str) and attributes[k]), None)
        span.name = named or otel.crewai_role(attributes) or (
            otel.agent_from_name(name) if name else kind.lower())
    elif span_kind == MODEL:
        span.model = raw.get("model") if isinstance(raw.get("model"), str) else None
        span.output = raw.get("output")
    elif span_kind == TOOL:
        span.tool = next((attributes[k] for k in ("gen_ai.tool.name", "tool.name")
                          if isinstance(attributes.get(k), str) and attributes[k]), None) \
            or name or None
        span.input, span.output = raw.get("input"), raw.get("output")
    elif span_kind == EVENT:
        span.event_type = "message"
        span.output = raw.get("output") if raw.get("output") is not None else raw.get("input")
    elif span_kind == HANDOFF:
        span.handoff_to = attributes.get("gen_ai.handoff.to_agent") if isinstance(
            attributes.get("gen_ai.handoff.to_agent"), str) else None
    return span, {"scope": scope, "node": metadata.get("langgraph_node"),
                  "level": raw.get("level")}


def _langgraph_tools(read: list[tuple[Span, dict]], evidence: Counter) -> None:
    """LangGraph's ToolNode (node ``tools``) runs each tool as a child run of the node's own
    span: a ``SPAN`` there (not at ``DEBUG`` level, which LangChain gives its internal runs) is
    a tool call."""
    by_id = {span.span_id: span for span, _ in read}
    for span, info in read:
        parent = by_id.get(span.parent_id or "")
        if (span.kind == OTHER and span.label == "SPAN" and info["node"] == "tools"
                and info["level"] != "DEBUG"
                and parent is not None and parent.name == "tools" and span.name != "tools"):
            span.kind, span.tool = TOOL, span.name
            evidence["LangGraph ToolNode runs read as tool calls"] += 1


def _metadata(value: Any) -> dict:
    """Metadata (or its ``attributes``) as an object: Langfuse keeps it as an object or as JSON
    text; anything else is no metadata."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def _usage(path: Path, where: str, span: Span, raw: dict, repairs: Counter) -> None:
    details, usage = _object(path, where, raw, "usageDetails"), _object(path, where, raw, "usage")
    costs = _object(path, where, raw, "costDetails")
    flat = {"input": raw.get("inputUsage"), "output": raw.get("outputUsage"),
            "total": raw.get("totalUsage")}
    flat_keys = {"input": "inputUsage", "output": "outputUsage", "total": "totalUsage"}
    for name, source in (("usageDetails", details), ("usage", usage), ("", flat)):
        numbers = {}
        for key, value in source.items():
            field = f"{name}.{key}" if name else flat_keys[key]
            if name == "usage" and key in USAGE_AMOUNTS:
                continue  # the usage object's own dollar fields (read with the costs)
            found = count(value, path, where, field, repairs)
            if found is not None:
                numbers[key] = found
        if span.kind != MODEL and not any(numbers.values()):
            continue  # the zeros Langfuse gives every observation that is no generation
        if "input" in numbers or "output" in numbers:
            _sides(span, numbers)
            break
        if "total" in numbers:
            span.total_tokens = numbers["total"]
            break
    for field, value in (("costDetails.total", costs.get("total")),
                         ("calculatedTotalCost", raw.get("calculatedTotalCost")),
                         ("totalCost", raw.get("totalCost")),
                         ("usage.totalCost", usage.get("totalCost"))):
        found = amount(value, path, where, field, repairs)
        if found is not None:
            if span.kind != MODEL and not found:
                break  # the zero Langfuse gives every observation that is no generation
            span.cost = found
            break


def _sides(span: Span, numbers: dict) -> None:
    """Input and output of a usage object, with the parts its other keys name: added back when
    the total is the sum of every key (Langfuse's split of the provider's counts), else left as
    parts already counted."""
    total = numbers.get("total")
    others = {k: v for k, v in numbers.items() if k not in ("input", "output", "total")}
    split = total is not None and others and total == sum(v for k, v in numbers.items()
                                                          if k != "total")
    for side, prefixes in SIDES:
        if side not in numbers:
            continue
        parts = {k: v for k, v in others.items() if v and k.startswith(prefixes)}
        span.usage[side] = numbers[side] + (sum(parts.values()) if split else 0)
        span.parts.update(parts)


def _object(path: Path, where: str, raw: dict, key: str) -> dict:
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SourceError(path, f"{where}.{key}", f"must be an object, found {json_type(value)}")
    return value


def sniff(sample: Sample) -> str | None:
    """A trace with ``observations`` (alone, as the UI's download, in a list, under ``data``, or
    one per line)."""
    document = sample.document
    if sample.records is not None:
        document = sample.records
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        document = document["data"]
    if isinstance(document, list) and document:
        document = document[0]
    if isinstance(document, dict) and isinstance(document.get("observations"), list):
        return "a Langfuse trace: observations"
    if _is_observation(document):
        return "Langfuse observations as the API lists them: traceId, type, startTime"
    return None




def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return ("looks for a trace with observations (alone, as the UI's download, in a list, "
            "under data, or one per line), or observations with traceId, type and startTime "
            "(the observations API)")
