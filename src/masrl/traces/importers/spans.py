"""One span model for every span-based log (OpenTelemetry, Langfuse, OpenAI Agents SDK), and
the one mapping from a tree of spans to events and edges.

A reader turns its records into :class:`Span` objects: ids, times in integer nanoseconds, and a
``kind`` that says what the span is to us:

* ``agent``: an agent invocation (``name`` the agent's name);
* ``model``: a model call (tokens, cost, model, a hash of the output);
* ``tool``: a tool execution (tool name, hashes of arguments and result);
* ``handoff``: control handed from one agent to another (``handoff_to`` the target's name);
* ``event``: a span that names its event type itself (``event_type``, ``decision``, ``to``):
  what :mod:`masrl.traces.exporters.otlp` writes for events that have no GenAI span;
* ``other``: anything else (a chain, a retriever, an HTTP request): no event, counted as
  skipped under ``label``; its children are attached to its parent.

The mapping (:data:`MAPPING`, appended to the docstring of every importer that uses it):
"""

from __future__ import annotations

import bisect
import heapq
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.traces.importers.common import SourceError, TraceBuilder, content_ref, json_type
from masrl.traces.importers.timestamps import NS, iso_ns

AGENT, MODEL, TOOL, HANDOFF, EVENT, OTHER = "agent", "model", "tool", "handoff", "event", "other"
KINDS = (AGENT, MODEL, TOOL, HANDOFF, EVENT, OTHER)

DUPLICATE = "duplicate span (an identical copy of an earlier record) dropped"
ORPHAN = "span whose parent span is not in the file (made a root)"
SELF_PARENT = "span that names itself as its parent (made a root)"
CYCLE = "span in a cycle of parents (made a root)"

MAPPING = """\
**The tree** . Spans are joined to their parents by id. A span that is a
byte-identical copy of an earlier one (same id, same record: exporters that record parallel
tool calls several times) is dropped and counted as a repair; two different records with one id
are an error. A span whose parent is not in the file becomes a root, and so does a span that
names itself as its parent; spans whose parents form a cycle are cut at the earliest span of the
cycle, which becomes a root; each is counted as a repair. A root that is not an agent span
belongs to the agent whose agent span encloses it in time (the latest-starting one), else to
the run's default agent.

**Agents** . Every agent span is an agent, named by the span; a name used by
several agent spans gets ``#2``, ``#3``... from the second one on (in start order), so each
invocation is one agent with one life. A span belongs to the agent of its nearest agent ancestor
(or itself); spans above every agent belong to the default agent the reader names.

**Events** (``x_source`` ``span <span id>``; times in seconds from the earliest span start;
``t_end`` from the span end):

* agent span nested in another agent -> ``spawn`` by the parent agent at the span's start
  (``to`` the child) and ``return`` by the child at its end (``to`` the parent; left out when
  the span says the child never returned). A top-level agent span is the agent's whole run and
  gives no event.
* model -> ``message`` by the agent over the span (the model's reply: the schema has no event
  type for a model call), with ``tokens`` (input + output, else the total), ``cost_usd``,
  ``x_usage``, ``x_model`` and ``content_ref`` of the output.
* tool -> ``tool_call`` over the span (``tool``, ``content_ref`` of the arguments, the span's
  tokens and cost if any) and ``tool_result`` at its end (``trusted: false``, ``content_ref`` of
  the result; left out when the span says the tool gave none).
* handoff -> ``orchestrator_decision`` with ``decision: delegate`` by the agent, ``to`` the
  invocation of the target agent that starts first at or after the handoff (its name as
  above; the bare target name when none does).
* event -> an event of the span's own type.
* An error status gives ``x_error: true`` on the span's events.

**Edges.** Span nesting is containment, not causal order, so dependencies come from time within
each agent: among the agent's units (a model call; a tool call with its result; a sub-agent with
its spawn and return; a handoff; an event), unit B depends on unit A when A ended at or before B
started and no other unit of the agent started after A ended and ended before B started (the
latest finished work before B; two calls that overlap in time depend on neither). Within a tool
unit the result depends on the call (``tool_dependency``, ``blocking``); a sub-agent's first
units depend on its spawn (``spawn``) and its return on its last units; a unit nested inside
another (its span a descendant of the other's) depends on the outer one's first event; a
handoff leads to the first units of its target (``message``, ``handoff``). All other edges are
``causal``. A destination that starts before its source (clocks of different processes) is
moved to the source's time and counted.

**Costs.** ``tokens`` and ``usd`` sum the events' ``tokens`` and ``cost_usd``; ``wall_clock_s``
is the latest end minus the earliest start over all spans; ``tool_calls`` and ``messages`` count
those events.
"""
"""The shared rules from spans to events and edges, as the importers' docstrings quote them."""


@dataclass
class Span:
    """One span, whatever log it comes from; times in integer nanoseconds since the epoch."""

    span_id: str
    parent_id: str | None
    start: int
    end: int
    kind: str
    where: str  # where the record is in the file, for messages
    name: str = ""  # the agent's name (agent spans) or the span's own name
    label: str = ""  # what the span is, for the count of skipped spans (kind other)
    fingerprint: str = ""  # canonical text of the source record, to recognise exact copies
    error: bool = False
    model: str | None = None
    usage: dict = field(default_factory=dict)  # {input, output} tokens when recorded
    total_tokens: float | None = None  # the recorded total, used without input and output
    cost: float | None = None  # US dollars
    tool: str | None = None
    input: Any = None  # tool arguments (hashed)
    output: Any = None  # model reply or tool result (hashed)
    handoff_to: str | None = None
    event_type: str | None = None  # kind event: the event's type, decision and addressee
    decision: str | None = None
    to: str | None = None
    returns: bool = True  # agent spans: whether the child returned to its parent
    spawn_cost: tuple = (None, None)  # agent spans: (tokens, usd) of the spawn and the return
    return_cost: tuple = (None, None)
    has_result: bool = True  # tool spans: whether the tool gave a result
    children: list[Span] = field(default_factory=list)
    parent: Span | None = None

    @property
    def tokens(self) -> float | None:
        """Input + output tokens when either is recorded, else the recorded total."""
        if self.usage:
            return sum(self.usage.values())
        return self.total_tokens


def fingerprint(record: Any) -> str:
    """Canonical JSON of a source record (sorted keys): equal for byte-identical copies."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------------------------- the tree

def link(path: Path, spans: list[Span], repairs: Counter) -> list[Span]:
    """Drop exact copies, join children to parents, make roots of orphans, of spans that are
    their own parent and of cycles (each counted in ``repairs``). Returns the kept spans."""
    by_id: dict[str, Span] = {}
    kept: list[Span] = []
    for span in spans:
        first = by_id.get(span.span_id)
        if first is None:
            by_id[span.span_id] = span
            kept.append(span)
        elif first.fingerprint == span.fingerprint:
            repairs[DUPLICATE] += 1
        else:
            raise SourceError(path, span.where, f"span id {span.span_id} is used by two "
                              f"different records (the other is {first.where})")
    for span in kept:
        if span.parent_id is None:
            continue
        if span.parent_id == span.span_id:
            repairs[SELF_PARENT] += 1
            continue
        parent = by_id.get(span.parent_id)
        if parent is None:
            repairs[ORPHAN] += 1
            continue
        span.parent = parent
        parent.children.append(span)
    _cut_cycles(kept, repairs)
    for span in kept:
        span.children.sort(key=_order)
    return kept


def _cut_cycles(spans: list[Span], repairs: Counter) -> None:
    """Make roots of spans that no root reaches (they hang on a cycle of parents): repeatedly
    the earliest unreached span, until every span is reached. One sort and one walk over each
    span: linear after the sort, however many cycles there are."""
    reached: set[int] = set()

    def reach(root: Span) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) not in reached:
                reached.add(id(node))
                stack.extend(c for c in node.children if c.parent is node)

    for span in spans:
        if span.parent is None:
            reach(span)
    if len(reached) == len(spans):
        return
    cut_from = []
    for cut in sorted((s for s in spans if id(s) not in reached), key=_order):
        if id(cut) in reached:
            continue
        cut_from.append(cut.parent)
        cut.parent = None
        repairs[CYCLE] += 1
        reach(cut)
    for parent in cut_from:  # each cut span leaves its former parent's children once
        parent.children = [c for c in parent.children if c.parent is parent]


def _order(span: Span) -> tuple:
    return (span.start, span.end, span.span_id)


def roots(spans: list[Span]) -> list[Span]:
    return sorted((s for s in spans if s.parent is None), key=_order)


# ---------------------------------------------------------------------------------- mapping

@dataclass
class Unit:
    """A span's events inside its agent: entered at ``entry``, left at ``exit``."""

    span: Span
    entry: str
    exit: str
    start: int
    end: int
    order: int


@dataclass
class Mapped:
    """What :func:`map_spans` gives: the builder with events and edges, and the costs."""

    build: TraceBuilder
    costs: dict


def map_spans(path: Path, spans: list[Span], default_agent: str, skipped: Counter,
              repairs: Counter) -> Mapped:
    """Events, edges and costs of linked ``spans`` (see the module docstring)."""
    build = TraceBuilder()
    t0 = min(s.start for s in spans)
    agents = _agents(spans, default_agent)
    units: dict[str, list[Unit]] = {}  # agent -> its units in start order
    nested: list[tuple[Unit, Unit]] = []  # (outer, inner)
    bounds: dict[str, tuple[str, str | None, str]] = {}  # child -> (spawn, return, parent)
    handoffs: list[tuple[Span, str]] = []  # (handoff span, its event id)

    def t(ns: int) -> float:
        return (ns - t0) / NS

    def source(span: Span) -> dict:
        return {"x_source": f"span {span.span_id}", "x_error": True if span.error else None}

    def walk(span: Span, agent: str, outer: Unit | None) -> list:
        """Map one span; return what comes next, in order: its children to walk, and for an
        agent span the nesting to record once they are walked (so no recursion: the caller
        keeps a stack, however deep the spans nest)."""
        unit = None
        if span.kind == AGENT and id(span) in under_agent:
            child = agents[span.span_id]
            spawn = build.event(f"{span.span_id}.spawn", t(span.start), "spawn", agent,
                                to=child, tokens=span.spawn_cost[0],
                                cost_usd=_cost(span.spawn_cost[1]),
                                x_source=f"span {span.span_id}")
            ret = None
            if span.returns:
                ret = build.event(f"{span.span_id}.return", t(span.end), "return", child,
                                  to=agent, tokens=span.return_cost[0],
                                  cost_usd=_cost(span.return_cost[1]), **source(span))["id"]
            unit = _unit(units, agent, span, spawn["id"], ret or spawn["id"])
            bounds[child] = (spawn["id"], ret, agent)
            after = [] if outer is None else [(outer, unit)]
            return [(kid, child, None) for kid in span.children] + after
        if span.kind == AGENT:  # a top-level agent span: the agent's whole run
            return [(kid, agents[span.span_id], None) for kid in span.children]
        if span.kind == MODEL:
            event = build.event(span.span_id, t(span.start), "message", agent,
                                t_end=t(span.end), tokens=span.tokens,
                                cost_usd=_cost(span.cost),
                                content_ref=_ref(span.output), x_model=span.model,
                                x_usage=span.usage or None, **source(span))
            unit = _unit(units, agent, span, event["id"], event["id"])
        elif span.kind == TOOL:
            call = build.event(f"{span.span_id}.call", t(span.start), "tool_call", agent,
                               t_end=t(span.end), tool=span.tool, tokens=span.tokens,
                               cost_usd=_cost(span.cost), content_ref=_ref(span.input),
                               **source(span))
            exit = call["id"]
            if span.has_result:
                exit = build.event(f"{span.span_id}.result", t(span.end), "tool_result", agent,
                                   tool=span.tool, trusted=False,
                                   content_ref=_ref(span.output), **source(span))["id"]
                build.edge(call["id"], exit, "tool_dependency", "blocking")
            unit = _unit(units, agent, span, call["id"], exit)
        elif span.kind in (HANDOFF, EVENT):
            fields = {"decision": "delegate", "to": span.handoff_to} if span.kind == HANDOFF \
                else {"decision": span.decision, "to": span.to}
            event = build.event(span.span_id, t(span.start),
                                "orchestrator_decision" if span.kind == HANDOFF
                                else span.event_type, agent,
                                t_end=t(span.end) if span.end > span.start else None,
                                tokens=span.tokens, cost_usd=_cost(span.cost),
                                content_ref=_ref(span.output), **fields, **source(span))
            if span.kind == HANDOFF:
                handoffs.append((span, event["id"]))
            unit = _unit(units, agent, span, event["id"], event["id"])
        else:
            skipped[f"span: {span.label or 'unknown'}"] += 1
        if unit is not None and outer is not None:
            nested.append((outer, unit))
        return [(kid, agent, unit or outer) for kid in span.children]

    under_agent = _under_agent(roots(spans))
    stack = [(root, agents[root.span_id], None) for root in reversed(roots(spans))]
    while stack:
        item = stack.pop()
        if len(item) == 2:  # (outer, unit): an agent span's nesting, after its children
            nested.append(item)
            continue
        stack.extend(reversed(walk(*item)))
    if not build.events:
        raise SourceError(path, None, "no span maps to an event (no model call, tool call, "
                          "handoff or nested agent)")
    for members in units.values():
        _sequence(build, members)
    for outer, inner in nested:
        build.edge(outer.entry, inner.entry, "causal")
    links = _Links(build, units)
    for child, (spawn, ret, _parent) in bounds.items():
        members = units.get(child, [])
        firsts, lasts = links.ends(members)
        for unit in firsts:
            links.edge(spawn, unit.entry, "spawn")
        if ret is not None:
            for unit in lasts:
                links.edge(unit.exit, ret, "causal")
            if not members:
                links.edge(spawn, ret, "causal")
    _hand_over(links, spans, agents, units, handoffs)
    raised = build.raise_times()
    if raised:
        repairs["event time raised to the time of an event it depends on"] += raised
    return Mapped(build, _costs(build, spans, t0))


def _agents(spans: list[Span], default: str) -> dict[str, str]:
    """span id -> the name of the agent the span belongs to."""
    names: dict[str, str] = {}
    used: Counter = Counter()
    for span in sorted((s for s in spans if s.kind == AGENT), key=_order):
        used[span.name] += 1
        names[span.span_id] = span.name if used[span.name] == 1 else \
            f"{span.name}#{used[span.name]}"
    agent_spans = [s for s in spans if s.kind == AGENT]
    top = roots(spans)
    enclosing = _enclosing_agents(top, agent_spans)
    for root in top:
        around = enclosing.get(id(root))
        stack = [(root, default if around is None else names[around.span_id])]
        while stack:  # depth first, without recursion
            span, current = stack.pop()
            current = names.get(span.span_id, current)
            names[span.span_id] = current
            stack.extend((kid, current) for kid in span.children)
    return names


def _enclosing_agents(top: list[Span], agent_spans: list[Span]) -> dict[int, Span]:
    """For each root span that is not an agent span, the latest-starting agent span (then the
    shortest, then the smallest id) whose time encloses it: ``id(root) -> agent span``.

    All roots at once, in start order: agent spans are added as their start passes, into a
    Fenwick tree over their end times that keeps, for each suffix of ends, the best span so far
    (the one added last: they are added in the order of preference). n log n, where asking
    every agent span for every root was quadratic.
    """
    ranked = sorted(agent_spans, key=lambda a: (a.start, -a.end, a.span_id))
    ends = sorted({a.end for a in ranked})
    size = len(ends)
    best = [-1] * (size + 1)  # Fenwick tree over reversed end ranks: max position added

    def add(end: int, position: int) -> None:
        k = size - bisect.bisect_left(ends, end)
        while k <= size:
            best[k] = max(best[k], position)
            k += k & -k

    def latest(end: int) -> int:  # best position among spans ending at or after ``end``
        k, found = size - bisect.bisect_left(ends, end), -1
        while k > 0:
            found = max(found, best[k])
            k -= k & -k
        return found

    found: dict[int, Span] = {}
    added = 0
    for root in sorted((r for r in top if r.kind != AGENT), key=lambda r: r.start):
        while added < len(ranked) and ranked[added].start <= root.start:
            add(ranked[added].end, added)
            added += 1
        position = latest(root.end)
        if position >= 0:
            found[id(root)] = ranked[position]
    return found


def _unit(units: dict, agent: str, span: Span, entry: str, exit: str) -> Unit:
    members = units.setdefault(agent, [])
    unit = Unit(span, entry, exit, span.start, span.end, len(members))
    members.append(unit)
    return unit


def _ref(value: Any) -> str | None:
    return None if value is None else content_ref(value)


def _cost(value: float | None) -> float | None:
    return None if value is None else round(value, 12)


def _sequence(build: TraceBuilder, members: list[Unit]) -> None:
    """Edges from each unit B to the latest units that finished before it started: the units A
    that precede B in start order and ended by B's start, unless another such unit started at
    or after A's end (see the module docstring). Nested units are left to the nesting edges.

    One pass in start order: the units done by B's start are taken from a heap of ends as B's
    start grows; of them, A is superseded unless it ends after the latest start among the
    others (the greatest start, or the second greatest for the unit that holds the greatest
    alone), so the kept ones are those that end after the greatest start (found by bisection in
    the done units sorted by end) and, when it holds it alone and ends exactly there, that
    unit. Cost n log n plus the edges made, where comparing every pair cost n^2 log n.
    """
    ordered = sorted(members, key=lambda u: (u.start, u.order))
    pending: list[tuple[int, int]] = []  # (end, position) of units not yet done
    done_ends: list[tuple[int, int]] = []  # (end, position) of done units, sorted
    top: list[tuple[int, int]] = []  # (start, position) of the two latest-starting done units
    count_at_top = 0  # how many done units start at the greatest start
    for j, unit in enumerate(ordered):
        while pending and pending[0][0] <= unit.start:
            end, k = heapq.heappop(pending)
            bisect.insort(done_ends, (end, k))
            start = ordered[k].start
            if top and start == top[0][0]:
                count_at_top += 1
            elif not top or start > top[0][0]:
                count_at_top = 1
            top = sorted([*top, (start, k)], reverse=True)[:2]
        if top:
            latest = top[0][0]
            kept = [k for _, k in done_ends[bisect.bisect_right(done_ends, (latest, len(ordered))):]]
            alone = top[0][1]
            second = top[1][0] if len(top) > 1 else None
            if (count_at_top == 1 and ordered[alone].end == latest
                    and (second is None or second < latest)):
                kept.append(alone)
            if len(done_ends) == 1:  # no other unit can supersede the only one
                kept = [done_ends[0][1]]
            for k in sorted(set(kept)):
                before = ordered[k]
                if not _inside(unit.span, before.span):
                    build.edge(before.exit, unit.entry, "causal")
        heapq.heappush(pending, (unit.end, j))


class _Links:
    """For every agent's units, which entries have a predecessor and which exits a successor
    among the same agent's units: built from the edges once, kept up to date as edges are
    added, so that each :meth:`ends` costs the agent's units, not every edge of the trace."""

    def __init__(self, build: TraceBuilder, units: dict[str, list[Unit]]):
        self.build = build
        self.entry_of = {u.entry: agent for agent, members in units.items() for u in members}
        self.exit_of = {u.exit: agent for agent, members in units.items() for u in members}
        self.has_pred: set[str] = set()
        self.has_succ: set[str] = set()
        for edge in build.edges:
            self.note(edge["src"], edge["dst"])

    def note(self, src: str, dst: str) -> None:
        agent = self.exit_of.get(src)
        if agent is not None and self.entry_of.get(dst) == agent:
            self.has_pred.add(dst)
            self.has_succ.add(src)

    def edge(self, src: str, dst: str, type: str, mode: str | None = None) -> None:
        self.build.edge(src, dst, type, mode)
        self.note(src, dst)

    def ends(self, members: list[Unit]) -> tuple[list[Unit], list[Unit]]:
        """Units with no predecessor and units with no successor among ``members`` (one
        agent's units; a unit nested in another of them has a predecessor)."""
        spans = {id(u.span) for u in members}
        nested_in = {u.entry for u in members if _has_ancestor_in(u.span, spans)}
        firsts = [u for u in members
                  if u.entry not in self.has_pred and u.entry not in nested_in]
        lasts = [u for u in members if u.exit not in self.has_succ]
        return firsts, lasts


def _has_ancestor_in(span: Span, spans: set[int]) -> bool:
    node = span.parent
    while node is not None:
        if id(node) in spans:
            return True
        node = node.parent
    return False


def _hand_over(links: _Links, spans: list[Span], agents: dict[str, str],
               units: dict[str, list[Unit]], handoffs: list[tuple[Span, str]]) -> None:
    """Name each handoff's target invocation in ``to`` (the first invocation of that name that
    starts at or after the handoff) and link it to the target's first units (``message``,
    ``handoff``)."""
    lives: dict[str, list[Span]] = {}  # agent span name -> its invocations, in time order
    for span in sorted((s for s in spans if s.kind == AGENT), key=_order):
        lives.setdefault(span.name, []).append(span)
    starts = {name: [s.start for s in found] for name, found in lives.items()}
    for span, event_id in handoffs:
        found = lives.get(span.handoff_to, [])
        k = bisect.bisect_left(starts.get(span.handoff_to, []), span.start)
        if k == len(found):
            continue
        name = agents[found[k].span_id]
        links.build.by_id[event_id]["to"] = name
        firsts, _ = links.ends(units.get(name, []))
        for unit in firsts:
            links.edge(event_id, unit.entry, "message", "handoff")


def _under_agent(top: list[Span]) -> set[int]:
    """``id`` of every span that an agent span encloses in the tree (a sub-agent, when it is an
    agent span itself): one pass down from the roots, not a walk up from each span."""
    found: set[int] = set()
    stack = [(root, False) for root in top]
    while stack:
        span, enclosed = stack.pop()
        if enclosed:
            found.add(id(span))
        inner = enclosed or span.kind == AGENT
        stack.extend((child, inner) for child in span.children)
    return found


def _inside(span: Span, other: Span) -> bool:
    node = span.parent
    while node is not None:
        if node is other:
            return True
        node = node.parent
    return False


def _costs(build: TraceBuilder, spans: list[Span], t0: int) -> dict:
    events = build.events
    costs: dict[str, Any] = {"tokens": sum(e.get("tokens", 0) for e in events),
                             "wall_clock_s": (max(s.end for s in spans) - t0) / NS,
                             "tool_calls": build.count("tool_call"),
                             "messages": build.count("message")}
    if any("cost_usd" in e for e in events):
        costs["usd"] = round(sum(e.get("cost_usd", 0.0) for e in events), 12)
    return costs


__doc__ = f"{__doc__}\n{MAPPING}"


def iso_interval(path: Path, where: str | None, record: dict, keys: tuple[str, str],
                 subject: str, repairs: Counter, no_end: str) -> tuple[int, int]:
    """Start and end (nanoseconds) of a record whose times are ISO-8601 texts under ``keys``
    (start key, end key). A missing or null end is the start, counted in ``repairs`` under
    ``no_end``; a start that is no time, an end that is neither a time nor null, and an end
    before the start are errors naming the record (``subject``) and the field."""
    start_key, end_key = keys
    start = iso_ns(record.get(start_key))
    if start is None:
        raise SourceError(path, where, f"{subject}: {start_key} must be an ISO-8601 time, found "
                          f"{json_type(record.get(start_key))} {record.get(start_key)!r}")
    if record.get(end_key) is None:
        repairs[no_end] += 1
        return start, start
    end = iso_ns(record.get(end_key))
    if end is None:
        raise SourceError(path, where, f"{subject}: {end_key} must be an ISO-8601 time or null, "
                          f"found {json_type(record[end_key])} {record[end_key]!r}")
    if end < start:
        raise SourceError(path, where, f"{subject} ends ({record[end_key]}) before it starts "
                          f"({record[start_key]})")
    return start, end
