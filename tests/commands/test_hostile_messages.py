"""Text quoted from a trace or a log (ids, agent names, values, file names) cannot forge a line
of output or drive the terminal: every message that quotes input is escaped in one place per
message type (``TraceProblem.line``, the verdict line, ``SourceError.__str__``, the import
summary, the replay error)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from importer_helpers import FIXTURES as IMPORTS
from trace_helpers import FIXTURES

from masrl.commands import main

FORGED = "\x1b[2K\rforged.json: valid (0 errors, 0 warnings)\n"


def output(argv, capsys) -> tuple[int, list[str]]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code != 3, err
    return code, (out + err).splitlines()


def assert_not_forged(lines: list[str]) -> None:
    assert not any("\x1b" in line or "\r" in line for line in lines)
    assert not any(re.match(r"forged\.json: valid", line) for line in lines)
    assert any("\\x1b[2K\\rforged.json: valid" in line for line in lines)


def test_an_id_cannot_forge_a_valid_line(tmp_path, capsys):
    document = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
    for event in document["events"][:2]:  # a duplicate id, quoted in the error
        event["id"] = "e" + FORGED
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, lines = output(["validate", path], capsys)
    assert code == 1
    assert_not_forged(lines)
    assert f"{path}: invalid (5 errors, 0 warnings)" in lines  # + 4 dangling edges


def test_an_agent_name_cannot_forge_a_line_in_warnings_or_replay(tmp_path, capsys):
    document = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
    document["events"][1]["to"] = "a" + FORGED  # spawned, never returns: a warning names it
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    for argv in (["validate", path], ["replay", path]):
        code, lines = output(argv, capsys)
        assert code == 0
        assert_not_forged(lines)


def test_a_file_name_cannot_forge_a_verdict(tmp_path, capsys):
    path = tmp_path / ("x.json" + FORGED.replace("/", "_"))
    shutil.copy(FIXTURES / "small.json", path)
    code, lines = output(["validate", path], capsys)
    assert code == 0 and len(lines) == 1
    assert "\x1b" not in lines[0] and lines[0].endswith(": valid (0 errors, 0 warnings)")


def test_a_value_quoted_by_an_import_error_is_escaped(tmp_path, capsys):
    path = tmp_path / "s1.jsonl"
    text = (IMPORTS / "claude_code" / "s1.jsonl").read_text(encoding="utf-8")
    path.write_text(text.replace('"2026-01-01T10:00:10.000Z"',
                                 json.dumps("yesterday" + FORGED), 1), encoding="utf-8")
    code, lines = output(["import", "claude-code", path, "-o", tmp_path / "t.json"], capsys)
    assert code == 1
    assert not any("\x1b" in line or "\r" in line for line in lines)
    assert lines == [f'{path}:14: timestamp must be an ISO 8601 time, found the string '
                     '"yesterday\\u001b[2K\\rforged...."']  # JSON's escapes, cut short


def test_a_source_error_escapes_what_it_quotes():
    from masrl.traces.importers import SourceError

    error = SourceError("logs/s\x1b[31m.jsonl", 3, "span id " + FORGED + " is used twice")
    assert "\x1b" not in str(error) and "\n" not in str(error)
    assert str(error) == ("logs/s\\x1b[31m.jsonl:3: span id \\x1b[2K\\rforged.json: valid "
                          "(0 errors, 0 warnings)\\n is used twice")


@pytest.mark.parametrize("where", ["name", "output"])
def test_names_in_the_import_summary_are_escaped(tmp_path, capsys, where):
    source = tmp_path / "otlp.json"
    text = (IMPORTS / "otel" / "otlp.json").read_text(encoding="utf-8")
    if where == "name":
        document = json.loads(text)
        spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
        for span in spans:
            for attribute in span.get("attributes", []):
                if attribute["key"] == "gen_ai.agent.name":
                    attribute["value"] = {"stringValue": "agent" + FORGED}
        text = json.dumps(document)
    source.write_text(text, encoding="utf-8")
    out = tmp_path / ("t.json" if where == "name" else "t" + FORGED.replace("/", "_") + ".json")
    code, lines = output(["import", "otel", source, "-o", out], capsys)
    assert code == 0
    assert not any("\x1b" in line or "\r" in line for line in lines)


def test_the_replay_summary_escapes_the_trace_id(tmp_path, capsys):
    document = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
    document["trace_id"] = "t" + FORGED
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, lines = output(["replay", path], capsys)
    assert code == 0
    assert_not_forged(lines)


@pytest.mark.parametrize("command", ["validate", "replay"])
def test_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path, command):
    """Python holds such a name with lone surrogates, which a strict UTF-8 stdout refuses: it is
    printed with its bytes as ``\\xNN``, as the traces and the ``--json`` outputs write it."""
    import os
    import subprocess
    import sys

    name = os.fsencode(tmp_path) + b"/\xff.json"
    shutil.copy(FIXTURES / "small.json", name)
    done = subprocess.run([sys.executable, "-m", "masrl", command, os.fsdecode(name)],
                          capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8"},
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    if command == "validate":
        assert done.stdout.decode("utf-8") == (f"{tmp_path}/\\xff.json: valid (0 errors, "
                                               "0 warnings)\n")
