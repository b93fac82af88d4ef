"""Who worked with whom: the agents of a run as a graph, drawn as SVG built here (no script, no
network, the same bytes for the same trace).

*Nodes* are the agents that act (tools that only answer calls are counted on the agent that
called them, not drawn). *Links* join two agents when one handed the other something the event
graph records: a **spawn** (the run's spawn tree), a **delegation** (an edge out of an
orchestration decision to delegate, or an edge whose mode is ``handoff``), a **message**, a
**return** (``return`` and ``aggregate`` edges) or another **dependency**. One link joins an
ordered pair of agents and counts its edges by kind; it adds up the tokens and dollars of their
source events, and the credit they carry at the message unit. A node or link on the critical
path is drawn in black, thicker.

The layout is layered: the agent of the run's first event in the first layer, then every agent
one layer further than the first agent that reached it (breadth first along the links); agents
nothing reaches start layers of their own. Within a layer, agents keep the order in which they
were reached. Layers are drawn as columns from left to right (a wide screen), or as rows from
top to bottom (a phone's: runs are broader than they are deep).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from masrl.presentation.escaping import html_text
from masrl.presentation.report import names
from masrl.presentation.report.agents import TOOL, agent_kinds, agent_order
from masrl.presentation.report.facts import Facts
from masrl.traces import credit, metrics
from masrl.traces.graph import EVENT_TYPES

SPAWN, DELEGATION, MESSAGE, RETURN, OTHER = "spawn", "delegation", "message", "return", \
    "dependency"
LINK_KINDS = (SPAWN, DELEGATION, MESSAGE, RETURN, OTHER)  # the first a link holds colours it
PLURALS = {SPAWN: "spawns", DELEGATION: "delegations", MESSAGE: "messages", RETURN: "returns",
           OTHER: "dependencies"}
EDGE_KIND = {"message": MESSAGE, "return": RETURN, "aggregate": RETURN}
LINK_COLOURS = {SPAWN: "#0072B2", DELEGATION: "#D55E00", MESSAGE: "#009E73", RETURN: "#CC79A7",
                OTHER: "#777777"}
CRITICAL_COLOUR = "#000000"


@dataclass
class Node:
    name: str
    kind: str  # root or spawned
    role: str | None
    events: int
    tool_calls: int
    tokens: float | None  # None when none of its events records tokens
    cost_usd: float | None
    credit: float | None
    critical: bool
    column: int = 0
    row: int = 0


@dataclass
class Link:
    source: str
    target: str
    kinds: Counter = field(default_factory=Counter)  # kind -> edges (a spawn counts once)
    tokens: float | None = None  # None: none of its source events records tokens
    cost_usd: float | None = None
    credit: float | None = None
    critical: bool = False
    events: set[int] = field(default_factory=set, repr=False)  # source events

    @property
    def kind(self) -> str:
        """The kind the link is drawn as: the first of :data:`LINK_KINDS` it holds."""
        return next(kind for kind in LINK_KINDS if self.kinds[kind])

    @property
    def count(self) -> int:
        return sum(self.kinds.values())


@dataclass
class AgentGraph:
    nodes: list[Node]
    links: list[Link]
    credit_rule: str | None  # how node and link credit were computed (None: no credit)


def credit_rule(facts: Facts, unit: str) -> tuple[str | None, dict[str, float] | None]:
    """The credit of each item of ``unit`` the report shows, and the rule it comes from: the
    Shapley value when the trace's counterfactuals are at this unit, else the recorded
    per-event rewards when any event records one, else the equal split of the team reward,
    else none."""
    run = facts.run
    found = facts.replay.credit.get("counterfactual")
    if found and found.get("unit") == unit and found.get("shapley"):
        return "Shapley value (counterfactual)", dict(found["shapley"])
    if bool((~np.isnan(run.trace.recorded("reward"))).any()):
        return "recorded rewards", credit.recorded(run, unit)
    shares = credit.equal(run, unit)
    if shares is not None:
        return "equal split of the team reward", shares
    return None, None


def build(facts: Facts) -> AgentGraph:
    """The agent graph of a replayed run (see the module docstring)."""
    run = facts.run
    trace = run.trace
    events = trace.events
    kinds = agent_kinds(run)
    agents = [name for name in agent_order(run) if kinds[name] != TOOL]
    acting = set(agents)
    path = metrics.critical_path(run)
    on_path = {events.agent(i) for i in path}
    tokens = trace.numeric("tokens")
    costs = trace.numeric("cost_usd")
    with_tokens, with_cost = facts.recorded_by("tokens"), facts.recorded_by("cost_usd")
    counts = Counter(events.agent_codes.tolist())
    calls = Counter(events.agent_codes[events.of_type("tool_call")].tolist())
    code = {name: k for k, name in enumerate(events.agent_names)}
    rule, shares = credit_rule(facts, "agent")
    per_agent_tokens = facts.data["tokens"]["per_agent"]
    per_agent_cost = facts.data["cost_usd"]["per_agent"]
    nodes = [Node(name, kinds[name], run.agents[name].role, counts.get(code.get(name), 0),
                  calls.get(code.get(name), 0),
                  float(per_agent_tokens.get(name, 0.0)) if with_tokens[name] else None,
                  float(per_agent_cost.get(name, 0.0)) if with_cost[name] else None,
                  None if shares is None else shares.get(name), name in on_path)
             for name in agents]

    links: dict[tuple[str, str], Link] = {}
    for name in agents:  # the spawn tree
        parent = run.agents[name].parent
        if parent in acting:
            links[(parent, name)] = Link(parent, name, Counter({SPAWN: 1}))
    types = trace.edge_records.optional("type")
    modes = trace.edge_records.optional("mode")
    src, dst = trace.edges.src.tolist(), trace.edges.dst.tolist()
    for k, (i, j) in enumerate(zip(src, dst)):
        if i < 0 or j < 0 or types[k] == "spawn":
            continue
        a, b = events.agent(i), events.agent(j)
        if a == b or a not in acting or b not in acting:
            continue
        delegated = modes[k] == "handoff" or (
            EVENT_TYPES[events.types[i]] == "orchestrator_decision"
            and trace.event_records.value(i, "decision") == "delegate")
        link = links.setdefault((a, b), Link(a, b))
        link.events.add(i)
        if EVENT_TYPES[events.types[i]] == "spawn":  # the spawn reaching its agent: the spawn
            link.kinds[SPAWN] = 1
            continue
        kind = DELEGATION if delegated else EDGE_KIND.get(types[k], OTHER)
        link.kinds[kind] += 1
    message_rule, message_shares = credit_rule(facts, "message")
    ids = events.ids
    has_tokens = ~np.isnan(trace.recorded("tokens"))
    has_cost = ~np.isnan(trace.recorded("cost_usd"))
    for link in links.values():  # None: none of its events records the figure
        link.tokens = (float(sum(tokens[i] for i in link.events))
                       if any(has_tokens[i] for i in link.events) else None)
        link.cost_usd = (float(sum(costs[i] for i in link.events))
                         if any(has_cost[i] for i in link.events) else None)
        if message_shares is not None and link.events:
            link.credit = sum(message_shares.get(ids[i], 0.0) for i in link.events)
    for i, j in zip(path, path[1:]):
        link = links.get((events.agent(i), events.agent(j)))
        if link is not None:
            link.critical = True
    place = {name: k for k, name in enumerate(agents)}
    ordered = sorted(links.values(), key=lambda link: (place[link.source], place[link.target]))
    graph = AgentGraph(nodes, ordered, rule if message_rule == rule or message_rule is None
                       else f"{rule} (agents); {message_rule} (messages)")
    _lay_out(graph, first=_first_agent(facts, acting))
    return graph


def _first_agent(facts: Facts, acting: set[str]) -> str | None:
    events = facts.run.trace.events
    for i in facts.run.timeline.tolist():
        if events.agent(i) in acting:
            return events.agent(i)
    return None


def _lay_out(graph: AgentGraph, first: str | None) -> None:
    """Columns breadth first along the links from ``first``, then from each agent not yet
    reached (see the module docstring); rows in the order reached."""
    after: dict[str, list[str]] = {node.name: [] for node in graph.nodes}
    for link in graph.links:
        if link.target not in after[link.source]:
            after[link.source].append(link.target)
    column: dict[str, int] = {}
    reached: list[str] = []
    starts = ([first] if first else []) + [node.name for node in graph.nodes]
    for start in starts:
        if start in column:
            continue
        column[start] = 0
        queue = [start]
        while queue:
            current = queue.pop(0)
            reached.append(current)
            for target in after[current]:
                if target not in column:
                    column[target] = column[current] + 1
                    queue.append(target)
    rows: Counter = Counter()
    place = {}
    for name in reached:
        place[name] = (column[name], rows[column[name]])
        rows[column[name]] += 1
    for node in graph.nodes:
        node.column, node.row = place[node.name]


# ----------------------------------------------------------------------------------- drawing

MAX_DRAWN_AGENTS = 40  # beyond, the graph is not drawn (the tables list every agent and link)
NODE_WIDTH, LINE_HEIGHT, PAD = 196, 15, 8
COLUMN_GAP, ROW_GAP, MARGIN = 176, 26, 12  # from left to right
SIBLING_GAP, LAYER_GAP, MAX_ACROSS = 24, 72, 2  # from top to bottom, two boxes a row
NAME_CHARS = 26  # a name longer than this wraps onto further lines (never cut)
FONT = "font-family=\"system-ui, sans-serif\""


def _wrapped(text: str, width: int = NAME_CHARS) -> list[str]:
    return [text[k:k + width] for k in range(0, len(text), width)] or [""]


def node_lines(node: Node) -> list[tuple[str, bool]]:
    """The lines of a node's box, with whether each is the name (bold)."""
    from masrl.presentation.report import words

    lines = [(part, True) for part in _wrapped(names.shown(node.name))]
    role = f"{names.shown(node.role)}, " if node.role else ""
    lines.append((f"{role}{'spawned' if node.kind == 'spawned' else 'not spawned'}", False))
    lines.append((f"{words.count(node.events, 'event')}, "
                  f"{words.count(node.tool_calls, 'tool call')}", False))
    usage = []
    if node.tokens is not None:
        usage.append(words.count(node.tokens, "token"))
    if node.cost_usd is not None:
        usage.append(words.money(node.cost_usd))
    if usage:
        lines.append((", ".join(usage), False))
    if node.credit is not None:
        lines.append((f"credit {words.number(node.credit, 3)}", False))
    return lines


def _height(node: Node) -> int:
    return len(node_lines(node)) * LINE_HEIGHT + 2 * PAD


def link_label(link: Link) -> str:
    """A link's label: what it holds, how many of each (``spawn, 2 messages``)."""
    from masrl.presentation.report import words

    return ", ".join(kind if kind == SPAWN and n == 1 else words.count(n, kind, PLURALS[kind])
                     for kind in LINK_KINDS if (n := link.kinds[kind]))


def _boxes(graph: AgentGraph, down: bool) -> tuple[dict[str, tuple], float, float]:
    """Each agent's box ``(x, y, width, height)`` and the picture's size: columns from left to
    right, or (``down``) rows from top to bottom, each centred on the longest."""
    layers = max(node.column for node in graph.nodes) + 1
    heights = {node.name: _height(node) for node in graph.nodes}
    members = {k: sorted((n for n in graph.nodes if n.column == k), key=lambda n: n.row)
               for k in range(layers)}
    box = {}
    if not down:
        extent = {k: sum(heights[n.name] + ROW_GAP for n in found) - ROW_GAP
                  for k, found in members.items()}
        tallest = max(extent.values())
        for k, found in members.items():
            y = MARGIN + (tallest - extent[k]) / 2
            for node in found:
                box[node.name] = (MARGIN + k * (NODE_WIDTH + COLUMN_GAP), y, NODE_WIDTH,
                                  heights[node.name])
                y += heights[node.name] + ROW_GAP
        return (box, 2 * MARGIN + layers * NODE_WIDTH + (layers - 1) * COLUMN_GAP,
                2 * MARGIN + tallest)
    rows = [found[k:k + MAX_ACROSS] for found in members.values()
            for k in range(0, len(found), MAX_ACROSS)]  # a broad layer wraps
    extent = [len(row) * (NODE_WIDTH + SIBLING_GAP) - SIBLING_GAP for row in rows]
    widest = max(extent)
    y = MARGIN
    for row, width in zip(rows, extent):
        x = MARGIN + (widest - width) / 2
        for node in row:
            box[node.name] = (x, y, NODE_WIDTH, heights[node.name])
            x += NODE_WIDTH + SIBLING_GAP
        y += max(heights[n.name] for n in row) + LAYER_GAP
    return box, 2 * MARGIN + widest, y - LAYER_GAP + MARGIN


LABEL_CHARS = 18  # a link's label longer than this breaks after its commas


def label_lines(label: str) -> list[str]:
    """A link's label on as many lines as its commas allow, each at most about
    :data:`LABEL_CHARS` characters."""
    if len(label) <= LABEL_CHARS or ", " not in label:
        return [label]
    parts = label.split(", ")
    return [f"{part}," for part in parts[:-1]] + [parts[-1]]


def svg(graph: AgentGraph, description: str, *, down: bool = False) -> str:
    """The graph as one SVG element (see the module docstring), laid out from left to right,
    or from top to bottom with ``down`` (for a narrow screen); every text escaped; the
    ``description`` is its accessible name."""
    if not graph.nodes:
        return ""
    box, width, height = _boxes(graph, down)
    same_layer = any(box[link.source][0 if not down else 1] == box[link.target][0 if not down
                                                                                 else 1]
                     for link in graph.links)
    if same_layer:  # arcs between agents of one layer bulge out of its right side (its bottom)
        longest = max(len(link_label(link)) for link in graph.links)
        if down:
            height += 60
        else:
            width += 40 + 6 * longest
    kind = "down" if down else "across"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="masrl-agent-graph masrl-{kind}" '
             f'viewBox="0 0 {width:g} {height:g}" width="{width:g}" height="{height:g}" '
             f'style="max-width: 100%; height: auto" role="img" '
             f'aria-label="{html_text(description)}">',
             "<defs>" + "".join(
                 f'<marker id="masrl-arrow-{kind}-{k}" viewBox="0 0 10 10" refX="9" refY="5" '
                 f'markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" '
                 f'orient="auto-start-reverse">'
                 f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
                 for k, colour in enumerate([*LINK_COLOURS.values(), CRITICAL_COLOUR]))
             + "</defs>"]
    pairs = {(link.source, link.target) for link in graph.links}
    column = {node.name: node.column for node in graph.nodes}
    crowd = Counter(node.column for node in graph.nodes)  # boxes per column
    labels = []
    for link in graph.links:
        both_ways = (link.target, link.source) in pairs
        offset = _offset(box[link.source], box[link.target], both_ways)
        if down:
            path, (lx, ly, anchor) = _route_down(box[link.source], box[link.target], offset)
        else:  # a label nearer the column of more boxes: where a fan of links has parted
            ends = crowd[column[link.target]] - crowd[column[link.source]]
            t = 0.5 if ends == 0 else 0.72 if ends > 0 else 0.28
            path, (lx, ly, anchor) = _route(box[link.source], box[link.target], offset, t)
        colour = CRITICAL_COLOUR if link.critical else LINK_COLOURS[link.kind]
        marker = len(LINK_COLOURS) if link.critical else LINK_KINDS.index(link.kind)
        dash = ' stroke-dasharray="5 3"' if link.kind == SPAWN else ""
        stroke = 2.6 if link.critical else 1.4
        parts.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{stroke}"'
                     f'{dash} marker-end="url(#masrl-arrow-{kind}-{marker})"/>')
        lines = label_lines(link_label(link))
        if not down and ly < (box[link.source][1] + box[link.target][1]) / 2 + 40:
            ly -= 12 * (len(lines) - 1)  # a label above its line grows upwards
        spans = "".join(f'<tspan x="{lx:.1f}" dy="{0 if k == 0 else 12}">{html_text(line)}'
                        f"</tspan>" for k, line in enumerate(lines))
        labels.append(f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}" font-size="11" '
                      f'{FONT} fill="{colour}" stroke="white" stroke-width="3" '
                      f'paint-order="stroke">{spans}</text>')
    for node in graph.nodes:
        x, y, w, h = box[node.name]
        edge = CRITICAL_COLOUR if node.critical else "#888888"
        parts.append(f'<rect x="{x:g}" y="{y:.1f}" width="{w}" height="{h}" rx="6" '
                     f'fill="#ffffff" stroke="{edge}" '
                     f'stroke-width="{2.6 if node.critical else 1.2}"/>')
        for k, (line, bold) in enumerate(node_lines(node)):
            weight = ' font-weight="600"' if bold else ""
            parts.append(f'<text x="{x + PAD:g}" y="{y + PAD + (k + 0.8) * LINE_HEIGHT:.1f}" '
                         f'font-size="12" {FONT}{weight} fill="#222222">'
                         f"{html_text(line)}</text>")
    parts.extend(labels)  # over the lines, so that a label is never hidden by a path
    parts.append("</svg>")
    return "".join(parts)


def _offset(source: tuple, target: tuple, both_ways: bool) -> float:
    """How far a link is moved off the line between its boxes' middles: when the two agents
    have links both ways, the one that runs right (or down) keeps to one side, the other to
    the other."""
    if not both_ways:
        return 0.0
    forward = (source[0], source[1]) < (target[0], target[1])
    return -7.0 if forward else 7.0


def _along(points: tuple, t: float) -> tuple[float, float]:
    """The point at ``t`` (0 to 1) along a cubic Bézier curve of four points."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
    a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t ** 2, t ** 3
    return a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3


def _route(source: tuple, target: tuple, offset: float, t: float = 0.5
           ) -> tuple[str, tuple]:
    """An SVG path from one box to another, left to right, and where its label goes (x, y,
    anchor; ``t`` of the way along, so that the labels of links fanning out of one agent sit
    where the links have parted): a curve from the right side to the left side when the
    target's column is further right, from the left to the right when it is further left, and
    an arc out of the right side within one column."""
    sx, sy, sw, sh = source
    tx, ty, tw, th = target
    s_mid, t_mid = sy + sh / 2 + offset, ty + th / 2 + offset
    if tx != sx:
        x1, x2 = (sx + sw, tx) if tx > sx else (sx, tx + tw)
        c = (x2 - x1) / 2
        points = ((x1, s_mid), (x1 + c, s_mid), (x2 - c, t_mid), (x2, t_mid))
        path = "M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}".format(
            *(v for point in points for v in point))
        x, y = _along(points, t)
        return path, (x, y - 4 if tx > sx else y + 12, "middle")
    x = sx + sw
    bulge = 36 + abs(t_mid - s_mid) * 0.25 + abs(offset)
    path = f"M{x:.1f},{s_mid:.1f} C{x + bulge:.1f},{s_mid:.1f} {x + bulge:.1f},{t_mid:.1f} " \
           f"{x:.1f},{t_mid:.1f}"
    return path, (x + bulge * 0.75 + 4, (s_mid + t_mid) / 2 + 4, "start")


def _route_down(source: tuple, target: tuple, offset: float) -> tuple[str, tuple]:
    """:func:`_route` from top to bottom: from the bottom side to the top side when the
    target's row is lower, from the top to the bottom when it is higher, and an arc out of the
    bottom within one row; labels beside the line, in the gap above the lower box (left of a
    link that runs down when there is one back, right of the one back)."""
    sx, sy, sw, sh = source
    tx, ty, tw, th = target
    s_mid, t_mid = sx + sw / 2 + offset, tx + tw / 2 + offset
    side = (-6.0, "end") if offset < 0 else (6.0, "start")
    if ty > sy:  # the label in the gap just above the target (a layer may wrap into rows)
        y1, y2 = sy + sh, ty
        c = min((y2 - y1) / 2, LAYER_GAP)
        path = f"M{s_mid:.1f},{y1:.1f} C{s_mid:.1f},{y1 + c:.1f} {t_mid:.1f},{y2 - c:.1f} " \
               f"{t_mid:.1f},{y2:.1f}"
        return path, (t_mid + side[0], y2 - LAYER_GAP * 0.3, side[1])
    if ty < sy:  # the label in the gap just above the source, beside the link that came down
        y1, y2 = sy, ty + th
        c = min((y1 - y2) / 2, LAYER_GAP)
        path = f"M{s_mid:.1f},{y1:.1f} C{s_mid:.1f},{y1 - c:.1f} {t_mid:.1f},{y2 + c:.1f} " \
               f"{t_mid:.1f},{y2:.1f}"
        return path, (s_mid + side[0], y1 - LAYER_GAP * 0.3, side[1])
    y = sy + sh
    bulge = 30 + abs(t_mid - s_mid) * 0.12 + abs(offset)
    path = f"M{s_mid:.1f},{y:.1f} C{s_mid:.1f},{y + bulge:.1f} {t_mid:.1f},{y + bulge:.1f} " \
           f"{t_mid:.1f},{y:.1f}"
    return path, ((s_mid + t_mid) / 2, y + bulge * 0.75 + 12, "middle")


def describe(graph: AgentGraph) -> str:
    """The graph's text alternative: the agents and every link, in words."""
    from masrl.presentation.report import words

    if not graph.nodes:
        return "No agent acts in this trace."
    parts = [f"Graph of {words.count(len(graph.nodes), 'agent')}: "
             f"{words.listed([names.shown(n.name) for n in graph.nodes], 8)}."]
    if graph.links:
        shown = [f"{names.shown(link.source)} to {names.shown(link.target)}: {link_label(link)}"
                 + (" (on the critical path)" if link.critical else "")
                 for link in graph.links[:12]]
        more = f"; and {len(graph.links) - 12} more links" if len(graph.links) > 12 else ""
        parts.append("Links: " + "; ".join(shown) + more + ".")
    else:
        parts.append("No edge of the trace joins two agents.")
    critical = [names.shown(n.name) for n in graph.nodes if n.critical]
    if critical:
        parts.append(f"On the critical path: {words.listed(critical, 8)}.")
    return " ".join(parts)
