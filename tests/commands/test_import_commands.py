"""``masrl import FORMAT SRC -o OUT``: exit codes, messages, atomic and deterministic output."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES

from masrl.commands import main
from masrl.commands.imports import safe_name
from masrl.traces import importers
from masrl.traces.importers import dumps, import_file
from masrl.traces.importers.turns import who_and_when

SESSION = FIXTURES / "claude_code" / "s1.jsonl"
MAGENTIC = FIXTURES / "who_and_when" / "magentic_one.json"
OTEL = FIXTURES / "otel" / "any_agent.json"
ATIF = FIXTURES / "atif" / "delegation.json"
CODEX = next((FIXTURES / "codex").glob("rollout-*aaaa.jsonl"))


@pytest.mark.parametrize("fmt, source", [("claude-code", SESSION), ("who-and-when", MAGENTIC),
                                         ("otel", OTEL), ("atif", ATIF), ("codex", CODEX)])
def test_import_writes_the_trace_and_exits_0(tmp_path, capsys, fmt, source):
    out = tmp_path / "trace.json"
    assert main(["import", fmt, str(source), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == dumps(import_file(fmt, source).trace)
    first = capsys.readouterr().err.splitlines()[0]
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert first.startswith(f"{source} -> {out}: {len(trace['events'])} events, "
                            f"{len(trace['edges'])} edges, ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json"]


def test_same_input_same_bytes(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["import", "claude-code", str(SESSION), "-o", str(first)]) == 0
    assert main(["import", "claude-code", str(SESSION), "-o", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_summary_on_stderr_and_as_json(tmp_path, capsys):
    out = tmp_path / "trace.json"
    assert main(["import", "claude-code", str(SESSION), "-o", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert (summary["events"], summary["edges"], summary["agents"], summary["valid"]) == (
        19, 20, 4, True)
    assert summary["skipped"]["progress:hook_progress"] == 2
    assert summary["repairs"] == {"event time raised to the time of an event it depends on": 1,
                                  "sub-agent prompt record carried by its spawn event": 1}
    assert summary["warnings"] == []
    assert captured.err.splitlines() == [
        f"{SESSION} -> {out}: 19 events, 20 edges, 4 agents",
        ("  recognised as Claude Code (2.1: sub-agent logs in <session>/subagents/ shape): 1 Task "
         "sub-agent log and 1 compaction log in s1/subagents/"),
        "  read 3 files (the source and 2 sub-agent logs)",
        ("  skipped 11: 1 assistant block: thinking; 1 file-history-snapshot; 2 "
        "progress:agent_progress (copy of a sub-agent file record); 2 progress:hook_progress; "
        "1 queue-operation; 1 system:stop_hook_summary; 1 user:isCompactSummary (the summary a "
        "compaction returns); 2 user:isMeta (context injected by the harness)"),
        ("  repaired 2: 1 event time raised to the time of an event it depends on; 1 sub-agent "
        "prompt record carried by its spawn event"),
    ]


def test_the_written_trace_carries_the_summary_as_provenance(tmp_path, capsys):
    out = tmp_path / "trace.json"
    assert main(["import", "claude-code", str(SESSION), "-o", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    provenance = json.loads(out.read_text(encoding="utf-8"))["provenance"]
    assert (provenance["format"], provenance["skipped"], provenance["repaired"]) == (
        summary["format"], summary["skipped"], summary["repairs"])
    assert [s["name"] for s in provenance["sources"]] == [
        "s1.jsonl", "s1/subagents/agent-b1.jsonl", "s1/subagents/agent-acompact-c1.jsonl"]


def test_replay_json_passes_the_provenance_through(tmp_path, capsys):
    out = tmp_path / "trace.json"
    assert main(["import", "otel", str(OTEL), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["provenance"] == json.loads(out.read_text(encoding="utf-8"))["provenance"]


def test_bad_input_exits_1_and_writes_nothing(tmp_path, capsys):
    source = tmp_path / "log.json"
    source.write_text('{"history": []}', encoding="utf-8")
    out = tmp_path / "trace.json"
    assert main(["import", "who-and-when", str(source), "-o", str(out)]) == 1
    assert capsys.readouterr().err == (f"{source}:history: must be a non-empty list of chat "
                                       "records, found an empty list\n")
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.json"]


def test_bad_input_keeps_an_existing_output(tmp_path):
    source = tmp_path / "log.json"
    source.write_text("{", encoding="utf-8")
    out = tmp_path / "trace.json"
    out.write_text("previous", encoding="utf-8")
    assert main(["import", "who-and-when", str(source), "-o", str(out)]) == 1
    assert out.read_text(encoding="utf-8") == "previous"


def test_an_invalid_trace_is_not_written(tmp_path, capsys, monkeypatch):
    original = who_and_when.import_file

    def broken(path):
        result = original(path)
        result.trace["events"][1]["t"] = -1
        return result

    monkeypatch.setattr(who_and_when, "import_file", broken)  # import_traces calls it
    out = tmp_path / "trace.json"
    assert main(["import", "who-and-when", str(MAGENTIC), "-o", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"{out}: events[1] (id h1) /events/1/t: error: -1 is less than the minimum of 0",
        f"{MAGENTIC}: error: the imported trace is invalid; {out} not written",
    ]
    assert not out.exists()


def test_missing_source_exits_2(tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    assert main(["import", "claude-code", str(missing), "-o", str(tmp_path / "t.json")]) == 2
    assert capsys.readouterr().err == f"{missing}: error: cannot read: no such file\n"


def test_directory_as_source_exits_2(tmp_path, capsys):
    assert main(["import", "otel", str(tmp_path), "-o", str(tmp_path / "t.json")]) == 2
    assert capsys.readouterr().err == f"{tmp_path}: error: cannot read: a directory, not a file\n"


def test_unwritable_output_exits_2(tmp_path, capsys):
    out = tmp_path / "no" / "such" / "dir" / "t.json"
    assert main(["import", "otel", str(OTEL), "-o", str(out)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"{out}: error: cannot write: the folder {out.parent} does not exist")


@pytest.mark.parametrize("argv", [
    ["import", "csv", "x", "-o", "y"],
    ["import", "otel", "x"],
    ["import", "otel"],
])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "usage: masrl import" in capsys.readouterr().err


def test_format_names_are_exact():
    assert list(importers.FORMATS) == ["otel", "claude-code", "who-and-when", "langfuse",
                                       "openai-agents", "atif", "codex", "gemini-cli", "autogen",
                                       "chat", "adk", "langgraph", "langchain", "a2a", "chatdev"]


def test_the_commands_name_every_importer_and_exporter_without_importing_them():
    """The parser lists the formats from the registries; building it reads the importers'
    registry (cheap) and must import no importer module nor their shared parts (start-up
    time)."""
    import subprocess
    import sys

    from masrl.commands import exports, imports
    from masrl.traces import exporters

    assert list(imports.FORMATS) == list(importers.FORMATS)
    assert list(exports.EXPORTERS) == list(exporters.EXPORTERS)
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys; from masrl.commands import build_parser; "
         "build_parser(); print(sorted(m for m in sys.modules if m.startswith('masrl.traces.i') "
         "or m.startswith('masrl.traces.e')))"], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "['masrl.traces.importers', 'masrl.traces.importers.registry']"


# ---------------------------------------------------------------------------------- many runs

CONSOLE = FIXTURES / "otel" / "agent_framework_console.log"
RUNS = ["otel:000000000000000000000000000000a1", "otel:000000000000000000000000000000a2"]


def test_a_source_of_several_runs_writes_one_file_per_trace_into_a_folder(tmp_path, capsys):
    out = tmp_path / "traces"
    assert main(["import", "auto", str(CONSOLE), "-o", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    names = sorted(p.name for p in out.iterdir())
    assert names == ["otel_000000000000000000000000000000a1.json",
                     "otel_000000000000000000000000000000a2.json"]
    expected = importers.import_traces("otel", CONSOLE)
    for name, result in zip(names, expected):
        assert (out / name).read_text(encoding="utf-8") == dumps(result.trace)
    summaries = json.loads(captured.out)
    assert [(s["trace_id"], s["output"], s["valid"]) for s in summaries] == [
        (trace_id, str(out / name), True) for trace_id, name in zip(RUNS, names)]
    assert [line.split(" -> ")[1].split(":")[0] for line in captured.err.splitlines()
            if " -> " in line] == [str(out / name) for name in names]


@pytest.mark.parametrize("existing", [False, True])
def test_a_source_of_one_run_into_a_folder_goes_inside_it(tmp_path, capsys, existing):
    # -o DIR/ names a folder: a one-run source must not become a file called DIR (nor be
    # refused when DIR exists), or a script importing many logs into DIR/ keeps only the last
    out = tmp_path / "traces"
    if existing:
        out.mkdir()
    target = str(out) + "/"
    assert main(["import", "otel", str(OTEL), "-o", target]) == 0
    trace_id = import_file("otel", OTEL).trace["trace_id"]
    written = out / f"{safe_name(trace_id)}.json"
    assert out.is_dir() and [p.name for p in out.iterdir()] == [written.name]
    assert written.read_text(encoding="utf-8") == dumps(import_file("otel", OTEL).trace)
    assert f"-> {written}:" in capsys.readouterr().err


def test_a_source_of_several_runs_writes_json_lines(tmp_path, capsys):
    out = tmp_path / "runs.jsonl"
    assert main(["import", "otel", str(CONSOLE), "-o", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["trace_id"] for line in lines] == RUNS
    again = tmp_path / "again.jsonl"
    assert main(["import", "otel", str(CONSOLE), "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()  # the same bytes each time
    assert f"{out}:2" in capsys.readouterr().err


def test_several_runs_into_one_json_file_is_a_usage_error(tmp_path, capsys):
    out = tmp_path / "trace.json"
    assert main(["import", "otel", str(CONSOLE), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"{out}: error: {CONSOLE} holds 2 runs; write them to a directory (-o DIR) or to JSON "
        "Lines (-o OUT.jsonl)\n")
    assert not out.exists()


def test_one_invalid_run_writes_nothing(tmp_path, capsys, monkeypatch):
    from masrl.traces.importers.spans import otel
    original = otel.import_traces

    def broken(path):
        results = original(path)
        results[1].trace["events"][0]["t"] = -1
        return results

    monkeypatch.setattr(otel, "import_traces", broken)
    out = tmp_path / "traces"
    assert main(["import", "otel", str(CONSOLE), "-o", str(out)]) == 1
    assert "the imported trace is invalid" in capsys.readouterr().err
    assert not out.exists()


def test_trace_ids_become_safe_file_names_and_a_shared_name_gets_a_number():
    from masrl.commands.imports import _targets, safe_name

    assert safe_name("otel:../../etc/passwd") == "otel_.._.._etc_passwd"
    assert safe_name("...") == "trace" and safe_name("a" * 300) == "a" * 120

    class Run:
        def __init__(self, trace_id):
            self.trace = {"trace_id": trace_id}

    assert _targets("d", "folder", [Run("x:1"), Run("x/1"), Run("y")]) == [
        "d/x_1.json", "d/x_1-2.json", "d/y.json"]


def test_file_names_are_reserved_before_any_is_given():
    """Ids x, x, x-2: the repeated x must not take x-2, which the third run's own id gives
    (two runs would share one file and the command would say it wrote three)."""
    from masrl.commands.imports import file_names

    assert file_names(["x", "x", "x-2"]) == ["x", "x-3", "x-2"]
    assert file_names(["X", "x"]) == ["X", "x-2"]  # one file on a case-blind disk
    assert file_names(["a:b", "a_b", "a?b"]) == ["a_b", "a_b-2", "a_b-3"]


def test_runs_with_ids_x_x_and_x_2_give_three_files(tmp_path, capsys):
    lines = (FIXTURES / "langfuse" / "traces.jsonl").read_text(encoding="utf-8").splitlines()
    runs = [json.loads(line) for line in lines[:2]]
    runs.append(json.loads(lines[0]))
    for run, trace_id in zip(runs, ["x", "x", "x-2"]):
        run["id"] = trace_id
        for observation in run["observations"]:
            observation["traceId"] = trace_id
    source = tmp_path / "runs.jsonl"
    source.write_text("".join(json.dumps(run) + "\n" for run in runs), encoding="utf-8")
    assert main(["import", "langfuse", str(source), "-o", f"{tmp_path / 'out'}/"]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "langfuse_x-2.json", "langfuse_x-3.json", "langfuse_x.json"]


def test_keep_content_keeps_bounded_text_and_says_so(tmp_path, capsys):
    out = tmp_path / "t.json"
    source = FIXTURES / "who_and_when" / "magentic_one.json"
    assert main(["import", "who-and-when", str(source), "-o", str(out), "--keep-content"]) == 0
    trace = json.loads(out.read_text(encoding="utf-8"))
    history = json.loads(source.read_text(encoding="utf-8"))["history"]
    assert [e["content"]["text"] for e in trace["events"]] == [r["content"] for r in history]
    assert trace["provenance"]["content"] == {
        "event_bytes": 4096, "kept": len(history), "left_out": 0, "trace_bytes": 1 << 20,
        "truncated": 0}
    assert trace["schema_version"] == "1.2"
    assert main(["import", "who-and-when", str(source), "-o", str(out)]) == 0
    plain = json.loads(out.read_text(encoding="utf-8"))
    assert "content" not in plain["provenance"]
    assert not any("content" in e for e in plain["events"])


def test_a_thin_import_is_said_with_its_counts(tmp_path, capsys):
    document = {"id": "t1", "observations": [
        {"id": f"s{k}", "traceId": "t1", "type": "SPAN", "name": f"step {k}",
         "startTime": "2026-01-01T10:00:00Z", "endTime": "2026-01-01T10:00:01Z"}
        for k in range(5)]}
    document["observations"].append(
        {"id": "g", "traceId": "t1", "type": "GENERATION", "name": "call",
         "startTime": "2026-01-01T10:00:00Z", "endTime": "2026-01-01T10:00:01Z"})
    source = tmp_path / "lf.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "t.json"
    assert main(["import", "langfuse", str(source), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert ("warning: thin import: 1 of 6 observations of the log gave events (1 event); "
            "skipped: 5 span: SPAN; the trace may miss part of the run") in err
    assert main(["validate", str(out)]) == 0
    said = capsys.readouterr()
    assert "valid (0 errors, 1 warning)" in said.out
    assert "warning: thin import: 1 of 6 observations" in said.out + said.err
