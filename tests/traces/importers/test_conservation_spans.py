"""Conservation in the span-based importers (OpenTelemetry, Langfuse, OpenAI Agents SDK): on
generated logs with random records (known kinds, kinds the importer does not know, records that
are skipped with usage, exact copies, prints of a span at its start), every record read is
mapped or skipped, and the tokens and dollars the generator put in are found again in the
events or among the skipped records (:mod:`masrl.traces.importers._kit.accounting`).

Examples are derandomised and few, so the suite stays fast and cannot turn red by chance."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_traces
from masrl.traces.importers._kit.accounting import conservation_problems, trace_usage

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
NS = 1_000_000_000
T0 = 1_760_000_000 * NS

usage = st.one_of(st.none(), st.tuples(st.integers(0, 5000), st.integers(0, 900),
                                       st.integers(0, 1000)))  # (in, out, micro-dollars)


def totals(results) -> dict:
    """What the books of several traces of one file say, added up."""
    found = {"read": 0, "mapped": 0, "skipped": 0}
    source = {"tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0}
    for result in results:
        provenance = result.trace["provenance"]
        for key in found:
            found[key] += provenance["records"][key]
        for key in source:
            source[key] += provenance["usage"]["source"][key]
        assert conservation_problems(result.trace) == []
        assert validate_document(result.trace).errors == []
        carried = trace_usage(result.trace)
        skipped = provenance["usage"]["skipped"]
        for key in source:
            assert math.isclose(provenance["usage"]["source"][key], carried[key] + skipped[key],
                                abs_tol=1e-9)
    return {**found, **source}


def expect_books(path, fmt, records: int, stated: dict):
    try:
        results = import_traces(fmt, path)
    except SourceError as exc:  # nothing maps: a refusal that says so
        assert "no span maps to an event" in str(exc)
        return
    books = totals(results)
    assert books["read"] == records
    assert books["read"] == books["mapped"] + books["skipped"]
    assert (books["tokens_in"], books["tokens_out"]) == (stated["in"], stated["out"])
    assert books["cost_usd"] == pytest.approx(stated["usd"], abs=1e-9)


# ---------------------------------------------------------------------------------- OpenTelemetry

OTEL_KINDS = ("invoke_agent", "chat", "execute_tool", "embeddings", "made_up_op", None)


@st.composite
def otel_logs(draw):
    """Flat span dicts of one or two traces, one per line, with records that are no span."""
    n = draw(st.integers(1, 14))
    lines, stated = [], {"in": 0, "out": 0, "usd": 0.0}
    records = 0
    for k in range(n):
        op = draw(st.sampled_from(OTEL_KINDS))
        start = draw(st.integers(0, 50)) * NS // 10
        end = start + draw(st.integers(0, 30)) * NS // 10
        attributes = {} if op is None else {"gen_ai.operation.name": op}
        if op == "invoke_agent":
            attributes["gen_ai.agent.name"] = draw(st.sampled_from(["a", "b", "c"]))
        spent = draw(usage)
        if spent is not None:
            attributes.update({"gen_ai.usage.input_tokens": spent[0],
                               "gen_ai.usage.output_tokens": spent[1],
                               "gen_ai.usage.cost": spent[2] / 1e6})
            stated["in"] += spent[0]
            stated["out"] += spent[1]
            stated["usd"] += spent[2] / 1e6
        parent = draw(st.one_of(st.none(), st.integers(0, max(k - 1, 0))))
        span = {"trace_id": draw(st.sampled_from(["aa" * 16, "bb" * 16])),
                "span_id": f"{k + 1:016x}",
                "parent_span_id": None if parent is None or k == 0 else f"{parent + 1:016x}",
                "name": op or "work", "start_time": T0 + start, "end_time": T0 + end,
                "attributes": attributes, "status": {"code": "UNSET"}}
        if draw(st.booleans()) and draw(st.booleans()):  # printed at its start too
            lines.append({**span, "end_time": None})
            records += 1
        lines.append(span)
        records += 1
        if draw(st.booleans()) and draw(st.booleans()):  # an exact copy: states nothing again
            lines.append(span)
            records += 1
        if draw(st.integers(0, 9)) == 0:  # a record that is no span
            lines.append({"mystery": k})
            records += 1
    return lines, records, stated


@PROPERTY
@given(otel_logs())
def test_otel_books_balance_against_the_generator(tmp_path, log):
    lines, records, stated = log
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    expect_books(path, "otel", records, stated)


# ---------------------------------------------------------------------------------- Langfuse

LANGFUSE_TYPES = ("AGENT", "GENERATION", "TOOL", "EVENT", "SPAN", "RETRIEVER", "MYSTERY")


@st.composite
def langfuse_logs(draw):
    n = draw(st.integers(1, 14))
    observations, stated = [], {"in": 0, "out": 0, "usd": 0.0}
    for k in range(n):
        kind = draw(st.sampled_from(LANGFUSE_TYPES))
        start = draw(st.integers(0, 50))
        end = draw(st.one_of(st.none(), st.integers(start, start + 30)))
        observation = {"id": f"o{k}", "type": kind, "name": f"n{k % 3}",
                       "startTime": f"2025-01-01T00:00:{start:02d}Z",
                       "endTime": None if end is None else f"2025-01-01T00:{end // 60:02d}:"
                                                           f"{end % 60:02d}Z",
                       "parentObservationId": None if k == 0 or draw(st.booleans())
                       else f"o{draw(st.integers(0, k - 1))}"}
        spent = draw(usage)
        if spent is not None and (spent[0] or spent[1] or kind == "GENERATION"):
            split = draw(st.integers(0, spent[1]))  # Langfuse's split of the output
            observation["usageDetails"] = {"input": spent[0], "output": spent[1] - split,
                                           "output_reasoning": split,
                                           "total": spent[0] + spent[1]}
            observation["costDetails"] = {"total": spent[2] / 1e6}
            stated["in"] += spent[0]
            stated["out"] += spent[1]
            stated["usd"] += spent[2] / 1e6
        observations.append(observation)
    return {"trace": {"id": "t1", "name": "run"}, "observations": observations}, n, stated


@PROPERTY
@given(langfuse_logs())
def test_langfuse_books_balance_against_the_generator(tmp_path, log):
    document, records, stated = log
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    expect_books(path, "langfuse", records, stated)


# ---------------------------------------------------------------------------------- OpenAI Agents

AGENTS_TYPES = ("agent", "generation", "response", "function", "handoff", "custom", "mystery")


@st.composite
def openai_agents_logs(draw):
    n = draw(st.integers(1, 12))
    records = [{"object": "trace", "id": "trace_1", "workflow_name": "wf"}]
    stated = {"in": 0, "out": 0, "usd": 0.0}
    for k in range(n):
        kind = draw(st.sampled_from(AGENTS_TYPES))
        start = draw(st.integers(0, 50))
        data = {"type": kind, "name": f"n{k % 2}"}
        if kind == "handoff":
            data.update(from_agent="n0", to_agent="n1")
        if kind in ("generation", "response") and draw(st.booleans()):
            spent = draw(usage) or (0, 0, 0)
            data["usage"] = {"input_tokens": spent[0], "output_tokens": spent[1]}
            stated["in"] += spent[0]
            stated["out"] += spent[1]
        records.append({"object": "trace.span", "id": f"span_{k}", "trace_id": "trace_1",
                        "parent_id": None if k == 0 or draw(st.booleans())
                        else f"span_{draw(st.integers(0, k - 1))}",
                        "started_at": f"2025-01-01T00:00:{start:02d}Z",
                        "ended_at": f"2025-01-01T00:01:{start:02d}Z",
                        "span_data": data, "error": None})
        if draw(st.integers(0, 7)) == 0:
            records.append({"object": "trace.mystery", "trace_id": "trace_1"})
    return records, len(records), stated


@PROPERTY
@given(openai_agents_logs())
def test_openai_agents_books_balance_against_the_generator(tmp_path, log):
    records, count, stated = log
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    expect_books(path, "openai-agents", count, stated)
