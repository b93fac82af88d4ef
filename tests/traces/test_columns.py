"""The fast path's columns (:mod:`masrl.traces.columns`): a trace decoded a few kilobytes at a
time, into columns that grow as chunks come, holds exactly what it holds decoded in one piece,
and replays the same."""

from __future__ import annotations

import json

import numpy as np
import pytest

from masrl.traces import columns
from masrl.traces.replay import READ_FIELDS, replay
from masrl.traces.synthetic import swarm_trace
from masrl.traces.validate import validate_bytes

EVENT_FIELDS = ("id", "t", "type", "agent", "role", "from", "to", "tool", "content_ref",
                "trusted", "decision", "tokens", "cost_usd", "reward", "t_end", "duration",
                "content")


@pytest.fixture(scope="module")
def text() -> bytes:
    trace = swarm_trace([40, 3, 25, 1, 60], call_seconds=0.25, tokens_per_call=7,
                        return_reward=0.5, trace_id="chunks")
    trace["events"][5]["x_model"] = "gpt-4o"  # a field of the event's own, in one chunk
    return json.dumps(trace).encode()


def _columns(decoded) -> dict:
    """Every field of the events and edges as plain lists (NaN as None, for equality)."""
    events, edges = decoded.events, decoded.edges
    found = {f"events.{key}": events.optional(key) for key in EVENT_FIELDS}
    found.update({f"edges.{key}": edges.optional(key) for key in ("src", "dst", "type", "mode",
                                                                   "id")})
    found["events.x_model"] = events.present("x_model")
    return found


@pytest.mark.parametrize("expected", [None, 1])
def test_chunks_hold_what_one_piece_holds(text, monkeypatch, expected):
    """Chunks of about 1 KB (recut where a cut falls inside an event), with the columns'
    reservation as estimated or far too small (they then double as chunks come)."""
    whole = columns.decode(text)
    monkeypatch.setattr(columns, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(columns, "EDGE_CHUNK_BYTES", 512)
    if expected is not None:
        monkeypatch.setattr(columns, "_expected", lambda *_: expected)
    chunked = columns.decode(text)
    assert whole is not None and chunked is not None
    assert chunked.events.count == whole.events.count > 250
    assert _columns(chunked) == _columns(whole)


def test_chunked_replay_is_the_same(text, monkeypatch):
    def replayed() -> dict:
        report = validate_bytes(text, keep_document=False, fields=READ_FIELDS)
        assert report.valid
        return replay(report.trace).to_dict()

    whole = replayed()
    monkeypatch.setattr(columns, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(columns, "EDGE_CHUNK_BYTES", 512)
    assert replayed() == whole


def test_growing_column_keeps_every_value_past_its_reservation():
    column = columns.Growing(np.float64)
    column.reserve(3)
    for start in range(0, 20, 4):
        column.extend(np.arange(start, start + 4, dtype=np.float64))
    assert column.values().tolist() == list(range(20))
    assert len(column.array) >= 20
    assert columns.Growing(np.int32).values().tolist() == []


@pytest.mark.parametrize(("member", "strict"), [
    ('"rewards": {"team": 1.0}', True),
    ('"rewards": {"team": 1.0, "team": 2.0}', False),  # a key repeated inside a member
    ('"metrics": {"x": 1e400}', False),  # a number strict JSON refuses
    ('"metrics": {"x": "\\ud800"}', False),  # a lone surrogate
    ('"rewards": {"team": 0.5, "process": 1}, "metrics": {"a": 2.5e-3}, "system": "s"', True),
])
def test_the_head_is_read_by_strict_json_whole(text, member, strict):
    """The head's members are read in one strict parse: a fault in any one of them sends the
    trace to the full path, and the values are those of a parse per member."""
    trace = json.loads(text)
    trace.pop("rewards")
    head = json.dumps({k: v for k, v in trace.items() if k not in ("events", "edges")})
    data = ("{" + member + ", " + head[1:-1] + ', "events": ' + json.dumps(trace["events"])
            + ', "edges": ' + json.dumps(trace["edges"]) + "}").encode()
    decoded = columns.decode(data)
    assert (decoded is not None) is strict
    if strict:
        expected = {key: value for key, value in json.loads(data).items()
                    if key not in ("events", "edges")}
        assert decoded.head == expected
