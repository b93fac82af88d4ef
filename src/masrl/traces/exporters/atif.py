"""Export an orchestration trace as an ATIF trajectory (Agent Trajectory Interchange Format v1.8).

ATIF (Harbor's RFC 0001; the ``atif`` package's pydantic models check what this module writes)
records one agent's run as numbered ``steps`` (``source`` ``user``, ``agent`` or ``system``),
each with a ``message``, optional ``tool_calls``, an ``observation`` whose ``results`` answer
them, and ``metrics``; a delegated sub-agent is an embedded trajectory in
``subagent_trajectories``, referenced by ``subagent_trajectory_ref`` from the observation of
the step that delegated to it.

Mapping (one step per event, in the order of ``t`` then of the file):

* **Trajectories.** The root trajectory (``trajectory_id`` the ``trace_id``) holds the events of
  every agent that nothing spawns; each spawned agent gets its own trajectory
  (``trajectory_id`` its name), embedded in the trajectory of the agent that first spawned it.
* **Steps.** An event of a *human* agent (one with an event of ``role`` ``human`` or ``user``, or
  of type ``human_intervention``) is a ``user`` step; a ``tool_result`` that answers no
  ``tool_call`` is a ``system`` step; every other event is an ``agent`` step. A ``tool_call``
  step has one ``tool_calls`` entry (``tool_call_id`` the event id, ``function_name`` its
  ``tool``, ``arguments`` ``{}``: the trace holds no arguments);
  the ``tool_result`` events that depend on it (a ``tool_dependency`` edge) are the results of
  its observation (``source_call_id`` the call). A ``spawn`` step's observation has one result
  that references the spawned agent's trajectory and carries the sub-agent's first ``return``.
* **Numbers.** ``timestamp`` is the event's ``t`` written as a time after
  1970-01-01T00:00:00Z (the trace keeps seconds from the run's start, not a date); an agent
  step's ``metrics`` hold its ``cost_usd`` and its ``tokens`` (as ``extra.total_tokens``: the
  trace does not split prompt from completion) and ``model_name`` its ``x_model``.
  ``final_metrics`` holds the run's ``costs.usd``, its step count and ``costs.tokens``.
* **What ATIF cannot say** rides in ``extra.masrl``: each step's (and each observation
  result's) event as the trace has it, without its ``x_`` fields; the root's run fields
  (``trace_id``, ``task_id``, ``system``, ``topology``, ``rewards``, ``costs``). No message
  text exists in a trace, so every ``message`` is empty; ``content_ref`` stays in
  ``extra.masrl``.

Not exported: the edges (ATIF has no dependency graph; the importer rebuilds one from the
order of steps), the ``x_`` fields of events, ``metrics``, ``counterfactuals`` and
``provenance``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from atif import Trajectory

from masrl.traces.exporters import left_out
from masrl.traces.exporters.cannot_export import CannotExport
from masrl.traces.validate import InvalidTraceError, validate_document

SCHEMA_VERSION = "ATIF-v1.8"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ROOT = None  # the key of the root trajectory
HUMAN_ROLES = ("human", "user")
NOTES = ("Exported by masrl from an orchestration trace: one step per event; timestamps are the "
         "trace's seconds from the run's start written after 1970-01-01T00:00:00Z; the trace "
         "holds no message text (its hashes are in extra.masrl.content_ref); extra.masrl holds "
         "each event as the trace has it.")


MAX_EMBEDDED_DEPTH = 100
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)



LEFT_OUT = (  # what masrl export says this format does not carry (see the module docstring)
    left_out.edges("ATIF has no dependency graph: an import rebuilds edges from the order of "
                   "steps"),
    left_out.event_fields(lambda key: key.startswith("x_"), "the x_ fields"),
    left_out.run_members(frozenset(("schema_version", "trace_id", "task_id", "system",
                                    "topology", "rewards", "costs"))),
)

def export(document: dict) -> dict:
    """The ATIF trajectory of a valid trace (see the module docstring); deterministic.

    :class:`CannotExport` when ATIF cannot hold the trace: a spawn chain deeper than
    :data:`MAX_EMBEDDED_DEPTH` (each sub-agent's trajectory is embedded in its spawner's, so the
    document would nest past what JSON readers accept, ours included), or a time past the year
    9999 (ATIF timestamps are dates).
    """
    report = validate_document(document)
    if not report.valid:
        raise InvalidTraceError(report)
    return _Export(document).trajectory()


def _check_depth(children: dict[str | None, list[str]]) -> None:
    """:class:`CannotExport` when trajectories would embed more than MAX_EMBEDDED_DEPTH deep."""
    stack = [(ROOT, 0)]
    while stack:
        key, depth = stack.pop()
        if depth > MAX_EMBEDDED_DEPTH:
            raise CannotExport(f"the spawn tree is more than {MAX_EMBEDDED_DEPTH} agents deep; "
                               "ATIF embeds each sub-agent's trajectory in its spawner's, so "
                               "the document would nest too deeply to be read back")
        stack.extend((child, depth + 1) for child in children.get(key, []))


def timestamp(t: float) -> str:
    """``t`` seconds after 1970-01-01T00:00:00Z as ISO 8601 (microseconds, ``Z``)."""
    if not t <= (LATEST - EPOCH).total_seconds():
        raise CannotExport(f"t = {t:g} s is past the year 9999, which an ATIF timestamp cannot "
                           "write")
    moment = EPOCH + timedelta(microseconds=round(t * 1_000_000))
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def masrl_fields(event: dict) -> dict:
    """The event without its ``x_`` extension fields."""
    return {k: v for k, v in event.items() if not k.startswith("x_")}


class _Export:
    def __init__(self, document: dict):
        self.doc = document
        events = document["events"]
        self.events = events
        self.order = sorted(range(len(events)), key=lambda i: (events[i]["t"], i))
        self.by_id = {e["id"]: e for e in events}
        self.spawner: dict[str, str] = {}
        self.spawn_of: dict[str, str] = {}  # spawned agent -> its (first) spawn event id
        for i in self.order:
            e = events[i]
            if e["type"] == "spawn" and e.get("to") and e["to"] not in self.spawner:
                self.spawner[e["to"]] = e["agent"]
                self.spawn_of[e["to"]] = e["id"]
        self.humans = {e["agent"] for e in events
                       if e.get("role") in HUMAN_ROLES or e["type"] == "human_intervention"}
        self.results: dict[str, list[str]] = {}  # tool_call id -> its tool_result ids
        attached: set[str] = set()
        for edge in document["edges"]:
            src, dst = self.by_id[edge["src"]], self.by_id[edge["dst"]]
            if (edge["type"] == "tool_dependency" and src["type"] == "tool_call"
                    and dst["type"] == "tool_result" and dst["id"] not in attached):
                self.results.setdefault(src["id"], []).append(dst["id"])
                attached.add(dst["id"])
        self.returned: dict[str, str] = {}  # spawn event id -> the return it carries
        for i in self.order:
            e = events[i]
            spawn = self.spawn_of.get(e["agent"])
            if (e["type"] == "return" and spawn is not None and spawn not in self.returned
                    and e["t"] >= self.by_id[spawn]["t"]):
                self.returned[spawn] = e["id"]
                attached.add(e["id"])
        self.attached = attached

    def key(self, event: dict) -> str | None:
        """The trajectory an event's step belongs to: its agent's when it was spawned."""
        return event["agent"] if event["agent"] in self.spawner else ROOT

    def step(self, event: dict) -> dict:
        if event["agent"] in self.humans:
            source = "user"
        elif event["type"] == "tool_result":
            source = "system"
        else:
            source = "agent"
        step = {"step_id": 0, "timestamp": timestamp(event["t"]), "source": source,
                "message": ""}
        if source == "agent" and isinstance(event.get("x_model"), str):
            step["model_name"] = event["x_model"]
        if source == "agent" and event["type"] == "tool_call":
            step["tool_calls"] = [{"tool_call_id": event["id"],
                                   "function_name": event.get("tool") or "tool",
                                   "arguments": {}}]
        results = [{"source_call_id": event["id"], "extra": {"masrl": masrl_fields(
            self.by_id[r])}} for r in self.results.get(event["id"], [])]
        if event["type"] == "spawn" and event.get("to") in self.spawner \
                and self.spawn_of[event["to"]] == event["id"]:
            result = {"subagent_trajectory_ref": [{"trajectory_id": event["to"]}]}
            if event["id"] in self.returned:
                result["extra"] = {"masrl": masrl_fields(self.by_id[self.returned[event["id"]]])}
            results.append(result)
        if source == "system":
            results.append({"extra": {"masrl": masrl_fields(event)}})
        if results:
            step["observation"] = {"results": results}
        if source == "agent":
            metrics = {}
            if "cost_usd" in event:
                metrics["cost_usd"] = event["cost_usd"]
            if "tokens" in event:
                metrics["extra"] = {"total_tokens": event["tokens"]}
            if metrics:
                step["metrics"] = metrics
        if source != "system":
            step["extra"] = {"masrl": masrl_fields(event)}
        return step

    def trajectory(self) -> dict:
        steps: dict[str | None, list[dict]] = {ROOT: []}
        for agent in self.spawner:
            steps.setdefault(agent, [])
        for i in self.order:
            event = self.events[i]
            if event["id"] in self.attached:
                continue
            steps[self.key(event)].append(self.step(event))
        for trajectory_steps in steps.values():
            for number, step in enumerate(trajectory_steps, start=1):
                step["step_id"] = number
        doc = self.doc
        system = doc.get("system") or "unknown"
        children: dict[str | None, list[str]] = {}
        for agent, spawner in self.spawner.items():  # in spawn order
            children.setdefault(self.key({"agent": spawner}), []).append(agent)
        _check_depth(children)

        def build(key: str | None) -> dict:
            node = {"schema_version": SCHEMA_VERSION, "session_id": doc["trace_id"],
                    "trajectory_id": doc["trace_id"] if key is ROOT else key,
                    "agent": {"name": system, "version": "unknown"},
                    "steps": steps[key]}
            if key is ROOT:
                node["notes"] = NOTES
                final = {"total_steps": len(steps[key]),
                         "extra": {"total_tokens": doc["costs"]["tokens"]}}
                if "usd" in doc["costs"]:
                    final["total_cost_usd"] = doc["costs"]["usd"]
                node["final_metrics"] = final
                node["extra"] = {"masrl": {k: doc[k] for k in (
                    "schema_version", "trace_id", "task_id", "system", "topology", "rewards",
                    "costs") if k in doc}}
            else:
                node["extra"] = {"masrl": {"agent": key, "spawner": self.spawner[key]}}
            if children.get(key):
                node["subagent_trajectories"] = [build(child) for child in children[key]]
            return node

        return Trajectory.model_validate(build(ROOT)).to_json_dict()
