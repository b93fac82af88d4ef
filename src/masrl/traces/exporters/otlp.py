"""Export an orchestration trace as OTLP JSON (OpenTelemetry GenAI spans).

``export(document)`` takes a validated trace document and returns an OTLP JSON object
``{"resourceSpans": [...]}`` that any OpenTelemetry backend (a collector, Jaeger, Langfuse,
Phoenix) reads, and that :mod:`masrl.traces.importers.spans.otel` imports back.

Mapping (GenAI semantic conventions where they have a span for the event, ``masrl.*``
attributes for what they cannot say):

* **Agents.** Every agent that acts (a tool named only as the agent of ``tool_result`` events is
  no agent) gets one ``invoke_agent`` span (``gen_ai.agent.name``). An agent created by a
  ``spawn`` event is nested in its spawner's span, from the spawn to its ``return`` (else to its
  last event, with ``masrl.return: false``); the tokens and cost of that spawn and return ride on
  the span as ``masrl.spawn.tokens`` / ``masrl.spawn.cost_usd`` / ``masrl.return.tokens`` /
  ``masrl.return.cost_usd``. Other agents are top-level spans over their events.
* **message** -> a ``chat`` span in the agent's span (``gen_ai.usage.input_tokens`` /
  ``output_tokens`` from ``x_usage``, else ``gen_ai.usage.total_tokens``; ``gen_ai.usage.cost``;
  ``gen_ai.request.model`` from ``x_model``; ``masrl.to``).
* **tool_call** -> an ``execute_tool`` span (``gen_ai.tool.name``) from the call to the end of
  its result (the ``tool_result`` an edge leads to from the call, else the next one of the same
  tool), with the tokens and cost of both; ``masrl.tool_result: false`` when the call has no
  result; ``masrl.tool_call.end_unix_nano`` and ``masrl.tool_result.start_unix_nano`` when the
  call ends or the result starts elsewhere than the span's end (so durations come back). A
  spawn or a return with a duration keeps its end in ``masrl.spawn.end_unix_nano`` /
  ``masrl.return.end_unix_nano``.
* **Every other event** (``orchestrator_decision``, ``aggregate``, ``despawn``,
  ``human_intervention``, ``safety_event``, a second spawn or return, a result without a call) ->
  a span ``masrl <type>`` with ``masrl.event.type``, ``masrl.decision``, ``masrl.to`` and the
  usage attributes above.
* ``x_error: true`` -> status ``ERROR``. The resource names the run: ``service.name`` the
  ``system`` (else ``masrl``), ``masrl.trace_id``, ``masrl.task_id``, ``masrl.topology``.

Determinism: the trace id is the first 16 bytes of SHA-256 of ``trace_id``, a span id the first
8 bytes of SHA-256 of ``trace_id``, a NUL and the event id (``agent <name>`` for an agent span);
times are nanoseconds from a fixed epoch (:data:`EPOCH_NS`, 2023-11-14T22:13:20Z) plus the
event's ``t``; no clock is read. OTLP writes a time as unsigned 64-bit nanoseconds since 1970,
so a trace with a time past the year 2554 (``t`` above about 1.67e10 s) is refused with
:class:`CannotExport`, as is a tool call whose tokens or cost and its result's add up past a
double: no backend could read either.

What does not survive ``export`` then ``import otel`` (the round trip keeps every acting agent,
event types and counts, and token and cost totals): the names of tools, since the agent of a
``tool_result`` becomes the calling agent; edges (the importer infers them from time within each
agent), event ids (they become span ids), ``content_ref`` (OTLP carries no hash of ours),
``role``, per-event ``reward``, ``trusted``, ``from``, ``x_*`` fields other than usage, model
and error, ``rewards``, ``metrics``, ``counterfactuals``, ``provenance``, ``labels``,
``trace_id`` and ``task_id`` (the importer names the run ``otel:<trace hex>``); ``duration``
becomes ``t_end``; times are rounded to nanoseconds.
"""

from __future__ import annotations

import hashlib
import math
from collections import deque
from typing import Any

from masrl.traces.exporters import left_out
from masrl.traces.exporters.cannot_export import CannotExport

EPOCH_NS = 1_700_000_000 * 1_000_000_000
LATEST_NS = 2 ** 64 - 1  # OTLP's times are fixed64: unsigned nanoseconds since 1970 (to 2554)
SCOPE = {"name": "masrl.traces.exporters.otlp", "version": "1.0"}
INTERNAL, ERROR = 1, 2



KEPT_X = ("x_usage", "x_model", "x_error")  # the x_ fields written as span attributes
LEFT_OUT = (  # what masrl export says this format does not carry (see the module docstring)
    left_out.tool_names("a tool's result is written on its call's span"),
    left_out.edges("OTLP spans carry no dependency edges: an import infers them from time "
                   "within each agent"),
    left_out.event_fields(lambda key: key == "id", "the ids", "span ids stand for them"),
    left_out.event_fields(lambda key: key == "content_ref", "the content hashes"),
    left_out.event_fields(lambda key: key in ("role", "reward", "trusted", "from"),
                          "the role, reward, trusted or from"),
    left_out.event_fields(lambda key: key.startswith("x_") and key not in KEPT_X,
                          "the x_ fields other than usage, model and error"),
    left_out.run_members(frozenset(("schema_version", "trace_id", "task_id", "system",
                                    "topology"))),
)

def export(document: dict) -> dict:
    """The OTLP JSON ``{"resourceSpans": [...]}`` of a validated trace document;
    :class:`CannotExport` when OTLP cannot hold it: a time past the year 2554, or a tool call
    whose tokens or cost and its result's add up past a double."""
    run = str(document["trace_id"])
    events = document["events"]
    trace_hex = _digest(run, 16)
    results = _pair_results(document)
    tool_only = {e["agent"] for e in events if e["type"] == "tool_result"} - {
        e["agent"] for e in events if e["type"] != "tool_result"}
    own: dict[str, list[dict]] = {}  # agent -> its events, in file order
    for event in events:
        own.setdefault(event["agent"], []).append(event)
    agents = sorted(set(own) - tool_only, key=lambda a: (min(e["t"] for e in own[a]), a))
    drawn = set(agents)  # looked up once per event: a list would make this quadratic
    spawned = {}  # child -> its first spawn event
    for event in sorted(events, key=lambda e: e["t"]):
        if event["type"] == "spawn" and event.get("to") in drawn and \
                event["to"] not in spawned and event["to"] != event["agent"]:
            spawned[event["to"]] = event
    returned = {}  # child -> its first return event
    for event in sorted(events, key=lambda e: e["t"]):
        if event["type"] == "return" and event["agent"] in spawned and \
                event["agent"] not in returned:
            returned[event["agent"]] = event
    covered = {id(e) for e in spawned.values()} | {id(e) for e in returned.values()}
    covered |= {id(r) for r in results.values()}
    agent_ids = {a: _digest(f"{run}\0agent {a}", 8) for a in agents}
    spans = [_agent_span(run, trace_hex, a, agent_ids, own[a], spawned, returned) for a in agents]
    for event in events:
        if id(event) in covered:
            continue
        parent = agent_ids.get(event["agent"])
        if event["type"] == "tool_call":
            spans.append(_tool_span(run, trace_hex, parent, event, results.get(id(event))))
        else:
            spans.append(_event_span(run, trace_hex, parent, event))
    spans.sort(key=lambda s: (int(s["startTimeUnixNano"]), s["spanId"]))
    resource = [_kv("service.name", document.get("system") or "masrl"),
                _kv("masrl.trace_id", run), _kv("masrl.task_id", str(document["task_id"])),
                _kv("masrl.topology", document.get("topology") or "unknown")]
    return {"resourceSpans": [{"resource": {"attributes": resource},
                               "scopeSpans": [{"scope": dict(SCOPE), "spans": spans}]}]}


def _pair_results(document: dict) -> dict[int, dict]:
    """id(tool_call) -> its tool_result: the one an edge leads to, else the next unpaired
    result of the same tool at or after the call."""
    by_id = {e["id"]: e for e in document["events"]}
    paired: dict[int, dict] = {}
    used: set[int] = set()
    for edge in document["edges"]:
        src, dst = by_id.get(edge["src"]), by_id.get(edge["dst"])
        if src and dst and src["type"] == "tool_call" and dst["type"] == "tool_result" and \
                id(src) not in paired and id(dst) not in used:
            paired[id(src)] = dst
            used.add(id(dst))
    calls = sorted((e for e in document["events"] if e["type"] == "tool_call"),
                   key=lambda e: e["t"])
    waiting: dict = {}  # tool -> its results in time order, the earliest still usable first
    for result in sorted((e for e in document["events"] if e["type"] == "tool_result"),
                         key=lambda e: e["t"]):
        waiting.setdefault(result.get("tool"), deque()).append(result)
    for call in calls:  # in time order, so a result too early for one call is for none later
        if id(call) in paired:
            continue
        queue = waiting.get(call.get("tool"), deque())
        while queue and (id(queue[0]) in used or queue[0]["t"] < call["t"]):
            queue.popleft()
        if queue:
            match = queue.popleft()
            paired[id(call)] = match
            used.add(id(match))
    return paired


def _agent_span(run, trace_hex, agent, agent_ids, own, spawned, returned) -> dict:
    spawn, ret = spawned.get(agent), returned.get(agent)
    start = spawn["t"] if spawn else min(e["t"] for e in own)
    end = ret["t"] if ret else max([_end(e) for e in own] + [start])
    attributes = [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", agent)]
    for key, event in (("spawn", spawn), ("return", ret)):
        if event is not None:
            attributes += _usage_kv(f"masrl.{key}.tokens", f"masrl.{key}.cost_usd", event)
            if _end(event) > event["t"]:  # the span starts at the spawn, ends at the return
                attributes.append(_kv(f"masrl.{key}.end_unix_nano", _ns(_end(event))))
    if spawn is not None and ret is None:
        attributes.append(_kv("masrl.return", False))
    parent = agent_ids.get(spawn["agent"]) if spawn else None
    error = ret is not None and ret.get("x_error") is True
    return _span(trace_hex, agent_ids[agent], parent, f"invoke_agent {agent}", start,
                 max(end, start), attributes, error)


def _tool_span(run, trace_hex, parent, call, result) -> dict:
    end = max(_end(call), _end(result) if result else _end(call))
    merged = {key: _sum(call.get(key), (result or {}).get(key),
                        f"{key} of tool call {call['id']} and of its result")
              for key in ("tokens", "cost_usd")}
    attributes = [_kv("gen_ai.operation.name", "execute_tool")]
    if call.get("tool"):
        attributes.append(_kv("gen_ai.tool.name", call["tool"]))
    attributes += _usage_kv("gen_ai.usage.total_tokens", "gen_ai.usage.cost", merged)
    if result is None:
        attributes.append(_kv("masrl.tool_result", False))
    if _end(call) != end:  # the call's own end and the result's start, when the span says less
        attributes.append(_kv("masrl.tool_call.end_unix_nano", _ns(_end(call))))
    if result is not None and result["t"] != end:
        attributes.append(_kv("masrl.tool_result.start_unix_nano", _ns(result["t"])))
    error = call.get("x_error") is True or (result or {}).get("x_error") is True
    return _span(trace_hex, _digest(f"{run}\0{call['id']}", 8), parent,
                 f"execute_tool {call.get('tool') or ''}".strip(), call["t"], end, attributes,
                 error)


def _event_span(run, trace_hex, parent, event) -> dict:
    if event["type"] == "message":
        name, attributes = "chat", [_kv("gen_ai.operation.name", "chat")]
        usage = event.get("x_usage") if isinstance(event.get("x_usage"), dict) else {}
        if usage.get("input") is not None and usage.get("output") is not None and \
                usage["input"] + usage["output"] == event.get("tokens"):
            attributes += [_kv("gen_ai.usage.input_tokens", usage["input"]),
                           _kv("gen_ai.usage.output_tokens", usage["output"])]
            attributes += _usage_kv(None, "gen_ai.usage.cost", event)
        else:
            attributes += _usage_kv("gen_ai.usage.total_tokens", "gen_ai.usage.cost", event)
        if isinstance(event.get("x_model"), str):
            attributes.append(_kv("gen_ai.request.model", event["x_model"]))
    else:
        name = f"masrl {event['type']}"
        attributes = [_kv("masrl.event.type", event["type"])]
        if event.get("decision"):
            attributes.append(_kv("masrl.decision", event["decision"]))
        attributes += _usage_kv("gen_ai.usage.total_tokens", "gen_ai.usage.cost", event)
    if event.get("to"):
        attributes.append(_kv("masrl.to", event["to"]))
    return _span(trace_hex, _digest(f"{run}\0{event['id']}", 8), parent, name, event["t"],
                 _end(event), attributes, event.get("x_error") is True)


def _span(trace_hex, span_id, parent, name, start, end, attributes, error) -> dict:
    return {"traceId": trace_hex, "spanId": span_id, "parentSpanId": parent or "",
            "name": name, "kind": INTERNAL, "startTimeUnixNano": str(_ns(start)),
            "endTimeUnixNano": str(_ns(end)), "attributes": attributes,
            "status": {"code": ERROR} if error else {}}


def _usage_kv(tokens_key, cost_key, event) -> list[dict]:
    found = []
    if tokens_key and event.get("tokens") is not None:
        found.append(_kv(tokens_key, event["tokens"]))
    if cost_key and event.get("cost_usd") is not None:
        found.append(_kv(cost_key, event["cost_usd"]))
    return found


def _kv(key: str, value: Any) -> dict:
    if isinstance(value, bool):
        typed = {"boolValue": value}
    elif isinstance(value, int):
        typed = {"intValue": str(value)}
    elif isinstance(value, float):
        typed = {"intValue": str(int(value))} if value.is_integer() and "tokens" in key else \
            {"doubleValue": value}
    else:
        typed = {"stringValue": str(value)}
    return {"key": key, "value": typed}


def _end(event: dict) -> float:
    if "t_end" in event:
        return event["t_end"]
    return event["t"] + event.get("duration", 0)


def _sum(a, b, what: str):
    if a is None and b is None:
        return None
    total = (a or 0) + (b or 0)
    if not math.isfinite(total):
        raise CannotExport(f"the {what} add up to more than a double holds (about 1.8e308)")
    return total


def _ns(seconds: float) -> int:
    """Nanoseconds after 1970 of ``seconds`` after :data:`EPOCH_NS`; :class:`CannotExport`
    past :data:`LATEST_NS` (the year 2554), which an OTLP time cannot write."""
    nanoseconds = seconds * 1_000_000_000
    if math.isfinite(nanoseconds) and EPOCH_NS + round(nanoseconds) <= LATEST_NS:
        return EPOCH_NS + round(nanoseconds)
    raise CannotExport(f"t = {seconds:g} s is past the year 2554, which an OTLP time (unsigned "
                       "64-bit nanoseconds since 1970) cannot write")


def _digest(text: str, size: int) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:2 * size]
