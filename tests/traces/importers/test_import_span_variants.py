"""Versions and variants of the span-based logs, each detected and recorded in
``provenance.recognised``: one test per variant on a hand-written fixture (ours) and, when
``../shared/traces`` is there, on a real file of that variant (skipped with a reason on a fresh
clone)."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES

from masrl import paths
from masrl.traces import validate_document
from masrl.traces.importers import import_file, import_traces
from masrl.traces.importers._kit.accounting import conservation_problems, figures
from masrl.traces.importers.spans.otel import NO_RUN, NOT_IN_A_TRACE
from masrl.traces.importers.spans.tree import AS_TOOL, STARTED, WORKFLOW, WRAPPER

OTEL, LANGFUSE = FIXTURES / "otel", FIXTURES / "langfuse"
REAL = paths.public_logs_dir() / "real-logs"
FLAT = "otel-flat-spans/strands-agents__evals/4190bbbc/tests/strands_evals/mappers/fixtures"
JS = "otel-js-spans/Arize-ai__openinference"
SEEDS = "langfuse-export/langfuse__langfuse/62751446"
CHATML = f"{SEEDS}/worker/src/__tests__/chatml/framework-traces"


def real(name: str):
    path = REAL / name
    if not path.is_file():
        pytest.skip(f"real log not available: {path} (a fresh clone has no ../shared/traces)")
    return path


def checked(results: list) -> list:
    """Every trace valid and balanced."""
    for result in results:
        assert validate_document(result.trace).errors == []
        assert conservation_problems(result.trace) == []
    return results


def count(result, key: str) -> int:
    return figures(result.trace)[key]


# ---------------------------------------------------------------------------------- OTel shapes

def test_phoenix_spans_read_the_span_kind_field():
    (result,) = checked(import_traces("auto", OTEL / "phoenix_spans.json"))
    assert result.recognised["shape"] == "Phoenix REST spans"
    assert "OpenInference span kind field (Phoenix) (9)" in result.recognised["evidence"]
    spawn = next(e for e in result.trace["events"] if e["type"] == "spawn")
    assert (spawn["agent"], spawn["to"]) == ("coordinator", "analyst")  # through ask_analyst
    assert (count(result, "model_calls"), count(result, "tool_calls")) == (3, 2)
    analyst = next(e for e in result.trace["events"] if e["id"] == "0000000000000006")
    assert analyst["x_usage"] == {"input": 150, "output": 40, "cached_input": 100}
    assert result.skipped == {"span: openinference CHAIN": 1, "span: openinference RETRIEVER": 1}


def test_phoenix_spans_with_ids_that_are_not_hex_keep_them():
    """Spans logged to Phoenix with ids of their own (``turn``, ``tool-1``) come back with
    those ids: they join parents and children as written, not refused as bad hex."""
    (result,) = checked(import_traces("auto", OTEL / "phoenix_opaque_ids.json"))
    assert result.recognised["shape"] == "Phoenix REST spans"
    assert result.trace["trace_id"] == "otel:harbour-turn-7"
    found = figures(result.trace)
    assert (found["agents"], found["spawns"], found["tool_calls"], found["model_calls"],
            found["tokens_in"], found["tokens_out"]) == (2, 1, 1, 2, 15, 5)
    spawn = next(e for e in result.trace["events"] if e["type"] == "spawn")
    assert (spawn["agent"], spawn["to"], spawn["x_source"]) == (
        "harbour.turn", "Helper.run", "span helper")


def test_without_the_field_phoenix_spans_give_no_events(tmp_path):
    document = json.loads((OTEL / "phoenix_spans.json").read_text(encoding="utf-8"))
    for span in document["data"]:
        del span["span_kind"]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(Exception, match="no span maps to an event"):
        import_file("otel", path)


def test_flat_span_dicts_and_adot_bundles_of_two_sessions():
    (flat,) = checked(import_traces("auto", OTEL / "flat_spans.json"))
    assert flat.recognised["shape"] == "flat span dicts"
    assert flat.recognised["system"] == "OpenTelemetry (fixture.instrumentation)"
    bundles = checked(import_traces("auto", OTEL / "adot_bundles.json"))
    assert [r.trace["trace_id"] for r in bundles] == ["otel:" + "11" * 16, "otel:" + "22" * 16]
    assert bundles[0].trace["events"] == flat.trace["events"]
    assert bundles[0].repairs["bundle whose span_count differs from the spans it holds"] == 1
    assert [count(r, "tokens_in") for r in bundles] == [80, 95]
    with pytest.raises(Exception, match="a file of several runs imports as one trace per run"):
        import_file("otel", OTEL / "adot_bundles.json")


def test_real_flat_spans_and_an_adot_bundle():
    (bundle,) = checked(import_traces("auto", real(f"{FLAT}/claude_adot_spans.json")))
    assert bundle.recognised["shape"] == "flat span dicts"
    assert (count(bundle, "agents"), count(bundle, "spawns"), count(bundle, "tool_calls")) == (
        3, 2, 4)
    (live,) = checked(import_traces("auto", real(f"{FLAT}/adk_live_spans.json")))
    assert "GenAI operation name" in live.recognised["evidence"]
    assert count(live, "model_calls") == 2  # generate_content; call_llm repeats its usage


def test_agent_framework_console_prints_merged_siblings_attributed_one_trace_per_run():
    first, second = checked(import_traces("auto", OTEL / "agent_framework_console.log"))
    assert first.skipped[STARTED] == 2
    assert first.skipped[f"metrics record (not a span) {NOT_IN_A_TRACE}"] == 1
    assert "2 spans printed at their start and at their end, merged" in (
        first.recognised["evidence"])
    agents = {(e["type"], e["agent"]) for e in first.trace["events"]}
    assert agents == {("message", "planner"), ("tool_call", "planner"),
                      ("tool_result", "planner"), ("message", "booker")}  # not one agent
    assert first.trace["provenance"]["records"] == {"unit": "span", "read": 11, "mapped": 5,
                                                    "skipped": 6}
    assert [e["agent"] for e in second.trace["events"]] == ["helper"]


def test_a_chat_that_starts_before_its_agent_span_belongs_to_it(tmp_path):
    """Agent Framework's streaming path opened the chat span before the agent's (issue 5528)."""
    text = (OTEL / "agent_framework_console.log").read_text(encoding="utf-8")
    changed = text.replace('"start_time": "2025-10-01T10:00:02.050000Z"',
                           '"start_time": "2025-10-01T10:00:01.995000Z"')
    assert changed != text
    path = tmp_path / "console.log"
    path.write_text(changed, encoding="utf-8")
    first = import_traces("otel", path)[0]
    booker = next(e for e in first.trace["events"] if e["id"] == "0000000000000008")
    assert booker["agent"] == "booker"


USAGE_ONLY = OTEL / "agent_framework_usage_only.log"


def test_an_agent_span_whose_usage_is_its_only_model_record_gives_its_model_call():
    """Agent Framework without an instrumented chat client prints ``invoke_agent`` spans that
    carry the run's tokens and no chat span: those tokens are the agent's model calls."""
    first, second = checked(import_traces("auto", USAGE_ONLY))
    assert figures(first.trace) | {"first": None, "last": None} == {
        "agents": 1, "spawns": 0, "tool_calls": 1, "model_calls": 1, "tokens_in": 40,
        "tokens_out": 12, "first": None, "last": None}
    call = next(e for e in first.trace["events"] if e["type"] == "message")
    assert (call["agent"], call["x_model_call"], call["tokens"]) == (
        "sommelier", "0000000000000021", 52)
    assert first.trace["provenance"]["usage"]["skipped"]["tokens_in"] == 0
    # an agent span with an agent below it keeps its total out (it may hold the inner
    # agent's calls): here the outer span only holds that agent (a run)
    assert (count(second, "agents"), count(second, "model_calls"),
            count(second, "tokens_in"), count(second, "tokens_out")) == (1, 1, 9, 5)
    assert second.trace["provenance"]["usage"]["skipped"]["tokens_in"] == 30
    assert second.skipped[WORKFLOW] == 1


def test_a_lone_agent_span_with_usage_is_a_run_not_a_refusal(tmp_path):
    text = USAGE_ONLY.read_text(encoding="utf-8")
    lone = text[:text.index("}\n{") + 2]  # the first span printed: the agent, alone
    path = tmp_path / "console.log"
    path.write_text(lone, encoding="utf-8")
    (result,) = checked(import_traces("otel", path))
    assert [(e["type"], e["agent"], e["tokens"]) for e in result.trace["events"]] == [
        ("message", "sommelier", 52)]
    assert result.trace["provenance"]["records"] == {"unit": "span", "read": 1, "mapped": 1,
                                                     "skipped": 0}


def test_javascript_spans_without_ids_are_one_trace():
    (result,) = checked(import_traces("auto", OTEL / "js_no_ids.json"))
    assert result.recognised["shape"] == "JavaScript spans without ids"
    assert result.trace["trace_id"].startswith("otel:sha256-")
    assert (count(result, "model_calls"), count(result, "tokens_in"),
            count(result, "tokens_out")) == (2, 70 + 90, 9 + 25)
    assert result.skipped[WRAPPER] == 1  # ai.streamText: its steps are in the trace


def test_real_javascript_spans_by_span_context_and_without_ids():
    (v6,) = checked(import_traces("auto", real(f"{JS}/1fe497f1/js/packages/openinference-"
                                                "vercel/test/__fixtures__/v6-spans/"
                                                "ai-streamText-doStream.json")))
    assert v6.recognised["shape"] == "JavaScript SDK spans"
    (mastra,) = checked(import_traces("auto", real(f"{JS}/a5734898/js/packages/openinference-"
                                                    "mastra/test/__fixtures__/"
                                                    "weatherAgentSpans.json")))
    assert mastra.recognised["shape"] == "JavaScript spans without ids"
    assert count(mastra, "model_calls") == 2


def test_real_agents_used_as_tools_and_a_workflow_span():
    (live,) = checked(import_traces("auto", real(f"{FLAT}/openai_agents_genai_live_spans.json")))
    assert live.repairs[AS_TOOL] == 2 and count(live, "spawns") == 2
    (adot,) = checked(import_traces("auto", real(
        f"{FLAT}/openai_agents_openinference_adot_spans.json")))
    assert adot.skipped[WORKFLOW] == 1 and count(adot, "spawns") == 0
    handoff = next(e for e in adot.trace["events"] if e["type"] == "orchestrator_decision")
    assert (handoff["agent"], handoff["to"]) == ("coordinator", "math_specialist")


def test_a_trace_with_no_agent_work_is_counted_with_the_first_run():
    (run,) = checked(import_traces("auto", real(f"{FLAT}/autogen_live_spans.json")))
    assert run.skipped[NO_RUN] == 1  # the create_agent span of its own trace


# ---------------------------------------------------------------------------------- Langfuse

def test_langfuse_download_with_event_steps():
    (result,) = checked(import_traces("auto", LANGFUSE / "download_with_events.json"))
    assert result.recognised["shape"] == "UI download {trace, observations}"
    steps = [e for e in result.trace["events"] if e["id"] in ("o2", "o4")]
    assert [(e["type"], e["agent"]) for e in steps] == [("message", "stepper")] * 2
    draft = next(e for e in result.trace["events"] if e["id"] == "o3")
    assert draft["x_usage"] == {"input": 100, "output": 50, "output_reasoning": 30}  # 150 split
    final = next(e for e in result.trace["events"] if e["id"] == "o6")
    assert (final["x_usage"], final["cost_usd"]) == ({"input": 40, "output": 8}, 0.0004)
    assert "SPAN read as tool by OpenInference span kind attribute (1)" in (
        result.recognised["evidence"])


def test_langfuse_export_of_two_traces_one_per_line():
    results = checked(import_traces("auto", LANGFUSE / "traces.jsonl"))
    assert [r.trace["trace_id"] for r in results] == ["langfuse:lf-run-1", "langfuse:lf-run-2"]
    assert [count(r, "tokens_in") for r in results] == [10, 20]
    with pytest.raises(Exception, match="2 traces"):
        import_file("langfuse", LANGFUSE / "traces.jsonl")


def test_real_langfuse_seeder_download_and_framework_variants():
    (seed,) = checked(import_traces("auto", real(
        f"{SEEDS}/packages/shared/scripts/seeder/utils/framework-traces/"
        "openai-assistants-2024-05-29.json")))
    assert seed.trace["trace_id"] == "langfuse:b3b7b128-5664-4f42-9fab-31999da9e2f1"
    (beeai,) = checked(import_traces("auto", real(f"{CHATML}/beeai-2025-08-01.trace.json")))
    assert "BeeAI emitter events read by their start" in beeai.recognised["evidence"]
    assert (count(beeai, "model_calls"), count(beeai, "tool_calls")) == (3, 1)
    (graph,) = checked(import_traces("auto", real(f"{CHATML}/langgraph-js-2025-10-30.trace.json")))
    assert "LangGraph ToolNode runs read as tool calls (1)" in graph.recognised["evidence"]


def test_phoenix_otlpv1_snake_case_and_dataframe_records(tmp_path):
    """Phoenix's ``/spans/otlpv1`` (OTLP with protobuf's snake_case names) and the records of a
    spans dataframe (``context.span_id``, ``attributes.*`` columns, epoch milliseconds) give
    the same run as the flat dicts they stand for."""
    otlpv1 = {"data": [
        {"trace_id": "cd" * 16, "span_id": "01" * 8, "parent_span_id": None,
         "name": "invoke_agent tutor", "start_time_unix_nano": "1760000000000000000",
         "end_time_unix_nano": "1760000000900000000",
         "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "invoke_agent"}},
                        {"key": "gen_ai.agent.name", "value": {"string_value": "tutor"}}],
         "status": {"code": 1}},
        {"trace_id": "cd" * 16, "span_id": "02" * 8, "parent_span_id": "01" * 8,
         "name": "chat", "start_time_unix_nano": 1760000000100000000,
         "end_time_unix_nano": 1760000000400000000,
         "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "chat"}},
                        {"key": "gen_ai.usage.input_tokens", "value": {"int_value": "80"}},
                        {"key": "gen_ai.usage.output_tokens", "value": {"int_value": 12}}],
         "status": {"code": 2}}]}
    records = [
        {"context.span_id": "01" * 8, "context.trace_id": "cd" * 16, "parent_id": None,
         "name": "tutor", "span_kind": "AGENT", "start_time": 1760000000000,
         "end_time": 1760000000900, "status_code": "OK", "attributes.agent.name": "tutor"},
        {"context.span_id": "02" * 8, "context.trace_id": "cd" * 16, "parent_id": "01" * 8,
         "name": "chat", "span_kind": "LLM", "start_time": 1760000000100,
         "end_time": 1760000000400, "status_code": "ERROR",
         "attributes.llm.token_count.prompt": 80, "attributes.llm.token_count.completion": 12,
         "attributes.llm.model_name": None}]
    found = []
    for name, document, shape in (("v1.json", otlpv1, "flat span dicts"),
                                  ("frame.json", records, "Phoenix dataframe records")):
        path = tmp_path / name
        path.write_text(json.dumps(document), encoding="utf-8")
        (result,) = checked(import_traces("auto", path))
        assert result.recognised["shape"] == shape
        found.append([(e["type"], e["agent"], e.get("tokens"), e.get("x_error"))
                      for e in result.trace["events"]])
    assert found[0] == found[1] == [("message", "tutor", 92, True)]


def test_a_renamed_invocation_never_takes_a_name_the_log_uses():
    """The second invocation of ``planner`` is ``planner#2`` unless the log has an agent of
    that very name: then it is ``planner#3``, and the two agents stay apart."""
    from masrl.traces.importers.spans.tree import AGENT, Span, agent_names

    spans = [Span(f"s{k}", None, k, k + 1, AGENT, "-", name=name)
             for k, name in enumerate(["planner", "planner#2", "planner", "planner"])]
    assert list(agent_names(spans).values()) == ["planner", "planner#2", "planner#3",
                                                 "planner#4"]


def test_agents_named_like_a_renamed_invocation_stay_two_agents(tmp_path):
    """Two invocations of ``planner`` and an agent the log calls ``planner#2``: three agents,
    where renaming the second invocation ``planner#2`` merged two of them."""
    def span(k: int, name: str, operation: str, parent: int | None = None) -> dict:
        attributes = [{"key": "gen_ai.operation.name", "value": {"stringValue": operation}}]
        if operation == "invoke_agent":
            attributes.append({"key": "gen_ai.agent.name", "value": {"stringValue": name}})
        return {"traceId": "ab" * 16, "spanId": f"{k:016x}",
                "parentSpanId": "" if parent is None else f"{parent:016x}", "name": name,
                "startTimeUnixNano": str(1_760_000_000 * 10**9 + k * 10**8),
                "endTimeUnixNano": str(1_760_000_000 * 10**9 + k * 10**8 + 5 * 10**7),
                "attributes": attributes, "status": {}}

    spans = []
    for k, name in enumerate(["planner", "planner", "planner#2"], start=1):
        spans += [span(2 * k, name, "invoke_agent"), span(2 * k + 1, "chat", "chat", 2 * k)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"resourceSpans": [{"resource": {"attributes": []},
                                                   "scopeSpans": [{"spans": spans}]}]}),
                    encoding="utf-8")
    trace = import_file("otel", path).trace
    assert sorted({e["agent"] for e in trace["events"]}) == ["planner", "planner#2",
                                                             "planner#3"]
    assert validate_document(trace).problems == []
