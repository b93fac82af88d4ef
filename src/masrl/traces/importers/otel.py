"""Import OpenTelemetry GenAI spans (one trace) as an orchestration trace.

Source: one file of spans in any shape OpenTelemetry exports them (read by
:mod:`.otel_shapes`): OTLP JSON (``resourceSpans`` / ``scopeSpans`` or the older
``instrumentationLibrarySpans``; one document, a list, or one request per line as the
collector's file exporter writes them), the Python SDK's ``ReadableSpan.to_json()`` (a list, JSON
Lines, or the indented objects ``ConsoleSpanExporter`` prints one after another), the any-agent
``AgentTrace`` export (``{"spans": [...]}`` with integer ids), and the JavaScript SDK's span
JSON as the Vercel AI SDK and Mastra log it (``traceId`` / ``spanId`` / ``parentSpanId``,
``HrTime``, ISO or epoch times).

What a span is comes from its attributes, read through four conventions (the first that
recognises the span wins, in this order):

==================  ==============================================  ==========================
span kind           attribute                                       values
==================  ==============================================  ==========================
(our own export)    ``masrl.event.type``                            an event type of the schema
handoff             ``gen_ai.handoff.to_agent`` (OpenLLMetry,       the target agent's name
                    OpenInference), ``gen_ai.operation.name``
                    ``handoff``
agent               ``gen_ai.operation.name``                       ``invoke_agent``,
                                                                    ``invoke_workflow``
model call          ``gen_ai.operation.name``                       ``chat``, ``text_completion``,
                                                                    ``generate_content``,
                                                                    ``call_llm`` (any-agent)
tool                ``gen_ai.operation.name``                       ``execute_tool``
agent/model/tool    ``openinference.span.kind`` (OpenInference,     ``AGENT`` / ``LLM`` /
                    Arize Phoenix)                                  ``TOOL``
model / tool        ``ai.operationId`` (Vercel AI SDK)              ``ai.*.doGenerate``,
                                                                    ``ai.*.doStream`` /
                                                                    ``ai.toolCall``
agent/model/tool    ``traceloop.span.kind``, ``llm.request.type``   ``agent`` / ``chat``,
                    (OpenLLMetry)                                   ``completion`` / ``tool``
==================  ==============================================  ==========================

Any other span (``CHAIN``, ``RETRIEVER``, ``embeddings``, ``create_agent``, ``ai.generateText``,
an HTTP request...) gives no event and is counted as skipped by what it is (``span: embeddings``,
``span: openinference CHAIN``, ``span: no GenAI operation attribute``); its children are
attached to its parent. The GenAI agent conventions (semantic-conventions-genai 0.1) have no
handoff attribute: an agent calling another is a nested ``invoke_agent`` span (a spawn and a
return below); the ``gen_ai.handoff.*`` attributes are those of the OpenAI Agents SDK
instrumentations.

Fields, first attribute found:

* agent name: ``gen_ai.agent.name``, ``agent.name``, ``traceloop.entity.name``, else the span
  name without ``invoke_agent``; spans above every agent belong to the resource's
  ``service.name`` (``agent`` when that is OpenTelemetry's ``unknown_service``);
* input tokens: ``gen_ai.usage.input_tokens``, ``gen_ai.usage.prompt_tokens`` (semantic
  conventions before 1.27), ``llm.token_count.prompt``, ``ai.usage.inputTokens``,
  ``ai.usage.promptTokens``; output tokens likewise with ``output`` / ``completion``; without
  both, the total ``gen_ai.usage.total_tokens``, ``llm.token_count.total`` or
  ``ai.usage.totalTokens``;
* cost (US dollars): ``gen_ai.usage.input_cost`` + ``gen_ai.usage.output_cost`` (any-agent),
  ``gen_ai.usage.cost``, ``llm.cost.total``;
* model: ``gen_ai.response.model``, ``gen_ai.request.model``, ``llm.model_name``,
  ``ai.response.model``, ``ai.model.id``;
* tool name: ``gen_ai.tool.name``, ``tool.name``, ``ai.toolCall.name``, else the span name
  without ``execute_tool``; arguments (hashed): ``gen_ai.tool.args`` (any-agent),
  ``gen_ai.tool.call.arguments``, ``ai.toolCall.args``, ``ai.toolCall.input``, ``input.value``;
  result and model output (hashed): ``gen_ai.output`` (any-agent), ``gen_ai.tool.call.result``,
  ``gen_ai.output.messages``, ``ai.toolCall.result``, ``ai.toolCall.output``,
  ``ai.response.text``, ``output.value``;
* error: status code ``ERROR``.

Spans are joined into a tree and mapped to events and edges by the rules shared with the
other span-based importers (below). Run fields: ``trace_id`` is ``otel:<trace id in hex>``;
``task_id`` the same (OpenTelemetry
records no task); ``system`` ``any-agent <version>`` when spans carry ``any_agent.version``,
else the service name, else ``OpenTelemetry``; ``topology`` ``unknown``; no rewards.

What is lost: all prompts, outputs and tool arguments (hashed), span events and links, span kinds,
resource attributes other than the service name, the framework's own span names.

Errors (exit 1): a file that is not JSON (nor JSON values one after another) or holds no spans;
a container of the wrong type; a span without ids or times, with an end before its start; spans
of several traces in one file; two different spans with one id; no span that maps to an event.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from masrl.traces.importers import otel_shapes, spans
from masrl.traces.importers.common import ImportResult, SourceError
from masrl.traces.importers.otel_shapes import RawSpan
from masrl.traces.importers.spans import AGENT, EVENT, HANDOFF, MODEL, OTHER, TOOL, Span
from masrl.traces.importers.timestamps import is_number

FORMAT = "otel"
MODEL_CALLS = ("call_llm", "chat", "text_completion", "generate_content")
EVENT_TYPES = ("orchestrator_decision", "spawn", "despawn", "message", "tool_call",
               "tool_result", "return", "aggregate", "human_intervention", "safety_event")
GEN_AI = {**dict.fromkeys(MODEL_CALLS, MODEL), "invoke_agent": AGENT, "invoke_workflow": AGENT,
          "execute_tool": TOOL, "handoff": HANDOFF}
OPENINFERENCE = {"AGENT": AGENT, "LLM": MODEL, "TOOL": TOOL}
TRACELOOP = {"agent": AGENT, "tool": TOOL, "handoff": HANDOFF}

INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
                "llm.token_count.prompt", "ai.usage.inputTokens", "ai.usage.promptTokens")
OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                 "llm.token_count.completion", "ai.usage.outputTokens",
                 "ai.usage.completionTokens")
TOTAL_TOKENS = ("gen_ai.usage.total_tokens", "llm.token_count.total", "ai.usage.totalTokens")
MODEL_NAME = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name",
              "ai.response.model", "ai.model.id")
AGENT_NAME = ("gen_ai.agent.name", "agent.name", "traceloop.entity.name")
TOOL_NAME = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name", "traceloop.entity.name")
TOOL_ARGS = ("gen_ai.tool.args", "gen_ai.tool.call.arguments", "ai.toolCall.args",
             "ai.toolCall.input", "input.value", "traceloop.entity.input")
OUTPUT = ("gen_ai.output", "gen_ai.tool.call.result", "gen_ai.output.messages",
          "ai.toolCall.result", "ai.toolCall.output", "ai.response.text", "output.value",
          "traceloop.entity.output")


def import_file(path: str | Path) -> ImportResult:
    """The trace of one OpenTelemetry trace file (see the module docstring for the mapping)."""
    path = Path(path)
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
    raw = otel_shapes.read(path)
    if not raw:
        raise SourceError(path, None, "the file holds no spans")
    traces = sorted({s.trace_id for s in raw})
    if len(traces) > 1:
        raise SourceError(path, None, f"spans of {len(traces)} traces ({', '.join(traces)}); "
                          "import one trace per file")
    for span in raw:
        if span.end < span.start:
            raise SourceError(path, span.where, f"span ends ({span.end}) before it starts "
                              f"({span.start})")
    linked = spans.link(path, [classify(s) for s in raw], result.repairs)
    mapped = spans.map_spans(path, linked, _default_agent(raw), result.skipped, result.repairs)
    result.trace = mapped.build.document(
        trace_id=f"otel:{traces[0]}", task_id=f"otel:{traces[0]}", system=_system(raw),
        topology="unknown", rewards={}, costs=mapped.costs)
    return result.with_provenance()


# ---------------------------------------------------------------------------------- reading

def classify(raw: RawSpan) -> Span:
    """The span model of one OpenTelemetry span (see the module docstring)."""
    a = raw.attributes
    kind, label = _kind(a)
    span = Span(raw.span_id, raw.parent_id, raw.start, raw.end, kind, raw.where,
                name=raw.name, label=label, fingerprint=raw.fingerprint, error=raw.error)
    if kind == AGENT:
        span.name = _first_text(a, AGENT_NAME) or _agent_from_name(raw.name)
        span.returns = a.get("masrl.return") is not False
        span.spawn_cost = (_first_number(a, ("masrl.spawn.tokens",)),
                           _first_number(a, ("masrl.spawn.cost_usd",)))
        span.return_cost = (_first_number(a, ("masrl.return.tokens",)),
                            _first_number(a, ("masrl.return.cost_usd",)))
    elif kind == EVENT:
        span.event_type = a["masrl.event.type"]
        span.decision = _text(a.get("masrl.decision"))
        span.to = _text(a.get("masrl.to"))
    elif kind == HANDOFF:
        span.handoff_to = _text(a.get("gen_ai.handoff.to_agent"))
    if kind in (MODEL, TOOL, EVENT, HANDOFF):
        _usage(span, a)
    if kind in (MODEL, EVENT):
        span.model = _first_text(a, MODEL_NAME)
        span.output = _first(a, OUTPUT)
        span.to = span.to or _text(a.get("masrl.to"))
    if kind == TOOL:
        span.tool = _first_text(a, TOOL_NAME) or re.sub(r"^execute_tool\s*", "",
                                                        raw.name).strip() or None
        span.input = _first(a, TOOL_ARGS)
        span.output = _first(a, OUTPUT)
        span.has_result = a.get("masrl.tool_result") is not False
    return span


def _kind(a: dict) -> tuple[str, str]:
    """(kind, label) of a span from its attributes: the first convention that knows it."""
    event = a.get("masrl.event.type")
    if isinstance(event, str) and event in EVENT_TYPES:
        return EVENT, ""
    if isinstance(a.get("gen_ai.handoff.to_agent"), str):
        return HANDOFF, ""
    op, oi = a.get("gen_ai.operation.name"), a.get("openinference.span.kind")
    ai_op, tl = a.get("ai.operationId"), a.get("traceloop.span.kind")
    if isinstance(op, str) and op in GEN_AI:
        return GEN_AI[op], ""
    if isinstance(oi, str) and oi.upper() in OPENINFERENCE:
        return OPENINFERENCE[oi.upper()], ""
    if isinstance(ai_op, str) and ai_op.endswith((".doGenerate", ".doStream")):
        return MODEL, ""
    if ai_op == "ai.toolCall":
        return TOOL, ""
    if isinstance(tl, str) and tl in TRACELOOP:
        return TRACELOOP[tl], ""
    if a.get("llm.request.type") in ("chat", "completion"):
        return MODEL, ""
    if isinstance(op, str):
        return OTHER, op
    if isinstance(oi, str):
        return OTHER, f"openinference {oi}"
    if isinstance(ai_op, str):
        return OTHER, ai_op
    if isinstance(tl, str):
        return OTHER, f"traceloop {tl}"
    return OTHER, "no GenAI operation attribute"


def _usage(span: Span, a: dict) -> None:
    for key, names in (("input", INPUT_TOKENS), ("output", OUTPUT_TOKENS)):
        value = _first_number(a, names)
        if value is not None:
            span.usage[key] = value
    span.total_tokens = _first_number(a, TOTAL_TOKENS)
    parts = [a[k] for k in ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost")
             if is_number(a.get(k))]
    if parts:
        span.cost = sum(parts)
    else:
        span.cost = _first_number(a, ("gen_ai.usage.cost", "llm.cost.total"))


def _first(a: dict, names: tuple[str, ...]) -> Any:
    return next((a[k] for k in names if a.get(k) is not None), None)


def _first_text(a: dict, names: tuple[str, ...]) -> str | None:
    return next((a[k] for k in names if isinstance(a.get(k), str) and a[k]), None)


def _first_number(a: dict, names: tuple[str, ...]) -> float | None:
    return next((a[k] for k in names if is_number(a.get(k)) and a[k] >= 0), None)


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _agent_from_name(name: str) -> str:
    return re.sub(r"^invoke_(agent|workflow)\s*", "", name).strip(" []") or "agent"


def _default_agent(raw: list[RawSpan]) -> str:
    return next((s.service for s in raw if s.service
                 and not s.service.startswith("unknown_service")), None) or "agent"


def _system(raw: list[RawSpan]) -> str:
    version = next((s.attributes["any_agent.version"] for s in raw
                    if isinstance(s.attributes.get("any_agent.version"), str)), None)
    if version:
        return f"any-agent {version}"
    service = next((s.service for s in raw if s.service), None)
    return service or "OpenTelemetry"


def sniff(sample) -> str | None:
    """OTLP JSON (``resourceSpans``), or spans with OpenTelemetry ids: Python (``context``) or
    JavaScript (``traceId`` and ``spanId``); see :mod:`masrl.traces.importers.detect`."""
    items = _sniffed_items(sample)
    if any(isinstance(i, dict) and "resourceSpans" in i for i in items):
        return "OTLP JSON: resourceSpans"
    first = next((i for i in items if isinstance(i, dict)), None)
    if first is None:
        return None
    context = first.get("context")
    if isinstance(context, dict) and "span_id" in context and "trace_id" in context:
        return "spans with OpenTelemetry context ids (Python SDK / any-agent)"
    if "traceId" in first and ("spanId" in first or "parentSpanId" in first
                               or ("id" in first and "timestamp" in first)):
        return "spans with OpenTelemetry traceId / spanId (JavaScript SDK)"
    return None


def _sniffed_items(sample) -> list:
    if sample.records is not None:
        return sample.records
    document = sample.document
    if isinstance(document, dict) and isinstance(document.get("spans"), list):
        return document["spans"][:1]
    if isinstance(document, list):
        return document[:1]
    if isinstance(document, dict):
        return [document]
    return []


__doc__ = f"{__doc__}\n{spans.MAPPING}"
