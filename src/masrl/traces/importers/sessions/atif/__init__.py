"""Import an ATIF trajectory (Agent Trajectory Interchange Format, v1.4 to v1.8) as a trace.

Source: one JSON document, a ``Trajectory`` of Harbor's RFC 0001 (``schema_version``
``ATIF-v1.x``, ``agent``, numbered ``steps``), as Harbor-integrated agents write it
(``agent/trajectory.json`` of a trial) and as ``masrl export atif`` writes it. The ``atif``
package's pydantic models check the document first: anything they reject is an error naming the
place (``steps[2].tool_calls[0].arguments``). Sub-agents are embedded trajectories in
``subagent_trajectories`` (v1.7+), at any depth, or separate files named by a ref's
``trajectory_path`` (relative to the imported file's folder; read and listed in the provenance).
One observation result may reference several sub-agents (Harbor's Terminus hands a context
summarization to three, from a ``system`` step): each is read, spawned and returns.

Versions: the models follow v1.8, whose additions since v1.4 are optional fields (token ids,
multimodal content in v1.6, ``trajectory_id`` and embedded ``subagent_trajectories`` in v1.7,
``llm_call_count`` and ``is_copied_context``), so older documents validate as they are, with one
exception: before v1.7 a sub-agent reference could name its trajectory by ``session_id`` alone.
In a document older than v1.7 such a ref is resolved to the trajectory file beside it with that
``session_id`` (a counted repair; none is an error naming the session). The version and the
shapes the run uses (embedded or file-referenced sub-agents, continuation segments, copied
steps, terminal commands read from raw responses) are recorded in ``provenance.recognised``
(``system`` ``ATIF``, ``version``, ``shape``, ``evidence``).

A run split into segments (Terminus with a linear history starts a new file after each context
summarization) names the next file in ``continued_trajectory_ref``: the chain is followed (files
beside the trajectory, listed in the provenance; a missing one is an error, not a truncated
run), each segment's events continue the run as ``main`` with ids ``cont<k>:s<step_id>``. The
steps a segment copies from earlier ones (``is_copied_context``) are skipped (counted), so a
continuation imported alone starts where its own work starts.

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
* An agent step without ``tool_calls`` whose message is a terminal agent's raw response (the
  JSON object with a ``commands`` list of ``keystrokes``, fenced or not, or ``<keystrokes>``
  elements of the XML form, as Terminus writes when it keeps the model's raw text) -> one
  ``tool_call`` per command (``tool`` ``bash_command``, ``content_ref`` of the command) instead
  of a message; a result that names no call answers every call of its step that no other
  result answers (``tool_dependency``): the one terminal screen after all the commands.
* ``system`` steps (system prompts, infrastructure events) are skipped (counted), except that
  their results' sub-agent references are spawns of the trajectory's agent; so are
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

Tokens and costs: an agent step is one model call (``llm_call_count`` 0, a deterministic
dispatch, is none; more than one is recorded as ``x_llm_calls``): its last event has
``x_model_call`` (the step's place) and ``x_model`` (the step's ``model_name``, else the
agent's). Its ``metrics`` give ``x_usage.input`` = ``prompt_tokens`` (cached ones included,
``cached_tokens`` being the part ``cached_input``), ``x_usage.output`` = ``completion_tokens``,
``tokens`` = input + output (``extra.total_tokens`` alone gives ``x_usage`` ``{"total": ...}``)
and ``cost_usd``.

Account (:mod:`.accounting`): the unit is the ``step`` (of every trajectory read: sub-agents,
files, segments); a step is mapped when it gives events (or its events are carried by its
spawn) and skipped for the reasons above; the tokens and dollars stated are those of the steps'
``metrics`` (an event restored from ``extra.masrl`` states its own ``cost_usd``).
``final_metrics`` restates totals and is no record: Harbor writes it cumulative over the whole
run, so it is never added to the steps. A run none of whose steps states any usage (some agents
write only the totals) states those totals once: they go in the run's ``costs`` (``tokens``,
``usd``) and, carried by no model call, are a skipped part with their usage (``final_metrics
totals of a run whose steps state no usage``), so the books balance and nothing is lost.

Run level: ``trace_id`` ``atif:<trajectory_id or session_id>``, ``task_id`` the ``session_id``,
``system`` ``<agent.name> <agent.version>``, ``topology`` ``unknown``, no rewards; ``costs`` the
tokens, ``wall_clock_s`` (the last event's ``t``), ``tool_calls``, ``messages`` and ``usd``: the
sum of the steps' costs when any step states one, else the last segment's
``final_metrics.total_cost_usd`` (the run's), except for a continuation imported alone, whose
total also covers the segments before it (left out and counted). The root's ``extra.masrl`` (a
masrl export) gives back the trace's own run fields.

What is lost: all text (hashed), reasoning, logprobs and token ids, tool definitions, images and
audio (hashed as content), ``extra`` fields other than ``extra.masrl``.

Errors (exit 1): a file that is not JSON, a document the ``atif`` models reject, a
``subagent_trajectory_ref`` that resolves to no trajectory, an embedded sub-agent trajectory
that no step references, a ``trajectory_path`` or ``continued_trajectory_ref`` that names no
file (or a continuation chain that loops).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from atif import Trajectory
from pydantic import ValidationError

from masrl.traces import strict_json
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    read_json,
    read_text,
)
from masrl.traces.importers._kit.detect import Sample

FORMAT = "atif"
MAIN = "main"
HUMAN = "user"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
RESULT_TYPES = ("tool_result", "return")
TERMINAL_TOOL = "bash_command"  # the tool name Terminus gives a keystroke command


def import_file(path: str | Path) -> ImportResult:
    """The trace of one ATIF trajectory (see the module docstring for the mapping)."""
    return _Import(Path(path)).run()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def schema_version(document) -> tuple[int, int] | None:
    """``ATIF-v1.6`` as ``(1, 6)`` (``None`` when the tag is not of that form)."""
    match = re.fullmatch(r"ATIF-v(\d+)\.(\d+)(?:\.\d+)?", str(document.get("schema_version", "")))
    return (int(match.group(1)), int(match.group(2))) if match else None


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


def _refs(document) -> list[dict]:
    """Every ``subagent_trajectory_ref`` object of a raw document, embedded trajectories
    included."""
    found, stack = [], [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            refs = node.get("subagent_trajectory_ref")
            if isinstance(refs, list):
                found.extend(r for r in refs if isinstance(r, dict))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def terminal_commands(message) -> list:
    """The commands of a terminal agent's raw response (Harbor's Terminus, when it keeps the
    model's raw text in the trajectory instead of ``tool_calls``): the ``commands`` list of a
    JSON response (each with ``keystrokes``), or the ``<keystrokes>`` elements of an XML one;
    empty when the message is neither."""
    if not isinstance(message, str) or "keystrokes" not in message:
        return []
    text = message.strip()
    first, last = text.find("{"), text.rfind("}")
    if first != -1 and last > first:
        document, findings = strict_json.parse(text[first:last + 1])
        commands = document.get("commands") if not findings and isinstance(document, dict) \
            else None
        if isinstance(commands, list):
            return [c for c in commands if isinstance(c, dict) and "keystrokes" in c]
    return re.findall(r"<keystrokes\b[^>]*>(.*?)</keystrokes>", text, flags=re.S)


class _Import:
    def __init__(self, path: Path):
        self.path = path
        self.result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
        self.account = self.result.account
        self.account.unit = "step"
        self.build = TraceBuilder()
        self.answers: set[tuple[str, str]] = set()
        self.walked: set[int] = set()
        self.index: dict[str, Trajectory] = {}  # every embedded trajectory by its id
        self.start: int | None = None
        self.place_of: dict[str, str] = {}  # embedded trajectory id -> its place in the file
        self._files: dict[str, Trajectory] = {}  # trajectory_path files, read once
        self.features: Counter = Counter()  # what the document uses (provenance.recognised)

    # ------------------------------------------------------------------ reading

    def load(self, file: Path) -> Trajectory:
        """A trajectory file: pre-v1.7 references by ``session_id`` alone resolved first (see
        :meth:`resolve_session_refs`), then checked by the ``atif`` models."""
        document = read_json(file)
        if isinstance(document, dict):
            self.resolve_session_refs(document, file)
        return parse(document, file)

    def resolve_session_refs(self, document: dict, file: Path) -> None:
        """Before v1.7 a sub-agent reference could name its trajectory by ``session_id`` only
        (the ``atif`` models, which follow v1.8, refuse that); in a document older than v1.7
        such a ref is resolved to the trajectory file beside it whose ``session_id`` it names
        (counted), else it is an error naming the session."""
        version = schema_version(document)
        loose = [r for r in _refs(document) if r.get("trajectory_id") is None
                 and r.get("trajectory_path") is None and isinstance(r.get("session_id"), str)]
        if not loose or version is None or version >= (1, 7):
            return
        by_session = {}
        for other in sorted(file.parent.glob("*.json")):
            if other == file:
                continue
            candidate, findings = strict_json.parse(read_text(other))
            if not findings and isinstance(candidate, dict) and isinstance(
                    candidate.get("session_id"), str):
                by_session.setdefault(candidate["session_id"], other.name)
        for ref in loose:
            name = by_session.get(ref["session_id"])
            if name is None:
                raise SourceError(file, None, f"a {document['schema_version']} sub-agent "
                                  f"reference names session {ref['session_id']!r} only, and no "
                                  "trajectory file beside it has that session_id")
            ref["trajectory_path"] = name
            self.result.repairs["pre-v1.7 sub-agent reference resolved by its session_id to the "
                                "file beside it"] += 1

    def run(self) -> ImportResult:
        root = self.load(self.path)
        self.exported = bool((_masrl(root.extra) or {}).get("trace_id"))
        self.root = root
        self.segments = self.continuations(root)
        for trajectory, place in self.segments:
            self.register(trajectory, place)
        for trajectory, place in self.segments:
            self.load_referenced(trajectory, place)
        read = [t for t, _ in self.segments] + list(self._files.values())
        stamps = [micro(s.timestamp) for trajectory in read
                  for s in self.all_steps(trajectory) if s.timestamp]
        self.start = min(stamps) if stamps else 0
        frontier: list[str] = []
        for k, (trajectory, place) in enumerate(self.segments):
            prefix = "" if k == 0 else f"cont{k}:"
            file = self.path.name if k == 0 else place.rstrip(":")
            frontier = self.walk(trajectory, MAIN, None, None, place, file, frontier,
                                 prefix=prefix)
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
        self.result.recognised = self.recognise(root)
        if any(s.timestamp for trajectory, _ in self.segments for s in trajectory.steps):
            self.result.time_origin = iso_from_ns(self.start * 1000)
        return self.result.with_provenance()

    def continuations(self, root: Trajectory) -> list[tuple[Trajectory, str]]:
        """The root and the segments its ``continued_trajectory_ref`` chain names (files beside
        it: a run Terminus split on context summarization), each with its place prefix."""
        segments, seen = [(root, "")], {self.path.resolve()}
        current = root
        while current.continued_trajectory_ref:
            name = current.continued_trajectory_ref
            file = self.path.parent / name
            if not file.is_file():
                raise SourceError(self.path, "continued_trajectory_ref",
                                  f"{name!r} names no file beside the trajectory (the run goes "
                                  "on in it)")
            if file.resolve() in seen:
                raise SourceError(file, "continued_trajectory_ref",
                                  f"{name!r} continues a segment already read (a loop)")
            seen.add(file.resolve())
            current = self.load(file)
            self.result.files.append(str(file))
            segments.append((current, f"{name}:"))
            self.features["continuation segment"] += 1
        return segments

    def load_referenced(self, trajectory: Trajectory, where: str) -> None:
        """Read every file a reference of ``trajectory`` (and of what it embeds or references)
        names, before any event, so that the run's first time is known."""
        for k, step in enumerate(trajectory.steps):
            for j, result in enumerate(self.results(step)):
                for m, ref in enumerate(result.subagent_trajectory_ref or []):
                    if ref.trajectory_path is None or (ref.trajectory_id is not None
                                                       and ref.trajectory_id in self.index):
                        continue
                    known = str(self.path.parent / ref.trajectory_path) in self._files
                    sub, _name, place = self.resolve(
                        ref, f"{where}steps[{k}].observation.results[{j}]"
                             f".subagent_trajectory_ref[{m}]")
                    if not known:
                        self.load_referenced(sub, place)
        for sub in trajectory.subagent_trajectories or []:
            self.load_referenced(sub, self.place_of[sub.trajectory_id] + ".")

    def register(self, trajectory: Trajectory, where: str = "") -> None:
        for i, sub in enumerate(trajectory.subagent_trajectories or []):
            place = f"{where}subagent_trajectories[{i}]"
            self.index.setdefault(sub.trajectory_id, sub)
            self.place_of.setdefault(sub.trajectory_id, place)
            self.features["embedded sub-agent trajectory"] += 1
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
                files[str(file)] = self.load(file)
                self.features["file-referenced sub-agent trajectory"] += 1
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
             spawn: str | None, where: str, file: str, frontier: list[str],
             prefix: str | None = None) -> list[str]:
        """Emit the events of one trajectory (one segment of it); return the events that end
        it."""
        self.walked.add(id(trajectory))
        if prefix is None:
            prefix = "" if spawner is None else f"{agent}:"
        model = trajectory.agent.model_name
        t = self.build.by_id[spawn]["t"] if spawn else (
            self.build.by_id[frontier[-1]]["t"] if frontier else 0.0)
        actions: list[str] = []
        first_user = True
        for k, step in enumerate(trajectory.steps):
            place = f"{where}steps[{k}]"
            self.account.read()
            if step.is_copied_context:
                self.account.skip("step copied from an earlier trajectory (is_copied_context)")
                self.features["copied-context step"] += 1
                continue
            t = self.time(step, t)
            if step.reasoning_content is not None:
                self.account.skip_part("reasoning_content of an agent step")
            base = f"{prefix}s{step.step_id}"
            restored = _masrl(step.extra)
            new, results = [], []
            if _restorable(restored):
                event = self.event(restored, place)
                new.append(event)
                self.account.state_usage(cost_usd=self.build.by_id[event].get("cost_usd", 0))
            elif step.source == "system":
                new.extend(self.loose_spawns(step, agent, base, t, place))
            elif step.source == "user":
                if spawner is not None and first_user and spawn is not None:
                    self.result.repairs["sub-agent task (its first user step) carried by its "
                                        "spawn event"] += 1
                else:
                    sender = HUMAN if spawner is None else spawner
                    new.append(self.build.event(
                        id=base, t=t, type="message", agent=sender,
                        role="human" if sender == HUMAN else None, to=agent,
                        content_ref=content_ref(_text(step.message)), x_source=place)["id"])
                first_user = False
            else:
                new.extend(self.agent_step(step, agent, spawner, base, t, place, model))
            self.link_all(frontier, new, actions)
            calls = {c.tool_call_id: c for c in step.tool_calls or []}
            for j, result in enumerate(self.results(step)):
                rplace = f"{place}.observation.results[{j}]"
                results.extend(self.result_events(result, step, calls, new, agent, base, j, t,
                                                  rplace, file))
            if new or results or (step.source == "user" and spawner is not None):
                self.account.map()
            else:
                self.account.skip("system step (system prompt or infrastructure event)")
            actions = new or actions
            frontier = results or new or frontier
        return frontier

    def results(self, step) -> list:
        return list(step.observation.results) if step.observation is not None else []

    def event(self, block: dict, place: str) -> str:
        fields = {k: v for k, v in block.items() if k not in ("id", "t", "type", "agent")}
        return self.build.event(id=block["id"], t=block["t"], type=block["type"],
                                agent=block["agent"], **fields, x_source=place)["id"]

    def ids(self, base: str, count: int):
        return iter([base] if count == 1 else [f"{base}.{k}" for k in range(count)])

    def loose_spawns(self, step, agent, base, t, place, ids=None) -> list[str]:
        """A ``spawn`` by ``agent`` for every sub-agent a result of ``step`` references without
        naming a call (Terminus's context summarization hands off to three sub-agents from a
        system step this way)."""
        refs = [(j, m, ref) for j, r in enumerate(self.results(step))
                if r.subagent_trajectory_ref and r.source_call_id is None
                and not _restorable(_masrl(r.extra))
                for m, ref in enumerate(r.subagent_trajectory_ref)]
        ids = ids or self.ids(base, len(refs))
        events = []
        for j, m, ref in refs:
            where = f"{place}.observation.results[{j}].subagent_trajectory_ref[{m}]"
            events.append(self.build.event(
                id=next(ids), t=t, type="spawn", agent=agent, to=self.resolve(ref, where)[1],
                x_source=place)["id"])
        return events

    def agent_step(self, step, agent, spawner, base, t, place, model) -> list[str]:
        calls = list(step.tool_calls or [])
        results = self.results(step)
        referring = {r.source_call_id: r for r in results
                     if r.subagent_trajectory_ref and r.source_call_id is not None}
        loose = sum(len(r.subagent_trajectory_ref) for r in results
                    if r.subagent_trajectory_ref and r.source_call_id is None
                    and not _restorable(_masrl(r.extra)))
        commands = terminal_commands(step.message) if not calls else []
        if commands:
            self.features["terminal commands read from a raw response"] += 1
        acts = sum(len(referring[c.tool_call_id].subagent_trajectory_ref)
                   if c.tool_call_id in referring else 1 for c in calls) + loose + len(commands)
        says = bool(step.message) if isinstance(step.message, (str, list)) else False
        says = says and not commands
        ids = self.ids(base, acts + (1 if says or not acts else 0))
        events = []
        if says or not acts:
            events.append(self.build.event(id=next(ids), t=t, type="message", agent=agent,
                                           to=HUMAN if spawner is None else None,
                                           content_ref=content_ref(_text(step.message)),
                                           x_source=place))
        for call in calls:
            result = referring.get(call.tool_call_id)
            if result is not None:
                j = results.index(result)
                for m, ref in enumerate(result.subagent_trajectory_ref):
                    where = f"{place}.observation.results[{j}].subagent_trajectory_ref[{m}]"
                    events.append(self.build.event(
                        id=next(ids), t=t, type="spawn", agent=agent,
                        to=self.resolve(ref, where)[1], content_ref=content_ref(call.arguments),
                        x_source=place, x_call=call.tool_call_id))
            else:
                events.append(self.build.event(
                    id=next(ids), t=t, type="tool_call", agent=agent, tool=call.function_name,
                    content_ref=content_ref(call.arguments), x_source=place,
                    x_call=call.tool_call_id))
        events.extend(self.build.by_id[e] for e in self.loose_spawns(step, agent, base, t, place,
                                                                     ids))
        for command in commands:
            events.append(self.build.event(
                id=next(ids), t=t, type="tool_call", agent=agent, tool=TERMINAL_TOOL,
                content_ref=content_ref(command), x_source=place, x_call=""))
        self.metrics(step, events, place, model)
        return [e["id"] for e in events]

    def metrics(self, step, events: list[dict], place: str, model) -> None:
        """The step's usage (stated to the account) and model call, on its last event."""
        metrics = step.metrics
        last = events[-1] if events else None
        if metrics is not None:
            prompt, completion = metrics.prompt_tokens, metrics.completion_tokens
            total = (metrics.extra or {}).get("total_tokens")
            cost = metrics.cost_usd or 0
            self.account.state_usage(tokens_in=prompt or 0, tokens_out=completion or 0,
                                     cost_usd=cost)
            if prompt is not None or completion is not None:
                last["tokens"] = (prompt or 0) + (completion or 0)
                last["x_usage"] = {"input": prompt or 0, "output": completion or 0}
                if metrics.cached_tokens is not None:
                    last["x_usage"]["cached_input"] = metrics.cached_tokens
            elif isinstance(total, (int, float)) and not isinstance(total, bool):
                last["tokens"] = total
                last["x_usage"] = {"total": total}
            if metrics.cost_usd is not None:
                last["cost_usd"] = metrics.cost_usd
        if step.llm_call_count != 0:
            last["x_model_call"] = place
            if step.llm_call_count is not None and step.llm_call_count > 1:
                last["x_llm_calls"] = step.llm_call_count
        if step.model_name or model:
            last["x_model"] = step.model_name or model

    def result_events(self, result, step, calls, new, agent, base, j, t, place,
                      file) -> list[str]:
        restored = _masrl(result.extra)
        if result.subagent_trajectory_ref:
            refs = result.subagent_trajectory_ref
            ends_all = []
            for m, ref in enumerate(refs):
                sub, name, sub_place = self.resolve(ref, f"{place}.subagent_trajectory_ref[{m}]")
                spawn = next((e for e in new if self.build.by_id[e]["type"] == "spawn"
                              and self.build.by_id[e].get("to") == name), None)
                ends = [spawn] if spawn else []
                if id(sub) not in self.walked:
                    spawner_name = self.build.by_id[spawn]["agent"] if spawn else agent
                    ends = self.walk(sub, name, spawner_name, spawn, sub_place, file, ends)
                ident = f"{base}.r{j}" if len(refs) == 1 else f"{base}.r{j}.{m}"
                if _restorable(restored) and len(refs) == 1:
                    ret = self.event(restored, place)
                elif restored is None and spawn is not None and not self.exported:
                    ret = self.build.event(id=ident, t=t, type="return", agent=name,
                                           to=self.build.by_id[spawn]["agent"],
                                           content_ref=content_ref(result.content)
                                           if result.content is not None else None,
                                           x_source=place)["id"]
                else:
                    continue
                for src in ends:
                    self.link(src, ret)
                ends_all.append(ret)
            return ends_all
        if _restorable(restored):
            event = self.event(restored, place)
            self.account.state_usage(cost_usd=self.build.by_id[event].get("cost_usd", 0))
            call_event = None
        else:
            call = calls.get(result.source_call_id)
            answered = self.answered(step, result, new)
            tools = {self.build.by_id[e].get("tool") for e in answered}
            tool = call.function_name if call is not None else (
                tools.pop() if len(tools) == 1 else None)
            event = self.build.event(
                id=f"{base}.r{j}", t=t, type="tool_result", agent=agent, tool=tool,
                trusted=False,
                content_ref=content_ref(result.content) if result.content is not None else None,
                x_source=place)["id"]
            for call_event in answered:
                self.answers.add((call_event, event))
                self.link(call_event, event)
            if answered:
                return [event]
        call_event = next((e for e in new if self.build.by_id[e].get("x_call")
                           == result.source_call_id), None) if result.source_call_id else None
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

    def answered(self, step, result, new: list[str]) -> list[str]:
        """The tool calls of ``new`` a result answers: the call it names; for a result that names
        none (Terminus's one screen after all its commands), every call of the step that no
        other result answers."""
        calls = [e for e in new if self.build.by_id[e]["type"] == "tool_call"]
        if result.source_call_id is not None:
            return [e for e in calls if self.build.by_id[e].get("x_call") == result.source_call_id]
        named = {r.source_call_id for r in self.results(step) if r.source_call_id is not None}
        return [e for e in calls if self.build.by_id[e].get("x_call") not in named]

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

    def recognise(self, root: Trajectory) -> dict:
        """The ATIF version, the shapes the run uses and the evidence, for the provenance."""
        version = root.schema_version.removeprefix("ATIF-")
        known = schema_version({"schema_version": root.schema_version})
        shapes = sorted(self.features) or ["single trajectory"]
        evidence = [f"agent {root.agent.name} {root.agent.version}"]
        evidence += [f"{n} {what}(s)" for what, n in sorted(self.features.items())]
        if known is None or not (1, 0) <= known <= (1, 8):
            evidence.append("a schema_version this importer was not written for (read as v1.8)")
        return {"system": "ATIF", "version": version, "shape": ", ".join(shapes),
                "evidence": "; ".join(evidence)}

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
        """Tokens and dollars the events carry; a run whose steps state no cost takes its last
        segment's ``final_metrics.total_cost_usd`` (Harbor writes it cumulative over the run),
        unless the file is itself a continuation (its copied steps say so): its total would
        charge it the earlier segments' cost too (counted instead)."""
        events = self.build.events
        costs = {"tokens": sum(e.get("tokens", 0) for e in events),
                 "wall_clock_s": max(e["t"] for e in events),
                 "tool_calls": self.build.count("tool_call"),
                 "messages": self.build.count("message")}
        step_costs = [e["cost_usd"] for e in events if "cost_usd" in e]
        final = self.segments[-1][0].final_metrics
        alone = self.features["copied-context step"] and len(self.segments) == 1
        if step_costs:
            costs["usd"] = sum(step_costs)
        elif final is not None and final.total_cost_usd is not None:
            if alone:
                self.account.skip_part("final_metrics.total_cost_usd of a continuation segment "
                                       "(cumulative over the earlier segments; not charged)")
            else:
                costs["usd"] = final.total_cost_usd
        stated = self.account.source_usage
        if (final is not None and not alone
                and not any(stated[k] for k in ("tokens_in", "tokens_out", "cost_usd"))):
            # no step states any usage: the run's totals are the only usage the source states
            totals = {"tokens_in": final.total_prompt_tokens or 0,
                      "tokens_out": final.total_completion_tokens or 0,
                      "cost_usd": final.total_cost_usd or 0}
            if any(totals.values()):
                self.account.state_usage(**totals)
                self.account.skip_part("final_metrics totals of a run whose steps state no "
                                       "usage (no model call carries them)", usage=totals)
                if totals["tokens_in"] or totals["tokens_out"]:
                    costs["tokens"] = totals["tokens_in"] + totals["tokens_out"]
        return costs


def _text(message):
    """A step's message as hashable content: the string, or its parts as JSON."""
    if isinstance(message, list):
        return [part.model_dump(mode="json", exclude_none=True) for part in message]
    return message


def sniff(sample: Sample) -> str | None:
    """A JSON object whose ``schema_version`` starts with ``ATIF`` and that has ``steps`` (see
    :mod:`masrl.traces.importers._kit.detect`)."""
    document = sample.document
    if isinstance(document, dict) and "steps" in document and str(
            document.get("schema_version", "")).startswith("ATIF"):
        return f"ATIF trajectory: schema_version {document['schema_version']}, steps"
    return None


def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return ('looks for: A JSON object whose schema_version starts with ATIF and that has '
            'steps')
