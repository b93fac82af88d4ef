"""The importers' shared machinery: hashes, the trace builder, forward edges, provenance,
writing."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from importer_helpers import FIXTURES

from masrl.traces.importers import import_file
from masrl.traces.importers._kit import common
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    dumps,
    read_jsonl,
    source_file,
    write_trace,
)

IMPORTS = [("otel", "otel/any_agent.json"), ("otel", "otel/otlp.json"),
           ("claude-code", "claude_code/s1.jsonl"),
           ("claude-code", "claude_code/progress_only.jsonl"),
           ("who-and-when", "who_and_when/magentic_one.json"),
           ("who-and-when", "who_and_when/captain_agent.json")]


def test_content_ref_of_text_and_of_structures():
    assert content_ref("héllo") == "sha256:" + hashlib.sha256("héllo".encode()).hexdigest()
    assert content_ref({"b": 1, "a": [2]}) == content_ref({"a": [2], "b": 1})
    assert content_ref({"a": [2], "b": 1}) == (
        "sha256:" + hashlib.sha256(b'{"a":[2],"b":1}').hexdigest())


def test_builder_leaves_out_empty_fields_and_puts_extensions_last():
    build = TraceBuilder()
    event = build.event("e1", 0.0, "message", "a", x_source="f:1", to=None, role="", tool="t")
    assert list(event) == ["id", "t", "type", "agent", "tool", "x_source"]
    with pytest.raises(AssertionError, match="duplicate event id 'e1'"):
        build.event("e1", 1.0, "message", "a")


def test_builder_keeps_the_first_edge_between_two_events():
    build = TraceBuilder()
    build.event("a", 0.0, "message", "x")
    build.event("b", 1.0, "message", "x")
    assert build.edge("a", "b", "causal") is True
    assert build.edge("a", "b", "message", "blocking") is False
    assert build.edge("a", "a", "causal") is False
    assert build.edges == [{"src": "a", "dst": "b", "type": "causal"}]


def test_raise_times_moves_destinations_forward_in_dependency_order():
    build = TraceBuilder()
    build.event("a", 5.0, "message", "x")
    build.event("b", 4.0, "message", "x", t_end=4.5)
    build.event("c", 3.0, "message", "x")
    build.event("d", 9.0, "message", "x")
    for src, dst in (("a", "b"), ("b", "c"), ("c", "d")):
        build.edge(src, dst, "causal")
    assert build.raise_times() == 2
    assert [(e["t"], e.get("t_end")) for e in build.events] == [
        (5.0, None), (5.0, 5.0), (5.0, None), (9.0, None)]


@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30),
       st.lists(st.sampled_from([0, 1, 2.0, 3, 3.0, 7]), min_size=12, max_size=12),
       st.booleans())
@settings(max_examples=200, deadline=None)
def test_raise_times_in_emission_order_is_in_kahn_order(pairs, times, forward):
    """Edges that all go forward in emission order are visited in that order (no Kahn order
    is built): the times, ends and count moved are those of the Kahn order's visit."""
    def built():
        build = TraceBuilder()
        for k, t in enumerate(times):
            build.event(f"e{k}", t, "tool_call" if k % 3 else "tool_result", "x",
                        t_end=t + 0.5 if k % 4 == 1 else None)
        for u, v in pairs:
            if u != v:
                u, v = (min(u, v), max(u, v)) if forward else (max(u, v), min(u, v))
                build.edge(f"e{u}", f"e{v}", "tool_dependency" if u % 2 else "causal")
        return build

    fast, slow = built(), built()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(common.np, "all", lambda _: False)  # never trust the emission order
        moved = slow.raise_times()
    assert fast.raise_times() == moved
    assert [(e["t"], type(e["t"]), e.get("t_end")) for e in fast.events] == [
        (e["t"], type(e["t"]), e.get("t_end")) for e in slow.events]


def test_raise_times_refuses_a_cycle():
    build = TraceBuilder()
    build.event("a", 0.0, "message", "x")
    build.event("b", 0.0, "message", "x")
    build.edge("a", "b", "causal")
    build.edge("b", "a", "causal")
    with pytest.raises(AssertionError, match="cycle"):
        build.raise_times()


def test_read_jsonl_counts_blank_lines_and_names_bad_ones(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"a": 1}\n\n  \n{"b": 2}\n', encoding="utf-8")
    skipped = Counter()
    assert read_jsonl(path, skipped) == [(1, {"a": 1}), (4, {"b": 2})]
    assert skipped == {"blank line": 2}
    path.write_text('{"a": 1}\n{"b": \n', encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        read_jsonl(path, Counter())
    assert str(caught.value) == (f"{path}:2: not a JSON record (Expecting value at column 7); "
                                 "is the line truncated?")


def test_write_trace_replaces_atomically_and_leaves_nothing_behind(tmp_path):
    out = tmp_path / "trace.json"
    out.write_text("old", encoding="utf-8")
    document = {"trace_id": "t", "events": [{"id": "é"}]}
    write_trace(document, out)
    assert out.read_text(encoding="utf-8") == dumps(document)
    assert dumps(document).endswith("}\n") and '"é"' in dumps(document)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json"]
    assert oct(out.stat().st_mode & 0o777) == "0o644"


def test_write_trace_failure_keeps_the_old_file(tmp_path, monkeypatch):
    out = tmp_path / "trace.json"
    out.write_text("old", encoding="utf-8")

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_trace({"trace_id": "t"}, out)
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json"]


@pytest.mark.parametrize("fmt, name", IMPORTS, ids=[name for _, name in IMPORTS])
def test_provenance_holds_the_summary_counts_and_no_absolute_path(fmt, name, monkeypatch):
    absolute = import_file(fmt, FIXTURES / name)
    summary, provenance = absolute.summary(), absolute.trace["provenance"]
    assert list(absolute.trace)[-1] == "provenance"
    optional = {"recognised": absolute.recognised is not None,
                "records": absolute.account.unit is not None,
                "usage": absolute.account.unit is not None,
                "time_origin": absolute.time_origin is not None}
    assert (fmt != "who-and-when") or optional["recognised"]
    assert list(provenance) == sorted(["format", "repaired", "skipped", "sources",
                                       *[key for key, present in optional.items() if present]])
    assert (provenance["format"], provenance["skipped"], provenance["repaired"]) == (
        fmt, summary["skipped"], summary["repairs"])
    assert provenance.get("recognised") == summary["recognised"]
    assert [s["name"] for s in provenance["sources"]] == [
        os.path.relpath(f, (FIXTURES / name).parent).replace(os.sep, "/") for f in summary["files"]]
    assert not any(s["name"].startswith("/") or str(FIXTURES) in s["name"]
                   for s in provenance["sources"])
    monkeypatch.chdir(FIXTURES / name.split("/")[0])  # the same file named relatively
    relative = import_file(fmt, name.split("/")[1])
    assert dumps(relative.trace) == dumps(absolute.trace)


def test_source_file_names_a_file_outside_the_folder_by_its_base_name(tmp_path):
    (tmp_path / "inside").mkdir()
    for path in (tmp_path / "inside" / "a" / "b.jsonl", tmp_path / "c.jsonl"):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"{}\n")
    digest = hashlib.sha256(b"{}\n").hexdigest()
    assert source_file(tmp_path / "inside" / "a" / "b.jsonl", tmp_path / "inside") == {
        "name": "a/b.jsonl", "sha256": digest}
    assert source_file(tmp_path / "c.jsonl", tmp_path / "inside") == {
        "name": "c.jsonl", "sha256": digest}


def test_with_provenance_writes_the_final_counts_last(tmp_path):
    source = tmp_path / "log.json"
    source.write_bytes(b"[]")
    result = ImportResult("otel", str(source), {"trace_id": "t", "provenance": {}},
                          files=[str(source)])
    result.skipped["b"] += 2
    result.skipped["a"] += 1
    result.repairs["r"] += 1
    assert result.with_provenance() is result
    assert list(result.trace) == ["trace_id", "provenance"]
    assert result.trace["provenance"] == {
        "format": "otel", "repaired": {"r": 1}, "skipped": {"a": 1, "b": 2},
        "sources": [{"name": "log.json", "sha256": hashlib.sha256(b"[]").hexdigest()}]}
    assert list(result.trace["provenance"]["skipped"]) == ["a", "b"]


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown format 'csv'; expected one of otel, "
                                         "claude-code, who-and-when"):
        import_file("csv", "x")


def _line_spans_by_loop(data: bytes):
    """The plain definition ``_line_spans`` must agree with: split at every newline, a line
    is blank when ``bytes.strip`` leaves nothing."""
    begins, ends, numbers, blank = [], [], [], 0
    begin, number = 0, 0
    while begin < len(data):
        end = data.find(b"\n", begin)
        end = len(data) if end < 0 else end
        number += 1
        if data[begin:end].strip():
            begins.append(begin)
            ends.append(end)
            numbers.append(number)
        else:
            blank += 1
        begin = end + 1
    return begins, ends, numbers, blank


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([b"\n", b"\r\n", b" ", b"\t", b"\x0b", b"\x0c", b"\r", b"{}",
                                 b"x", b"\x1c", b"\xc2\xa0"]), max_size=30).map(b"".join))
def test_line_spans_are_the_lines_a_plain_split_finds(data):
    from masrl.traces.importers._kit.common import _line_spans
    begins, ends, numbers, blank = _line_spans(data)
    assert (begins.tolist(), ends.tolist(), numbers, blank) == _line_spans_by_loop(data)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"\n", b" ", b"\t", b"{}", b"x"]), max_size=40).map(b"".join),
       st.integers(1, 9))
def test_line_spans_found_a_block_at_a_time_are_those_of_one_pass(data, block):
    """Newlines are looked for a block of bytes at a time (a mask of the whole file was a
    second copy of its size): lines across the blocks' edges are found whole."""
    from unittest import mock

    from masrl.traces import piecewise_json
    from masrl.traces.importers._kit import common
    with mock.patch.object(piecewise_json, "LINE_BLOCK", block):
        begins, ends, numbers, blank = common._line_spans(data)
    assert (begins.tolist(), ends.tolist(), numbers, blank) == _line_spans_by_loop(data)


def test_read_jsonl_shapes_each_record_once_and_keeps_the_first_fault(tmp_path):
    """A shape may hold state (Claude Code's registers each uuid): every record is shaped once,
    in line order, a fault is raised once the file is read and the records after it are kept as
    read, as one call per record would do, over a file of several chunks."""
    path = tmp_path / "log.jsonl"
    lines = [json.dumps({"n": k, "pad": "x" * 200}) for k in range(3000)]  # > 2 chunks
    path.write_text("\n".join(lines) + "\n")
    seen = []

    def shape(number, record):
        seen.append(number)
        if number == 2500:
            raise SourceError(path, number, "n is the one refused")
        return {"n": record["n"]}

    with pytest.raises(SourceError, match=":2500: n is the one refused"):
        read_jsonl(path, Counter(), shape)
    assert seen == list(range(1, 2501))  # none shaped twice, none after the fault
    kept = read_jsonl(path, Counter(), lambda number, record: {"n": record["n"]})
    assert kept == [(k + 1, {"n": k}) for k in range(3000)]


def test_a_fault_inside_a_line_is_not_called_a_truncation(tmp_path):
    """A raw control character or a missing colon inside a line is not a cut line: the error
    says what and where, in words without a dangling "at", and asks about truncation only
    when the line ends where the parser wanted more."""
    path = tmp_path / "log.jsonl"
    for text, said in [('{"a": "x\x01y", "b": 2}', "Invalid control character at column 9"),
                       ('{"a" 1, "b": 2}', "Expecting ':' delimiter at column 6")]:
        path.write_text('{"ok": 1}\n' + text + '\n{"ok": 2}\n', encoding="utf-8")
        with pytest.raises(SourceError) as caught:
            read_jsonl(path, Counter())
        assert str(caught.value) == f"{path}:2: not a JSON record ({said})"
    path.write_text('{"ok": 1}\n{"a": "cut here', encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        read_jsonl(path, Counter())
    assert str(caught.value) == (f"{path}:2: not a JSON record (Unterminated string at column "
                                 "7); is the line truncated?")


@pytest.mark.parametrize("size", [0, 1, common.HASH_CHUNK - 1, common.HASH_CHUNK,
                                  common.HASH_CHUNK + 1, 3 * common.HASH_CHUNK + 5])
def test_file_sha256_is_the_hash_of_the_whole_file_at_any_size(tmp_path, size):
    path = tmp_path / "log.jsonl"
    data = os.urandom(size)
    path.write_bytes(data)
    assert common.file_sha256(path) == hashlib.sha256(data).hexdigest()


def test_file_sha256_refuses_a_file_that_grew_past_the_limit_while_read(tmp_path, monkeypatch):
    """The size is checked before reading; a file that grows past the limit meanwhile is caught
    by counting what is read (here the first check is passed over to stand for the growth)."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"x" * (2 * common.HASH_CHUNK))
    monkeypatch.setenv("MASRL_MAX_INPUT_BYTES", str(common.HASH_CHUNK + 7))
    monkeypatch.setattr(common, "check_input", lambda path, limit: os.stat(path))
    with pytest.raises(common.InputError, match=f"more than the limit of {common.HASH_CHUNK + 7}"):
        common.file_sha256(path)


def _hashes(monkeypatch) -> list[str]:
    """The files :func:`common.file_sha256` reads from now on (each read, by name)."""
    read: list[str] = []

    def spied(path, *args, **kwargs):
        read.append(Path(path).name)
        return open(path, *args, **kwargs)

    monkeypatch.setattr(common, "open", spied, raising=False)
    return read


def test_a_source_of_several_runs_is_hashed_once(tmp_path, monkeypatch):
    """Each run of a file of many has the file's hash in its provenance: hashed once for the
    import, not once per run (a collector's file of 4,273 traces took a minute)."""
    from masrl.traces.importers import import_traces

    text = (FIXTURES / "otel" / "otlp_collector.jsonl").read_text("utf-8")
    path = tmp_path / "collector.jsonl"
    path.write_text("".join(text.replace("0e0e4736", f"0000000{k}") for k in range(3)), "utf-8")
    read = _hashes(monkeypatch)
    results = import_traces("otel", path)
    assert len(results) > 1 and read == ["collector.jsonl"]
    assert len({json.dumps(r.trace["provenance"]["sources"]) for r in results}) == 1


def test_a_file_changed_since_it_was_hashed_is_hashed_again(tmp_path, monkeypatch):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"one")
    read = _hashes(monkeypatch)
    with common.hashing_once():
        first = common.file_sha256(path)
        assert common.file_sha256(path) == first
        path.write_bytes(b"other")
        assert common.file_sha256(path) == hashlib.sha256(b"other").hexdigest()
    assert common.file_sha256(path) == common.file_sha256(path)  # outside: every call hashes
    assert read == ["log.jsonl"] * 4


BREAKS = st.text(alphabet=st.sampled_from("ab \u2028\x1c\x85\r\x0b"), max_size=6)


@given(st.lists(BREAKS, min_size=1, max_size=4), st.sampled_from(["x]", "1 2", ""]))
@settings(max_examples=300, deadline=None)
def test_text_offset_is_where_the_json_parser_points(strings, tail):
    """The JSON parser counts lines by line feeds alone; ``str.splitlines`` also breaks at
    U+2028, U+0085, U+001C or a carriage return, which JSON strings may hold, and would move
    the place a fault is looked at (here after strings holding them, a line feed each)."""
    text = ",\n".join(["[" + json.dumps(strings[0], ensure_ascii=False)]
                      + [json.dumps(s, ensure_ascii=False) for s in strings[1:]]) + ",\n" + tail
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(text)
    assert common.text_offset(text, caught.value.lineno, caught.value.colno) == caught.value.pos


def test_a_source_of_many_runs_names_a_few_of_them():
    """A collector's file holds thousands of runs: the error names five and counts the rest
    (it listed every id, 144,000 characters for a file of 4,273 traces)."""
    from masrl.traces.importers._kit.common import several_runs

    ids = [f"t{k}" for k in range(1, 1235)]
    message = several_runs(Path("f.jsonl"), "otel", ids, "traces").message
    assert message.startswith("1234 traces (t1, t2, t3, t4, t5 and 1,229 more); ")
    assert "t6" not in message
    assert several_runs(Path("f.jsonl"), "otel", ids[:5], "traces").message.startswith(
        "5 traces (t1, t2, t3, t4, t5); ")
