"""Import an ATIF trajectory (Agent Trajectory Interchange Format, v1.7 and v1.8) as a trace.

Source: one JSON document, a ``Trajectory`` of Harbor's RFC 0001 (``schema_version``
``ATIF-v1.x``, ``agent``, numbered ``steps``), as Harbor-integrated agents write it
(``agent/trajectory.json`` of a trial) and as ``masrl export atif`` writes it. The ``atif``
package's pydantic models check the document first: anything they reject is an error naming the
place (``steps[2].tool_calls[0].arguments``). Sub-agents are embedded trajectories in
``subagent_trajectories`` (v1.7+), at any depth, or separate files named by a ref's
``trajectory_path`` (relative to the imported file's folder; read and listed in the provenance).

Agents: ``main`` (the root trajectory's agent), ``user`` (the human, role ``human``), and one
agent per sub-agent trajectory, named by its ``trajectory_id`` (a file-referenced one without an
id: by its path). Tool results are events of the agent that called the tool.

What becomes an event (id ``s<step_id>`` in the root, ``<trajectory_id>:s<step_id>`` in a
sub-agent, ``.k`` appended when a step gives several; ``x_source`` the step's place, e.g.
``subagent_trajectories[0].steps[3]``):

* ``user`` step -> ``message`` from ``user`` to ``main``; in a sub-agent, its first step (the
  task it was given) is carried by the spawn event (a counted repair) and later ones are
  messages from its spawner.
* ``agent`` step -> a ``message`` (to ``user`` in the root) when its message is not empty or it
  does nothing else; one ``tool_call`` per ``tool_calls`` entry (``tool`` its
  ``function_name``, ``content_ref`` of its ``arguments``), or a ``spawn`` when the call's
  observation result references a sub-agent trajectory; a result that references one without
  naming a call is a ``spawn`` of the step. Observation results answering a call ->
  ``tool_result`` (``trusted: false``, ``content_ref`` of the content); a result that references
  a sub-agent -> that sub-agent's ``return`` to the step's agent; a result of no call ->
  ``tool_result`` of the step.
* ``system`` steps (system prompts, infrastructure events) are skipped (counted); so are
  ``reasoning_content`` (not text we keep) and ``is_copied_context`` steps (context copied from
  an earlier trajectory, counted).
* A step whose ``extra.masrl`` holds an event (what ``masrl export atif`` writes) gives that event
  as it is (its id, type, agent, time and fields), and so does an observation result with one:
  a trace exported by masrl comes back with its events, agents, tokens and costs.

What becomes an edge: in each trajectory, the events of a step depend on the events that ended
the step before (its results when it had any, else its actions), when not later in time (else on
that step's actions); a ``tool_result`` on its call (``tool_dependency``, ``blocking``); a
sub-agent's first events on the spawn (``spawn``, ``blocking``); a ``return`` on the sub-agent's
last events; what follows a return on it (``return``); what follows a message to an agent on it
(``message``); everything else ``causal``.

Times: ``t`` is seconds since the earliest step ``timestamp`` (ISO 8601); a step without one
takes the time of the step before it in its trajectory (counted); an event from ``extra.masrl``
keeps its own ``t``. A return takes its step's time and is raised to the sub-agent's last event
when that is later (counted, as every raised time).

Tokens and costs: an agent step's ``metrics`` give ``tokens`` = ``prompt_tokens`` +
``completion_tokens`` (``cached_tokens`` are part of the prompt; ``extra.total_tokens`` when
neither is given) and ``cost_usd``, on the step's last event, with ``x_usage`` and ``x_model``
(the step's ``model_name``, else the agent's).

Run level: ``trace_id`` ``atif:<trajectory_id or session_id>``, ``task_id`` the ``session_id``,
``system`` ``<agent.name> <agent.version>``, ``topology`` ``unknown``, no rewards; ``costs`` the
tokens, ``wall_clock_s`` (the last event's ``t``), ``tool_calls``, ``messages`` and ``usd``
(``final_metrics.total_cost_usd``, else the sum of the steps' costs, when any is given). The
root's ``extra.masrl`` (a masrl export) gives back the trace's own run fields.

What is lost: all text (hashed), reasoning, logprobs and token ids, tool definitions, images and
audio (hashed as content), ``extra`` fields other than ``extra.masrl``.

Errors (exit 1): a file that is not JSON, a document the ``atif`` models reject, a
``subagent_trajectory_ref`` that resolves to no trajectory, an embedded sub-agent trajectory
that no step references, a ``trajectory_path`` that cannot be read.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from atif import Trajectory
from pydantic import ValidationError

from masrl.traces.importers.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    read_json,
)

FORMAT = "atif"
MAIN = "main"
HUMAN = "user"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
RESULT_TYPES = ("tool_result", "return")


def import_file(path: str | Path) -> ImportResult:
    """The trace of one ATIF trajectory (see the module docstring for the mapping)."""
    return _Import(Path(path)).run()


def parse(document, file: Path) -> Trajectory:
    """The document as a validated :class:`atif.Trajectory`; else a :class:`SourceError` at the
    first place the models reject."""
    if not isinstance(document, dict):
        raise SourceError(file, None, "an ATIF trajectory must be a JSON object")
    try:
        return Trajectory.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise SourceError(file, where.lstrip(".") or None,
                          f"not an ATIF trajectory: {message}") from None


def micro(stamp: str) -> int:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // timedelta(microseconds=1)


def _masrl(extra) -> dict | None:
    block = extra.get("masrl") if isinstance(extra, dict) else None
    return block if isinstance(block, dict) else None


def _restorable(block: dict | None) -> bool:
    """Whether an ``extra.masrl`` block holds an event (an id, a type, an agent and a time)."""
    return (block is not None
            and all(isinstance(block.get(k), str) for k in ("id", "type", "agent"))
            and isinstance(block.get("t"), (int, float)))


class _Import:
    def __init__(self, path: Path):
        self.path = path
        self.result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
        self.build = TraceBuilder()
        self.answers: set[tuple[str, str]] = set()
        self.walked: set[int] = set()
        self.index: dict[str, Trajectory] = {}  # every embedded trajectory by its id
        self.start: int | None = None
        self.place_of: dict[str, str] = {}  # embedded trajectory id -> its place in the file
        self._files: dict[str, Trajectory] = {}  # trajectory_path files, read once

    # ------------------------------------------------------------------ reading

    def run(self) -> ImportResult:
        root = parse(read_json(self.path), self.path)
        self.exported = bool((_masrl(root.extra) or {}).get("trace_id"))
        self.register(root)
        stamps = [micro(s.timestamp) for s in self.all_steps(root) if s.timestamp]
        self.start = min(stamps) if stamps else 0
        self.walk(root, MAIN, None, None, "", self.path.name, [])
        for trajectory_id, sub in self.index.items():
            if id(sub) not in self.walked:
                raise SourceError(self.path, self.place_of[trajectory_id],
                                  f"sub-agent trajectory {trajectory_id!r} is referenced by no "
                                  "step (no subagent_trajectory_ref names it)")
        if not self.build.events:
            raise SourceError(self.path, "steps", "no step to import")
        raised = self.build.raise_times()
        if raised:
            self.result.repairs["event time raised to the time of an event it depends on"] += \
                raised
        self.result.trace = self.document(root)
        return self.result.with_provenance()

    def register(self, trajectory: Trajectory, where: str = "") -> None:
        for i, sub in enumerate(trajectory.subagent_trajectories or []):
            place = f"{where}subagent_trajectories[{i}]"
            self.index.setdefault(sub.trajectory_id, sub)
            self.place_of.setdefault(sub.trajectory_id, place)
            self.register(sub, place + ".")

    def all_steps(self, trajectory: Trajectory):
        yield from trajectory.steps
        for sub in trajectory.subagent_trajectories or []:
            yield from self.all_steps(sub)

    def resolve(self, ref, where: str) -> tuple[Trajectory, str, str]:
        """The trajectory a ``subagent_trajectory_ref`` names, its agent name and its place."""
        if ref.trajectory_id is not None and ref.trajectory_id in self.index:
            return (self.index[ref.trajectory_id], ref.trajectory_id,
                    self.place_of[ref.trajectory_id] + ".")
        if ref.trajectory_path is not None:
            file = self.path.parent / ref.trajectory_path
            if not file.is_file():
                raise SourceError(self.path, where, f"trajectory_path {ref.trajectory_path!r} "
                                  "names no file beside the trajectory")
            files = self._files
            if str(file) not in files:
                self.result.files.append(str(file))
                files[str(file)] = parse(read_json(file), file)
                self.register(files[str(file)], f"{ref.trajectory_path}:")
            sub = files[str(file)]
            name = sub.trajectory_id or ref.trajectory_id or Path(ref.trajectory_path).stem
            return sub, name, f"{ref.trajectory_path}:"
        raise SourceError(self.path, where, f"names trajectory {ref.trajectory_id!r}, which is "
                          "not among the subagent_trajectories")

    # ------------------------------------------------------------------ events and edges

    def time(self, step, previous: float) -> float:
        if step.timestamp:
            return (micro(step.timestamp) - self.start) / 1_000_000
        self.result.repairs["step without timestamp (the time of the step before)"] += 1
        return previous

    def walk(self, trajectory: Trajectory, agent: str, spawner: str | None,
             spawn: str | None, where: str, file: str, frontier: list[str]) -> list[str]:
        """Emit the events of one trajectory; return the events that end it."""
        self.walked.add(id(trajectory))
        prefix = "" if spawner is None else f"{agent}:"
        model = trajectory.agent.model_name
        t = self.build.by_id[spawn]["t"] if spawn else 0.0
        actions: list[str] = []
        for k, step in enumerate(trajectory.steps):
            place = f"{where}steps[{k}]"
            t = self.time(step, t)
            if step.is_copied_context:
                self.result.skipped["step copied from an earlier trajectory (is_copied_context)"] \
                    += 1
                continue
            if step.reasoning_content is not None:
                self.result.skipped["reasoning_content of an agent step"] += 1
            base = f"{prefix}s{step.step_id}"
            restored = _masrl(step.extra)
            new, results = [], []
            if _restorable(restored):
                new.append(self.event(restored, place))
            elif step.source == "system":
                if not any(_restorable(_masrl(r.extra)) for r in self.results(step)):
                    self.result.skipped["system step (system prompt or infrastructure event)"] \
                        += 1
            elif step.source == "user":
                if spawner is not None and k == 0 and spawn is not None:
                    self.result.repairs["sub-agent task (its first user step) carried by its "
                                        "spawn event"] += 1
                else:
                    sender = HUMAN if spawner is None else spawner
                    new.append(self.build.event(
                        id=base, t=t, type="message", agent=sender,
                        role="human" if sender == HUMAN else None, to=agent,
                        content_ref=content_ref(_text(step.message)), x_source=place)["id"])
            else:
                new.extend(self.agent_step(step, agent, spawner, base, t, place, model))
            self.link_all(frontier, new, actions)
            calls = {c.tool_call_id: c for c in step.tool_calls or []}
            for j, result in enumerate(self.results(step)):
                rplace = f"{place}.observation.results[{j}]"
                results.extend(self.result_events(result, step, calls, new, agent, spawner,
                                                  base, j, t, rplace, file))
            actions = new or actions
            frontier = results or new or frontier
        return frontier

    def results(self, step) -> list:
        return list(step.observation.results) if step.observation is not None else []

    def event(self, block: dict, place: str) -> str:
        fields = {k: v for k, v in block.items() if k not in ("id", "t", "type", "agent")}
        return self.build.event(id=block["id"], t=block["t"], type=block["type"],
                                agent=block["agent"], **fields, x_source=place)["id"]

    def agent_step(self, step, agent, spawner, base, t, place, model) -> list[str]:
        calls = list(step.tool_calls or [])
        spawned = {r.source_call_id for r in self.results(step)
                   if r.subagent_trajectory_ref and r.source_call_id is not None}
        loose = [r for r in self.results(step)
                 if r.subagent_trajectory_ref and r.source_call_id is None]
        says = bool(step.message) if isinstance(step.message, (str, list)) else False
        count = len(calls) + len(loose) + (1 if says or not (calls or loose) else 0)
        ids = iter([base] if count == 1 else [f"{base}.{k}" for k in range(count)])
        events = []
        if says or not (calls or loose):
            events.append(self.build.event(id=next(ids), t=t, type="message", agent=agent,
                                           to=HUMAN if spawner is None else None,
                                           content_ref=content_ref(_text(step.message)),
                                           x_source=place))
        results = self.results(step)
        for call in calls:
            if call.tool_call_id in spawned:
                j, result = next((j, r) for j, r in enumerate(results)
                                 if r.source_call_id == call.tool_call_id)
                ref = result.subagent_trajectory_ref[0]
                where = f"{place}.observation.results[{j}].subagent_trajectory_ref[0]"
                events.append(self.build.event(
                    id=next(ids), t=t, type="spawn", agent=agent, to=self.ref_name(ref, where),
                    content_ref=content_ref(call.arguments), x_source=place,
                    x_call=call.tool_call_id))
            else:
                events.append(self.build.event(
                    id=next(ids), t=t, type="tool_call", agent=agent, tool=call.function_name,
                    content_ref=content_ref(call.arguments), x_source=place,
                    x_call=call.tool_call_id))
        for result in loose:
            j = results.index(result)
            where = f"{place}.observation.results[{j}].subagent_trajectory_ref[0]"
            events.append(self.build.event(
                id=next(ids), t=t, type="spawn", agent=agent,
                to=self.ref_name(result.subagent_trajectory_ref[0], where), x_source=place))
        metrics = step.metrics
        if metrics is not None and events:
            last = events[-1]
            prompt, completion = metrics.prompt_tokens, metrics.completion_tokens
            total = (metrics.extra or {}).get("total_tokens")
            if prompt is not None or completion is not None:
                last["tokens"] = (prompt or 0) + (completion or 0)
                last["x_usage"] = {"prompt": prompt or 0, "completion": completion or 0,
                                   "cached": metrics.cached_tokens or 0}
            elif isinstance(total, (int, float)) and not isinstance(total, bool):
                last["tokens"] = total
            if metrics.cost_usd is not None:
                last["cost_usd"] = metrics.cost_usd
            if step.model_name or model:
                last["x_model"] = step.model_name or model
        return [e["id"] for e in events]

    def ref_name(self, ref, where: str) -> str:
        """The name of the agent whose trajectory a ``subagent_trajectory_ref`` names."""
        return self.resolve(ref, where)[1]

    def result_events(self, result, step, calls, new, agent, spawner, base, j, t, place,
                      file) -> list[str]:
        restored = _masrl(result.extra)
        call_event = next((e for e in new if self.build.by_id[e].get("x_call")
                           == result.source_call_id), None) if result.source_call_id else None
        if result.subagent_trajectory_ref:
            ref = result.subagent_trajectory_ref[0]
            sub, name, sub_place = self.resolve(ref, f"{place}.subagent_trajectory_ref[0]")
            spawn = next((e for e in new if self.build.by_id[e]["type"] == "spawn"
                          and self.build.by_id[e].get("to") == name), None)
            ends = [spawn] if spawn else []
            if id(sub) not in self.walked:
                spawner_name = self.build.by_id[spawn]["agent"] if spawn else agent
                ends = self.walk(sub, name, spawner_name, spawn, sub_place, file, ends)
            if _restorable(restored):
                ret = self.event(restored, place)
            elif restored is None and spawn is not None and not self.exported:
                ret = self.build.event(id=f"{base}.r{j}", t=t, type="return", agent=name,
                                       to=agent, content_ref=content_ref(result.content)
                                       if result.content is not None else None,
                                       x_source=place)["id"]
            else:
                return []
            for src in ends:
                self.link(src, ret)
            return [ret]
        if _restorable(restored):
            event = self.event(restored, place)
        else:
            call = calls.get(result.source_call_id)
            event = self.build.event(
                id=f"{base}.r{j}", t=t, type="tool_result", agent=agent,
                tool=call.function_name if call is not None else None, trusted=False,
                content_ref=content_ref(result.content) if result.content is not None else None,
                x_source=place)["id"]
        if call_event is not None:
            self.answers.add((call_event, event))
            self.link(call_event, event)
        else:
            source = next((e for e in new if self.build.by_id[e]["id"] == result.source_call_id),
                          None)
            if source is not None:
                self.answers.add((source, event))
                self.link(source, event)
            else:
                for src in new:
                    self.link(src, event)
        return [event]

    def link_all(self, frontier: list[str], new: list[str], actions: list[str]) -> None:
        for dst in new:
            t = self.build.by_id[dst]["t"]
            sources = [s for s in frontier if self.build.by_id[s]["t"] <= t] or [
                s for s in actions if self.build.by_id[s]["t"] <= t] or frontier
            for src in sources:
                self.link(src, dst)

    def link(self, src: str, dst: str) -> None:
        self.build.link(src, dst, self.answers, spawn_mode="blocking")

    # ------------------------------------------------------------------ document

    def document(self, root: Trajectory) -> dict:
        for event in self.build.events:
            event.pop("x_call", None)
        build = self.build
        run = _masrl(root.extra) or {}
        if run.get("trace_id"):
            costs = run.get("costs") if isinstance(run.get("costs"), dict) else None
            return build.document(
                trace_id=run["trace_id"], task_id=run.get("task_id") or run["trace_id"],
                system=run.get("system"), topology=run.get("topology") or "unknown",
                rewards=run.get("rewards") or {}, costs=costs or self.costs(root))
        name = root.trajectory_id or root.session_id or self.path.stem
        return build.document(
            trace_id=f"atif:{name}", task_id=root.session_id or name,
            system=f"{root.agent.name} {root.agent.version}", topology="unknown", rewards={},
            costs=self.costs(root))

    def costs(self, root: Trajectory) -> dict:
        events = self.build.events
        costs = {"tokens": sum(e.get("tokens", 0) for e in events),
                 "wall_clock_s": max(e["t"] for e in events),
                 "tool_calls": self.build.count("tool_call"),
                 "messages": self.build.count("message")}
        step_costs = [e["cost_usd"] for e in events if "cost_usd" in e]
        final = root.final_metrics
        if final is not None and final.total_cost_usd is not None:
            costs["usd"] = final.total_cost_usd
        elif step_costs:
            costs["usd"] = sum(step_costs)
        return costs


def _text(message):
    """A step's message as hashable content: the string, or its parts as JSON."""
    if isinstance(message, list):
        return [part.model_dump(mode="json", exclude_none=True) for part in message]
    return message


def sniff(sample) -> str | None:
    """A JSON object whose ``schema_version`` starts with ``ATIF`` and that has ``steps`` (see
    :mod:`masrl.traces.importers.detect`)."""
    document = sample.document
    if isinstance(document, dict) and "steps" in document and str(
            document.get("schema_version", "")).startswith("ATIF"):
        return f"ATIF trajectory: schema_version {document['schema_version']}, steps"
    return None
