"""A quick "valid, nothing to say" for a small trace, so that ``masrl validate`` on one small file
starts in a blink: no jsonschema-rs, msgspec or numpy to import (together about 60 ms, five times
Python's own start-up).

:func:`clean` answers ``True`` only for a file on which :func:`masrl.traces.validate.validate_file`
would report no problem at all, no error and no warning; for anything else, or anything it is
not sure of, it answers ``False`` and the caller runs the real validation, which finds and words
every problem. It never explains, so what ``masrl validate`` says about a faulty file never
depends on it. The checks, in the order of the real validation:

* the file is a regular file of at most :data:`SMALL` bytes (and within the input limit);
* strict JSON (:mod:`masrl.traces.strict_json`, the same reading as the full path): no finding;
* the schema, by :mod:`masrl.traces.schema_check` (generated from the schema file);
* the graph rules of :mod:`masrl.traces.validate`, and none of its warnings, on plain lists.
  Counterfactual rollouts are left to the real validation (``False``).

``tests/traces/test_quick_verdict.py`` holds it to that contract: on every example, fixture and
real log at hand and on systematic mutations of them, ``True`` only where the real validation
finds nothing.
"""

from __future__ import annotations

import math
import os
import stat

from masrl.traces.rules import LIFECYCLE_TYPES, RECOUNTED_COSTS

SMALL = 256 * 1024  # bytes: past this, the import cost of the real validation no longer dominates


def clean(path: str, limit: int) -> bool:
    """Whether the trace file at ``path`` is certainly valid without a warning (module doc);
    ``limit`` is the input limit in bytes (:func:`masrl.files.input_limit`)."""
    data = _small_file(path, min(SMALL, limit))
    if data is None:
        return False
    from masrl.traces import strict_json

    document, findings = strict_json.parse(data)
    if document is None or findings:
        return False
    from masrl.traces import schema_check

    try:
        schema_check.validate(document)
    except schema_check.JsonSchemaValueException:
        return False
    try:
        return _graph_clean(document)
    except (ArithmeticError, ValueError):  # a number past a double's range: let validation say
        return False


def _small_file(path: str, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes, else ``None``."""
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except (OSError, ValueError):  # ValueError: a path holding a NUL byte
        return None
    return data if len(data) <= limit else None


def _graph_clean(document: dict) -> bool:
    """Whether a schema-valid document breaks no graph rule and earns no warning."""
    if document.get("counterfactuals"):
        return False
    events, edges = document["events"], document["edges"]
    position: dict[str, int] = {}
    for i, event in enumerate(events):
        if position.setdefault(event["id"], i) != i:
            return False  # duplicate-id
    start = [float(event["t"]) for event in events]
    if not _ends_clean(events, start):
        return False
    if not _edges_clean(edges, position, start, len(events)):
        return False
    if not _lives_clean(events, start):
        return False
    return _head_clean(document, events, position)


def _ends_clean(events: list[dict], start: list[float]) -> bool:
    """No event ends before it starts, or at infinity."""
    for event, t in zip(events, start):
        if "t_end" in event:
            if "duration" in event:
                return False  # both: the schema refuses it
            end = float(event["t_end"])
        else:
            end = t + float(event.get("duration", 0.0))
        if end < t or not math.isfinite(end):
            return False  # end-before-start, or non-finite
    return True


def _edges_clean(edges: list[dict], position: dict[str, int], start: list[float],
                 count: int) -> bool:
    """Every edge joins two known, distinct events forward in time, and the edges form no cycle
    (edges forward in time can close a cycle only among events of one time: Kahn's algorithm)."""
    successors: list[list[int]] = [[] for _ in range(count)]
    waiting = [0] * count
    for edge in edges:
        src, dst = position.get(edge["src"]), position.get(edge["dst"])
        if src is None or dst is None or src == dst or start[dst] < start[src]:
            return False  # unknown-event, cycle (a self-loop), time-order
        successors[src].append(dst)
        waiting[dst] += 1
    ready = [i for i in range(count) if not waiting[i]]
    for i in ready:  # the list grows as it is walked
        for j in successors[i]:
            waiting[j] -= 1
            if not waiting[j]:
                ready.append(j)
    return len(ready) == count  # else: cycle


def _lives_clean(events: list[dict], start: list[float]) -> bool:
    """The lifecycle rules (:mod:`masrl.traces.lifecycle`): nobody acts before their spawn, no
    spawn cycle, every spawned agent ends, and every return goes to the spawner."""
    moves = sorted((i for i, event in enumerate(events) if event["type"] in LIFECYCLE_TYPES),
                   key=start.__getitem__)
    spawn_event: dict[str, int] = {}
    spawner: dict[str, str] = {}
    for i in moves:
        event = events[i]
        if event["type"] == "spawn" and event.get("to") is not None \
                and event["to"] not in spawn_event:
            spawn_event[event["to"]] = i
            spawner[event["to"]] = event["agent"]
    ended: set[str] = set()
    for i in moves:
        event = events[i]
        agent = event["agent"]
        if event["type"] == "return":
            addressee = event.get("to")
            if addressee is not None and agent in spawner and addressee != spawner[agent]:
                return False  # return-not-to-spawner
            who = agent
        elif event["type"] == "despawn":
            who = event.get("to", agent)
        else:
            continue
        if who in spawn_event and start[i] >= start[spawn_event[who]]:
            ended.add(who)
    if len(ended) < len(spawn_event):
        return False  # never-ended
    for event, t in zip(events, start):
        spawned_at = spawn_event.get(event["agent"])
        if spawned_at is not None and t < start[spawned_at]:
            return False  # before-spawn
    return not _spawn_loop(spawner)


def _spawn_loop(spawner: dict[str, str]) -> bool:
    """Whether some agent is its own ancestor (each agent has one spawner at most)."""
    done: set[str] = set()
    for first in spawner:
        path: set[str] = set()
        current = first
        while current in spawner and current not in done:
            if current in path:
                return True
            path.add(current)
            current = spawner[current]
        done |= path
    return False


def _head_clean(document: dict, events: list[dict], position: dict[str, int]) -> bool:
    """The rules on the rest of the document: recounted costs, labels, versions, a thin import."""
    counts: dict[str, int] = {}
    for event in events:
        counts[event["type"]] = counts.get(event["type"], 0) + 1
    costs = document["costs"]
    if any(key in costs and costs[key] != counts.get(kind, 0) for key, kind in RECOUNTED_COSTS.items()):
        return False  # count-mismatch
    labels = document.get("labels") or []
    agents = {event["agent"] for event in events}
    for item in labels:
        if item.get("event") is not None and item["event"] not in position:
            return False  # label-event
        if item.get("agent") is not None and item["agent"] not in agents:
            return False  # label-agent
    if document.get("schema_version") in ("1.0", "1.1") and (
            "labels" in document or any("content" in event for event in events)):
        return False  # newer-field
    from masrl.traces.provenance import thin_import

    return thin_import(document) is None
