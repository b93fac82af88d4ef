"""A large document of spans is decoded a span at a time, and JSON Lines a line at a time
(``otel_shapes.PIECEWISE_FROM``, :mod:`masrl.traces.piecewise_json`): every file imports to the
same traces, summaries and labels as when it is decoded whole, and a faulty file gives the same
error, the file's first fault (which may lie past a span the importer would refuse)."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES

from masrl import paths
from masrl.traces import piecewise_json
from masrl.traces.importers import SourceError, dumps, import_traces
from masrl.traces.importers.spans import otel_shapes

FOLDER = FIXTURES / "otel"
RAW = json.loads((FOLDER / "any_agent.json").read_text(encoding="utf-8"))
COLLECTOR = (FOLDER / "otlp_collector.jsonl").read_text(encoding="utf-8")
WHOLE = 1 << 62  # a threshold no file reaches: every document decoded whole


def outcome(path, threshold: int, monkeypatch) -> list | str:
    monkeypatch.setattr(otel_shapes, "PIECEWISE_FROM", threshold)
    try:
        return [(dumps(r.trace), r.summary(), r.labels) for r in import_traces("otel", path)]
    except SourceError as exc:
        return str(exc)


@pytest.fixture
def vouched(monkeypatch) -> list:
    """Every document read piecewise (``finished``: vouched for, read to its end)."""
    found: list = []
    read = piecewise_json.read

    def spied(*args, **kwargs):
        document = read(*args, **kwargs)
        if document is not None:
            found.append(document)
        return document

    monkeypatch.setattr(piecewise_json, "read", spied)
    return found


def same_either_way(path, monkeypatch) -> list | str:
    whole = outcome(path, WHOLE, monkeypatch)
    assert outcome(path, 1, monkeypatch) == whole
    return whole


@pytest.mark.parametrize("name", sorted(p.name for p in FOLDER.iterdir()))
def test_every_fixture_imports_the_same(name, monkeypatch):
    same_either_way(FOLDER / name, monkeypatch)


def test_real_span_exports_import_the_same(monkeypatch):
    folder = paths.public_logs_dir() / "real-logs" / "otel"
    if not folder.is_dir():
        pytest.skip("the public logs (../shared/traces) are not beside this clone")
    logs = sorted(folder.rglob("*.json"))
    assert logs
    for path in logs:
        same_either_way(path, monkeypatch)


def _with(change) -> str:
    document = json.loads(json.dumps(RAW))
    change(document)
    return json.dumps(document, indent=1)


def _repeat_last(text: str, key: str) -> str:
    """``text`` with the last ``"key"`` written twice (a repeated key late in the file)."""
    at = text.rindex(f'"{key}"')
    return text[:at] + f'"{key}": 1, ' + text[at:]


ODD = {
    "a span refused, then a repeated key further on": _repeat_last(
        _with(lambda d: d["spans"][0].update(context="x")), "name"),
    "a repeated key in the last span": _repeat_last(_with(lambda d: None), "name"),
    "a number out of range in a span": _with(lambda d: d["spans"][1].update(x=1)).replace(
        '"x": 1', '"x": 1e400'),
    "a repeated key at the top": _with(lambda d: None)[:-1] + ', "spans": []}',
    "a span refused": _with(lambda d: d["spans"][1].update(attributes=["a"])),
    "spans not a list": '{"spans": {"a": 1}}',
    "an array of spans, a key repeated": _repeat_last(json.dumps(RAW["spans"]), "name"),
    "an array of spans": json.dumps(RAW["spans"], indent=1),
    "resourceSpans beside spans": _with(lambda d: d.update(resourceSpans=[])),
    "resourceSpans beside spans with a repeated key": _repeat_last(json.dumps(
        {**json.loads((FOLDER / "otlp.json").read_text("utf-8")), "spans": RAW["spans"]}),
        "name"),
    "JSON Lines of several traces": "".join(
        COLLECTOR.replace("0e0e4736", f"0000000{k}") for k in range(3)),
    "JSON Lines, a span refused, then a repeated key further on": _repeat_last(
        COLLECTOR.replace('"spanId": "', '"spanId": "zz', 1), "name"),
    "JSON Lines, a number out of range on the last line": COLLECTOR.rstrip("\n")[:-1]
    + ', "x": 1e400}\n',
    "JSON Lines with a blank line": COLLECTOR.replace("\n", "\n\n", 1),
    "JSON Lines, CRLF": COLLECTOR.replace("\n", "\r\n"),
    "JSON Lines, a line that is no span": COLLECTOR + '{"resourceMetrics": []}\n',
}


@pytest.mark.parametrize("case", ODD, ids=list(ODD))
def test_an_odd_file_gives_the_same_trace_or_error(case, tmp_path, monkeypatch):
    path = tmp_path / "spans.json"
    path.write_text(ODD[case], "utf-8")
    same_either_way(path, monkeypatch)


@pytest.mark.parametrize("case", ["a document of spans", "JSON Lines"])
def test_the_piecewise_way_is_taken(case, tmp_path, monkeypatch, vouched):
    """A plain document of spans, and plain JSON Lines, are vouched for piecewise (so the
    tests above compare two ways, not one way twice)."""
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(RAW) if case == "a document of spans" else COLLECTOR, "utf-8")
    assert outcome(path, 1, monkeypatch) == outcome(path, WHOLE, monkeypatch)
    assert [d.finished for d in vouched] == [True]
