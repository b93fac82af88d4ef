"""Hostile logs: repeated keys, numbers beyond a double, deep nesting and lone surrogates in
every importer's reading (one strict JSON, located by line and field); span trees thousands
deep and thousands of parent cycles (no recursion; each cycle cut once); token counts whose sums
overflow (a located error, never ``Infinity`` in a trace). How long the large logs take is
measured by ``benchmarks/hostile_inputs.py``, not here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hostile_traces import deep_span_tree, enclosed_roots, one_agent_calls, parent_cycles
from importer_helpers import FIXTURES

from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers._kit import detect
from masrl.traces.importers._kit.accounting import conservation_problems
from masrl.traces.importers._kit.common import CUT_LINE
from masrl.traces.importers.registry import FORMATS
from masrl.traces.importers.spans.tree import CYCLE, WORKFLOW


def test_a_span_tree_3000_deep_imports_without_recursion(tmp_path):
    # timed by benchmarks/hostile_inputs.py
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(deep_span_tree(3000)), encoding="utf-8")
    result = import_file("otel", path)
    spawns = [e for e in result.trace["events"] if e["type"] == "spawn"]
    assert len(spawns) == 2998  # agent0 only holds agent1: the run, not an agent (WORKFLOW)
    assert result.skipped[WORKFLOW] == 1
    assert result.trace["events"][-1]["agent"] == "agent2999"


def test_thousands_of_parent_cycles_are_each_cut_once(tmp_path):
    # timed by benchmarks/hostile_inputs.py
    path = tmp_path / "cycles.json"
    path.write_text(json.dumps(parent_cycles(2000)), encoding="utf-8")  # each the other's parent
    result = import_file("otel", path)
    assert result.repairs[CYCLE] == 2000
    assert len(result.trace["events"]) == 1 + 2000 + 2 * 2000  # every span kept


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


def test_token_counts_past_what_a_double_holds_are_a_located_error(tmp_path):
    """Counts are read by the kit's rule: past 2^53 a count is refused where it is written, so a
    sum of counts cannot reach infinity (``with_provenance`` still checks every number)."""
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
    assert str(caught.value) == (
        f"{main}:10: info.last_token_usage.input_tokens must be a count up to 2^53 "
        "(9,007,199,254,740,992), the largest a double holds exactly, found the number "
        "1.5e+308")


# ---------------------------------------------------------------------------------- sequencing

def reference_sequence(build, members):
    """The pairwise ``_sequence`` this module replaced (n^2 log n), kept as the definition."""
    from masrl.traces.importers.spans.tree import _inside

    ordered = sorted(members, key=lambda u: (u.start, u.order))
    for j, unit in enumerate(ordered):
        done = [a for a in ordered[:j] if a.end <= unit.start]
        starts = sorted(((a.start, k) for k, a in enumerate(done)), reverse=True)
        for k, before in enumerate(done):
            latest_other = next((start for start, m in starts if m != k), None)
            if latest_other is not None and latest_other >= before.end:
                continue
            if not _inside(unit.span, before.span) and not _inside(before.span, unit.span):
                build.edge(before.exit, unit.entry, "causal")  # nested pairs: either way


@pytest.mark.parametrize("seed", range(300))
def test_sequencing_units_makes_the_edges_of_its_definition(seed):
    import random

    from masrl.traces.importers._kit.common import TraceBuilder
    from masrl.traces.importers.spans.tree import Span, Unit, _sequence

    pick = random.Random(seed)
    members, spans = [], []
    for k in range(pick.randint(0, 14)):
        start = pick.randint(0, 12)
        end = start + pick.choice([0, 0, 1, 2, 5])
        span = Span(f"s{k}", None, start, end, "model", "-")
        if spans and pick.random() < 0.3:  # nested in an earlier span
            span.parent = pick.choice(spans)
        spans.append(span)
        members.append(Unit(span, f"in{k}", f"out{k}" if pick.random() < 0.5 else f"in{k}",
                            start, end, k))
    pick.shuffle(members)
    fast, slow = TraceBuilder(), TraceBuilder()
    _sequence(fast, members)
    reference_sequence(slow, members)
    assert fast.edges == slow.edges


def test_thousands_of_model_calls_of_one_agent_import_as_one_chain(tmp_path):
    """Sequencing an agent's units compared every pair: these 8,000 calls took 20 s (0.6 s now);
    20,000 took minutes."""
    # timed by benchmarks/hostile_inputs.py
    path = tmp_path / "long.json"
    path.write_text(json.dumps(one_agent_calls(8000)), encoding="utf-8")
    result = import_file("otel", path)
    assert len(result.trace["edges"]) == 7999  # one chain of calls


@pytest.mark.parametrize("seed", range(200))
def test_enclosing_agents_are_those_of_the_definition(seed):
    """The latest-starting (then shortest, then smallest id) agent span around each root."""
    import random

    from masrl.traces.importers.spans.tree import AGENT, Span, _enclosing_agents

    pick = random.Random(seed)
    spans = []
    for k in range(pick.randint(0, 12)):
        start = pick.randint(0, 10)
        spans.append(Span(f"s{k:02d}", None, start, start + pick.randint(0, 6),
                          pick.choice([AGENT, "model"]), "-"))
    agents = [s for s in spans if s.kind == AGENT]
    expected = {}
    for root in spans:
        around = [a for a in agents if a is not root and a.start <= root.start
                  and root.end <= a.end]
        if root.kind != AGENT and around:
            expected[id(root)] = max(around, key=lambda a: (a.start, -a.end, a.span_id))
    assert _enclosing_agents(spans, agents) == expected


def test_roots_enclosed_by_thousands_of_agent_spans_go_to_the_latest_one(tmp_path):
    """Asking every agent span about every root was quadratic (4,000 of each: 7 s)."""
    # timed by benchmarks/hostile_inputs.py
    path = tmp_path / "roots.json"
    path.write_text(json.dumps(enclosed_roots(20_000)), encoding="utf-8")
    result = import_file("otel", path)
    # chat k starts 10^7 + k ns in; the latest agent span starting by then is 10000 + k // 1000
    assert {e["agent"] for e in result.trace["events"]} == {
        f"agent{10_000 + k // 1000}" for k in range(20_000)}


# ---------------------------------------------------------------------------- byte-order mark

def _first_log(fmt: str):
    """The first fixture of ``fmt`` at the top of its folder that imports (sorted by name)."""
    for path in sorted((FIXTURES / fmt.replace("-", "_")).glob("*")):
        if path.suffix in (".json", ".jsonl", ".log"):
            try:
                return path, import_file(fmt, path).summary()
            except SourceError:
                continue
    raise AssertionError(f"no fixture of {fmt} imports")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_log_that_starts_with_a_byte_order_mark_reads_as_without(tmp_path, fmt):
    """Windows tools (PowerShell's Set-Content and Out-File, Notepad) start a UTF-8 file with a
    byte-order mark, which RFC 8259 lets a parser ignore: the log is recognised and imported as
    the same log without it (it was refused as "neither JSON nor JSON Lines (Expecting
    value)")."""
    source, summary = _first_log(fmt)
    folder = tmp_path / source.parent.name
    shutil.copytree(source.parent, folder)  # with the logs a session reads beside it
    path = folder / source.name
    path.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    found = import_file(fmt, path).summary()
    assert (found["events"], found["edges"], found["agents"]) == \
        (summary["events"], summary["edges"], summary["agents"])
    assert detect.detect(path)[0] == detect.detect(source)[0]


def test_a_trace_that_starts_with_a_byte_order_mark_is_valid(tmp_path):
    from masrl.traces import resources, validate_file

    path = tmp_path / "trace.json"
    path.write_bytes(b"\xef\xbb\xbf" + (resources.EXAMPLES / "centralized.json").read_bytes())
    assert validate_file(path).valid


@pytest.mark.parametrize("name", ["a2a/message_stream.sse", "adk/run_sse.txt"])
def test_a_server_sent_event_stream_that_starts_with_a_byte_order_mark_reads_as_without(
        tmp_path, name):
    """The SSE specification drops one leading byte-order mark; the stream was read as JSON
    Lines and refused ("not a JSON record (Expecting value at column 2)")."""
    source = FIXTURES / name
    path = tmp_path / source.name
    path.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    fmt = detect.detect(source)[0]
    assert detect.detect(path)[0] == fmt
    found, want = import_file(fmt, path).summary(), import_file(fmt, source).summary()
    assert (found["events"], found["edges"], found["agents"]) == \
        (want["events"], want["edges"], want["agents"])


# ------------------------------------------------ a document over several lines, cut or followed

def _documents() -> list[tuple[str, str]]:
    """``(format, fixture)`` of every fixture that is one JSON document written over several
    lines (its first line opens it alone), as a format's tools write them indented."""
    found = []
    for fmt in FORMATS:
        for path in sorted((FIXTURES / fmt.replace("-", "_")).rglob("*.json")):
            lines = path.read_text(encoding="utf-8").splitlines()
            if len(lines) > 3 and lines[0].strip() in ("{", "["):
                found.append((fmt, str(path.relative_to(FIXTURES))))
    return found


DOCUMENTS = _documents()


def test_indented_documents_of_the_formats_that_fall_back_to_json_lines_are_checked():
    read_as_lines = {"adk", "autogen", "chat", "gemini-cli", "a2a", "langchain", "langgraph"}
    assert read_as_lines <= {fmt for fmt, _ in DOCUMENTS}


@pytest.mark.parametrize(("fmt", "name"), DOCUMENTS)
def test_an_indented_log_cut_short_names_where_it_ends_and_asks_if_truncated(tmp_path, fmt,
                                                                              name):
    """A log copied while its tool rewrites it (a Gemini CLI session, an ADK session, an OTLP
    export) ends mid-document. Read as JSON Lines after the document failed, it was said to
    break on line 1 at column 2 ("neither JSON nor JSON Lines", "not a JSON record ... is the
    line truncated?"): the wrong line, in every importer that falls back to JSON Lines."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    keep = len(lines) * 2 // 3
    cut = "".join(lines[:keep]) + lines[keep][:len(lines[keep]) // 2]
    path = tmp_path / (FIXTURES / name).name
    path.write_text(cut, encoding="utf-8")
    for reader in (fmt, "auto"):
        with pytest.raises(SourceError) as caught:
            import_file(reader, path)
        line = int(str(caught.value.where).split(":")[0])
        assert keep - 1 <= line <= keep + 2, (reader, str(caught.value))
        assert "is the file truncated?" in caught.value.message, (reader, str(caught.value))


@pytest.mark.parametrize(("fmt", "name"), DOCUMENTS)
def test_an_indented_log_followed_by_garbage_names_the_garbage(tmp_path, fmt, name):
    text = (FIXTURES / name).read_text(encoding="utf-8").rstrip("\n")
    path = tmp_path / (FIXTURES / name).name
    path.write_text(text + "\n}} half a line\n", encoding="utf-8")
    garbage = text.count("\n") + 2
    for reader in (fmt, "auto"):
        with pytest.raises(SourceError) as caught:
            import_file(reader, path)
        assert str(caught.value.where).startswith(f"{garbage}:"), (reader, str(caught.value))
        assert "truncated" not in caught.value.message


# ------------------------------------------------- a session log read while it is being written

SESSIONS = {  # format -> (folder of the session, its main log, a sub-agent log beside it)
    "claude-code": ("claude_code", "s1.jsonl", "s1/subagents/agent-b1.jsonl"),
    "codex": ("codex", "rollout-2026-02-03T10-00-00-0190a1b2-0000-7000-8000-00000000aaaa.jsonl",
              "rollout-2026-02-03T10-00-03-0190a1b2-0000-7000-8000-00000000cccc.jsonl"),
    "gemini-cli": ("gemini_cli", "session-2026-02-04T10-00-a1b2c3d4.jsonl",
                   "a1b2c3d4-0000-4000-8000-00000000aaaa/"
                   "a1b2c3d4-0000-4000-8000-00000000bbbb_0.jsonl"),
}
# a line the harness was writing when the log was read: our own record, with a character
# of two bytes (é) and one of four (an emoji), so that a cut may fall inside either
WRITING = '{"type":"assistant","note":"caf\u00e9 \U0001F600","n":[1,2,{"k":"v"}]}'.encode()


def _session_copy(tmp_path, fmt):
    folder, main, _ = SESSIONS[fmt]
    copy = tmp_path / folder
    shutil.copytree(FIXTURES / folder, copy)
    return copy


def _sizes(result):
    summary = result.summary()
    return summary["events"], summary["edges"], summary["agents"], summary["records"]


@pytest.mark.parametrize("which", [1, 2])  # the main log, a sub-agent log
@pytest.mark.parametrize("fmt", sorted(SESSIONS))
def test_a_session_with_its_last_line_cut_short_imports_the_lines_before(tmp_path, fmt, which):
    """A running Claude Code, Codex or Gemini CLI session ends in a line the harness is still
    writing (no newline yet): it is skipped and counted, not a refusal of the session. Every
    cut of that line gives the trace of the session without it, one more record read."""
    copy = _session_copy(tmp_path, fmt)
    path = copy / SESSIONS[fmt][which]
    whole = import_file(fmt, copy / SESSIONS[fmt][1])
    for cut in range(1, len(WRITING)):
        path.write_bytes((FIXTURES / SESSIONS[fmt][0] / SESSIONS[fmt][which]).read_bytes()
                         + WRITING[:cut])
        for reader in (fmt, "auto"):
            result = import_file(reader, copy / SESSIONS[fmt][1])
            assert result.skipped[CUT_LINE] == 1, (cut, reader)
            events, edges, agents, records = _sizes(result)
            want = _sizes(whole)
            assert (events, edges, agents) == want[:3], (cut, reader)
            assert records["read"] == want[3]["read"] + 1
            assert records["skipped"] == want[3]["skipped"] + 1
            assert conservation_problems(result.trace) == []


@pytest.mark.parametrize("fmt", sorted(SESSIONS))
def test_a_session_with_a_cut_line_before_its_end_is_refused_naming_it(tmp_path, fmt):
    """Only the last line may be one being written: a cut line followed by others, or a last
    line that has its newline, is a damaged log, refused at that line."""
    copy = _session_copy(tmp_path, fmt)
    path = copy / SESSIONS[fmt][1]
    lines = path.read_bytes().splitlines(keepends=True)
    for text, line in ((b"".join(lines[:2]) + WRITING[:20] + b"\n" + b"".join(lines[2:]), 3),
                       (b"".join(lines) + WRITING[:20] + b"\n", len(lines) + 1)):
        path.write_bytes(text)
        with pytest.raises(SourceError) as caught:
            import_file(fmt, path)
        assert caught.value.where == line, str(caught.value)
        assert "not a JSON record" in caught.value.message


@pytest.mark.parametrize("tail", [b"}} not JSON", b'{"a": 1} {"b"', b"\xff\xfe{",
                                  b'{"a": "\xff'])
def test_a_last_line_without_newline_that_is_not_cut_json_is_still_refused(tmp_path, tail):
    """A wrong character or text after a value is a fault, not a line being written."""
    copy = _session_copy(tmp_path, "claude-code")
    path = copy / SESSIONS["claude-code"][1]
    text = path.read_bytes()
    path.write_bytes(text + tail)
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert caught.value.where == text.count(b"\n") + 1, str(caught.value)


def test_a_cut_last_line_is_refused_by_a_format_that_is_not_a_session(tmp_path):
    """Only session logs are read while their harness writes them; a turn log's cut last line
    (an AutoGen event stream, say) stays a refusal naming it."""
    source = next(p for p in sorted((FIXTURES / "autogen").glob("*.jsonl")))
    path = tmp_path / source.name
    text = source.read_bytes()
    path.write_bytes(text + WRITING[:20])
    with pytest.raises(SourceError) as caught:
        import_file("autogen", path)
    assert caught.value.where == text.count(b"\n") + 1


# ------------------------------------------------------------ a file name that is not UTF-8

@pytest.mark.parametrize("fmt", FORMATS)
def test_a_log_whose_file_name_is_not_utf8_imports_with_those_bytes_as_xnn(tmp_path, fmt):
    """Linux lets a file name hold any bytes; Python holds those that are not UTF-8 as lone
    surrogates, which the trace ids and sources taken from the name carried into the trace,
    and writing it was an internal error (exit 3). The bytes are written ``\\xNN``, as
    ``masrl corpus`` writes them in its ids; the trace is the same otherwise."""
    import os

    from masrl.traces import validate_document
    from masrl.traces.importers._kit.common import dumps

    source, summary = _first_log(fmt)
    folder = tmp_path / source.parent.name
    shutil.copytree(source.parent, folder)
    odd = os.fsdecode(os.fsencode(str(folder)) + b"/odd\xff\xfe-" + os.fsencode(source.name))
    os.rename(folder / source.name, odd)
    result = import_file(fmt, odd)
    text = dumps(result.trace)
    assert "odd\\\\xff\\\\xfe-" in text  # JSON's escape of the backslash of \xff
    assert "\udcff" not in text
    found = result.summary()
    assert (found["events"], found["edges"], found["agents"]) == \
        (summary["events"], summary["edges"], summary["agents"])
    assert validate_document(json.loads(text)).valid


def test_import_of_a_log_whose_file_name_is_not_utf8_writes_the_trace(tmp_path, capsys):
    import os

    from masrl.commands import main

    odd = os.fsdecode(os.fsencode(str(tmp_path)) + b"/run\xe9.json")
    shutil.copy(FIXTURES / "who_and_when" / "captain_agent.json", odd)
    out = tmp_path / "trace.json"
    assert main(["import", "auto", odd, "-o", str(out)]) == 0  # an internal error (3)
    assert json.loads(out.read_text(encoding="utf-8"))["trace_id"].endswith("run\\xe9")
    assert main(["validate", str(out)]) == 0


def test_the_outputs_name_a_file_that_is_not_utf8_as_the_trace_does(tmp_path, capsys):
    """The trace writes a byte of a file name that is not UTF-8 as ``\\xNN``; the --json
    summaries and the lines of import and validate wrote the lone surrogate Python holds it
    as (``\\udce9``), so the summary named a file the trace did not."""
    import os

    from masrl.commands import main

    odd = os.fsdecode(os.fsencode(str(tmp_path)) + b"/run\xe9.json")
    shutil.copy(FIXTURES / "who_and_when" / "captain_agent.json", odd)
    out = os.fsdecode(os.fsencode(str(tmp_path)) + b"/trace\xe8.json")
    shown = lambda path: os.fsencode(path).decode("utf-8", "backslashreplace")  # noqa: E731
    capsys.readouterr()
    assert main(["import", "auto", odd, "-o", out, "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    trace = json.loads(Path(out).read_text(encoding="utf-8"))
    assert summary["source"] == shown(odd) and shown(odd).endswith("/run\\xe9.json")
    assert trace["provenance"]["sources"][0]["name"] == "run\\xe9.json"
    assert summary["files"] == [shown(odd)] and summary["output"] == shown(out)
    assert "\\udc" not in captured.out and "\\udc" not in captured.err
    assert main(["import", "auto", odd, "-o", out]) == 0
    assert capsys.readouterr().err.startswith(f"{shown(odd)} -> {shown(out)}: ")
    assert main(["validate", "--json", out]) == 0
    assert json.loads(capsys.readouterr().out)["files"][0]["file"] == shown(out)
    assert main(["validate", out]) == 0
    assert capsys.readouterr().out.startswith(f"{shown(out)}: valid")
