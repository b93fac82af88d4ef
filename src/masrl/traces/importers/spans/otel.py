"""Import OpenTelemetry GenAI spans as orchestration traces, one per trace id of the file.

:mod:`.otel_shapes` reads the spans in whichever shape they were exported; this module tells
what each span is from its attributes (the GenAI, OpenInference, Vercel AI SDK, OpenLLMetry,
AG2 and BeeAI conventions) and hands the spans to :mod:`.tree`, the mapping every span-based
importer shares. Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path
from typing import Any

from masrl.traces import strict_json
from masrl.traces.importers._kit import numbers
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    json_type,
    one_run,
    read_bytes,
)
from masrl.traces.importers._kit.content import ANNOTATION, label
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.timestamps import NS, hrtime_ns, moment_ns
from masrl.traces.importers.spans import otel_shapes
from masrl.traces.importers.spans import tree as spans
from masrl.traces.importers.spans.otel_shapes import RawSpan
from masrl.traces.importers.spans.tree import AGENT, EVENT, HANDOFF, MODEL, OTHER, TOOL, Span

FORMAT = "otel"
MODEL_CALLS = ("call_llm", "chat", "text_completion", "generate_content")
EVENT_TYPES = ("orchestrator_decision", "spawn", "despawn", "message", "tool_call",
               "tool_result", "return", "aggregate", "human_intervention", "safety_event")
GEN_AI = {**dict.fromkeys(MODEL_CALLS, MODEL), "invoke_agent": AGENT, "invoke_workflow": AGENT,
          "execute_tool": TOOL, "handoff": HANDOFF}
OPENINFERENCE = {"AGENT": AGENT, "LLM": MODEL, "TOOL": TOOL}
TRACELOOP = {"agent": AGENT, "tool": TOOL, "handoff": HANDOFF}
VERCEL_CALLS = ("ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject")
HANDOFF_TOOL = re.compile(r"handoff to (?P<to>.+)")  # OpenInference's OpenAI Agents handoff

# conventions a span's kind is read by, as ``provenance.recognised`` counts them
MASRL, HANDOFF_ATTRIBUTE, GEN_AI_OPERATION, OPENINFERENCE_ATTRIBUTE, OPENINFERENCE_FIELD, \
    AWS_KIND, VERCEL, TRACELOOP_KIND = (
        "masrl event type", "gen_ai.handoff.to_agent", "GenAI operation name",
        "OpenInference span kind attribute", "OpenInference span kind field (Phoenix)",
        "aws.genai.span_kind", "Vercel AI SDK operation", "OpenLLMetry span kind")
GEN_AI_NAME, BEEAI = "gen_ai agent or tool name alone", "BeeAI emitter event"
CREWAI = "CrewAI telemetry scope"
MLFLOW = "MLflow span type"
MLFLOW_TYPE = "mlflow.spanType"
MLFLOW_KINDS = {"AGENT": AGENT, "LLM": MODEL, "CHAT_MODEL": MODEL, "TOOL": TOOL}
MLFLOW_USAGE = "mlflow.chat.tokenUsage"  # {input_tokens, output_tokens, total_tokens}
MLFLOW_COST = "mlflow.llm.cost"  # {input_cost, output_cost, total_cost}
MLFLOW_MODEL = "mlflow.llm.model"
CREWAI_TELEMETRY = ("CrewAI telemetry span (that a crew or a task was created: no step of the "
                    "run)")
CREWAI_SCOPE = "crewai.telemetry"
CREWAI_ROLE = re.compile(r"\brole='((?:[^'\\]|\\.)*)'")  # in str() of a CrewAI Agent
AG2_TYPE = "ag2.span.type"
AG2 = {"agent": AGENT, "llm": MODEL, "tool": TOOL}  # AG2's own span types
BEEAI_SCOPE = "openinference.instrumentation.beeai"
BEEAI_EVENT = re.compile(r"(?P<path>[\w.]+)\.(?P<event>[a-z_]+)-\d+")

INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
                "llm.token_count.prompt", "ai.usage.inputTokens", "ai.usage.promptTokens")
OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                 "llm.token_count.completion", "ai.usage.outputTokens",
                 "ai.usage.completionTokens")
TOTAL_TOKENS = ("gen_ai.usage.total_tokens", "llm.token_count.total", "ai.usage.totalTokens")
PARTS = {  # named parts of the input and output counts: recorded, never added on top
    "cached_input": ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens",
                     "llm.token_count.prompt_details.cache_read", "ai.usage.cachedInputTokens"),
    "cache_creation": ("gen_ai.usage.cache_creation.input_tokens",
                       "gen_ai.usage.cache_creation_input_tokens",
                       "llm.token_count.prompt_details.cache_write"),
    "reasoning_output": ("gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens",
                         "llm.token_count.completion_details.reasoning",
                         "ai.usage.reasoningTokens"),
}
COST = ("gen_ai.usage.cost", "llm.cost.total", "operation.cost")
COST_PARTS = ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost",
              "cost_prompt", "cost_completion")  # any-agent's, and its names of May 2025
MODEL_NAME = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name",
              "ai.response.model", "ai.model.id")
AGENT_NAME = ("gen_ai.agent.name", "agent.name", "ag2.agent.name", "traceloop.entity.name")
TOOL_NAME = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name", "traceloop.entity.name")
TOOL_ARGS = ("gen_ai.tool.args", "gen_ai.tool.call.arguments", "ai.toolCall.args",
             "ai.toolCall.input", "input.value", "traceloop.entity.input")
OUTPUT = ("gen_ai.output", "gen_ai.tool.call.result", "gen_ai.output.messages",
          "ai.toolCall.result", "ai.toolCall.output", "ai.response.text", "output.value",
          "traceloop.entity.output")
NOT_IN_A_TRACE = "(not a span of any trace: counted with the file's first trace)"
NO_RUN = "span of a trace with no agent work (no span of it maps to an event: not a run)"
NO_EVENT = "no span maps to an event"


def import_file(path: str | Path) -> ImportResult:
    """The trace of a file of one OpenTelemetry trace (chapter 23 of the book tells the
    mapping); a file of several runs is an error naming them (:func:`import_traces` reads
    it)."""
    return one_run(Path(path), FORMAT, import_traces(path), "traces", lead="spans of ")


def import_traces(path: str | Path) -> list[ImportResult]:
    """One trace per OpenTelemetry trace id of the file (an OTLP batch, a console output of many
    runs, an ADOT bundle of several sessions), in order of their first span, never merged.

    A trace none of whose spans maps to an event (an agent's creation, an embedding call) is no
    run: when the file holds runs too, its spans are counted as skipped records of the first
    run (as are the file's records that are no span), else the file is an error."""
    path = Path(path)
    reading, groups = _groups(path)
    several = len(groups) > 1
    results, idle = [], []
    for tid, group in groups:
        try:
            results.append(_import_trace(path, reading, tid, group, several=several))
        except SourceError as exc:
            if not several or NO_EVENT not in exc.message or len(idle) + 1 == len(groups):
                raise
            idle.append(group)
    first = results[0]
    for reason, n in reading.repairs.items():
        first.repairs[reason] += n
    for _, what in reading.others:
        first.account.read()
        first.account.skip(f"{what} {NOT_IN_A_TRACE}" if several else what)
    for group in idle:  # each record once: copies and start prints state nothing again
        first.account.read(len(group))
        kept, merged, _ = otel_shapes.merge_prints(group)
        if merged:
            first.account.skip(spans.STARTED, merged)
        seen: set[tuple[str, str]] = set()
        for raw in kept:
            if (raw.span_id, raw.fingerprint) in seen:
                first.account.skip(spans.DUPLICATE)
                continue
            seen.add((raw.span_id, raw.fingerprint))
            stated = classify(raw, None, path, first.repairs).stated()
            if stated:
                first.account.state_usage(**stated)
            first.account.skip(NO_RUN, usage=stated)
    _annotations(path, reading.annotations, results)
    return [result.with_provenance() for result in results]


ANNOTATION_NO_SPAN = "span annotation of a span that is not in the file"


def _annotations(path: Path, annotations: list[tuple[str, dict]],
                 results: list[ImportResult]) -> None:
    """Phoenix's span annotations as labels (kind annotation, schema 1.2) of the trace that
    holds the span they judge, on that span's first event: the annotation's name, its score
    (else its label; a label beside a score is its category), its explanation as the comment,
    and who made it (``annotator_kind``)."""
    first_event: dict[str, tuple[ImportResult, str]] = {}
    for result in results:
        for event in result.trace["events"]:
            first_event.setdefault(event.get("x_source", ""), (result, event["id"]))
    for where, item in annotations:
        span_id = _annotated_span(path, where, item.get("span_id"))
        found = first_event.get(f"span {span_id}")
        if found is None:
            results[0].account.skip_part(ANNOTATION_NO_SPAN)
            continue
        result, event = found
        outcome = item.get("result")
        if outcome is None:
            outcome = {}
        if not isinstance(outcome, dict):
            raise SourceError(path, f"{where}.result", "must be an object {label, score, "
                              f"explanation}}, found {json_type(outcome)}")
        score = outcome.get("score")
        category, explanation = outcome.get("label"), outcome.get("explanation")
        for key, value, wanted in (("score", score, (int, float)), ("label", category, str),
                                   ("explanation", explanation, str)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, wanted)):
                raise SourceError(path, f"{where}.result.{key}", f"must be "
                                  f"{'a number' if key == 'score' else 'a string'} or null, "
                                  f"found {json_type(value)}")
        if score is None and category is None:
            raise SourceError(path, f"{where}.result", "an annotation needs a score or a label")
        kind = item.get("annotator_kind")
        ident = item.get("id", item.get("identifier"))
        result.labels.append(label(
            item["name"], score if score is not None else category, ANNOTATION,
            f"phoenix {kind}" if isinstance(kind, str) and kind else "phoenix", event=event,
            category=category if score is not None else None, comment=explanation,
            id=ident if isinstance(ident, str) and ident else None, where=where or None))


def _annotated_span(path: Path, where: str, value: Any) -> str:
    """The span id an annotation names, written as the spans' ids are (hex lowercased and
    padded to 16 digits; other ids as written)."""
    if not isinstance(value, str) or not value:
        raise SourceError(path, where or None, "span_id must be a non-empty string, found "
                          + json_type(value))
    text = value[2:] if value.lower().startswith("0x") else value
    if len(text) <= 16 and otel_shapes.HEX.fullmatch(text):
        return text.lower().rjust(16, "0")
    return value


def _groups(path: Path) -> tuple[otel_shapes.Reading, list[tuple[str | None, list[RawSpan]]]]:
    """The file's spans by trace id, in order of each trace's first start (then its id)."""
    reading = otel_shapes.read_all(path)
    if not reading.spans:
        raise SourceError(path, None, "the file holds no spans")
    groups: dict[str | None, list[RawSpan]] = {}
    for span in reading.spans:
        groups.setdefault(span.trace_id, []).append(span)
    ordered = sorted(groups.items(), key=lambda item: (min(s.start for s in item[1]),
                                                       item[0] or ""))
    return reading, ordered


def _trace_id(path: Path, tid: str | None) -> str:
    """The id of a trace; spans printed without ids are named by the file's content."""
    if tid is not None:
        return tid
    return "sha256-" + hashlib.sha256(read_bytes(path)).hexdigest()[:32]


def _import_trace(path: Path, reading: otel_shapes.Reading, tid: str | None,
                  group: list[RawSpan], *, several: bool) -> ImportResult:
    """The trace of one trace id's spans, without its provenance yet."""
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
    account = result.account
    account.unit = "span"
    account.read(len(group))
    raw, merged, open_ended = otel_shapes.merge_prints(group)
    if merged:
        account.skip(spans.STARTED, merged)
    if open_ended:
        result.repairs[otel_shapes.NO_END] += open_ended
    for span in raw:
        if span.end < span.start:
            start_key, end_key = span.time_keys
            raise SourceError(path, span.where, f"span ends before it starts: {end_key} "
                              f"({iso_from_ns(span.end)}) is before {start_key} "
                              f"({iso_from_ns(span.start)})")
    conventions: Counter = Counter()
    classified = [classify(s, conventions, path, result.repairs) for s in raw]
    _vercel_calls(raw, classified)
    linked = spans.link(path, classified, result.repairs, account)
    name = _trace_id(path, tid)
    try:
        mapped = spans.map_spans(path, linked, _default_agent(raw), account, result.repairs)
    except SourceError as exc:
        if not several:
            raise
        raise SourceError(path, exc.where, f"trace {name}: {exc.message}") from None
    result.time_origin = iso_from_ns(mapped.t0)
    system = _system(raw)
    result.recognised = {"system": system, "shape": _shapes(raw),
                         "evidence": _evidence(conventions, merged, raw)}
    result.trace = mapped.build.document(
        trace_id=f"otel:{name}", task_id=f"otel:{name}", system=system,
        topology="unknown", rewards={}, costs=mapped.costs)
    return result


def _vercel_calls(raw: list[RawSpan], classified: list[Span]) -> None:
    """A Vercel AI SDK call span (``ai.generateText``...) is the model call only in a trace
    that holds none of the step spans (``ai.*.doGenerate``, ``ai.*.doStream``) it wraps: spans
    printed without ids cannot show that the steps are below it."""
    operations = [s.attributes.get("ai.operationId") for s in raw]
    if not any(isinstance(op, str) and op.endswith((".doGenerate", ".doStream"))
               for op in operations):
        return
    for op, span in zip(operations, classified):
        if op in VERCEL_CALLS and span.kind == MODEL:
            span.kind, span.reason = OTHER, spans.WRAPPER


def _shapes(raw: list[RawSpan]) -> str:
    found = sorted({s.shape for s in raw if s.shape})
    return " + ".join(found) or "OpenTelemetry spans"


def _evidence(conventions: Counter, merged: int, raw: list[RawSpan]) -> str:
    parts = [f"span kinds read by {', '.join(f'{name} ({n})' for name, n in sorted(conventions.items()))}"
             if conventions else "no span names its kind"]
    scopes = sorted({s.scope for s in raw if s.scope})
    if scopes:
        parts.append("instrumentation " + ", ".join(scopes[:4]) + (", ..." if len(scopes) > 4
                                                                   else ""))
    if merged:
        parts.append(f"{merged} spans printed at their start and at their end, merged")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------- reading

def classify(raw: RawSpan, conventions: Counter | None, path: Path, repairs: Counter) -> Span:
    """The span model of one OpenTelemetry span (chapter 23 of the book); ``conventions``
    counts the convention each span's kind was read by; counts and amounts are read by the
    kit's rule (:mod:`.._kit.numbers`: text repaired in ``repairs``, the rest refused)."""
    number = _Numbers(path, raw.where, repairs)
    a = raw.attributes
    if MLFLOW_TYPE in a:
        a = _mlflow_attributes(a)
    kind, label, convention = _beeai(raw) or _kind(a, raw)
    if conventions is not None and convention:
        conventions[convention] += 1
    span = Span(raw.span_id, raw.parent_id, raw.start, raw.end, kind, raw.where,
                name=raw.name, label=label, fingerprint=raw.fingerprint, error=raw.error)
    if kind == AGENT:
        span.name = _first_text(a, AGENT_NAME) or crewai_role(a) or agent_from_name(raw.name)
        span.returns = a.get("masrl.return") is not False
        if not a.keys().isdisjoint(AGENT_COST_KEYS):  # masrl's own export (else all unknown)
            span.spawn_cost = (number.count(a, ("masrl.spawn.tokens",)),
                               number.amount(a, ("masrl.spawn.cost_usd",)))
            span.return_cost = (number.count(a, ("masrl.return.tokens",)),
                                number.amount(a, ("masrl.return.cost_usd",)))
            span.spawn_end = number.time(a, "masrl.spawn.end_unix_nano")
            span.return_end = number.time(a, "masrl.return.end_unix_nano")
    elif kind == EVENT:
        span.event_type = a["masrl.event.type"]
        span.decision = _text(a.get("masrl.decision"))
        span.to = _text(a.get("masrl.to"))
    elif kind == HANDOFF:
        span.handoff_to = _text(a.get("gen_ai.handoff.to_agent"))
        if span.handoff_to is None and (match := HANDOFF_TOOL.fullmatch(raw.name)):
            span.handoff_to = match["to"].strip()
    _usage(span, a, number)
    if MLFLOW_TYPE in a:
        _mlflow_usage(span, a, number)
    if kind in (MODEL, EVENT):
        span.model = _first_text(a, (*MODEL_NAME, MLFLOW_MODEL))
        span.output = _first(a, OUTPUT)
        span.to = span.to or _text(a.get("masrl.to"))
    if kind == TOOL:
        span.tool = _first_text(a, TOOL_NAME) or re.sub(r"^execute_tool\s*", "",
                                                        raw.name).strip() or None
        span.input = _first(a, TOOL_ARGS)
        span.output = _first(a, OUTPUT)
        span.has_result = a.get("masrl.tool_result") is not False
        span.call_end = number.time(a, "masrl.tool_call.end_unix_nano")  # masrl's export
        span.result_start = number.time(a, "masrl.tool_result.start_unix_nano")
    return span


def _kind(a: dict, raw: RawSpan) -> tuple[str, str, str]:
    """(kind, label, convention) of a span: the first convention that knows it."""
    if raw.scope == CREWAI_SCOPE:
        return OTHER, CREWAI_TELEMETRY, CREWAI
    event = a.get("masrl.event.type")
    if isinstance(event, str) and event in EVENT_TYPES:
        return EVENT, "", MASRL
    if isinstance(a.get("gen_ai.handoff.to_agent"), str):
        return HANDOFF, "", HANDOFF_ATTRIBUTE
    mlflow = a.get(MLFLOW_TYPE)
    if isinstance(mlflow, str) and "gen_ai.operation.name" not in a \
            and "openinference.span.kind" not in a:
        if mlflow in MLFLOW_KINDS:
            return MLFLOW_KINDS[mlflow], "", MLFLOW
        return OTHER, f"mlflow {mlflow}", MLFLOW
    op, ai_op, tl = a.get("gen_ai.operation.name"), a.get("ai.operationId"), \
        a.get("traceloop.span.kind")
    oi, where = a.get("openinference.span.kind"), OPENINFERENCE_ATTRIBUTE
    if not isinstance(oi, str) and raw.kind_field is not None:
        oi, where = raw.kind_field, OPENINFERENCE_FIELD
    if not isinstance(oi, str) and isinstance(a.get("aws.genai.span_kind"), str):
        oi, where = a["aws.genai.span_kind"], AWS_KIND
    if isinstance(op, str) and op in GEN_AI:
        return GEN_AI[op], "", GEN_AI_OPERATION
    if isinstance(oi, str) and oi.upper() in OPENINFERENCE:
        kind = OPENINFERENCE[oi.upper()]
        if kind == TOOL and HANDOFF_TOOL.fullmatch(raw.name):
            return HANDOFF, "", where
        return kind, "", where
    if isinstance(ai_op, str) and (ai_op.endswith((".doGenerate", ".doStream"))
                                   or ai_op in VERCEL_CALLS):
        return MODEL, "", VERCEL
    if ai_op == "ai.toolCall":
        return TOOL, "", VERCEL
    if isinstance(tl, str) and tl in TRACELOOP:
        return TRACELOOP[tl], "", TRACELOOP_KIND
    if a.get("llm.request.type") in ("chat", "completion"):
        return MODEL, "", TRACELOOP_KIND
    if isinstance(op, str):
        return OTHER, op, GEN_AI_OPERATION
    if isinstance(oi, str):
        return OTHER, f"openinference {oi}", where
    if isinstance(ai_op, str):
        return OTHER, ai_op, VERCEL
    if isinstance(tl, str):
        return OTHER, f"traceloop {tl}", TRACELOOP_KIND
    ag2 = a.get("ag2.span.type")
    if isinstance(ag2, str) and ag2 in AG2:
        return AG2[ag2], "", AG2_TYPE
    if isinstance(a.get("gen_ai.tool.name"), str):  # Koog's tool spans name no operation
        return TOOL, "", GEN_AI_NAME
    if isinstance(a.get("gen_ai.agent.name"), str):  # pydantic-ai's "<agent> run" spans
        return AGENT, "", GEN_AI_NAME
    return OTHER, "no GenAI operation attribute", ""


def kind_of(attributes: dict, name: str, kind_field: str | None = None,
            scope: str | None = None) -> tuple[str, str, str]:
    """(kind, label, convention) of a span given by its attributes and name (as another log
    keeps them: Langfuse's ``metadata.attributes``), by the conventions of :func:`classify`,
    BeeAI's emitter events included."""
    raw = RawSpan("", None, "", None, name, 0, 0, attributes, False, None, "", "", kind_field,
                  scope)
    return _beeai(raw) or _kind(attributes, raw)


def _beeai(raw: RawSpan) -> tuple[str, str, str] | None:
    """BeeAI's OpenInference instrumentation writes one span per emitter event
    (``<path>.<event>-<n>``: ``backend.openai.chat.start-14``, ``tool.search.wikipedia.finish-12``,
    ``agent.react.update-13``): only the ``start`` of a model or tool call is that call; every
    other event, and the agent's own events, are no call."""
    if raw.scope != BEEAI_SCOPE:
        return None
    match = BEEAI_EVENT.fullmatch(raw.name)
    if match is None:
        return None
    kind, _, convention = _kind(raw.attributes, raw)
    if match["event"] == "start" and kind in (MODEL, TOOL):
        return kind, "", BEEAI
    return OTHER, f"BeeAI emitter event {match['event']} of {match['path']}", BEEAI


PART_KEYS = frozenset(name for names in PARTS.values() for name in names)
COST_KEYS = frozenset((*COST_PARTS, *COST))
USAGE_KEYS = frozenset((*INPUT_TOKENS, *OUTPUT_TOKENS, *TOTAL_TOKENS, *PART_KEYS, *COST_KEYS))
AGENT_COST_KEYS = frozenset(("masrl.spawn.tokens", "masrl.spawn.cost_usd", "masrl.return.tokens",
                             "masrl.return.cost_usd", "masrl.spawn.end_unix_nano",
                             "masrl.return.end_unix_nano"))


def _usage(span: Span, a: dict, number: _Numbers) -> None:
    """The usage a span states; each group of names is looked up only when the span has one
    of them (most spans state no usage: every figure stays unrecorded)."""
    keys = a.keys()
    if keys.isdisjoint(USAGE_KEYS):
        return
    for key, names in (("input", INPUT_TOKENS), ("output", OUTPUT_TOKENS)):
        value = number.count(a, names)
        if value is not None:
            span.usage[key] = value
    if span.usage and not keys.isdisjoint(PART_KEYS):
        for part, names in PARTS.items():
            value = number.count(a, names)
            if value:
                span.parts[part] = value
    span.total_tokens = number.count(a, TOTAL_TOKENS)
    if keys.isdisjoint(COST_KEYS):
        return
    costs = [cost for k in COST_PARTS if (cost := number.amount(a, (k,))) is not None]
    if costs:
        span.cost = sum(costs)
    else:
        span.cost = number.amount(a, COST)


def _mlflow_attributes(a: dict) -> dict:
    """MLflow writes every attribute value of its own (``mlflow.*``) as JSON text
    (``"\\"AGENT\\""``, ``"{\\"input_tokens\\": 10, ...}"``): those values decoded, the rest as
    written (text that is no JSON stays text)."""
    decoded = dict(a)
    for key, value in a.items():
        if key.startswith("mlflow.") and isinstance(value, str) and value:
            document, findings = strict_json.parse_fast(value)
            if not findings:
                decoded[key] = document
    return decoded


def _mlflow_usage(span: Span, a: dict, number: _Numbers) -> None:
    """The tokens and dollars of an MLflow model span: ``mlflow.chat.tokenUsage`` and
    ``mlflow.llm.cost`` (objects; each count read by the kit's rule, naming its field)."""
    for key, names in ((MLFLOW_USAGE, (("input", "input_tokens"), ("output", "output_tokens"),
                                       ("total", "total_tokens"))),
                       (MLFLOW_COST, (("cost", "total_cost"),))):
        value = a.get(key)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise SourceError(number.path, number.where, f"attributes.{key} must be a JSON "
                              f"object, found {json_type(value)}")
        for target, name in names:
            if value.get(name) is None:
                continue
            field = f"attributes.{key}.{name}"
            if target == "cost":
                span.cost = numbers.amount(value[name], number.path, number.where, field,
                                           number.repairs)
                continue
            count = numbers.count(value[name], number.path, number.where, field, number.repairs)
            if target == "total":
                span.total_tokens = count
            else:
                span.usage[target] = count


class _Numbers:
    """The first attribute of several names that a span states, read by the kit's rule."""

    def __init__(self, path: Path, where: str, repairs: Counter):
        self.path, self.where, self.repairs = path, where, repairs

    def count(self, a: dict, names: tuple[str, ...]) -> int | None:
        key = _stated(a, names)
        if key is None:
            return None
        value = a[key]
        if type(value) is int and 0 <= value <= numbers.MAX_COUNT:
            return value  # the rule's usual case (its first test), without naming the field
        return numbers.count(value, self.path, self.where, f"attributes.{key}", self.repairs)

    def time(self, a: dict, name: str) -> int | None:
        """Nanoseconds since the epoch that an attribute of masrl's export states."""
        return None if a.get(name) is None else moment_ns(a[name], self.path, self.where,
                                                          f"attributes.{name}", unit=NS,
                                                          iso=False)

    def amount(self, a: dict, names: tuple[str, ...]) -> float | None:
        key = _stated(a, names)
        return None if key is None else numbers.amount(a[key], self.path, self.where,
                                                       f"attributes.{key}", self.repairs)


def _stated(a: dict, names: tuple[str, ...]) -> str | None:
    """The first of ``names`` whose attribute is not null."""
    for key in names:
        if a.get(key) is not None:
            return key
    return None


def _first(a: dict, names: tuple[str, ...]) -> Any:
    for key in names:
        value = a.get(key)
        if value is not None:
            return value
    return None


def _first_text(a: dict, names: tuple[str, ...]) -> str | None:
    for key in names:
        value = a.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


def crewai_role(a: dict) -> str | None:
    """The role of the CrewAI agent an agent span runs (OpenInference's CrewAI instrumentation
    names its agent spans after a method, ``Task._execute_core``, and writes the agent, as
    ``str()`` prints it, in ``input.value``: ``{"agent": "id=UUID(...) role='Writer' ..."}``)."""
    text = a.get("input.value")
    if not isinstance(text, str) or "role='" not in text:
        return None
    document, findings = strict_json.parse_fast(text)
    agent = document.get("agent") if not findings and isinstance(document, dict) else None
    match = CREWAI_ROLE.search(agent) if isinstance(agent, str) else None
    return match[1].replace("\\'", "'").strip() or None if match else None


def agent_from_name(name: str) -> str:
    return re.sub(r"^invoke_(agent|workflow)\s*", "", name).strip(" []") or "agent"


def _default_agent(raw: list[RawSpan]) -> str:
    return next((s.service for s in raw if s.service
                 and not s.service.startswith("unknown_service")), None) or "agent"


def _system(raw: list[RawSpan]) -> str:
    version = next((s.attributes["any_agent.version"] for s in raw
                    if isinstance(s.attributes.get("any_agent.version"), str)), None)
    if version:
        return f"any-agent {version}"
    if any(MLFLOW_TYPE in s.attributes for s in raw) and not any(s.service for s in raw):
        return "MLflow"
    service = next((s.service for s in raw if s.service), None)
    if service:
        return service
    scopes = sorted({s.scope for s in raw if s.scope})
    return f"OpenTelemetry ({scopes[0]})" if len(scopes) == 1 else "OpenTelemetry"


def sniff(sample: Sample) -> str | None:
    """OTLP JSON (``resourceSpans``), or spans with OpenTelemetry ids: Python (``context``), flat
    span dicts (``trace_id`` and ``span_id``) or JavaScript (``traceId`` / ``spanContext``)."""
    if otel_shapes.is_mlflow_trace(sample.document):
        return "MLflow trace JSON: info and data.spans"
    items = _sniffed_items(sample)
    if any(isinstance(i, dict) and "resourceSpans" in i for i in items):
        return "OTLP JSON: resourceSpans"
    first = next((i for i in items if isinstance(i, dict)), None)
    if first is None:
        return None
    context = first.get("context")
    if isinstance(context, dict) and "span_id" in context and "trace_id" in context:
        if "span_kind" in first or "status_code" in first:
            return "Phoenix spans: context ids and span_kind"
        return "spans with OpenTelemetry context ids (Python SDK / any-agent)"
    if "context.span_id" in first and "context.trace_id" in first:
        return "Phoenix spans dataframe records: context.span_id"
    if "trace_id" in first and "span_id" in first and ("start_time" in first
                                                       or "start_time_unix_nano" in first):
        return "flat span dicts: trace_id, span_id, start_time"
    if "traceId" in first and ("spanId" in first or "parentSpanId" in first
                               or ("id" in first and "timestamp" in first)):
        return "spans with OpenTelemetry traceId / spanId (JavaScript SDK)"
    span_context = first.get("spanContext", first.get("_spanContext"))
    if isinstance(span_context, dict) and "traceId" in span_context:
        return "spans with OpenTelemetry spanContext (JavaScript SDK)"
    if hrtime_ns(first.get("startTime")) is not None and "name" in first:
        return "JavaScript SDK spans without ids: name, startTime [seconds, nanoseconds]"
    return None


def _sniffed_items(sample) -> list:
    if sample.records is not None:
        return sample.records
    document = sample.document
    if isinstance(document, dict) and isinstance(document.get("spans"), list):
        return document["spans"][:1]
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        return document["data"][:1]
    if isinstance(document, list):
        first = document[:1]
        if first and isinstance(first[0], dict) and isinstance(first[0].get("spans"), list):
            return first[0]["spans"][:1]  # a list of bundles
        return first
    if isinstance(document, dict):
        return [document]
    return []




def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return ('looks for OTLP JSON (resourceSpans), or spans with OpenTelemetry ids: Python '
            '(context), flat span dicts (trace_id and span_id) or JavaScript (traceId / '
            'spanContext)')
