"""Hostile inputs built by code, shared by the tests of every wing (importable by name:
``tests/`` is on pytest's path) and timed by ``benchmarks/hostile_inputs.py``: deep spawn
chains, spawn loops, many counterfactual players; OTLP span logs thousands deep, wide or
cyclic; a billion-laughs YAML file."""

from __future__ import annotations

from itertools import combinations


def spawn_chain(depth: int, returns: bool = True) -> dict:
    """A valid trace where agent a0 spawns a1, which spawns a2... ``depth`` deep; with
    ``returns`` every agent returns to its spawner, deepest first, with a few tokens each."""
    events = [{"id": "d0", "t": 0, "type": "orchestrator_decision", "agent": "a0",
               "decision": "spawn", "tokens": 1}]
    edges = []
    for k in range(depth):
        events.append({"id": f"s{k}", "t": k + 1, "type": "spawn", "agent": f"a{k}",
                       "to": f"a{k + 1}", "role": "worker", "tokens": 2, "cost_usd": 0.5})
        edges.append({"src": "d0" if k == 0 else f"s{k - 1}", "dst": f"s{k}", "type": "spawn"})
    if returns:
        for k in range(depth, 0, -1):
            events.append({"id": f"r{k}", "t": 2 * depth + 1 - k, "type": "return",
                           "agent": f"a{k}", "to": f"a{k - 1}", "tokens": 3})
            edges.append({"src": f"s{depth - 1}" if k == depth else f"r{k + 1}", "dst": f"r{k}",
                          "type": "return"})
    return {"schema_version": "1.0", "trace_id": f"chain-{depth}", "task_id": "deep",
            "topology": "hierarchical", "events": events, "edges": edges,
            "rewards": {"team": 1.0},
            "costs": {"tokens": sum(e["tokens"] for e in events), "wall_clock_s": 2 * depth}}


def wide_swarm(agents: int) -> dict:
    """A valid trace where one root spawns ``agents`` agents, each of which returns to it: the
    widest spawn tree, one level deep."""
    events = [{"id": "d0", "t": 0, "type": "orchestrator_decision", "agent": "root",
               "decision": "spawn", "tokens": 1}]
    edges = []
    for k in range(1, agents + 1):
        events += [{"id": f"s{k}", "t": k, "type": "spawn", "agent": "root", "to": f"a{k}",
                    "tokens": 2},
                   {"id": f"r{k}", "t": k + 0.5, "type": "return", "agent": f"a{k}",
                    "to": "root", "tokens": 3}]
        edges += [{"src": "d0", "dst": f"s{k}", "type": "spawn"},
                  {"src": f"s{k}", "dst": f"r{k}", "type": "return"}]
    return {"schema_version": "1.0", "trace_id": f"swarm-{agents}", "task_id": "wide",
            "topology": "swarm", "events": events, "edges": edges, "rewards": {"team": 1.0},
            "costs": {"tokens": sum(e["tokens"] for e in events), "wall_clock_s": agents + 1}}


def spawn_loop(size: int) -> dict:
    """A trace whose ``size`` agents spawn each other in one loop (a0 -> a1 -> ... -> a0)."""
    document = spawn_chain(size - 1, returns=False)
    document["events"].append({"id": "back", "t": size + 1, "type": "spawn",
                               "agent": f"a{size - 1}", "to": "a0"})
    return document


def with_players(document: dict, count: int, weights: list[float] | None = None) -> dict:
    """``document`` with ``count`` counterfactual players; with ``weights``, every coalition's
    outcome of the game v(S) = (sum of its weights)^2 (exact Shapley value: w_i x W), else the
    outcome of one coalition only."""
    players = [f"p{k}" for k in range(count)]
    if weights is None:
        outcomes = [{"coalition": players[:1], "reward": 0.5}]
    else:
        outcomes = [{"coalition": list(c), "reward": sum(weights[int(p[1:])] for p in c) ** 2}
                    for size in range(count + 1) for c in combinations(players, size)]
    return {**document, "counterfactuals": {"unit": "agent", "players": players,
                                            "outcomes": outcomes}}


# ---------------------------------------------------------------------------------- OTLP logs

def otlp(spans: list[dict]) -> dict:
    """An OTLP/JSON export holding ``spans`` in one scope of one resource."""
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}


def span(k: int, parent: int | None, operation: str = "invoke_agent") -> dict:
    """Span ``k`` (id k + 1) of agent ``agent{k}``, child of span ``parent``; the later a span's
    ``k``, the later it starts and the earlier it ends (each encloses the next)."""
    return {"traceId": "ab" * 16, "spanId": f"{k + 1:016x}",
            "parentSpanId": "" if parent is None else f"{parent + 1:016x}",
            "name": f"{operation} agent{k}", "startTimeUnixNano": str(10**9 + 1000 * k),
            "endTimeUnixNano": str(10**9 + 10**7 - 1000 * k),
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": operation}},
                           {"key": "gen_ai.agent.name", "value": {"stringValue": f"agent{k}"}}],
            "status": {}}


def deep_span_tree(depth: int) -> dict:
    """A chain of ``depth`` agent spans, each the parent of the next, and a model call in the
    deepest."""
    spans = [span(k, None if k == 0 else k - 1) for k in range(depth)]
    spans.append({**span(depth, depth - 1, "chat"), "name": "chat model"})
    return otlp(spans)


def parent_cycles(pairs: int) -> dict:
    """A model call, then ``pairs`` pairs of spans (a model call and a tool call), each the
    other's parent."""
    spans = [span(0, None, "chat")]
    for k in range(1, 2 * pairs + 1, 2):
        spans += [span(k, k + 1, "chat"), span(k + 1, k, "execute_tool")]
    return otlp(spans)


def one_agent_calls(calls: int) -> dict:
    """One agent span holding ``calls`` model calls one after another (one chain of calls)."""
    spans = [span(0, None)]
    for k in range(1, calls + 1):
        call = span(k, 0, "chat")
        call["startTimeUnixNano"] = str(10**9 + 1000 * k)
        call["endTimeUnixNano"] = str(10**9 + 1000 * k + 500)
        spans.append(call)
    spans[0]["endTimeUnixNano"] = str(10**9 + 1000 * (calls + 2))
    return otlp(spans)


def enclosed_roots(count: int) -> dict:
    """``count`` root agent spans, each enclosing the next, and ``count`` root model calls
    inside them all: chat k starts 10^7 + k ns after the first agent span, so the latest agent
    span started by then is agent ``10,000 + k // 1000`` (for ``count`` above 10,000)."""
    spans = [span(k, None) for k in range(count)]
    for k, item in enumerate(spans):
        item["startTimeUnixNano"] = str(10**9 + 1000 * k)
        item["endTimeUnixNano"] = str(10**9 + 10**8 - 1000 * k)
    for k in range(count):
        call = span(count + k, None, "chat")
        call["startTimeUnixNano"] = str(10**9 + 10**7 + k)
        call["endTimeUnixNano"] = str(10**9 + 10**7 + k + 5)
        spans.append(call)
    return otlp(spans)


# ---------------------------------------------------------------------------------- YAML

def billion_laughs() -> str:
    """Nine levels of nine aliases each: 9^9 (387 million) strings once expanded."""
    laughs = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for depth, name in enumerate("bcdefghi"):
        previous = "abcdefghi"[depth]
        laughs.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")
    return "\n".join(laughs) + "\n"


# ---------------------------------------------------------------------------------- long names

LONG_AGENT = "A" * 10_000  # valid: the schema bounds no name
TWINS = tuple("P" * 200 + middle + "m" * 600 + "S" * 200 for middle in ("one", "two"))
MARKUP_NAME = ("<script>alert(1)</script>\u202e" + "\u202eevil\x1b[31m" * 200
               + "</code>end")


def long_names(document: dict, short: bool = False) -> dict:
    """``document`` (a trace with agents ``root``, ``a`` and ``b``, a tool ``search`` and an
    aggregating step, such as ``tests/fixtures/traces/small.json``) with its names made long: ``a``
    becomes :data:`LONG_AGENT`, ``b`` :data:`MARKUP_NAME` (markup, bidirectional and control
    characters), a third agent spawned by root and messaging ``a`` is :data:`TWINS`' first and
    ``root`` its second (the two share their first and last 200 characters), the tool gets a
    name of 5,000 characters, every event id 3,000 more characters, and the trace and task ids
    4,000 characters each. With ``short``, the same trace with short names (``twin`` for the
    third agent), to compare with."""
    renamed = ({"root": "root", "a": "a", "b": "b", "search": "search"} if short else
               {"a": LONG_AGENT, "b": MARKUP_NAME, "root": TWINS[1], "search": "t" * 5_000})
    twin, more = ("twin", "") if short else (TWINS[0], "x" * 3_000)
    events, edges = [], []
    for event in document["events"]:
        event = {**event, "id": event["id"] + more}
        for key in ("agent", "to", "tool"):
            if event.get(key) in renamed:
                event[key] = renamed[event[key]]
        events.append(event)
    for edge in document["edges"]:
        edges.append({**edge, "src": edge["src"] + more, "dst": edge["dst"] + more})
    first = events[0]
    spawn = {"id": "twin-spawn", "t": 1, "type": "spawn", "agent": renamed["root"], "to": twin}
    said = {"id": "twin-says", "t": 2, "type": "message", "agent": twin, "to": renamed["a"]}
    edges += [{"src": first["id"], "dst": "twin-spawn", "type": "spawn"},
              {"src": "twin-spawn", "dst": "twin-says", "type": "causal"}]
    ids = ("names", "task") if short else ("T" * 4_000, "K" * 4_000)
    return {**document, "trace_id": ids[0], "task_id": ids[1],
            "events": [*events, spawn, said], "edges": edges}
