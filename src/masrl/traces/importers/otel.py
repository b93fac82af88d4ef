"""Import OpenTelemetry GenAI spans (one trace) as an orchestration trace.

Source: one JSON file, either the any-agent ``AgentTrace`` export (``{"spans": [...]}``, each
span with ``name``, ``context`` / ``parent`` ``{trace_id, span_id}`` as integers,
``start_time`` / ``end_time`` in nanoseconds, ``status.status_code`` and an ``attributes``
object) or OTLP/JSON (``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`` with hex
``traceId`` / ``spanId`` / ``parentSpanId``, ``startTimeUnixNano`` / ``endTimeUnixNano`` and
``attributes`` as a list of ``{key, value}``). Spans are read through the GenAI semantic
conventions: ``gen_ai.operation.name``, ``gen_ai.agent.name``, ``gen_ai.tool.name``,
``gen_ai.usage.input_tokens`` / ``output_tokens``, ``gen_ai.usage.input_cost`` /
``output_cost`` (any-agent's cost attributes, in US dollars) and ``gen_ai.request.model``.

Agents: every ``invoke_agent`` span is an agent, named by ``gen_ai.agent.name`` (else the span
name after ``invoke_agent``); a name used by several ``invoke_agent`` spans gets ``#2``, ``#3``...
from the second one on, so each invocation is one agent with one life. A span belongs to the
agent of its nearest ``invoke_agent`` ancestor (or itself); spans above every agent belong to the
resource's ``service.name`` (``agent`` when that is OpenTelemetry's ``unknown_service``).

What becomes an event (``x_source`` ``span <span id>``, times in seconds from the earliest span
start, ``t_end`` from the span end):

* ``invoke_agent`` nested in another agent -> ``spawn`` by the parent agent at the span's start
  (``to`` the child) and ``return`` by the child at its end (``to`` the parent). A top-level
  ``invoke_agent`` span is the run itself and gives no event (its duration is
  ``costs.wall_clock_s``).
* ``call_llm`` / ``chat`` / ``text_completion`` / ``generate_content`` -> ``message`` by the agent
  over the span (the model's reply: the schema has no event type for a model call), with
  ``tokens`` (input + output), ``cost_usd`` (input + output cost) when recorded, ``x_usage``,
  ``x_model`` and ``content_ref`` of ``gen_ai.output``.
* ``execute_tool`` -> ``tool_call`` over the span (``tool``, ``content_ref`` of
  ``gen_ai.tool.args``) and ``tool_result`` at its end (``trusted: false``, ``content_ref`` of
  ``gen_ai.output``).
* A span with status ``error`` gets ``x_error: true`` on its events.
* Any other span (no ``gen_ai.operation.name``, or ``create_agent``, ``embeddings`` and other
  operations) gives no event and is counted by its operation; its children are attached to its
  parent.

What becomes an edge. Span nesting is containment, not causal order, so dependencies come from
time within each agent: among the agent's units (a model call; a tool call with its result; a
sub-agent with its spawn and return), unit B depends on unit A when A ended at or before B
started and no other unit of the agent started after A ended and ended before B started (the
latest finished work before B; two calls that overlap in time depend on neither). Within a
tool unit the result depends on the call (``tool_dependency``, ``blocking``); a sub-agent's
first units depend on its spawn (``spawn``) and its return on its last units; a unit nested
inside another (its span a descendant of the other's) depends on the outer one's first event.
All other edges are ``causal``.

Missing parents: a span whose parent span is not in the file is attached to the trace's single
root span and counted as a repair (with several roots it is an error). Costs: ``tokens`` and
``usd`` sum the model calls; ``wall_clock_s`` is latest end minus earliest start over all spans.
``trace_id`` is ``otel:<trace id in hex>``; ``task_id`` the same (OpenTelemetry records no task);
``system`` ``any-agent <version>`` when spans carry ``any_agent.version``, else the service name;
``topology`` ``unknown``; no rewards.

What is lost: all prompts, outputs and tool arguments (hashed), span events and links, span kinds,
resource attributes other than the service name, the framework's own span names.

Errors (exit 1): a file that is not JSON or holds no spans; a span without ids or integer times,
with an end before its start; spans of several traces in one file; duplicate span ids; a missing
parent when the file has no single root span.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.traces.importers.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    read_json,
)

FORMAT = "otel"
MODEL_CALLS = ("call_llm", "chat", "text_completion", "generate_content")
AGENT = "invoke_agent"
TOOL = "execute_tool"
NS = 1_000_000_000


@dataclass
class Span:
    span_id: str
    parent_id: str | None
    trace_id: str
    name: str
    start: int
    end: int
    attributes: dict
    error: bool
    service: str | None
    where: str
    children: list[Span] = field(default_factory=list)
    parent: Span | None = None

    @property
    def operation(self) -> str | None:
        op = self.attributes.get("gen_ai.operation.name")
        return op if isinstance(op, str) else None


@dataclass
class Unit:
    """A span's events inside its agent: entered at ``entry``, left at ``exit``."""

    span: Span
    entry: str
    exit: str
    start: int
    end: int
    order: int


def import_file(path: str | Path) -> ImportResult:
    """The trace of one OpenTelemetry trace file (see the module docstring for the mapping)."""
    path = Path(path)
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
    spans = _read_spans(path, read_json(path))
    roots = _tree(path, spans, result.repairs)
    build = TraceBuilder()
    t0 = min(s.start for s in spans)
    agents = _agents(spans)
    units: dict[str, list[Unit]] = {}  # agent -> its units in start order
    nested: list[tuple[Unit, Unit]] = []  # (outer, inner)
    bounds: dict[str, tuple[str, str, str]] = {}  # child agent -> (spawn, return, parent agent)

    def walk(span: Span, agent: str, outer: Unit | None) -> None:
        op = span.operation
        unit = None
        if op == AGENT and _agent_above(span):
            child = agents[span.span_id]
            spawn = build.event(f"{span.span_id}.spawn", _t(span.start, t0), "spawn", agent,
                                to=child, x_source=f"span {span.span_id}")
            ret = build.event(f"{span.span_id}.return", _t(span.end, t0), "return", child,
                              to=agent, x_source=f"span {span.span_id}",
                              x_error=True if span.error else None)
            unit = _unit(units, agent, span, spawn["id"], ret["id"])
            bounds[child] = (spawn["id"], ret["id"], agent)
            for kid in span.children:
                walk(kid, child, None)
            if outer is not None:
                nested.append((outer, unit))
            return
        if op == AGENT:  # a top-level agent span: the run itself
            for kid in span.children:
                walk(kid, agents[span.span_id], None)
            return
        if op in MODEL_CALLS:
            event = build.event(span.span_id, _t(span.start, t0), "message", agent,
                                t_end=_t(span.end, t0), **_model_fields(span))
            unit = _unit(units, agent, span, event["id"], event["id"])
        elif op == TOOL:
            tool = span.attributes.get("gen_ai.tool.name")
            args = span.attributes.get("gen_ai.tool.args")
            output = span.attributes.get("gen_ai.output")
            call = build.event(f"{span.span_id}.call", _t(span.start, t0), "tool_call", agent,
                               t_end=_t(span.end, t0), tool=_text(tool),
                               content_ref=None if args is None else content_ref(args),
                               x_source=f"span {span.span_id}",
                               x_error=True if span.error else None)
            res = build.event(f"{span.span_id}.result", _t(span.end, t0), "tool_result", agent,
                              tool=_text(tool), trusted=False,
                              content_ref=None if output is None else content_ref(output),
                              x_source=f"span {span.span_id}",
                              x_error=True if span.error else None)
            build.edge(call["id"], res["id"], "tool_dependency", "blocking")
            unit = _unit(units, agent, span, call["id"], res["id"])
        else:
            result.skipped[f"span: {op or 'no gen_ai.operation.name'}"] += 1
        if unit is not None and outer is not None:
            nested.append((outer, unit))
        for kid in span.children:
            walk(kid, agent, unit or outer)

    for root in roots:
        walk(root, agents[root.span_id], None)
    if not build.events:
        raise SourceError(path, None, "no span maps to an event (no model call, tool call or "
                          "nested agent)")
    for members in units.values():
        _sequence(build, members)
    for outer, inner in nested:
        build.edge(outer.entry, inner.entry, "causal")
    for child, (spawn, ret, parent) in bounds.items():
        members = units.get(child, [])
        firsts, lasts = _ends(build, members)
        for unit in firsts:
            build.edge(spawn, unit.entry, "spawn")
        for unit in lasts:
            build.edge(unit.exit, ret, "causal")
        if not members:
            build.edge(spawn, ret, "causal")
    raised = build.raise_times()
    if raised:
        result.repairs["event time raised to the time of an event it depends on"] += raised
    calls = [e for e in build.events if e["type"] == "message"]
    tokens = sum(e.get("tokens", 0) for e in calls)
    costs: dict[str, Any] = {"tokens": tokens,
                             "wall_clock_s": (max(s.end for s in spans) - t0) / NS,
                             "tool_calls": build.count("tool_call"),
                             "messages": build.count("message")}
    if any("cost_usd" in e for e in calls):
        costs["usd"] = round(sum(e.get("cost_usd", 0.0) for e in calls), 12)
    trace_id = spans[0].trace_id
    result.trace = build.document(
        trace_id=f"otel:{trace_id}", task_id=f"otel:{trace_id}", system=_system(spans),
        topology="unknown", rewards={}, costs=costs)
    return result.with_provenance()


# ---------------------------------------------------------------------------------- reading

def _read_spans(path: Path, document: Any) -> list[Span]:
    if isinstance(document, dict) and isinstance(document.get("resourceSpans"), list):
        spans = list(_otlp_spans(path, document["resourceSpans"]))
    elif isinstance(document, dict) and isinstance(document.get("spans"), list):
        spans = [_any_agent_span(path, f"spans[{k}]", s) for k, s in enumerate(document["spans"])]
    elif isinstance(document, list):
        spans = [_any_agent_span(path, f"[{k}]", s) for k, s in enumerate(document)]
    else:
        raise SourceError(path, None, "expected an any-agent trace ({'spans': [...]}) or OTLP "
                          "JSON ({'resourceSpans': [...]})")
    if not spans:
        raise SourceError(path, None, "the file holds no spans")
    traces = sorted({s.trace_id for s in spans})
    if len(traces) > 1:
        raise SourceError(path, None, f"spans of {len(traces)} traces ({', '.join(traces)}); "
                          "import one trace per file")
    return spans


def _any_agent_span(path: Path, where: str, raw: Any) -> Span:
    if not isinstance(raw, dict):
        raise SourceError(path, where, "a span must be a JSON object")
    context = raw.get("context") if isinstance(raw.get("context"), dict) else {}
    parent = raw.get("parent") if isinstance(raw.get("parent"), dict) else {}
    span_id, trace_id = context.get("span_id"), context.get("trace_id")
    if not _is_int(span_id) or not _is_int(trace_id):
        raise SourceError(path, where, "span without integer context.span_id and "
                          "context.trace_id")
    parent_id = parent.get("span_id")
    if parent_id is not None and not _is_int(parent_id):
        raise SourceError(path, where, "parent.span_id must be an integer or null")
    attributes = raw.get("attributes") if isinstance(raw.get("attributes"), dict) else {}
    status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
    resource = raw.get("resource") if isinstance(raw.get("resource"), dict) else {}
    service = (resource.get("attributes") or {}).get("service.name")
    return _span(path, where, f"{span_id:016x}",
                 None if parent_id is None else f"{parent_id:016x}", f"{trace_id:032x}",
                 raw.get("name"), raw.get("start_time"), raw.get("end_time"), attributes,
                 str(status.get("status_code", "")).lower() == "error", service)


def _otlp_spans(path: Path, resources: list):
    for r, resource in enumerate(resources):
        where_r = f"resourceSpans[{r}]"
        if not isinstance(resource, dict):
            raise SourceError(path, where_r, "must be a JSON object")
        service = _otlp_attributes((resource.get("resource") or {}).get("attributes")
                                   ).get("service.name")
        for s, scope in enumerate(resource.get("scopeSpans") or []):
            for k, raw in enumerate((scope or {}).get("spans") or []):
                where = f"{where_r}.scopeSpans[{s}].spans[{k}]"
                if not isinstance(raw, dict):
                    raise SourceError(path, where, "a span must be a JSON object")
                span_id, trace_id = raw.get("spanId"), raw.get("traceId")
                if not (isinstance(span_id, str) and span_id and isinstance(trace_id, str)
                        and trace_id):
                    raise SourceError(path, where, "span without spanId and traceId")
                parent = raw.get("parentSpanId") or None
                status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
                code = status.get("code")
                yield _span(path, where, span_id.lower(), parent.lower() if parent else None,
                            trace_id.lower(), raw.get("name"), _int(raw.get("startTimeUnixNano")),
                            _int(raw.get("endTimeUnixNano")),
                            _otlp_attributes(raw.get("attributes")),
                            code in (2, "STATUS_CODE_ERROR"), service)


def _otlp_attributes(items) -> dict:
    found = {}
    for item in items or []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            found[item["key"]] = _otlp_value(item.get("value") or {})
    return found


def _otlp_value(value: dict):
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return _int(value["intValue"])
    if "arrayValue" in value:
        return [_otlp_value(v) for v in value["arrayValue"].get("values", [])]
    return None


def _span(path, where, span_id, parent_id, trace_id, name, start, end, attributes, error,
          service) -> Span:
    if not _is_int(start) or not _is_int(end):
        raise SourceError(path, where, "span without integer start and end times (ns)")
    if end < start:
        raise SourceError(path, where, f"span ends ({end}) before it starts ({start})")
    return Span(span_id, parent_id, trace_id, str(name or ""), start, end, attributes, error,
                service if isinstance(service, str) else None, where)


def _tree(path: Path, spans: list[Span], repairs: Counter) -> list[Span]:
    """Link children to parents; attach orphans to the single root. Returns the roots."""
    by_id: dict[str, Span] = {}
    for span in spans:
        if span.span_id in by_id:
            raise SourceError(path, span.where, f"duplicate span id {span.span_id} (also "
                              f"{by_id[span.span_id].where})")
        by_id[span.span_id] = span
    roots = [s for s in spans if s.parent_id is None]
    orphans = [s for s in spans if s.parent_id is not None and s.parent_id not in by_id]
    if orphans and len(roots) != 1:
        raise SourceError(path, orphans[0].where,
                          f"parent span {orphans[0].parent_id} is not in the file, and the file "
                          f"has {len(roots)} root spans to attach it to")
    for span in spans:
        if span.parent_id is None:
            continue
        parent = by_id.get(span.parent_id) or roots[0]
        if span.parent_id not in by_id:
            repairs["span whose parent span is not in the file (attached to the root span)"] += 1
        span.parent = parent
        parent.children.append(span)
    if not roots:
        raise SourceError(path, None, "no root span (every span names a parent: a cycle)")
    for span in spans:
        span.children.sort(key=lambda s: (s.start, s.end, s.span_id))
    return sorted(roots, key=lambda s: (s.start, s.span_id))


def _agents(spans: list[Span]) -> dict[str, str]:
    """span id -> the name of the agent the span belongs to."""
    names: dict[str, str] = {}
    used: Counter = Counter()
    fallback = next((s.service for s in spans if s.service
                     and not s.service.startswith("unknown_service")), None) or "agent"

    def name_of(span: Span) -> str:
        name = span.attributes.get("gen_ai.agent.name")
        if not isinstance(name, str) or not name:
            name = re.sub(r"^invoke_agent\s*", "", span.name).strip(" []") or "agent"
        used[name] += 1
        return name if used[name] == 1 else f"{name}#{used[name]}"

    def visit(span: Span, current: str) -> None:
        if span.operation == AGENT:
            current = name_of(span)
        names[span.span_id] = current
        for kid in span.children:
            visit(kid, current)

    for root in sorted((s for s in spans if s.parent is None), key=lambda s: (s.start, s.span_id)):
        visit(root, fallback)
    return names


# ---------------------------------------------------------------------------------- mapping

def _t(ns: int, t0: int) -> float:
    return (ns - t0) / NS


def _unit(units: dict, agent: str, span: Span, entry: str, exit: str) -> Unit:
    members = units.setdefault(agent, [])
    unit = Unit(span, entry, exit, span.start, span.end, len(members))
    members.append(unit)
    return unit


def _model_fields(span: Span) -> dict:
    a = span.attributes
    usage = {k: a[f"gen_ai.usage.{k}_tokens"] for k in ("input", "output")
             if _is_number(a.get(f"gen_ai.usage.{k}_tokens"))}
    cost = [a[f"gen_ai.usage.{k}_cost"] for k in ("input", "output")
            if _is_number(a.get(f"gen_ai.usage.{k}_cost"))]
    output = a.get("gen_ai.output")
    return {
        "tokens": sum(usage.values()) if usage else None,
        "cost_usd": round(sum(cost), 12) if cost else None,
        "content_ref": None if output is None else content_ref(output),
        "x_source": f"span {span.span_id}",
        "x_model": _text(a.get("gen_ai.response.model") or a.get("gen_ai.request.model")),
        "x_usage": usage or None,
        "x_error": True if span.error else None,
    }


def _sequence(build: TraceBuilder, members: list[Unit]) -> None:
    """Edges from each unit to the latest units that finished before it started (see the
    module docstring); nested units are left to the nesting edges."""
    ordered = sorted(members, key=lambda u: (u.start, u.order))
    finishing = sorted(members, key=lambda u: (u.end, u.order))
    frontier: list[Unit] = []
    k = 0
    for unit in ordered:
        while k < len(finishing) and finishing[k].end <= unit.start:
            done = finishing[k]
            frontier = [f for f in frontier if f.end > done.start or f is done]
            frontier.append(done)
            k += 1
        for before in frontier:
            if before is not unit and not _inside(unit.span, before.span):
                build.edge(before.exit, unit.entry, "causal")


def _ends(build: TraceBuilder, members: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """Units with no predecessor and units with no successor among ``members``."""
    entries = {u.entry for u in members}
    exits = {u.exit for u in members}
    has_pred = {e["dst"] for e in build.edges if e["src"] in exits and e["dst"] in entries}
    has_succ = {e["src"] for e in build.edges if e["src"] in exits and e["dst"] in entries}
    nested_in = {u.entry for u in members if any(_inside(u.span, o.span) for o in members)}
    firsts = [u for u in members if u.entry not in has_pred and u.entry not in nested_in]
    lasts = [u for u in members if u.exit not in has_succ]
    return firsts, lasts


def _agent_above(span: Span) -> bool:
    """Whether an ``invoke_agent`` span encloses ``span`` (which is then a sub-agent)."""
    node = span.parent
    while node is not None:
        if node.operation == AGENT:
            return True
        node = node.parent
    return False


def _inside(span: Span, other: Span) -> bool:
    node = span.parent
    while node is not None:
        if node is other:
            return True
        node = node.parent
    return False


def _system(spans: list[Span]) -> str:
    version = next((s.attributes["any_agent.version"] for s in spans
                    if isinstance(s.attributes.get("any_agent.version"), str)), None)
    if version:
        return f"any-agent {version}"
    service = next((s.service for s in spans if s.service), None)
    return service or "OpenTelemetry"


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int(value):
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def sniff(sample) -> str | None:
    """The any-agent export (``spans`` whose items carry ``context``) or OTLP JSON
    (``resourceSpans``); see :mod:`masrl.traces.importers.detect`."""
    keys = sample.keys
    if "resourceSpans" in keys:
        return "OTLP JSON: resourceSpans"
    spans = sample.document.get("spans") if "spans" in keys else None
    if isinstance(spans, list) and spans and isinstance(spans[0], dict) and "context" in spans[0]:
        return "spans with OpenTelemetry context ids"
    return None
