"""Property: whatever bytes a trace file holds, :func:`validate_file` returns a report and never
raises, and a trace it calls valid replays (or names the figure that overflowed); the quick
verdict of ``masrl validate`` never raises and says "clean" only where validation finds
nothing. Documents are generated in the rough shape of a trace (the schema's keys, values of
every JSON type, numbers at the edges of a double), as raw bytes, and as byte-level damage to
the fixtures.

Examples are derandomised (the same ones every run, so CI cannot turn red by chance) and few,
so the suite stays fast; run with ``--hypothesis-seed`` or raise ``max_examples`` to search
further.
"""

from __future__ import annotations

import contextlib
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_helpers import FIXTURES

from masrl.traces import quick_verdict, replay, resources
from masrl.traces.replay import NonFiniteResult
from masrl.traces.validate import validate_file

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
SEEDS = [FIXTURES / "small.json", *sorted(resources.EXAMPLES
                                            .glob("*.json"))]

EVENT_KEYS = ["id", "t", "type", "agent", "role", "from", "to", "tool", "content_ref", "trusted",
              "decision", "tokens", "cost_usd", "reward", "t_end", "duration", "x_note"]
EDGE_KEYS = ["src", "dst", "type", "mode", "id"]
HEAD_KEYS = ["schema_version", "trace_id", "task_id", "system", "topology", "rewards", "costs",
             "metrics", "counterfactuals", "provenance"]
WORDS = ["e1", "e2", "a", "b", "spawn", "return", "message", "tool_call", "tool_result",
         "causal", "async", "blocking", "team", "tokens", "wall_clock_s", "1.0", "agent", ""]

numbers = st.one_of(st.integers(min_value=-(10**20), max_value=10**20),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([0, -0.0, 1.7e308, -1.7e308, 5e-324, 2**53 + 1]))
scalars = st.one_of(st.none(), st.booleans(), numbers, st.sampled_from(WORDS),
                    st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(WORDS), inner, max_size=4)),
    max_leaves=12)


def shaped(keys: list[str]):
    return st.dictionaries(st.sampled_from(keys), st.one_of(scalars, values), max_size=8)


documents = st.fixed_dictionaries(
    {"events": st.lists(shaped(EVENT_KEYS), max_size=6),
     "edges": st.lists(shaped(EDGE_KEYS), max_size=6)},
    optional={key: values for key in HEAD_KEYS})


def check(tmp_path, data: bytes) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(data)
    for keep in (True, False):
        report = validate_file(path, keep_document=keep)
        assert report.readable
        assert report.valid == (report.trace is not None and not report.errors)
        for problem in report.problems:
            assert problem.line(str(path)).count("\n") == 0
        if report.valid:
            with contextlib.suppress(NonFiniteResult):
                json.dumps(replay(report.trace).to_dict(), allow_nan=False)
    # the quick verdict of `masrl validate` answers whatever the bytes, "clean" only rightly
    assert not quick_verdict.clean(str(path), 1 << 30) or not report.problems


@PROPERTY
@given(document=documents)
def test_any_trace_shaped_document_gets_a_report(tmp_path, document):
    check(tmp_path, json.dumps(document).encode())


@PROPERTY
@given(data=st.binary(max_size=200))
def test_any_bytes_get_a_report(tmp_path, data):
    check(tmp_path, data)


@PROPERTY
@given(seed=st.sampled_from(SEEDS), cuts=st.lists(
    st.tuples(st.floats(0, 1), st.integers(0, 8), st.binary(max_size=6)), min_size=1,
    max_size=3))
def test_damaged_fixtures_get_a_report(tmp_path, seed, cuts):
    """Cut, insert and overwrite bytes of a real trace: every kind of half-valid file."""
    data = bytearray(seed.read_bytes())
    for where, removed, inserted in cuts:
        at = int(where * len(data))
        data[at:at + removed] = inserted
    check(tmp_path, bytes(data))


@PROPERTY
@given(seed=st.sampled_from(SEEDS), data=st.data())
def test_fixtures_with_one_value_replaced_get_a_report(tmp_path, seed, data):
    """Replace one value anywhere in a real trace by a value of another type or size."""
    document = json.loads(seed.read_text(encoding="utf-8"))
    node, path = document, []
    while isinstance(node, (dict, list)) and node and data.draw(st.booleans(), label="deeper"):
        key = data.draw(st.sampled_from(sorted(node) if isinstance(node, dict)
                                        else range(len(node))), label="key")
        path.append(key)
        node = node[key]
    if path:
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = data.draw(values, label="value")
    check(tmp_path, json.dumps(document).encode())
