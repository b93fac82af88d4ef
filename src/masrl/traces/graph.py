"""The event graph of a schema-valid trace, as columns, and the graph algorithms on it.

A trace of a million events is read once into flat columns (one Python list or NumPy array per
field) so that every later check and metric is a vectorised operation or one tight loop, never a
walk over a million dictionaries.

Definitions used throughout:

* An event *starts* at ``t`` and *ends* at ``t_end``, at ``t + duration``, or, when neither is
  recorded, at ``t`` (an instantaneous event).
* Every edge is a dependency: its destination cannot happen before its source. In a valid trace
  the edges form a directed acyclic graph whose edges never run back in time.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from operator import eq, itemgetter

import numpy as np

from masrl.traces.schema import schema_enum

EVENT_TYPES = tuple(schema_enum("event", "type"))


class Records:
    """The events (or the edges) of a schema-valid trace as decoded dictionaries (the full path),
    read one field at a time.

    The fast path holds the same as columns (:class:`masrl.traces.columns.ColumnRecords`), read
    through the same methods: every method answers the same for both, so that columns, checks
    and metrics never depend on the path taken. Absent fields read as ``None`` (NaN for
    numbers), as ``dict.get`` says.
    """

    structs = False  # dictionaries (the fast path's columns say True)
    index = None  # the ids' index, when the records were decoded with one (the fast path)

    def __init__(self, items: list):
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def column(self, key: str) -> list:
        """A required field of every item."""
        return list(map(itemgetter(key), self.items))

    def optional(self, key: str, default=None) -> list:
        """An optional field of every item, ``default`` where it is absent."""
        return list(map(dict.get, self.items, repeat(key), repeat(default)))

    def numbers(self, key: str, default: float = np.nan) -> np.ndarray:
        """A numeric field of every item as float64, ``default`` where it is absent."""
        values = map(dict.get, self.items, repeat(key), repeat(default))
        return np.fromiter(values, dtype=np.float64, count=len(self.items))

    def codes(self, key: str, known: dict | None = None,
              dtype: type = np.int64) -> tuple[np.ndarray, list]:
        """A string field as integer codes, in one pass: ``(codes, names)`` with
        ``names[codes[i]]`` the value of item ``i`` (``None`` where it is absent). With
        ``known`` (value -> code; a :class:`FirstSeen` grows as new values come) the codes are
        those; otherwise values are numbered in order of first appearance."""
        values = map(dict.get, self.items, repeat(key))
        table = FirstSeen() if known is None else known
        codes = np.fromiter(map(table.__getitem__, values), dtype=dtype, count=len(self.items))
        return codes, list(table)

    def counts(self, key: str, default=None) -> Counter:
        """How often each value of a string field occurs (``default`` counting the absent)."""
        return Counter(map(dict.get, self.items, repeat(key), repeat(default)))

    def value(self, i: int, key: str, default=None):
        """One optional field of item ``i``."""
        return self.items[i].get(key, default)

    def present(self, key: str) -> dict[int, object]:
        """Item position -> value, for the items that have the field."""
        return {i: item[key] for i, item in enumerate(self.items) if key in item}


class FirstSeen(dict):
    """Value -> code, a new value getting the next code when it is first looked up."""

    def __missing__(self, key):
        self[key] = code = len(self)
        return code


def as_records(items):
    """``items`` as records (a plain list is a list of dictionaries)."""
    return Records(items) if isinstance(items, list) else items


class IdIndex:
    """Event id -> position of its first occurrence, built on sorted string hashes.

    On a million events a ``dict`` costs about 0.5 s to build and 0.5 s per million look-ups
    (each a cache miss); sorting the ids' hashes once and binary-searching sorted query hashes
    costs about half. A query's place among the sorted hashes is found from its hash's top bits
    (:meth:`_first_not_below`), which saves sorting the queries. Every match is confirmed by
    comparing the strings themselves, and a name left unconfirmed (an unknown id, or a hash
    collision) is settled by an exact dictionary, so the answer is exact. Up to
    :data:`DICT_SIZE` ids the dictionary fits the caches and is the faster of the two (a corpus
    is mostly traces of thousands of events), so it serves alone.
    """

    DICT_SIZE = 1 << 15
    BUCKET_LIMIT = 64  # hashes in one bucket beyond which queries are sorted and searched

    def __init__(self, ids: list[str]):
        self.ids = ids
        self.small = len(ids) <= self.DICT_SIZE
        if self.small:
            return
        hashes = np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))
        self.order = np.argsort(hashes)  # NumPy's SIMD quicksort: 4x faster than a stable sort
        self.sorted = hashes[self.order]
        if (self.sorted[1:] == self.sorted[:-1]).any():  # duplicate ids or a hash collision:
            self.order = np.argsort(hashes, kind="stable")  # equal hashes keep file order
            self.sorted = hashes[self.order]
        self._buckets()

    def _buckets(self) -> None:
        """Split the sorted hashes by their top bits into about as many buckets as ids:
        ``starts[b]`` is where bucket ``b`` begins. String hashes are spread evenly, so a bucket
        holds one or two; ``starts`` is ``None`` when one holds more than
        :data:`BUCKET_LIMIT` (hashes chosen to collide, under a known ``PYTHONHASHSEED``)."""
        bits = len(self.ids).bit_length()
        self.shift, self.half = 64 - bits, 1 << (bits - 1)
        counts = np.bincount((self.sorted >> self.shift) + self.half, minlength=1 << bits)
        self.starts = None
        if counts.max() <= self.BUCKET_LIMIT:
            self.starts = np.zeros(len(counts) + 1, dtype=np.int64)
            np.cumsum(counts, out=self.starts[1:])

    def _first_not_below(self, queries: np.ndarray) -> np.ndarray:
        """For each query hash, the first position in ``sorted`` whose hash is not below it
        (``np.searchsorted(self.sorted, queries)``): the hashes of earlier buckets are all
        below it, those of later ones all above, so it lies in its own bucket, found by
        stepping through the bucket's few hashes, all queries at once."""
        if self.starts is None:
            by_hash = np.argsort(queries)
            slot = np.empty(len(queries), dtype=np.int64)
            slot[by_hash] = np.searchsorted(self.sorted, queries[by_hash])
            return slot
        bucket = (queries >> self.shift) + self.half
        slot, end = self.starts[bucket], self.starts[bucket + 1]
        moving = np.flatnonzero(slot < end)
        while len(moving):
            moving = moving[self.sorted[slot[moving]] < queries[moving]]
            slot[moving] += 1
            moving = moving[slot[moving] < end[moving]]
        return slot

    @cached_property
    def exact(self) -> dict[str, int]:
        """The plain dictionary, built only when a look-up needs it (ids are mostly unique:
        then the dictionary of last occurrences is that of first ones)."""
        last = dict(zip(self.ids, range(len(self.ids))))
        if len(last) == len(self.ids):
            return last
        return dict(zip(reversed(self.ids), range(len(self.ids) - 1, -1, -1)))

    def positions(self, names: list[str]) -> np.ndarray:
        """Position of each name's first event, -1 where no event has that id."""
        if self.small:
            return np.fromiter(map(self.exact.get, names, repeat(-1)), dtype=np.int64,
                               count=len(names))
        queries = np.fromiter(map(hash, names), dtype=np.int64, count=len(names))
        slot = self._first_not_below(queries)
        found = self.order[np.minimum(slot, len(self.ids) - 1)]
        if len(names) > 1 and itemgetter(*found.tolist())(self.ids) == tuple(names):
            return found  # every name confirmed at once (the usual case: one comparison in C)
        candidates = map(self.ids.__getitem__, found.tolist())
        confirmed = np.fromiter(map(eq, candidates, names), dtype=bool, count=len(names))
        for k in np.flatnonzero(~confirmed).tolist():
            found[k] = self.exact.get(names[k], -1)
        return found

    def duplicates(self) -> list[tuple[int, int]]:
        """``(position, position of the first use)`` of every event whose id was used before."""
        if self.small:
            first = self.exact
            if len(first) == len(self.ids):
                return []
            return [(i, first[name]) for i, name in enumerate(self.ids) if first[name] != i]
        same = np.flatnonzero(self.sorted[1:] == self.sorted[:-1])
        suspects = np.union1d(self.order[same], self.order[same + 1]).tolist()
        first = {i: self.exact[self.ids[i]] for i in suspects}
        return [(i, f) for i, f in first.items() if f != i]


@dataclass
class EventColumns:
    """One entry per event, in file order."""

    ids: list[str]
    types: np.ndarray  # int8 position of the event's type in EVENT_TYPES
    agent_codes: np.ndarray  # int64 position of each event's agent in agent_names
    agent_names: list[str]  # agents in order of first appearance
    start: np.ndarray  # float64, the event's t
    end: np.ndarray  # float64, t_end, t + duration, or t
    index: IdIndex
    overdetermined: int = 0  # events giving both t_end and duration, which the schema forbids
    timed: int = 0  # events giving t_end or duration (the others end where they start)

    @property
    def count(self) -> int:
        return len(self.ids)

    @property
    def instants(self) -> int:
        """Events giving neither ``t_end`` nor ``duration``: instants, whatever time they took
        (what busy time and the speedup then leave out)."""
        return self.count - self.timed

    def agent(self, i: int) -> str:
        """The agent of event ``i``."""
        return self.agent_names[self.agent_codes[i]]

    def of_type(self, *names: str) -> np.ndarray:
        """Positions of the events of the given types, in file order."""
        mask = self.types == EVENT_TYPES.index(names[0])
        for name in names[1:]:  # a few comparisons beat np.isin, which sorts
            mask |= self.types == EVENT_TYPES.index(name)
        return np.flatnonzero(mask)

    def type_counts(self) -> dict[str, int]:
        """Number of events of each type, every type of the schema listed."""
        counts = np.bincount(self.types, minlength=len(EVENT_TYPES)).tolist()
        return dict(zip(EVENT_TYPES, counts))


@dataclass
class EdgeColumns:
    """One entry per edge, in file order; an endpoint that names no event is -1."""

    src: np.ndarray  # int64 event positions
    dst: np.ndarray
    _known: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def count(self) -> int:
        return len(self.src)

    def known(self) -> np.ndarray:
        """Boolean mask of the edges whose two ends are events of the trace (computed once)."""
        if self._known is None:
            self._known = (self.src >= 0) & (self.dst >= 0)
        return self._known


TYPE_CODES = {name: k for k, name in enumerate(EVENT_TYPES)}


def event_columns(events: list[dict] | Records) -> EventColumns:
    """Columns of a schema-valid ``events`` array (C-level ``map`` loops throughout)."""
    events = as_records(events)
    ids = events.column("id")
    agent_codes, agent_names = events.codes("agent")
    start = events.numbers("t")
    end, overdetermined, timed = _end_times(events, start)
    return EventColumns(
        ids=ids,
        types=events.codes("type", TYPE_CODES, np.int8)[0],
        agent_codes=agent_codes,
        agent_names=agent_names,
        start=start,
        end=end,
        index=events.index if events.index is not None else IdIndex(ids),
        overdetermined=overdetermined,
        timed=timed,
    )


def _end_times(events: Records, start: np.ndarray) -> tuple[np.ndarray, int, int]:
    """End times, how many events give both ``t_end`` and ``duration``, and how many give
    either."""
    end, duration = events.numbers("t_end"), events.numbers("duration")
    given, stated = ~np.isnan(duration), ~np.isnan(end)
    overdetermined = int(np.count_nonzero(given & stated))
    timed = int(np.count_nonzero(given | stated))
    with np.errstate(over="ignore"):  # t + duration past 1.8e308 is infinite (end-overflow)
        ends = np.where(np.isnan(end), start + np.where(given, duration, 0.0), end)
    return ends, overdetermined, timed


def edge_columns(edges: list[dict] | Records, index: IdIndex) -> EdgeColumns:
    """Columns of a schema-valid ``edges`` array, endpoints resolved through ``index`` (the
    fast path's columns hold them resolved already)."""
    edges = as_records(edges)
    if edges.structs:
        return EdgeColumns(src=edges.fields["src"].positions, dst=edges.fields["dst"].positions)
    return EdgeColumns(src=index.positions(edges.column("src")),
                       dst=index.positions(edges.column("dst")))


def topological_order(n: int, src: np.ndarray, dst: np.ndarray,
                      start: np.ndarray) -> np.ndarray | None:
    """An order of the ``n`` nodes in which every edge runs forward, or ``None`` on a cycle.

    All edges must point forward or sideways in time (``start[src] <= start[dst]``). The order
    sorts by start time; nodes with equal start times joined by edges are ordered by Kahn's
    algorithm over those same-time edges only, which are few in practice, so a trace of a million
    events costs one sort.
    """
    ties = start[src] == start[dst]
    rank = np.zeros(n, dtype=np.int64)
    if ties.any():
        tie_order = kahn_order(n, src[ties], dst[ties])
        if tie_order is None:
            return None
        rank[tie_order] = np.arange(len(tie_order))
    return np.lexsort((rank, start))


def run_starts(values: np.ndarray) -> np.ndarray:
    """Positions where ``values`` differs from the value before (the first always): the
    start of each run of equal values. ``np.flatnonzero(np.diff(values, prepend=...))`` says
    the same, but its wrapper cost three times the work on a trace of a few hundred events."""
    changes = np.empty(len(values), dtype=bool)
    if len(values):
        changes[0] = True
        np.not_equal(values[1:], values[:-1], out=changes[1:])
    return np.flatnonzero(changes)


def kahn_order(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """Kahn's topological order of the nodes touched by the edges, or ``None`` on a cycle."""
    nodes = np.unique(np.concatenate([src, dst]))
    successors: dict[int, list[int]] = {int(u): [] for u in nodes}
    indegree = dict.fromkeys(successors, 0)
    for u, v in zip(src.tolist(), dst.tolist()):
        successors[u].append(v)
        indegree[v] += 1
    ready = deque(u for u, d in indegree.items() if d == 0)
    order = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for v in successors[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    return np.array(order, dtype=np.int64) if len(order) == len(nodes) else None


def cycles(src: np.ndarray, dst: np.ndarray) -> list[list[int]]:
    """One cycle (nodes, the first repeated last) per strongly connected component of 2+ nodes.

    Self-loops are left to the caller, which reports them edge by edge.

    Only called on a graph known to be cyclic, so the cost of networkx does not matter.
    """
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_edges_from(zip(src.tolist(), dst.tolist()))
    found = []
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1:
            loop = [u for u, _ in nx.find_cycle(graph.subgraph(component))]
            found.append([*loop, loop[0]])
    return sorted(found)


def longest_path(order: np.ndarray, src: np.ndarray, dst: np.ndarray) -> list[int]:
    """The nodes of a longest path (most nodes) in the DAG, given a topological ``order``.

    Nodes are renamed by their topological position. Most edges of a trace are links of a
    chain (the only edge out of its source and the only one into its destination: a tool call
    and its result, a result and the next call): along a chain the length grows by one a step,
    so only a chain's first node needs dynamic programming, over the other edges in the
    topological order of their sources (:func:`_chains` finds each node's chain and place in
    it, vectorised). Among the longest paths the one ending at the earliest node in ``order``
    is returned, and a node's predecessor on it is its earliest predecessor of greatest length.
    """
    n = len(order)
    if n == 0:
        return []
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    tail, head = position[src], position[dst]
    link = (np.bincount(tail, minlength=n)[tail] == 1) & (np.bincount(head, minlength=n)[head] == 1)
    before = np.full(n, -1, dtype=np.int64)  # a node's predecessor in its chain
    before[head[link]] = tail[link]
    first, step = _chains(before)
    tail, head = tail[~link], head[~link]  # every other edge: a chain's last node to a first
    by_source = np.argsort(tail, kind="stable")
    start = np.ones(n, dtype=np.int64)  # length of the longest path to each chain's first node
    previous = {}
    for u, v in zip(tail[by_source].tolist(), head[by_source].tolist()):
        candidate = int(start[first[u]]) + int(step[u]) + 1
        if candidate > start[v]:
            start[v] = candidate
            previous[v] = u
    reach = start[first] + step  # nodes on the longest path ending at each node
    node = int(np.argmax(reach))
    # a walk of a few thousand nodes reads the array; a long one a list of it (made in C)
    links = before.tolist() if int(reach[node]) > n // 8 else before
    path = []
    while node != -1:
        path.append(node)
        back = int(links[node])
        node = back if back >= 0 else previous.get(node, -1)
    return order[path[::-1]].tolist()


def _chains(before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each node, the first node of its chain and its number of steps from it, given each
    node's predecessor in its chain (-1: none): pointer jumping, each round doubling the
    distance every node looks back, so a chain of ``L`` nodes costs ``log2(L)`` rounds."""
    n = len(before)
    up = np.where(before >= 0, before, np.arange(n))
    step = (before >= 0).astype(np.int64)
    while True:
        further = up[up]
        if np.array_equal(further, up):
            return up, step
        step += step[up]
        up = further
