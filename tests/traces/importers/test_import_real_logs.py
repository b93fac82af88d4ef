"""Every public log in ../shared/traces imports into a trace that validates, the same bytes twice,
without copying any text; skipped with a reason on a fresh clone, where the folder is absent."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from masrl import paths
from masrl.analyses.real_runs import default_catalogue, discover
from masrl.traces import validate_document
from masrl.traces.importers import dumps, import_file

REAL = paths.public_logs_dir()
ABSENT = f"public logs not available at {REAL} (a fresh clone has no ../shared/traces)"
LOGS = discover(REAL) if REAL.is_dir() else []
PARAMS = [pytest.param(log, id=f"{log.source.key}/{log.path.name}") for log in LOGS] or [
    pytest.param(None, id="absent")]
MIN_TEXT = 24  # text: at least this long and with a space (ids, names, versions have none)


def needs_logs(log):
    if log is None:
        pytest.skip(ABSENT)


@pytest.mark.parametrize("log", PARAMS)
def test_real_log_imports_into_a_valid_trace(log):
    needs_logs(log)
    result = import_file(log.source.format, log.path)
    report = validate_document(result.trace, source=str(log.path))
    assert report.errors == [], report.lines()
    assert dumps(import_file(log.source.format, log.path).trace) == dumps(result.trace)


@pytest.mark.parametrize("log", PARAMS)
def test_real_log_provenance_holds_the_summary_counts(log):
    needs_logs(log)
    result = import_file(log.source.format, log.path)
    summary, provenance = result.summary(), result.trace["provenance"]
    assert (provenance["format"], provenance["skipped"], provenance["repaired"]) == (
        log.source.format, summary["skipped"], summary["repairs"])
    assert provenance["sources"] == [
        {"name": os.path.relpath(f, log.path.parent).replace(os.sep, "/"),
         "sha256": hashlib.sha256(Path(f).read_bytes()).hexdigest()} for f in summary["files"]]
    assert provenance["sources"][0]["name"] == log.path.name


@pytest.mark.parametrize("log", PARAMS)
def test_real_log_text_never_reaches_the_trace(log):
    needs_logs(log)
    result = import_file(log.source.format, log.path)
    labels = result.trace.get("labels", [])  # the source's gold answers and annotations:
    text = dumps({k: v for k, v in result.trace.items() if k != "labels"})  # kept on purpose
    leaked = [s for s in source_texts(result.files) if s in text]
    assert leaked == []
    if log.source.format == "who-and-when":  # labels hold the gold fields, nothing else
        assert {label["name"] for label in labels} <= {
            "mistake_agent", "mistake_step", "mistake_reason", "ground_truth", "is_correct",
            "is_corrected"}
    carriers = ("message", "tool_call", "spawn")
    missing = [e["id"] for e in result.trace["events"]
               if e["type"] in carriers and "content_ref" not in e
               and log.source.format != "otel"]
    assert missing == []


def source_texts(files: list[str]) -> set[str]:
    found: set[str] = set()
    for name in files:
        path = Path(name)
        lines = path.read_text(encoding="utf-8").splitlines() if path.suffix == ".jsonl" else [
            path.read_text(encoding="utf-8")]
        for line in lines:
            if line.strip():
                _strings(json.loads(line), found)
    return {s for s in found if len(s) >= MIN_TEXT and " " in s}


def _strings(node, found: set[str]) -> None:
    if isinstance(node, str):
        found.add(node)
    elif isinstance(node, dict):
        for value in node.values():
            _strings(value, found)
    elif isinstance(node, list):
        for value in node:
            _strings(value, found)


@pytest.mark.parametrize("log", [p for p in PARAMS if p.values[0] is None
                                 or p.values[0].source.format == "claude-code"])
def test_claude_code_accounts_for_every_line(log):
    """Each line of the session and its sub-agent files gives events, is counted as skipped, or
    is the sub-agent prompt carried by the spawn event (one block per record in these logs)."""
    needs_logs(log)
    result = import_file("claude-code", log.path)
    lines = sum(len(Path(f).read_text(encoding="utf-8").splitlines()) for f in result.files)
    sources = {e["x_source"] for e in result.trace["events"]}
    merged = result.repairs["sub-agent prompt record carried by its spawn event"]
    assert lines == len(sources) + sum(result.skipped.values()) + merged


@pytest.mark.parametrize("log", [p for p in PARAMS if p.values[0] is None
                                 or p.values[0].source.format == "who-and-when"])
def test_who_and_when_keeps_every_record_and_the_label(log):
    needs_logs(log)
    document = json.loads(log.path.read_text(encoding="utf-8"))
    trace = import_file("who-and-when", log.path).trace
    assert len(trace["events"]) == len(document["history"])
    labelled = [e["id"] for e in trace["events"] if e.get("x_mistake_step")]
    assert labelled == [f"h{int(document['mistake_step'])}"]


def test_every_file_of_each_source_is_covered():
    if not REAL.is_dir():
        pytest.skip(ABSENT)
    found = {str(log.path) for log in LOGS}
    for source in default_catalogue():
        folder = REAL / source.folder
        present = {str(p) for p in folder.iterdir()
                   if p.is_file() and p.name != "LICENSE" and p.suffix in (".json", ".jsonl")}
        assert present <= found, f"{source.folder}: not imported: {sorted(present - found)}"
    sub_agent_files = {str(p) for p in (REAL / "claude-code").glob("*/subagents/*.jsonl")}
    read = {f for log in LOGS if log.source.format == "claude-code"
            for f in import_file("claude-code", log.path).files}
    assert sub_agent_files <= read
