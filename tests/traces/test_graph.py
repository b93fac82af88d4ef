"""The column index and the graph algorithms, including their slow paths."""

from __future__ import annotations

import numpy as np
import pytest

from masrl.traces import graph


@pytest.fixture(params=["dictionary", "hashes"])
def index_mode(request, monkeypatch):
    """Both ways of the index: a dictionary (small traces) and sorted hashes (big ones)."""
    if request.param == "hashes":
        monkeypatch.setattr(graph.IdIndex, "DICT_SIZE", 0)
    return request.param


def test_id_index_modes(index_mode):
    assert graph.IdIndex(["a", "b"]).small is (index_mode == "dictionary")


def test_id_index_finds_first_occurrences_and_unknown_names(index_mode):
    index = graph.IdIndex(["a", "b", "a", "c"])
    assert index.positions(["c", "a", "zz", "b"]).tolist() == [3, 0, -1, 1]
    assert index.duplicates() == [(2, 0)]


def test_id_index_is_exact_even_when_every_hash_collides(monkeypatch, index_mode):
    monkeypatch.setattr(graph, "hash", lambda _: 7, raising=False)
    index = graph.IdIndex(["a", "b", "a", "c"])
    assert index.positions(["c", "a", "zz", "b"]).tolist() == [3, 0, -1, 1]
    assert index.duplicates() == [(2, 0)]


@pytest.mark.parametrize("limit", [graph.IdIndex.BUCKET_LIMIT, 0])
@pytest.mark.parametrize("seed", range(6))
def test_buckets_find_what_a_binary_search_finds(monkeypatch, seed, limit):
    """The place of each query among the sorted hashes, found through the buckets of their top
    bits (or, past the bucket limit, by sorting the queries), is np.searchsorted's: queries
    below, between, equal to and above the ids' hashes, some hashes repeated."""
    monkeypatch.setattr(graph.IdIndex, "DICT_SIZE", 0)
    monkeypatch.setattr(graph.IdIndex, "BUCKET_LIMIT", limit)
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 3000))
    hashes = rng.integers(-2**63, 2**63 - 1, size=size, dtype=np.int64)
    hashes[rng.integers(0, size, 20)] = hashes[0]  # repeated: duplicates, collisions
    ids = [str(k) for k in range(size)]
    monkeypatch.setattr(graph, "hash", dict(zip(ids, hashes.tolist())).__getitem__,
                        raising=False)
    index = graph.IdIndex(ids)
    assert (index.starts is None) is (limit == 0)
    queries = np.concatenate([hashes, rng.integers(-2**63, 2**63 - 1, size=500, dtype=np.int64),
                              np.array([-2**63, 2**63 - 1, hashes.min() - 1, hashes.max() + 1])])
    assert index._first_not_below(queries).tolist() == np.searchsorted(index.sorted,
                                                                       queries).tolist()


def test_a_crowded_bucket_is_searched_by_sorting(monkeypatch):
    """Ids whose hashes all fall into one bucket (chosen under a known hash seed) would make
    the buckets step through them one by one: the index sorts the queries instead."""
    monkeypatch.setattr(graph.IdIndex, "DICT_SIZE", 0)
    monkeypatch.setattr(graph, "hash", lambda name: len(name) + int(name[1:] or 0),
                        raising=False)  # small numbers: one bucket
    ids = [f"e{k}" for k in range(200)]
    index = graph.IdIndex(ids)
    assert index.starts is None
    assert index.positions(["e5", "x", "e199", "e0", "f5"]).tolist() == [5, -1, 199, 0, -1]


def test_empty_index(index_mode):
    assert graph.IdIndex([]).positions(["x"]).tolist() == [-1]


def test_topological_order_sorts_by_time_and_breaks_ties_by_edges():
    start = np.array([0.0, 1.0, 1.0, 2.0])
    src, dst = np.array([0, 2, 1]), np.array([2, 1, 3])  # 2 -> 1 at the same time
    assert graph.topological_order(4, src, dst, start).tolist() == [0, 2, 1, 3]


def test_topological_order_detects_a_cycle_at_one_instant():
    start = np.zeros(2)
    assert graph.topological_order(2, np.array([0, 1]), np.array([1, 0]), start) is None


def test_kahn_order_and_cycles():
    src, dst = np.array([0, 1, 2, 3]), np.array([1, 2, 0, 4])
    assert graph.kahn_order(5, src, dst) is None
    assert graph.kahn_order(5, np.array([3, 0]), np.array([4, 3])).tolist() == [0, 3, 4]
    assert graph.cycles(src, dst) == [[0, 1, 2, 0]]


def test_longest_path_prefers_the_longest_branch():
    order = np.arange(5)
    src, dst = np.array([0, 0, 1, 2, 3]), np.array([1, 4, 2, 3, 4])
    assert graph.longest_path(order, src, dst) == [0, 1, 2, 3, 4]
    assert graph.longest_path(order, src[:0], dst[:0]) == [0]


def plain_longest_path(order, src, dst) -> list[int]:
    """The definition, one edge at a time: lengths in topological order, a node's predecessor
    its earliest one of greatest length, the path ending at the earliest longest node."""
    place = {int(node): k for k, node in enumerate(order)}
    length, previous = {int(v): 1 for v in order}, {}
    for u, v in sorted(zip(src.tolist(), dst.tolist()), key=lambda e: place[e[0]]):
        if length[u] + 1 > length[v]:
            length[v], previous[v] = length[u] + 1, u
    node = max(order.tolist(), key=lambda v: (length[v], -place[v]))
    path = [node]
    while path[-1] in previous:
        path.append(previous[path[-1]])
    return path[::-1]


@pytest.mark.parametrize("seed", range(40))
def test_longest_path_through_chains_is_the_plain_one(seed):
    """Random DAGs of chains (links), fan-outs, fan-ins, repeated edges and ties in length."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    order = rng.permutation(n)
    pairs = []
    for k in range(1, n):
        if rng.random() < 0.6:
            pairs.append((k - 1, k))  # a chain, mostly
        for _ in range(int(rng.integers(0, 3))):
            if rng.random() < 0.3:
                pairs.append((int(rng.integers(0, k)), k))
    if pairs and rng.random() < 0.3:
        pairs.append(pairs[0])  # an edge given twice
    src = order[np.array([a for a, _ in pairs], dtype=np.int64)]
    dst = order[np.array([b for _, b in pairs], dtype=np.int64)]
    assert graph.longest_path(order, src, dst) == plain_longest_path(order, src, dst)


@pytest.mark.parametrize("seed", range(10))
def test_longest_path_across_many_short_chains_is_the_plain_one(seed):
    """Forty parallel chains of four, interleaved in time, a few edges between them: a path far
    shorter than an eighth of the nodes (walked on the array, not on a list of it)."""
    rng = np.random.default_rng(seed)
    chains, length = 40, 4
    node = np.arange(chains * length).reshape(length, chains).T  # node[c, j]: chain c, step j
    pairs = [(node[c, j], node[c, j + 1]) for c in range(chains) for j in range(length - 1)]
    for _ in range(int(rng.integers(0, 12))):
        c, d, j = rng.integers(0, chains), rng.integers(0, chains), rng.integers(0, length - 1)
        pairs.append((node[c, j], node[d, j + 1]))
    order = np.arange(chains * length)
    src = np.array([a for a, _ in pairs], dtype=np.int64)
    dst = np.array([b for _, b in pairs], dtype=np.int64)
    found = graph.longest_path(order, src, dst)
    assert found == plain_longest_path(order, src, dst)
    assert len(found) <= len(order) // 8


def test_end_times_from_t_end_duration_or_t():
    events = [{"t": 1, "t_end": 3}, {"t": 2, "duration": 0.5}, {"t": 4}]
    assert graph.event_columns([{**e, "id": str(k), "type": "message", "agent": "x"}
                                for k, e in enumerate(events)]).end.tolist() == [3, 2.5, 4]


def test_run_starts_are_where_a_value_changes():
    """graph.run_starts gives what np.diff with a value before every code gives."""
    rng = np.random.default_rng(7)
    for values in ([], [3], [0, 0, 1, 1, 1, 0, 2], rng.integers(0, 3, 500).tolist()):
        array = np.array(values, dtype=np.int64)
        expected = np.flatnonzero(np.diff(array, prepend=-1))
        assert graph.run_starts(array).tolist() == expected.tolist()
