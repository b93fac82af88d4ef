"""One span model for every span-based log (OpenTelemetry, Langfuse, OpenAI Agents SDK), and
the one mapping from a tree of spans to events and edges.

A reader turns its records into :class:`Span` objects (ids, times in integer nanoseconds, and a
``kind``: agent, model, tool, handoff, event or other); :func:`link` joins them into a tree and
:func:`map_spans` writes the events and edges. Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.traces.importers._kit.accounting import Account
from masrl.traces.importers._kit.common import SourceError, TraceBuilder, content_ref
from masrl.traces.importers._kit.numbers import shown
from masrl.traces.importers._kit.timestamps import NS, moment_ns

AGENT, MODEL, TOOL, HANDOFF, EVENT, OTHER = "agent", "model", "tool", "handoff", "event", "other"
KINDS = (AGENT, MODEL, TOOL, HANDOFF, EVENT, OTHER)

DUPLICATE = "duplicate span (an identical copy of an earlier record)"
STARTED = "span printed at its start (merged with its print at the end)"
WRAPPER = "model span around other model spans (the calls are the spans inside it)"
WORKFLOW = "agent span that only holds other agents (the run or a workflow, not an agent)"
IDLE = "agent span with no work (no model, tool, handoff or sub-agent span is its own)"
AS_TOOL = ("agent span inside a tool call's time but not below it (an agent used as a tool): "
           "moved under the tool span")
CIRCULAR_HANDOFF = ("handoff edge left out (the target's work already leads to the handoff: "
                    "an edge would close a cycle)")
AGENT_USAGE = "usage stated on an agent span (the agent's total, not a model call)"
ORPHAN = "span whose parent span is not in the file (made a root)"
SELF_PARENT = "span that names itself as its parent (made a root)"
CYCLE = "span in a cycle of parents (made a root)"


@dataclass(slots=True)
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
    fingerprint: str = ""  # digest of the source record's canonical text: exact copies
    error: bool = False
    model: str | None = None
    usage: dict = field(default_factory=dict)  # {input, output} tokens when recorded
    parts: dict = field(default_factory=dict)  # named parts of input / output (never added)
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
    calls: bool = False  # agent spans: its own usage stands for model calls no span shows
    spawn_cost: tuple = (None, None)  # agent spans: (tokens, usd) of the spawn and the return
    return_cost: tuple = (None, None)
    has_result: bool = True  # tool spans: whether the tool gave a result
    call_end: int | None = None  # tool spans: the call's own end, when not the span's
    result_start: int | None = None  # tool spans: the result's start, when not the span's end
    spawn_end: int | None = None  # agent spans: the end of the spawn (it starts the span)
    return_end: int | None = None  # agent spans: the end of the return (it starts at the end)
    reason: str | None = None  # why a span gives no event, when its role says so (roles)
    children: list[Span] = field(default_factory=list)
    parent: Span | None = None

    @property
    def tokens(self) -> float | None:
        """Input + output tokens when either is recorded, else the recorded total."""
        if self.usage:
            return sum(self.usage.values())
        return self.total_tokens

    def stated(self) -> dict:
        """The usage this span states, as :meth:`.accounting.Account.state_usage` takes it
        (a total alone states no input or output)."""
        found = {}
        if "input" in self.usage:
            found["tokens_in"] = self.usage["input"]
        if "output" in self.usage:
            found["tokens_out"] = self.usage["output"]
        if self.cost is not None:
            found["cost_usd"] = self.cost
        return found

    def x_usage(self) -> dict | None:
        """``x_usage`` of the span's event: input, output and their parts, or the total."""
        if self.usage:
            return {**self.usage, **self.parts}
        if self.total_tokens is not None:
            return {"total": self.total_tokens}
        return None


def fingerprint(record: Any) -> str:
    """SHA-256 of a canonical text of a source record (sorted keys): equal for identical
    copies, and only for them. A digest, not the text itself, so that a span list is not held
    twice; only its equality is used. The text is msgspec's JSON (a fifth of the time of the
    standard library's on a span, and the same for equal records: shortest round-trip numbers,
    sorted keys), else, for what it cannot write (a lone surrogate, a key that is not a string),
    the standard library's; a first byte tells the two apart. Records come from strict JSON,
    which has no NaN or infinity (msgspec would write them as null)."""
    try:
        data = b"m" + _encoder().encode(record)
    except (TypeError, UnicodeEncodeError):
        text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        data = b"j" + text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


_ENCODERS: list = []


def _encoder():
    """The one sorted-key JSON encoder of :func:`fingerprint`, made on first use."""
    if not _ENCODERS:
        import msgspec

        _ENCODERS.append(msgspec.json.Encoder(order="sorted"))
    return _ENCODERS[0]


# ---------------------------------------------------------------------------------- the tree

def link(path: Path, spans: list[Span], repairs: Counter,
         account: Account | None = None) -> list[Span]:
    """Drop exact copies (skipped in ``account``), join children to parents, make roots of
    orphans, of spans that are their own parent and of cycles (each counted in ``repairs``).
    Returns the kept spans."""
    by_id: dict[str, Span] = {}
    kept: list[Span] = []
    for span in spans:
        first = by_id.get(span.span_id)
        if first is None:
            by_id[span.span_id] = span
            kept.append(span)
        elif first.fingerprint == span.fingerprint:
            if account is not None:
                account.skip(DUPLICATE)
            else:
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
    """What :func:`map_spans` gives: the builder with events and edges, the costs, and the
    time of ``t = 0`` in nanoseconds since the epoch."""

    build: TraceBuilder
    costs: dict
    t0: int = 0


SIBLINGS_SCANNED = 64  # agent spans beside a span looked at for one that encloses it


def map_spans(path: Path, spans: list[Span], default_agent: str, account: Account | Counter,
              repairs: Counter) -> Mapped:
    """Events, edges and costs of linked ``spans`` (chapter 23 of the book); every span is
    mapped or skipped in ``account`` (an :class:`.accounting.Account`; a bare ``Counter``
    only counts the skipped ones) and the usage it states is stated there."""
    if not isinstance(account, Account):
        account = Account(reasons=account)
    build = TraceBuilder()
    t0 = min(s.start for s in spans)
    agents = _roles(spans, default_agent, repairs)
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
        if span.kind == AGENT and span.calls:
            calls(span)
        if span.kind == AGENT and id(span) in under_agent:
            child = agents[span.span_id]
            spawn = build.event(f"{span.span_id}.spawn", t(span.start), "spawn", agent,
                                to=child, t_end=_later(t, span.spawn_end, span.start),
                                tokens=span.spawn_cost[0],
                                cost_usd=_cost(span.spawn_cost[1]),
                                x_source=f"span {span.span_id}")
            ret = None
            if span.returns:
                ret = build.event(f"{span.span_id}.return", t(span.end), "return", child,
                                  to=agent, t_end=_later(t, span.return_end, span.end),
                                  tokens=span.return_cost[0],
                                  cost_usd=_cost(span.return_cost[1]), **source(span))["id"]
            unit = _unit(units, agent, span, spawn["id"], ret or spawn["id"])
            bounds[child] = (spawn["id"], ret, agent)
            after = [] if outer is None else [(outer, unit)]
            return [(kid, within(kid, child), None) for kid in span.children] + after
        if span.kind == AGENT:  # a top-level agent span: the agent's whole run
            return [(kid, within(kid, agents[span.span_id]), None) for kid in span.children]
        if span.kind == MODEL:
            event = build.event(span.span_id, t(span.start), "message", agent,
                                t_end=t(span.end), tokens=span.tokens,
                                cost_usd=_cost(span.cost),
                                content_ref=_ref(span.output), x_model=span.model,
                                x_usage=span.x_usage(), x_model_call=span.span_id,
                                **source(span))
            unit = _unit(units, agent, span, event["id"], event["id"])
        elif span.kind == TOOL:
            call_end = span.end if span.call_end is None else span.call_end
            call = build.event(f"{span.span_id}.call", t(span.start), "tool_call", agent,
                               t_end=t(call_end), tool=span.tool, tokens=span.tokens,
                               cost_usd=_cost(span.cost), content_ref=_ref(span.input),
                               x_usage=span.x_usage(), **source(span))
            exit = call["id"]
            if span.has_result:
                opened = span.end if span.result_start is None else span.result_start
                exit = build.event(f"{span.span_id}.result", t(opened), "tool_result", agent,
                                   t_end=_later(t, span.end, opened),
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
                                content_ref=_ref(span.output), x_usage=span.x_usage(),
                                **fields, **source(span))
            if span.kind == HANDOFF:
                handoffs.append((span, event["id"]))
            unit = _unit(units, agent, span, event["id"], event["id"])
        if unit is not None and outer is not None:
            nested.append((outer, unit))
        return [(kid, within(kid, agent), unit or outer) for kid in span.children]

    def calls(span: Span) -> None:
        """The model calls of an agent span that states usage but shows no model span: one
        ``message`` by the agent over the span, carrying that usage."""
        event = build.event(f"{span.span_id}.calls", t(span.start), "message",
                            agents[span.span_id], t_end=t(span.end), tokens=span.tokens,
                            cost_usd=_cost(span.cost), content_ref=_ref(span.output),
                            x_model=span.model, x_usage=span.x_usage(),
                            x_model_call=span.span_id, **source(span))
        _unit(units, agents[span.span_id], span, event["id"], event["id"])

    def within(kid: Span, agent: str) -> str:
        """The agent a child span acts for: a nested agent span is spawned by the agent it
        is in; any other span belongs to its own agent (by nesting or beside an agent)."""
        return agent if kid.kind == AGENT else agents[kid.span_id]

    under_agent = _under_agent(roots(spans))
    stack = [(root, agents[root.span_id], None) for root in reversed(roots(spans))]
    while stack:
        item = stack.pop()
        if len(item) == 2:  # (outer, unit): an agent span's nesting, after its children
            nested.append(item)
            continue
        stack.extend(reversed(walk(*item)))
    _account(account, spans)
    if not build.events:
        raise SourceError(path, None, "no span maps to an event (no model call, tool call, "
                          "handoff or nested agent)" + _found(spans))
    for members in units.values():
        _sequence(build, members)
    for outer, inner in nested:  # a child that starts before its parent (clocks of two
        if inner.start >= outer.start:  # processes) is ordered by time alone, never both ways
            build.edge(outer.entry, inner.entry, "causal")
    links = _Links(build, units, spans)
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
    _hand_over(links, spans, agents, units, handoffs, repairs)
    raised = build.raise_times()
    if raised:
        repairs["event time raised to the time of an event it depends on"] += raised
    return Mapped(build, _costs(build, spans, t0), t0)


def _account(account: Account, spans: list[Span]) -> None:
    """Each span mapped or skipped, and the usage it states (chapter 23 of the book)."""
    for span in spans:
        stated = span.stated()
        if stated:
            account.state_usage(**stated)
        if span.kind == OTHER:
            account.skip(span.reason or f"span: {span.label or 'unknown'}", usage=stated)
            continue
        account.map()
        if span.kind == AGENT and stated and not span.calls:
            account.skip_part(AGENT_USAGE, usage=stated)


def _found(spans: list[Span]) -> str:
    """What the spans were, for the message when none maps to an event."""
    reasons = Counter(s.reason or f"span: {s.label or 'unknown'}" for s in spans
                      if s.kind == OTHER)
    if not reasons:
        return ""
    shown = "; ".join(f"{n} {reason}" for reason, n in sorted(reasons.items())[:4])
    return f"; its {len(spans)} spans: {shown}" + ("; ..." if len(reasons) > 4 else "")


# ---------------------------------------------------------------------------------- roles

def _postorder(top: list[Span]) -> list[Span]:
    """Every span below ``top`` (included), each after its children: no recursion."""
    order: list[Span] = []
    stack = [(root, False) for root in reversed(top)]
    while stack:
        span, done = stack.pop()
        if done:
            order.append(span)
            continue
        stack.append((span, True))
        stack.extend((kid, False) for kid in reversed(span.children))
    return order


def _roles(spans: list[Span], default: str, repairs: Counter) -> dict[str, str]:
    """Move agents used as tools under their tool spans; tell wrappers, runs and idle agent
    spans apart (they become kind ``other`` with their reason); then name the agent of every
    span: ``span id -> agent name`` (chapter 23 of the book)."""
    _agents_as_tools(spans, repairs)
    top = roots(spans)
    below = _postorder(top)
    has_model, has_agent = set(), set()  # id of spans with a model / agent span below them
    for span in below:
        for kid in span.children:
            if kid.kind == MODEL or id(kid) in has_model:
                has_model.add(id(span))
            if kid.kind == AGENT or id(kid) in has_agent:
                has_agent.add(id(span))
    for span in below:
        if span.kind == MODEL and id(span) in has_model:
            span.kind, span.reason = OTHER, WRAPPER
    _own_calls(top, spans, has_model, has_agent)
    owned = Counter()  # id of an agent span -> spans of other mapped kinds it owns
    nearest = _nearest_agents(top)
    for span in spans:
        if span.kind in (MODEL, TOOL, HANDOFF, EVENT) and nearest.get(id(span)) is not None:
            owned[id(nearest[id(span)])] += 1
        if span.calls:
            owned[id(span)] += 1
    runs = [s for s in spans if s.kind == AGENT and not owned[id(s)] and id(s) in has_agent
            and _top_agent(s)]  # decided before any changes: the agents below stay agents
    for span in runs:
        span.kind, span.reason = OTHER, WORKFLOW
    owner = _owners(top, spans)
    owned = Counter(id(owner[id(s)]) for s in spans
                    if s.kind in (MODEL, TOOL, HANDOFF, EVENT) and owner.get(id(s)) is not None)
    owned.update(id(s) for s in spans if s.calls)
    idle = [s for s in spans if s.kind == AGENT and _top_agent(s) and not owned[id(s)]
            and id(s) not in has_agent]
    for span in idle:
        span.kind, span.reason = OTHER, IDLE
    names = agent_names(sorted((s for s in spans if s.kind == AGENT), key=_order))
    if idle:  # kinds changed since the owners were found
        owner = _owners(top, spans)
    return {s.span_id: names[id(owner[id(s)])] if owner.get(id(s)) is not None else default
            for s in spans}


def agent_names(invocations: list[Span]) -> dict[int, str]:
    """``id(span) ->`` the agent each agent span (in start order) is: its name, and for a name's
    later invocations ``name#2``, ``name#3``... numbered past every name the log itself uses
    (an agent the log calls ``planner#2`` stays apart from the second ``planner``)."""
    taken = {span.name for span in invocations}  # reserved before any renaming
    names: dict[int, str] = {}
    seen: set[str] = set()
    suffix: Counter = Counter()
    for span in invocations:
        if span.name not in seen:
            seen.add(span.name)
            names[id(span)] = span.name
            suffix[span.name] = 1
            continue
        name = span.name
        while name in taken:
            suffix[span.name] += 1
            name = f"{span.name}#{suffix[span.name]}"
        taken.add(name)
        names[id(span)] = name
    return names


def _states_tokens(span: Span) -> bool:
    return bool(span.usage) or span.total_tokens is not None


def _own_calls(top: list[Span], spans: list[Span], has_model: set, has_agent: set) -> None:
    """Mark the agent spans whose own usage stands for their model calls: they state tokens,
    no model span is below them or theirs beside them, and no agent span is below them (its
    calls may be in their total: a session's total over its sub-agents)."""
    candidates = [s for s in spans if s.kind == AGENT and _states_tokens(s)
                  and id(s) not in has_model and id(s) not in has_agent]
    if not candidates:
        return
    owner = _owners(top, spans)
    with_models = {id(owner[id(s)]) for s in spans
                   if s.kind == MODEL and owner.get(id(s)) is not None}
    for span in candidates:
        span.calls = id(span) not in with_models


def _agents_as_tools(spans: list[Span], repairs: Counter) -> None:
    """Put each top-level agent span that a tool span (not below it) encloses in time under
    that tool span (the latest-starting one): the agent ran as the tool."""
    tops = [s for s in spans if s.kind == AGENT and _top_agent(s)]
    tools = [s for s in spans if s.kind == TOOL]
    if not tops or not tools:
        return
    found = _enclosing(tops, tools)
    for agent in tops:
        tool = found.get(id(agent))
        if tool is None or _inside(tool, agent):
            continue
        if agent.parent is not None:
            agent.parent.children = [k for k in agent.parent.children if k is not agent]
        agent.parent = tool
        bisect.insort(tool.children, agent, key=_order)
        repairs[AS_TOOL] += 1


def _top_agent(span: Span) -> bool:
    """No agent span above this one."""
    node = span.parent
    while node is not None:
        if node.kind == AGENT:
            return False
        node = node.parent
    return True


def _nearest_agents(top: list[Span]) -> dict[int, Span | None]:
    """``id(span) ->`` its nearest agent span (itself included) by nesting alone."""
    found: dict[int, Span | None] = {}
    stack = [(root, None) for root in top]
    while stack:
        span, current = stack.pop()
        current = span if span.kind == AGENT else current
        found[id(span)] = current
        stack.extend((kid, current) for kid in span.children)
    return found


def _owners(top: list[Span], spans: list[Span]) -> dict[int, Span | None]:
    """``id(span) ->`` the agent span it belongs to: by nesting; for a span with no agent
    above it, an agent span beside it (a root: any agent span) that encloses it in time, else
    one beside it that starts while it runs; ``None`` for the default agent."""
    agent_spans = [s for s in spans if s.kind == AGENT]
    enclosing = _enclosing_agents(top, agent_spans)
    siblings: dict[int, tuple[list[Span], list[int]]] = {}  # id(parent) -> agents, starts

    def beside(span: Span) -> Span | None:
        parent = span.parent
        if parent is None:
            return enclosing.get(id(span))
        if id(parent) not in siblings:
            found = sorted((k for k in parent.children if k.kind == AGENT), key=_order)
            siblings[id(parent)] = (found, [k.start for k in found])
        found, starts = siblings[id(parent)]
        if not found:
            return None
        last = bisect.bisect_right(starts, span.start) - 1  # enclosing: the latest start at
        for k in range(last, max(last - SIBLINGS_SCANNED, -1), -1):  # or before the span's
            if found[k].end >= span.end:
                return found[k]
        k = bisect.bisect_right(starts, span.start)  # else the first to start while it runs
        return found[k] if k < len(found) and found[k].start < span.end else None

    owners: dict[int, Span | None] = {}
    stack = [(root, None) for root in top]
    while stack:
        span, current = stack.pop()
        if span.kind == AGENT:
            current = span
        elif current is None:
            current = beside(span)
        owners[id(span)] = current
        stack.extend((kid, current) for kid in span.children)
    return owners


def _enclosing_agents(top: list[Span], agent_spans: list[Span]) -> dict[int, Span]:
    """For each root span that is not an agent span, the latest-starting agent span (then the
    shortest, then the smallest id) whose time encloses it: ``id(root) -> agent span``."""
    return _enclosing([r for r in top if r.kind != AGENT], agent_spans)


def _enclosing(targets: list[Span], candidates: list[Span]) -> dict[int, Span]:
    """For each target span, the latest-starting candidate span (then the shortest, then the
    smallest id) whose time encloses it: ``id(target) -> candidate``.

    All targets at once, in start order: candidates are added as their start passes, into a
    Fenwick tree over their end times that keeps, for each suffix of ends, the best span so far
    (the one added last: they are added in the order of preference). n log n, where asking
    every candidate for every target was quadratic.
    """
    ranked = sorted(candidates, key=lambda a: (a.start, -a.end, a.span_id))
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
    for target in sorted(targets, key=lambda r: r.start):
        while added < len(ranked) and ranked[added].start <= target.start:
            add(ranked[added].end, added)
            added += 1
        position = latest(target.end)
        if position >= 0:
            found[id(target)] = ranked[position]
    return found


def _later(t, end: int | None, start: int) -> float | None:
    """``t(end)`` when the span states an end after ``start`` (a duration the log keeps)."""
    return t(end) if end is not None and end > start else None


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
    or after A's end (chapter 23 of the book). Nested units are left to the nesting edges.

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
                if not _inside(unit.span, before.span) and not _inside(before.span, unit.span):
                    build.edge(before.exit, unit.entry, "causal")  # a nested pair: nesting
                    # edges order it (a child may start before its parent: clocks differ)
        heapq.heappush(pending, (unit.end, j))


class _Links:
    """For every agent's units, which entries have a predecessor and which exits a successor
    among the same agent's units: built from the edges once, kept up to date as edges are
    added, so that each :meth:`ends` costs the agent's units, not every edge of the trace."""

    def __init__(self, build: TraceBuilder, units: dict[str, list[Unit]], spans: list[Span]):
        self.build = build
        self.reach = _preorder(spans)
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
        nested = _nested(self.reach, [u.span for u in members])
        nested_in = {u.entry for u in members if id(u.span) in nested}
        firsts = [u for u in members
                  if u.entry not in self.has_pred and u.entry not in nested_in]
        lasts = [u for u in members if u.exit not in self.has_succ]
        return firsts, lasts


def _preorder(spans: list[Span]) -> dict[int, tuple[int, int]]:
    """``id`` of each span -> ``(first, past)``: its place in a preorder walk of the tree and
    the place past its last descendant, so that A encloses B exactly when A's range holds
    B's place. One walk, no recursion; asking whether a span has an ancestor among others is
    then a sort of the others, not a walk to the top of the tree (quadratic in its depth)."""
    reach: dict[int, tuple[int, int]] = {}
    stack = [(root, False) for root in reversed(roots(spans))]
    count = 0
    while stack:
        span, done = stack.pop()
        if done:
            reach[id(span)] = (reach[id(span)][0], count)
            continue
        reach[id(span)] = (count, count)
        count += 1
        stack.append((span, True))
        stack.extend((kid, False) for kid in reversed(span.children))
    return reach


def _nested(reach: dict[int, tuple[int, int]], spans: list[Span]) -> set[int]:
    """``id`` of each of ``spans`` that another of them encloses (a strict ancestor in the
    tree): in preorder, a span is enclosed when some earlier one's range is still open."""
    open_until: list[int] = []  # past-ends of the enclosing ranges, innermost last
    found: set[int] = set()
    for key in sorted({id(span) for span in spans}, key=lambda key: reach[key][0]):
        first, past = reach[key]
        while open_until and open_until[-1] <= first:
            open_until.pop()
        if open_until:
            found.add(key)
        open_until.append(past)
    return found


def _hand_over(links: _Links, spans: list[Span], agents: dict[str, str],
               units: dict[str, list[Unit]], handoffs: list[tuple[Span, str]],
               repairs: Counter) -> None:
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
            if _reaches(links.build, unit.entry, event_id):
                repairs[CIRCULAR_HANDOFF] += 1
                continue
            links.edge(event_id, unit.entry, "message", "handoff")


def _reaches(build: TraceBuilder, src: str, dst: str) -> bool:
    """Whether the edges already lead from ``src`` to ``dst`` (a walk over them: handoffs are
    few)."""
    after: dict[str, list[str]] = {}
    for edge in build.edges:
        after.setdefault(edge["src"], []).append(edge["dst"])
    seen, stack = {src}, [src]
    while stack:
        node = stack.pop()
        if node == dst:
            return True
        for nxt in after.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


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




def iso_interval(path: Path, where: str | None, record: dict, keys: tuple[str, str],
                 subject: str, repairs: Counter, no_end: str) -> tuple[int, int]:
    """Start and end (nanoseconds) of a record whose times are ISO-8601 texts under ``keys``
    (start key, end key). A missing or null end is the start, counted in ``repairs`` under
    ``no_end``; a start that is no time, an end that is neither a time nor null, and an end
    before the start are errors naming the record (``subject``) and the field."""
    start_key, end_key = keys
    if record.get(start_key) is None:
        raise SourceError(path, where, f"{subject}: {start_key} must be an ISO 8601 time, "
                          f"found {shown(record.get(start_key))}")
    start = moment_ns(record[start_key], path, where, f"{subject}: {start_key}", numbers=False)
    if record.get(end_key) is None:
        repairs[no_end] += 1
        return start, start
    end = moment_ns(record[end_key], path, where, f"{subject}: {end_key}", numbers=False)
    if end < start:
        raise SourceError(path, where, f"{subject} ends ({record[end_key]}) before it starts "
                          f"({record[start_key]})")
    return start, end
