"""Hostile logs: repeated keys, numbers beyond a double, deep nesting and lone surrogates in
every importer's reading (one strict JSON, located by line and field); span trees thousands
deep and thousands of parent cycles (no recursion, one pass); token counts whose sums
overflow (a located error, never ``Infinity`` in a trace)."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from importer_helpers import FIXTURES

from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers.spans import CYCLE


def otlp(spans: list[dict]) -> dict:
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}


def span(k: int, parent: int | None, operation: str = "invoke_agent") -> dict:
    return {"traceId": "ab" * 16, "spanId": f"{k + 1:016x}",
            "parentSpanId": "" if parent is None else f"{parent + 1:016x}",
            "name": f"{operation} agent{k}", "startTimeUnixNano": str(10**9 + 1000 * k),
            "endTimeUnixNano": str(10**9 + 10**7 - 1000 * k),
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": operation}},
                           {"key": "gen_ai.agent.name", "value": {"stringValue": f"agent{k}"}}],
            "status": {}}


def test_a_span_tree_3000_deep_imports_without_recursion(tmp_path):
    path = tmp_path / "deep.json"
    spans = [span(k, None if k == 0 else k - 1) for k in range(3000)]
    spans.append({**span(3000, 2999, "chat"), "name": "chat model"})
    path.write_text(json.dumps(otlp(spans)), encoding="utf-8")
    start = time.perf_counter()
    result = import_file("otel", path)
    assert time.perf_counter() - start < 30
    spawns = [e for e in result.trace["events"] if e["type"] == "spawn"]
    assert len(spawns) == 2999
    assert result.trace["events"][-1]["agent"] == "agent2999"


def test_thousands_of_parent_cycles_are_cut_in_one_pass(tmp_path):
    path = tmp_path / "cycles.json"
    spans = [span(0, None, "chat")]
    for k in range(1, 4001, 2):  # 2,000 pairs of spans, each the other's parent
        spans += [span(k, k + 1, "chat"), span(k + 1, k, "chat")]
    path.write_text(json.dumps(otlp(spans)), encoding="utf-8")
    start = time.perf_counter()
    result = import_file("otel", path)
    assert time.perf_counter() - start < 30
    assert result.repairs[CYCLE] == 2000
    assert len(result.trace["events"]) == 4001  # every span kept


# ---------------------------------------------------------------------------------- strict JSON

CASES = {  # format -> (fixture, text replaced, replacement, where, message)
    "who-and-when": ("who_and_when/magentic_one.json", '"is_corrected": false',
                     '"is_corrected": "no", "is_corrected": false', None,
                     'duplicate key "is_corrected": JSON objects must not repeat a key (only the '
                     "last value would be read) (at /)"),
    "claude-code": ("claude_code/s1.jsonl", '"preTokens":700', '"preTokens":-1,"preTokens":700',
                    21, 'duplicate key "preTokens": JSON objects must not repeat a key (only the '
                    "last value would be read) (at /compactMetadata)"),
    "otel": ("otel/otlp.json", '"intValue": "30"', '"intValue": 1' + "0" * 400, None,
             "not JSON: 100000000000...0000 (401 characters) is too large a number: a double "
             "holds at most about 1.8e308 (at /resourceSpans/0/scopeSpans/0/spans/1/attributes/"
             "2/value/intValue)"),
    "atif": ("atif/single_agent.json", '"schema_version"', '"x": "\\udc00", "schema_version"',
             None, "a string holds a lone surrogate (\\ud800 to \\udfff without its pair), which "
             "is not Unicode text (at /x)"),
}


@pytest.mark.parametrize("fmt", CASES)
def test_strict_json_in_every_importer(tmp_path, fmt):
    fixture, old, new, where, message = CASES[fmt]
    source = FIXTURES / fixture
    path = tmp_path / source.name
    text = source.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file(fmt, path)
    place = str(path) if where is None else f"{path}:{where}"
    assert str(caught.value) == f"{place}: {message}"


@pytest.mark.parametrize("fmt", ["otel", "who-and-when", "atif", "langfuse", "auto"])
def test_deep_nesting_is_a_source_error(tmp_path, fmt):
    path = tmp_path / "deep.json"
    path.write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    with pytest.raises(SourceError, match="nested too deeply"):
        import_file(fmt, path)


@pytest.mark.parametrize("fmt", ["claude-code", "codex", "openai-agents"])
def test_deep_nesting_in_a_line_is_a_source_error_naming_it(tmp_path, fmt):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"a": 1}\n' + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match="nested too deeply") as caught:
        import_file(fmt, path)
    assert caught.value.where == 2


def test_token_counts_whose_sum_overflows_are_a_located_error(tmp_path):
    folder = tmp_path / "codex"
    shutil.copytree(FIXTURES / "codex", folder)
    main = next(folder.glob("*aaaa.jsonl"))
    text = main.read_text(encoding="utf-8")
    for count in ('"last_token_usage":{"input_tokens":1200',
                  '"last_token_usage":{"input_tokens":1400'):
        assert count in text
        text = text.replace(count, '"last_token_usage":{"input_tokens":1.5e308')
    main.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("codex", main)
    assert str(caught.value) == (f"{main}: costs.tokens is inf: the log's numbers add up to "
                                 "more than a double holds")
