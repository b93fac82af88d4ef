"""Check a trace file: parse, JSON Schema, then the meaning of the graph.

Every problem is reported, not only the first, as a :class:`TraceProblem` with a severity, a stable
``code``, where it is (``events[3] (id e4) /events/3/t``), a JSON pointer and a message.

A file is first tried on the fast path (:func:`fast_trace`: typed msgspec records that only a
schema-valid trace gets through, see :mod:`masrl.traces.schema`); a file it rejects takes the
full path (parse to dictionaries, then jsonschema-rs), which finds and words every problem.
The graph checks then run on the same columns either way.

Errors (the trace is invalid):

* ``unreadable``: the file cannot be read as input (missing, a directory, a FIFO or a device, a
  loop of symbolic links, no permission, larger than the input limit of :mod:`masrl.files`);
* ``not-json``: the file is not UTF-8 JSON (a lone surrogate included) or nests arrays and
  objects too deeply; ``duplicate-key``: an object repeats a key; ``non-finite``: it holds
  ``NaN``, ``Infinity`` or a number too large for a double (see :mod:`.strict_json`);
* ``schema``: a violation of the trace schema (:mod:`masrl.traces.resources`) (negative times and costs
  included). The graph checks below run only on a schema-valid trace;
* ``duplicate-id``: two events share an id; ``unknown-event``: an edge end names no event;
* ``cycle``: the edges form a cycle, a self-loop included;
* ``time-order``: an edge's destination starts before its source;
* ``end-before-start``: an event's ``t_end`` is before its ``t``; ``non-finite`` also when
  ``t + duration`` is past the largest double (the event would end at infinity);
* ``before-spawn``: an agent has an event that starts before the event that spawns it;
* ``spawn-cycle``: an agent is spawned by itself or by an agent it spawned (directly or not);
* counterfactual rollouts (each problem names the rollout, ``counterfactuals.outcomes[k]`` and
  its ``id``, and the field): ``unknown-player``: a coalition or a ``changed`` entry names
  someone not in ``players``; ``duplicate-player``: a rollout changes a player twice;
  ``inconsistent-change``: two rollouts change one player in different ways;
  ``not-a-stop``: ``stopped_later`` or ``stopped_earlier`` on a player that is not a stop
  decision; ``duplicate-coalition``: a rollout leaves the same players as recorded as an
  earlier one. For the event units (``orchestrator``, ``message``, ``tool_call``, ``event``):
  ``unknown-event``: a player is not the id of an event; ``wrong-unit``: it is an event of
  another type than the unit's;
* ``label-event``: a label (version 1.2) names an event the trace does not have.

Warnings (the trace stays valid):

* ``count-mismatch``: ``costs.tool_calls`` or ``costs.messages`` differs from the number of
  ``tool_call`` or ``message`` events;
* ``return-not-to-spawner``: a return addressed (``to``) to someone other than the agent that
  spawned the returning agent;
* ``never-ended``: a spawned agent never returns and is never despawned;
* ``newer-field``: a trace that declares an older ``schema_version`` than a field it uses
  (1.0 with a field of 1.1; 1.0 or 1.1 with ``labels`` or an event's ``content``, of 1.2);
* ``label-agent``: a label names an agent that has no event in the trace;
* ``thin-import``: an imported trace whose provenance says that at most a third of the log's
  records gave events and that holds fewer than ten events (:mod:`masrl.traces.provenance`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from masrl.files import input_limit, read_input, read_releasable
from masrl.terminal import PART_LIMIT, abbreviated, printable
from masrl.traces import collector, columns, graph, strict_json
from masrl.traces.lifecycle import Lifecycle, lifecycle, spawn_times
from masrl.traces.provenance import thin
from masrl.traces.rules import RECOUNTED_COSTS
from masrl.traces.schema import BULK, load_schema, schema_validator

ERROR, WARNING = "error", "warning"
# The event fields validation reads (the graph checks; the required fields besides): what
# ``masrl validate`` keeps of a trace (validate_file(..., fields=...)).
CHECKED_FIELDS = ("id", "t", "type", "agent", "t_end", "duration", "to", "decision", "content")
UNREADABLE = "unreadable"  # the code of the one problem of a file that cannot be read


@dataclass(frozen=True)
class TraceProblem:
    """One finding of validation."""

    severity: str  # "error" or "warning"
    code: str
    where: str  # human-readable place, e.g. "events[3] (id e4) /events/3/t"
    pointer: str  # RFC 6901 JSON pointer into the document ("" = the whole document)
    message: str

    def line(self, source: str) -> str:
        """The one-line form ``FILE: where: severity: message``, control characters escaped
        (ids, names and the file name come from input: none may forge a line or drive the
        terminal, see :mod:`masrl.terminal`); the place and the message each cut to a few
        hundred characters around their middle, so that a huge id leaves both readable."""
        return printable(f"{source}: {abbreviated(self.where, PART_LIMIT)}: {self.severity}: "
                         f"{abbreviated(self.message, PART_LIMIT)}")


@dataclass
class Trace:
    """A trace that passed parsing and schema validation, with its graph as columns.

    Checks, replay and metrics read the columns, the ``head`` and, for a few fields of a few
    events, the records; never the whole ``document``. On the fast path (see
    :func:`fast_trace`) the records are Structs and ``document`` is decoded from the file's
    bytes only when someone asks for it: it is then exactly what the full path would have built.
    """

    head: dict  # the document without "events" and "edges": ids, rewards, costs...
    event_records: graph.Records
    edge_records: graph.Records
    events: graph.EventColumns
    edges: graph.EdgeColumns
    life: Lifecycle
    order: np.ndarray | None = None  # a topological order of the events; None if cyclic
    source: str = "<memory>"
    _document: dict | None = field(default=None, repr=False)
    _data: bytes | None = field(default=None, repr=False)  # the file, when _document is unset
    _numeric: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def document(self) -> dict:
        """The parsed JSON document, as dictionaries and lists."""
        if self._document is None:
            if self._data is None:
                raise ValueError("the document was not kept: validate_file(keep_document=False)")
            self._document, self._data = msgspec.json.decode(self._data), None
        return self._document

    def numeric(self, key: str) -> np.ndarray:
        """An optional numeric event field (``tokens``, ``reward``...) as floats, 0 if absent."""
        if key not in self._numeric:
            self._numeric[key] = _absent_as_zero(self.recorded(key))
        return self._numeric[key]

    def recorded(self, key: str) -> np.ndarray:
        """An optional numeric event field as floats, NaN where absent (read once, cached)."""
        cached = f"{key} as recorded"
        if cached not in self._numeric:
            self._numeric[cached] = self.event_records.numbers(key)
        return self._numeric[cached]


@dataclass
class ValidationReport:
    """All problems of one trace; ``trace`` is set once the trace passed the schema."""

    source: str
    problems: list[TraceProblem] = field(default_factory=list)
    trace: Trace | None = None

    @property
    def errors(self) -> list[TraceProblem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[TraceProblem]:
        return [p for p in self.problems if p.severity == WARNING]

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def readable(self) -> bool:
        """False when the file could not be read at all (missing, a directory, no permission)."""
        return not any(p.code == UNREADABLE for p in self.problems)

    def lines(self) -> list[str]:
        return [p.line(self.source) for p in self.problems]

    def to_dict(self) -> dict:
        return {
            "file": self.source,
            "valid": self.valid,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "problems": [asdict(p) for p in self.problems],
        }


class InvalidTraceError(ValueError):
    """Raised by :func:`masrl.traces.load_trace` for a trace with errors."""

    def __init__(self, report: ValidationReport):
        self.report = report
        super().__init__("\n".join(p.line(report.source) for p in report.errors))


# ---------------------------------------------------------------------------------- entry points

def validate_file(path: str | Path, keep_document: bool = True,
                  source: str | None = None, fields=None) -> ValidationReport:
    """Validate the trace file at ``path``, naming it ``source`` in problems (default: the
    path). A file that cannot be read gives a report whose one error has the code
    ``unreadable`` (and ``report.readable`` is false); nothing is raised.

    A trace that the typed records accept takes the fast path; any other file takes the full
    path (parse to dictionaries, JSON Schema, graph checks), which explains every problem.

    With ``keep_document=False`` (what the ``masrl`` command uses) a valid trace's
    ``Trace.document`` is not available: its text is not kept once decoded.

    ``fields``: the event fields a valid trace's records keep (default: every field; see
    :data:`CHECKED_FIELDS`, what validation reads, and
    :data:`masrl.traces.replay.READ_FIELDS`, what a replay reads); the others are checked but
    not kept, which saves time and memory on a large trace.
    """
    source = str(path) if source is None else source
    try:
        data = _read(path, anonymous=not keep_document)
        again = (lambda: data) if isinstance(data, bytes) else (lambda: _read(path))
        return _validated(data, source, keep_document, fields, again)
    except OSError as exc:  # InputError included: a FIFO, a device, a directory, too large...
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        return ValidationReport(source, [TraceProblem(ERROR, UNREADABLE, "file", "",
                                                      f"cannot read: {reason}")])


def validate_bytes(data: bytes, source: str = "<memory>", keep_document: bool = True,
                   fields=None) -> ValidationReport:
    """Validate a trace held in memory as the bytes of its JSON text (a file's contents, one
    line of a JSON Lines file): the fast path first, else the full path, as for a file
    (``fields`` as for :func:`validate_file`)."""
    return _validated(data, source, keep_document, fields, again=lambda: data)


def _validated(data, source: str, keep_document: bool, fields, again) -> ValidationReport:
    """:func:`validate_bytes`; ``again()`` gives the text anew for the full path (the fast path
    gives back the pages of an anonymous map as it decodes them, see :func:`_read`)."""
    with collector.paused():
        trace = fast_trace(data, source=source, fields=fields)
        if trace is not None:
            trace._data = bytes(data) if keep_document else None
            return checked(trace)
        del data
        document, problems = parse(bytes(again()))
        if problems:
            return ValidationReport(source, problems)
        return validate_document(document, source=source)


RELEASED_FROM = 4 * columns.CHUNK_BYTES  # a smaller file's events are decoded in one piece


def _read(path: str | Path, anonymous: bool = False):
    """The bytes of a trace file, read by the one way in (:mod:`masrl.files`): only a regular
    file of bounded size, read, never mapped (a mapped file that another process truncates
    kills the reader with SIGBUS; a read one gives, at worst, text that fails to parse).

    ``anonymous`` (when the text is not kept once decoded): a file of at least
    :data:`RELEASED_FROM` bytes is read into anonymous memory
    (:func:`masrl.files.read_releasable`), whose pages the fast path gives back as it decodes
    them (:func:`masrl.traces.columns.decode`), so that the file does not stay in memory
    beside its columns.
    """
    if anonymous:
        return read_releasable(path, input_limit(), released_from=RELEASED_FROM)
    return read_input(path, input_limit())


def validate_document(document: Any, source: str = "<memory>") -> ValidationReport:
    """Validate a parsed trace: schema first, then, on a schema-valid trace, the graph checks."""
    report = ValidationReport(source, schema_problems(document))
    if report.problems:
        return report
    return checked(index_trace(document, source))


def checked(trace: Trace) -> ValidationReport:
    """The report of a schema-valid trace: its graph problems, and the trace itself."""
    return ValidationReport(trace.source, graph_problems(trace), trace)


def fast_trace(data: bytes, source: str = "<memory>", fields=None) -> Trace | None:
    """The indexed trace if the typed records accept ``data``, else ``None``.

    Accepted means schema-valid (see :mod:`masrl.traces.schema` and
    :mod:`masrl.traces.columns`): the records check the rules of events and edges while
    decoding, the head is checked by the schema itself, and the one rule left, "not both
    ``t_end`` and ``duration``", is checked here. ``None`` sends the file down the full path, so
    what is reported about an invalid file never depends on this one.
    """
    record = columns.decode(data, fields)
    if record is None:
        return None
    trace = _index(record.head, record.events, record.edges, source)
    if trace.events.overdetermined:
        return None
    trace._data = data
    return trace


# ---------------------------------------------------------------------------------- parsing

def parse(data: bytes) -> tuple[Any, list[TraceProblem]]:
    """Decode strict JSON (:mod:`masrl.traces.strict_json`: UTF-8, no duplicate keys, finite
    numbers, bounded nesting); the document, or ``None`` and every reason why not."""
    document, findings = strict_json.parse(data)
    if document is None:
        return None, [TraceProblem(ERROR, f.code, f.place, "", f.message) for f in findings]
    if findings:
        return None, [_problem(document, ERROR, f.code, list(f.parts), f.message)
                      for f in findings]
    return document, []


# ---------------------------------------------------------------------------------- locating

def pointer(parts: list) -> str:
    """RFC 6901 JSON pointer of a path of keys and indices."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def label(document: Any, parts: list) -> str:
    """Human name of the event or edge a path points into, e.g. ``events[3] (id e4)``."""
    if len(parts) < 2 or parts[0] not in ("events", "edges") or not isinstance(parts[1], int):
        return ""
    item = document[parts[0]][parts[1]]
    name = f"{parts[0]}[{parts[1]}]"
    if not isinstance(item, dict):
        return name
    if parts[0] == "events" or "id" in item:
        return f"{name} (id {item.get('id')})" if isinstance(item.get("id"), str) else name
    return f"{name} ({item.get('src')} -> {item.get('dst')})"


def _problem(document: Any, severity: str, code: str, parts: list, message: str) -> TraceProblem:
    where = " ".join(s for s in (label(document, parts), pointer(parts)) if s) or "/"
    return TraceProblem(severity, code, where, pointer(parts), message)


# ---------------------------------------------------------------------------------- schema

def schema_problems(document: Any) -> list[TraceProblem]:
    """Every JSON Schema violation, in document order."""
    validator = schema_validator()
    if validator.is_valid(document):
        return []
    found = [
        _problem(document, ERROR, "schema", list(err.instance_path), _schema_message(err))
        for err in validator.iter_errors(document)
    ]
    return sorted(found, key=lambda p: _pointer_key(p.pointer))


MESSAGE_LIMIT = 300  # characters of a schema message; the validator quotes whole values


def _schema_message(err) -> str:
    """The validator's message, except for ``not`` where the subschema's description says more.

    The validator quotes the offending value whole ("[...] is not of type 'object'"): a file
    that is one large array would fill the terminal. A longer message keeps its beginning and
    its end (the rule broken) and says how much was left out."""
    if err.schema_path and err.schema_path[-1] == "not":
        node = load_schema()
        for key in err.schema_path:
            node = node[key]
        return f"not allowed: {node.get('description', 'matches a forbidden pattern')}"
    return abbreviated(err.message, MESSAGE_LIMIT)


def _pointer_key(text: str) -> list:
    return [(0, int(p), "") if p.isascii() and p.isdigit() else (1, 0, p)
            for p in text.split("/")]


def _absent_as_zero(values: np.ndarray) -> np.ndarray:
    """``np.nan_to_num(values, nan=0.0)``, whose wrapper cost more than the work on a trace of
    a few hundred events (15 us against 6, three times per trace in ``masrl corpus``)."""
    found = values.copy()
    found[np.isnan(found)] = 0.0
    if np.isinf(found).any():  # (strict JSON lets no infinity in; a built document might)
        return np.nan_to_num(values, nan=0.0)
    return found


# ---------------------------------------------------------------------------------- graph

def index_trace(document: dict, source: str = "<memory>") -> Trace:
    """Columns and lifecycle of a schema-valid document (no checks)."""
    head = {key: value for key, value in document.items() if key not in BULK}
    trace = _index(head, graph.Records(document["events"]), graph.Records(document["edges"]),
                   source)
    trace._document = document
    return trace


def _index(head: dict, event_records: graph.Records, edge_records: graph.Records,
           source: str) -> Trace:
    events = graph.event_columns(event_records)
    edges = graph.edge_columns(edge_records, events.index)
    return Trace(head, event_records, edge_records, events, edges,
                 lifecycle(event_records, events), source=source)


def _found(trace: Trace, severity: str, code: str, parts: list, message: str) -> TraceProblem:
    """A graph problem: as :func:`_problem` would state it, read from the columns and records."""
    where = " ".join(s for s in (_label(trace, parts), pointer(parts)) if s) or "/"
    return TraceProblem(severity, code, where, pointer(parts), message)


def _label(trace: Trace, parts: list) -> str:
    """:func:`label` of a schema-valid trace (every event has a string id; edges are objects);
    a counterfactual rollout is named by its place and its ``id`` when it has one."""
    if parts[:2] == ["counterfactuals", "outcomes"] and len(parts) > 2:
        outcome = trace.head["counterfactuals"]["outcomes"][parts[2]]
        name = f"counterfactuals.outcomes[{parts[2]}]"
        return f"{name} (id {outcome['id']})" if "id" in outcome else name
    if parts[:2] == ["counterfactuals", "players"] and len(parts) > 2:
        return f"counterfactuals.players[{parts[2]}]"
    if len(parts) < 2 or parts[0] not in BULK or not isinstance(parts[1], int):
        return ""
    k, name = parts[1], f"{parts[0]}[{parts[1]}]"
    if parts[0] == "events":
        return f"{name} (id {trace.events.ids[k]})"
    edges = trace.edge_records
    if (edge_id := edges.value(k, "id")) is not None:
        return f"{name} (id {edge_id})"
    return f"{name} ({edges.value(k, 'src')} -> {edges.value(k, 'dst')})"


def graph_problems(trace: Trace) -> list[TraceProblem]:
    """Graph checks of a schema-valid trace; sets ``trace.order`` when the graph is a DAG."""
    checks = (
        _duplicate_ids, _unknown_ends, _self_loops, _time_order, _cycles, _end_before_start,
        _end_overflow, _before_spawn, _spawn_cycles, _counterfactual_players, _newer_fields,
        _recounted_costs, _returns_to_spawner, _never_ended, _labels, _thin_import,
    )
    return [problem for check in checks for problem in check(trace)]


def _duplicate_ids(trace: Trace):
    for i, first in sorted(trace.events.index.duplicates()):
        yield _found(trace, ERROR, "duplicate-id", ["events", i, "id"],
                     f"duplicate event id '{trace.events.ids[i]}' (first used by "
                     f"events[{first}])")


def _unknown_ends(trace: Trace):
    edges = trace.edges
    for k in np.flatnonzero(~edges.known()).tolist():
        for end, column in (("src", edges.src), ("dst", edges.dst)):
            if column[k] < 0:
                name = trace.edge_records.value(k, end)
                yield _found(trace, ERROR, "unknown-event", ["edges", k, end],
                             f"edge {end} '{name}' is not the id of an event")


def _self_loops(trace: Trace):
    edges = trace.edges
    for k in np.flatnonzero(edges.known() & (edges.src == edges.dst)).tolist():
        name = trace.events.ids[edges.src[k]]
        yield _found(trace, ERROR, "cycle", ["edges", k],
                     f"self-loop: event '{name}' depends on itself")


def _backward(trace: Trace) -> np.ndarray:
    """Indices of known edges whose destination starts before their source (computed once)."""
    if "backward edges" not in trace._numeric:
        edges, start = trace.edges, trace.events.start
        known = edges.known()
        if known.all():  # the usual case: no edge names an unknown event
            found = np.flatnonzero(start[edges.dst] < start[edges.src])
        else:
            known = np.flatnonzero(known)
            found = known[start[edges.dst[known]] < start[edges.src[known]]]
        trace._numeric["backward edges"] = found
    return trace._numeric["backward edges"]


def _time_order(trace: Trace):
    ids, start = trace.events.ids, trace.events.start
    for k in _backward(trace).tolist():
        s, d = trace.edges.src[k], trace.edges.dst[k]
        yield _found(trace, ERROR, "time-order", ["edges", k],
                     f"destination '{ids[d]}' (t={start[d]:g}) starts before source "
                     f"'{ids[s]}' (t={start[s]:g})")


def _cycles(trace: Trace):
    """Cycles of two or more events; on an acyclic graph, record the topological order."""
    edges, events = trace.edges, trace.events
    usable = edges.known() & (edges.src != edges.dst)
    src, dst = edges.src[usable], edges.dst[usable]
    if len(_backward(trace)):
        cyclic = graph.kahn_order(events.count, src, dst) is None
    else:
        trace.order = graph.topological_order(events.count, src, dst, events.start)
        cyclic = trace.order is None
    if not cyclic:
        if _has_self_loop(trace):
            trace.order = None
        return
    first_edge = {(s, d): k for k, s, d in zip(np.flatnonzero(usable).tolist(), src.tolist(),
                                              dst.tolist())}
    for loop in graph.cycles(src, dst):
        k, path = _closing_edge(loop, first_edge)
        names = " -> ".join(events.ids[i] for i in path)
        yield _found(trace, ERROR, "cycle", ["edges", k], f"edges form a cycle: {names}")


def _closing_edge(loop: list[int], edge_of: dict[tuple[int, int], int]) -> tuple[int, list[int]]:
    """The cycle's edge that comes last in the file, and the cycle told so that it closes it."""
    nodes = loop[:-1]
    size = len(nodes)
    k, j = max((edge_of[(nodes[j], nodes[(j + 1) % size])], j) for j in range(size))
    path = [nodes[(j + 1 + i) % size] for i in range(size)]
    return k, [*path, path[0]]


def _has_self_loop(trace: Trace) -> bool:
    return bool((trace.edges.known() & (trace.edges.src == trace.edges.dst)).any())


def _end_before_start(trace: Trace):
    events = trace.events
    for i in np.flatnonzero(events.end < events.start).tolist():
        yield _found(trace, ERROR, "end-before-start", ["events", i, "t_end"],
                     f"t_end {events.end[i]:g} is before t {events.start[i]:g}")


def _end_overflow(trace: Trace):
    events = trace.events
    for i in np.flatnonzero(np.isinf(events.end)).tolist():
        yield _found(trace, ERROR, "non-finite", ["events", i, "duration"],
                     f"t + duration ({events.start[i]:g} + "
                     f"{trace.event_records.value(i, 'duration'):g}) is past the largest "
                     "double: the event has no finite end")


def _before_spawn(trace: Trace):
    events, life = trace.events, trace.life
    too_early = events.start < spawn_times(life, events)[events.agent_codes]
    for i in np.flatnonzero(too_early).tolist():
        agent = events.agent(i)
        spawn = life.spawn_event[agent]
        yield _found(trace, ERROR, "before-spawn", ["events", i, "t"],
                     f"agent '{agent}' acts at t={events.start[i]:g} before its spawn "
                     f"'{events.ids[spawn]}' at t={events.start[spawn]:g}")


def _spawn_cycles(trace: Trace):
    """Agents whose chain of spawners comes back to them; reported at their spawn event.

    Each agent has at most one spawner, so the chains form a functional graph: one walk along
    each chain, never revisiting an agent, finds every cycle in time linear in the agents.
    """
    on_cycle = spawn_loops(trace.life.spawner)
    for agent, i in sorted(trace.life.spawn_event.items(), key=lambda item: item[1]):
        if agent in on_cycle:
            cycle, k = on_cycle[agent]
            yield _found(trace, ERROR, "spawn-cycle", ["events", i, "to"],
                         f"agent '{agent}' is spawned by its own descendant: "
                         f"{_loop_text(cycle, k)}")


def spawn_loops(spawner: dict[str, str]) -> dict[str, tuple[list[str], int]]:
    """Agent -> ``(cycle, k)`` for every agent that is its own ancestor: ``cycle`` lists the
    loop's agents, each spawned by the next (the last by the first), the agent at position
    ``k``. Each agent is visited once, whatever the chains' lengths."""
    done: set[str] = set()
    loops: dict[str, tuple[list[str], int]] = {}
    for start in spawner:
        path, index = [], {}
        current = start
        while current in spawner and current not in done and current not in index:
            index[current] = len(path)
            path.append(current)
            current = spawner[current]
        if current in index:  # the walk came back to itself: a new cycle
            cycle = path[index[current]:]
            loops.update((agent, (cycle, k)) for k, agent in enumerate(cycle))
        done.update(path)
    return loops


def _loop_text(cycle: list[str], k: int, shown: int = 10) -> str:
    """``a <- b <- a`` from ``cycle[k]`` round to itself; a loop of more than ``shown`` agents
    keeps its ends and counts the rest (a problem line stays short however long the loop)."""
    size = len(cycle)
    if size <= shown:
        return " <- ".join(cycle[(k + j) % size] for j in range(size + 1))
    head = [cycle[(k + j) % size] for j in range(shown // 2)]
    tail = [cycle[(k + j) % size] for j in range(size - shown // 2 + 1, size + 1)]
    return " <- ".join([*head, f"... ({size + 1 - len(head) - len(tail)} more)", *tail])


EVENT_PLAYER_TYPES = {  # counterfactual unit -> the event types its players may have
    "orchestrator": ("orchestrator_decision", "spawn", "aggregate"),
    "message": ("message",), "tool_call": ("tool_call",), "event": None,
}
STOP_CHANGES = ("stopped_later", "stopped_earlier")


def _counterfactual_players(trace: Trace):
    """The rollouts' players: known, of the unit's kind, changed one way each, and every
    recorded coalition once (module docstring)."""
    counterfactuals = trace.head.get("counterfactuals")
    if not counterfactuals:
        return
    unit, listed = counterfactuals["unit"], counterfactuals["players"]
    players, seen, how_of = set(listed), {}, {}
    yield from _event_players(trace, unit, listed)
    for k, outcome in enumerate(counterfactuals["outcomes"]):
        base = ["counterfactuals", "outcomes", k]
        for j, member in enumerate(outcome.get("coalition", ())):
            if member not in players:
                yield _found(trace, ERROR, "unknown-player", [*base, "coalition", j],
                             f"'{member}' is not one of the counterfactual players")
        changed = set()
        for j, change in enumerate(outcome.get("changed", ())):
            member, how = change["player"], change.get("how", "removed")
            where = [*base, "changed", j, "player"]
            if member not in players:
                yield _found(trace, ERROR, "unknown-player", where,
                             f"'{member}' is not one of the counterfactual players")
                continue
            if member in changed:
                yield _found(trace, ERROR, "duplicate-player", where,
                             f"'{member}' is changed twice by this rollout")
            changed.add(member)
            first = how_of.setdefault(member, (how, k))
            if first[0] != how:
                yield _found(trace, ERROR, "inconsistent-change", [*base, "changed", j, "how"],
                             f"'{member}' is {how} here but {first[0]} in "
                             f"counterfactuals.outcomes[{first[1]}]: one game changes a player "
                             "one way")
            if how in STOP_CHANGES and not _is_stop(trace, unit, member):
                yield _found(trace, ERROR, "not-a-stop", [*base, "changed", j, "how"],
                             f"'{member}' is {how}, which only an orchestrator_decision "
                             "event whose decision is stop can be")
        key = frozenset(players - changed if "changed" in outcome else outcome["coalition"])
        if key in seen:
            field = "changed" if "changed" in outcome else "coalition"
            yield _found(trace, ERROR, "duplicate-coalition", [*base, field],
                         f"rollout leaves the same players as recorded as "
                         f"counterfactuals.outcomes[{seen[key]}]")
        seen.setdefault(key, k)


def _event_players(trace: Trace, unit: str, listed: list[str]):
    """For the event units, every player must name an event of the unit's types."""
    if unit not in EVENT_PLAYER_TYPES:
        return
    allowed = EVENT_PLAYER_TYPES[unit]
    events = trace.events
    for j, position in enumerate(events.index.positions(list(listed)).tolist()):
        where = ["counterfactuals", "players", j]
        if position < 0:
            yield _found(trace, ERROR, "unknown-event", where,
                         f"counterfactual player '{listed[j]}' is not the id of an event")
        elif allowed is not None and graph.EVENT_TYPES[events.types[position]] not in allowed:
            kind = graph.EVENT_TYPES[events.types[position]]
            yield _found(trace, ERROR, "wrong-unit", where,
                         f"counterfactual player '{listed[j]}' is a {kind} event, not one of "
                         f"unit {unit} ({', '.join(allowed)})")


def _is_stop(trace: Trace, unit: str, player: str) -> bool:
    if unit not in EVENT_PLAYER_TYPES:
        return False
    position = int(trace.events.index.positions([player])[0])
    return (position >= 0
            and graph.EVENT_TYPES[trace.events.types[position]] == "orchestrator_decision"
            and trace.event_records.value(position, "decision") == "stop")


def _newer_fields(trace: Trace):
    """A trace that declares a version older than a field it uses (see masrl.traces.schema)."""
    if trace.head.get("schema_version") in ("1.0", "1.1"):
        declared = trace.head["schema_version"]
        if "labels" in trace.head:
            yield _found(trace, WARNING, "newer-field", ["labels"],
                         f"labels is version 1.2 but the trace declares schema_version "
                         f"{declared}")
        with_content = [i for i, value in enumerate(trace.event_records.optional("content"))
                        if value is not None]
        if with_content:
            yield _found(trace, WARNING, "newer-field", ["events", with_content[0], "content"],
                         f"content is version 1.2 but the trace declares schema_version "
                         f"{declared} ({len(with_content)} events hold it)")
    counterfactuals = trace.head.get("counterfactuals")
    if trace.head.get("schema_version") != "1.0" or not counterfactuals:
        return
    if counterfactuals["unit"] not in ("agent", "role"):
        yield _found(trace, WARNING, "newer-field", ["counterfactuals", "unit"],
                     f"unit {counterfactuals['unit']} is version 1.1 but the trace declares "
                     "schema_version 1.0")
    for k, outcome in enumerate(counterfactuals["outcomes"]):
        for key in ("changed", "id"):
            if key in outcome:
                yield _found(trace, WARNING, "newer-field",
                             ["counterfactuals", "outcomes", k, key],
                             f"{key} is version 1.1 but the trace declares schema_version 1.0")


def _recounted_costs(trace: Trace):
    costs = trace.head["costs"]
    counts = trace.events.type_counts()
    for key, event_type in RECOUNTED_COSTS.items():
        if key in costs and costs[key] != counts[event_type]:
            yield _found(trace, WARNING, "count-mismatch", ["costs", key],
                         f"costs.{key} records {costs[key]:g} but the trace has "
                         f"{counts[event_type]} {event_type} events")


def _returns_to_spawner(trace: Trace):
    life, records = trace.life, trace.event_records
    for i in trace.events.of_type("return").tolist():
        addressee = records.value(i, "to")
        if addressee is None:
            continue
        sender = trace.events.agent(i)
        spawner = life.spawner.get(sender)
        if spawner is not None and addressee != spawner:
            yield _found(trace, WARNING, "return-not-to-spawner",
                         ["events", i, "to"],
                         f"return addressed to '{addressee}' but '{sender}' was spawned by "
                         f"'{spawner}'")


def _labels(trace: Trace):
    """Labels that name an event the trace lacks (an error) or an agent without events."""
    labels = trace.head.get("labels") or []
    if not labels:
        return
    agents = set(trace.events.agent_names)
    for k, item in enumerate(labels):
        event = item.get("event")
        if event is not None and int(trace.events.index.positions([event])[0]) < 0:
            yield _found(trace, ERROR, "label-event", ["labels", k, "event"],
                         f"label {printable(item['name'], PART_LIMIT)!r} names event "
                         f"'{printable(event, PART_LIMIT)}', which the trace does not have")
        agent = item.get("agent")
        if agent is not None and agent not in agents:
            yield _found(trace, WARNING, "label-agent", ["labels", k, "agent"],
                         f"label {printable(item['name'], PART_LIMIT)!r} names agent "
                         f"'{printable(agent, PART_LIMIT)}', which has no event in the trace")


def _thin_import(trace: Trace):
    """An import that holds a small share of its log (:mod:`masrl.traces.provenance`)."""
    message = thin(trace.head.get("provenance"), trace.events.count)
    if message is not None:
        yield _found(trace, WARNING, "thin-import", ["provenance", "records"], message)


def _never_ended(trace: Trace):
    life = trace.life
    for agent, i in sorted(life.spawn_event.items(), key=lambda item: item[1]):
        if agent not in life.end_event:
            yield _found(trace, WARNING, "never-ended", ["events", i, "to"],
                         f"agent '{agent}' is spawned here but never returns nor is despawned")
