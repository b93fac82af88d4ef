"""How :func:`masrl.traces.validate.validate_file` reads a large file when the text is not kept
(``keep_document=False``, what the commands ask): into anonymous memory whose pages the fast
path gives back as it decodes them. The reports and replays are those of the same bytes held
whole, also when the fast path gives up after it has given pages back (the full path then
reads the file again), and the given-back pages are really gone from the map."""

from __future__ import annotations

import json

import pytest

from masrl import files
from masrl.traces import columns, validate
from masrl.traces.replay import READ_FIELDS, replay
from masrl.traces.synthetic import swarm_trace
from masrl.traces.validate import validate_bytes, validate_file


@pytest.fixture
def small_pieces(monkeypatch):
    """Files from one byte up are read into anonymous memory, decoded 1 KB at a time; every
    map read is kept, to look at it afterwards."""
    monkeypatch.setattr(validate, "RELEASED_FROM", 1)
    monkeypatch.setattr(columns, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(columns, "EDGE_CHUNK_BYTES", 1024)
    maps = []
    read = validate._read

    def keeping(path, anonymous=False):
        data = read(path, anonymous)
        if not isinstance(data, bytes):
            maps.append(data)
        return data

    monkeypatch.setattr(validate, "_read", keeping)
    return maps


def _trace() -> dict:
    return swarm_trace([60, 8, 90, 4], call_seconds=0.25, tokens_per_call=9,
                       return_reward=0.25, trace_id="pages")


def _same_as_bytes(path, text: bytes) -> dict:
    """validate_file's report on ``path`` equals validate_bytes' on ``text``; its replay."""
    from_file = validate_file(path, keep_document=False, fields=READ_FIELDS)
    from_bytes = validate_bytes(text, source=str(path), keep_document=False, fields=READ_FIELDS)
    assert from_file.to_dict() == from_bytes.to_dict()
    if not from_bytes.valid:
        return {}
    replayed = replay(from_file.trace).to_dict()
    assert replayed == replay(from_bytes.trace).to_dict()
    return replayed


def test_the_pages_of_decoded_events_are_given_back(small_pieces, tmp_path):
    text = json.dumps(_trace()).encode()
    path = tmp_path / "trace.json"
    path.write_bytes(text)
    assert _same_as_bytes(path, text)["events"] > 300
    [memory] = small_pieces
    events = text.index(b'"events"')
    middle = events + (text.index(b'"edges"') - events) // 2
    page = middle - middle % 4096
    assert memory[page:page + 4096] == bytes(4096)  # given back: the kernel's zero page
    assert memory[:100] == text[:100]  # the head, before the events, is kept


def test_edges_before_events_are_read_whole(small_pieces, tmp_path):
    trace = _trace()
    reordered = {"edges": trace.pop("edges"), **trace}
    text = json.dumps(reordered).encode()
    path = tmp_path / "trace.json"
    path.write_bytes(text)
    assert _same_as_bytes(path, text)["events"] > 300


@pytest.mark.parametrize("damage", ["repeated key", "schema", "unknown end"])
def test_a_fast_path_that_gives_up_late_reports_as_the_bytes_do(small_pieces, tmp_path, damage):
    """The damage is in the last event or edge, after pages were given back: the full path
    reads the file again, and says what it would say of the bytes."""
    trace = _trace()
    if damage == "schema":
        trace["events"][-1]["t"] = -1.0
    elif damage == "unknown end":
        trace["edges"][-1]["dst"] = "nowhere"
    text = json.dumps(trace).encode()
    if damage == "repeated key":
        last = text.rindex(b'"agent": ')
        text = text[:last] + b'"agent": "twice", ' + text[last:]
    path = tmp_path / "trace.json"
    path.write_bytes(text)
    _same_as_bytes(path, text)
    report = validate_file(path, keep_document=False)
    assert not report.valid and report.errors


def test_a_file_that_changed_size_since_its_check_is_read_as_bytes(small_pieces, monkeypatch,
                                                                   tmp_path):
    text = json.dumps(_trace()).encode()
    path = tmp_path / "trace.json"
    path.write_bytes(text)
    checked = files.check_input

    def check_then_grow(target, limit=None):  # another process appends meanwhile
        found = checked(target, limit)
        with open(target, "ab") as handle:
            handle.write(b"  \n")
        return found

    monkeypatch.setattr(files, "check_input", check_then_grow)
    assert validate_file(path, keep_document=False).valid
    assert small_pieces == []  # no map kept: the file was read as bytes
