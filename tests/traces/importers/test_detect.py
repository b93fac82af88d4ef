"""``masrl import auto``: the format is recognised from the content, never from the name."""

from __future__ import annotations

import shutil

import pytest
from importer_helpers import FIXTURES

from masrl.traces.importers import import_file
from masrl.traces.importers._kit import detect
from masrl.traces.importers._kit.common import SourceError
from masrl.traces.importers.registry import FORMATS, load
from masrl.traces.importers.sessions import claude_code


def _metadata(path) -> bool:
    """Claude Code workflow metadata, read with a session and claimed by no format."""
    return "claude_code" in path.parts and claude_code.workflow_metadata(path)


EVERY_FIXTURE = [(path, fmt) for fmt in FORMATS
                 for path in sorted((FIXTURES / fmt.replace("-", "_")).rglob("*"))
                 if path.suffix in (".json", ".jsonl", ".log") and not _metadata(path)]

CASES = [
    ("otel/any_agent.json", "otel"),
    ("otel/otlp.json", "otel"),
    ("otel/console_exporter.log", "otel"),
    ("otel/openinference.json", "otel"),
    ("otel/otlp_collector.jsonl", "otel"),
    ("otel/vercel_ai.json", "otel"),
    ("otel/mastra.jsonl", "otel"),
    ("langfuse/trace.json", "langfuse"),
    ("langfuse/traces_list.json", "langfuse"),
    ("langfuse/observations_v2.json", "langfuse"),
    ("openai_agents/backend_payload.json", "openai-agents"),
    ("openai_agents/processor.jsonl", "openai-agents"),
    ("claude_code/s1.jsonl", "claude-code"),
    ("who_and_when/magentic_one.json", "who-and-when"),
    ("who_and_when/captain_agent.json", "who-and-when"),
    ("who_and_when/magentic_one_reprs.json", "who-and-when"),
    ("autogen/magentic_recorder.json", "autogen"),
    ("autogen/selector_stream.json", "autogen"),
    ("autogen/code_executor.jsonl", "autogen"),
    ("chat/openai_tools.json", "chat"),
    ("chat/langgraph_state.json", "chat"),
    ("chat/messages_to_dict.jsonl", "chat"),
    ("adk/session_transfer.json", "adk"),
    ("adk/run_events_snake.jsonl", "adk"),
    ("adk/sessions_listing.json", "adk"),
    ("langgraph/supervisor_updates.json", "langgraph"),
    ("langgraph/debug_stream.jsonl", "langgraph"),
    ("langgraph/debug_subgraphs.json", "langgraph"),
    ("langgraph/state_history.json", "langgraph"),
    ("langgraph/checkpoint.json", "langgraph"),
    ("langchain/run_tree.json", "langchain"),
    ("langchain/runs_two_traces.jsonl", "langchain"),
    ("langchain/astream_events.json", "langchain"),
    ("a2a/jsonrpc_stream.jsonl", "a2a"),
    ("a2a/v1_send.json", "a2a"),
    ("chatdev/Weather_Desk_20260110093000.log", "chatdev"),
]


@pytest.mark.parametrize("fixture,expected", CASES)
def test_each_fixture_is_recognised_by_its_content(fixture, expected, tmp_path):
    renamed = tmp_path / "log.data"  # a name that says nothing about the format
    shutil.copy(FIXTURES / fixture, renamed)
    found, reason = detect.detect(renamed)
    assert found == expected
    assert reason


def test_every_format_has_fixtures():
    assert {fmt for _, fmt in EVERY_FIXTURE} == set(FORMATS)


@pytest.mark.parametrize("path,expected", EVERY_FIXTURE,
                         ids=[str(p.relative_to(FIXTURES)) for p, _ in EVERY_FIXTURE])
def test_every_fixture_is_recognised_as_exactly_its_own_format(path, expected):
    """Every fixture file of every importer (the layouts of Claude Code, sub-agent logs
    included) is recognised by its own format's sniffer and by no other."""
    seen = detect.sample(path)
    found = [name for name in FORMATS if load(name).sniff(seen) is not None]
    assert found == [expected]


def test_auto_import_records_the_choice(tmp_path):
    result = import_file("auto", FIXTURES / "otel/otlp.json")
    assert result.format == "otel"
    assert result.summary()["detected"] == "OTLP JSON: resourceSpans"


def test_unknown_content_names_what_was_found(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"alpha": 1, "beta": []}')
    with pytest.raises(SourceError, match="no known log format.*keys alpha, beta"):
        detect.detect(path)


def test_json_lines_of_arrays_no_format_reads_are_named_as_such(tmp_path):
    """Array lines are sampled (LangGraph's [namespace, chunk] pairs); arrays no sniffer
    recognises are refused as what they are, not as a null document."""
    path = tmp_path / "x.jsonl"
    path.write_text('[["n:1"], {"alpha": 1}]\n[1, 2]\n')
    with pytest.raises(SourceError, match=r"no known log format recognises this file "
                                          r"\(JSON Lines of arrays\)"):
        detect.detect(path)


def test_neither_json_nor_json_lines(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("hello\nworld\n")
    with pytest.raises(SourceError, match=r"x.txt:1: neither JSON nor JSON Lines"):
        detect.detect(path)


def test_import_auto_command_says_what_it_chose(tmp_path, capsys):
    from masrl.commands import main

    out = tmp_path / "t.json"
    assert main(["import", "auto", str(FIXTURES / "who_and_when/magentic_one.json"),
                 "-o", str(out)]) == 0
    assert "format who-and-when, recognised from the content" in capsys.readouterr().err


def test_every_fixture_is_recognised_by_exactly_one_format():
    """No file is claimed by two formats: each fixture of every importer is recognised by its
    own format alone (:func:`detect.detect` raises when several claim it)."""
    folders = {"otel": "otel", "claude_code": "claude-code", "who_and_when": "who-and-when",
               "langfuse": "langfuse", "openai_agents": "openai-agents"}
    seen = 0
    for folder, expected in folders.items():
        for path in sorted((FIXTURES / folder).iterdir()):
            if path.is_file():
                assert detect.detect(path)[0] == expected, path
                seen += 1
    assert seen >= 15
