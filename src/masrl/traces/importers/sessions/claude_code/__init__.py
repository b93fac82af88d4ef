"""Import a Claude Code session (JSON Lines, with its sub-agents) as an orchestration trace.

Source: the main session file ``<session>.jsonl`` (in ``~/.claude/projects/<project>/``). Every
record has a ``type``; conversation records carry ``uuid``, ``parentUuid`` (the record they
follow) and an ISO ``timestamp`` (milliseconds). A model response is streamed as several
``assistant`` records, one content block each, that share ``message.id``. Sub-agent records
(``isSidechain: true``) lie in one of three layouts, all read:

* current (2.1.x): ``<session>/subagents/agent-<agentId>.jsonl`` beside the session file;
* v2.0.x: ``agent-<agentId>.jsonl`` in the same folder as the session file; a file belongs to
  the session when its records' ``sessionId`` is the session's (other sessions' files are left
  alone);
* v1.0.x: inline in the main file; the sidechain records that chain (``parentUuid``) to one
  root record are one sub-agent.

Two more shapes hold no sub-agent log at all: 2.1.x sessions kept without their ``subagents``
folder carry each sub-agent's records as copies in ``agent_progress`` records (``data.message``,
without ``parentUuid``: chained in order), and 2.0.x sessions kept alone hold only the Task
result (``toolUseResult``: the ``agentId``, the usage of the sub-agent's last response, a count
of its tool uses). A person counting such a session sees the Task call (a spawn), the copies (the
sub-agent's own calls and responses, counted once: a copy of a record its log holds is skipped)
and the result (the sub-agent's return); the importer reads them the same way. Which of these
layouts a session has (several can mix) is recorded in ``provenance.recognised``: ``system``
``Claude Code``, its ``version``, the ``shape`` (``2.1: sub-agent logs in
<session>/subagents/``, ``2.0: sub-agent logs agent-<id>.jsonl beside the session``, ``1.0:
sidechain records inline in the session``, ``2.1: workflow agent logs in
<session>/subagents/workflows/<runId>/``, ``sub-agents as agent_progress records only``,
``sub-agents as their Task results only``, ``no sub-agents``, joined by `` + ``) and the
``evidence`` (how many sub-agents were found where, workflow runs and their metadata records,
runs skipped, compactions in place, failed Task calls).

A ``Task`` call finds its sub-agent by the ``agentId`` the log names (``agent_progress``
records, the call's ``toolUseResult``); without one, by its prompt (the sub-agent's first record
repeats the call's ``prompt``), every call in turn before any fallback; an inline sidechain
matching no prompt joins the earliest Task call before it that has none and did not fail (a
counted repair). A Task call whose result is an error, that names no ``agentId`` and has no
records (``InputValidationError``: the call was refused) started no sub-agent: it is a
``tool_call`` with its ``tool_result``. A background Task (``run_in_background``) whose result
only reports the launch (``toolUseResult.status`` ``async_launched``) is a spawn (mode
``async``) answered by a ``tool_result`` of the caller, not by a return: the sub-agent's own
report is not in the log (counted).

Workflow runs (2.1.x dynamic workflows) start agents that no Task call spawns: a ``Workflow``
tool call (its input a ``script`` or ``scriptPath`` and ``args``) returns at once (its result's
``toolUseResult`` has ``status`` ``async_launched``, the ``runId`` ``wf_...`` and the
``transcriptDir``; older results name the run only in their text), and the script's runtime then
starts each agent, whose log is ``<session>/subagents/workflows/<runId>/agent-<id>.jsonl``
(sidechain records, read from nested folders of the run too). Each such agent is a sub-agent
``agent-<id>`` spawned (mode ``async``) by the agent whose ``Workflow`` call names that run,
else by ``main`` (a counted repair), at the time of its first record (its prompt, carried by the
spawn), with ``role`` its label and ``x_workflow`` (``run_id``, ``label``, ``phase``,
``workflow``); the spawn depends on the ``Workflow`` call, which stays a ``tool_call`` answered
by its ``tool_result``. The run's ``journal.jsonl`` (a ``started`` line per agent with ``label``
and ``phase``, a ``result`` line when it answered), the ``agent-<id>.meta.json`` files and the
manifest ``<session>/workflows/<runId>.json`` (``workflowName``, ``workflowProgress``) are
metadata: read for the labels, listed among the sources, each record (a journal line, a whole
file) skipped by kind, never a model call. The agents' results go to the script, not to their
spawner: they have no ``return`` event. An empty or unreadable workflow agent log is an error;
other files in a run's folder are named in the evidence.

Sub-agent logs that no Task call spawns are not the run's work: 2.0.x primes the prompt cache
with a ``Warmup`` run (an ``agent-*.jsonl`` whose prompt is ``Warmup``) beside nearly every
session, 2.1.x writes ``agent-aprompt_suggestion-*`` runs. Their lines are read, listed among the
sources and skipped, by kind (``warm-up run``, ``prompt-suggestion run``, or ``sub-agent log that
no Task call of the session spawns``), with the tokens their responses state (skipped usage);
the same holds for inline sidechain records that no Task call spawns.

Agents: ``main`` (the session's agent), ``user`` (the human), and one agent per sub-agent:
``agent-<agentId>`` for a ``Task`` tool call (named ``Agent`` in later versions), or
``task-<tool_use id>`` when the log names no ``agentId`` (v1.0.x), ``agent-<id>`` for a
workflow agent, and ``agent-acompact-<id>``
for a context-compaction run (role ``compaction``). Tool results are
events of the agent that called the tool, ``tool`` naming the tool (the schema also allows the
tool's name as agent; keeping the caller stops tools from counting as agents).

What becomes an event (id ``<main|agentId>:<line>``, ``.k`` appended when one record gives
several; ``x_source`` ``FILE:LINE``):

* ``assistant`` block ``text`` -> ``message`` (``to`` ``user`` for ``main``); ``tool_use`` ->
  ``tool_call`` (``tool``, ``content_ref`` of its input) or, for ``Task``/``Agent``, ``spawn``
  (``to`` the sub-agent, ``role`` its ``subagent_type``, ``content_ref`` of its prompt);
  ``server_tool_use`` -> ``tool_call`` and a ``*_tool_result`` block -> ``tool_result``;
  ``thinking`` / ``redacted_thinking`` blocks are skipped (counted).
* ``user`` record: each ``tool_result`` block -> ``tool_result`` (``trusted: false``,
  ``x_error`` when ``is_error``), or, for a ``Task`` call, ``return`` by the sub-agent to its
  spawner; the remaining text/image blocks (or a string content) -> one ``message`` from
  ``user`` to the agent (in a sub-agent log, from its spawner). The first record of a sub-agent
  (its prompt) is carried by the spawn event, not repeated (a counted repair). ``isMeta``
  records (context the harness injects) and the ``isCompactSummary`` record (the summary a
  compaction hands back, carried by its return) are skipped (counted).
* A compaction run summarises the context of the agent whose log holds the ``compact_boundary``
  record whose ``logicalParentUuid`` is the record the compaction's prompt follows; that agent
  (else the agent of that record, else ``main``) spawns it at the prompt's time (id and
  ``x_source`` of the prompt), and the boundary record is its ``return``. The record the prompt
  follows is the nearest one up the prompt's ``parentUuid`` chain that is not one of the
  compaction's own records (passing its own ``isMeta`` copies is counted; taking the first
  parent blindly made the compaction its own spawner). A compaction whose chain of spawners
  would still come back to it is spawned by ``main`` (counted). Its records before the prompt are
  ``isMeta`` copies of context and are skipped (counted).
* A ``compact_boundary`` with no compaction log (a compaction in place, as 2.0.76 and later
  write it when no ``agent-acompact-*`` file is kept) -> ``aggregate`` by the agent whose log
  holds it (the context summarised into one message), ``content_ref`` of the summary (the
  ``isCompactSummary`` record that follows, carried by it) and ``x_compaction``
  (``trigger``, ``pre_tokens``: the context size before, not a model call's usage).
* ``progress`` records of type ``agent_progress`` carry a sub-agent's records: when the
  sub-agent's own file exists they repeat it and are skipped (counted); records missing from the
  file (or every record, when there is no file) are used, chained in order since they carry no
  ``parentUuid``. Every other ``progress`` record (hooks, bash output, waiting) is interface
  feedback and is skipped (counted by its ``data.type``), as are ``system`` records other than
  a compaction's ``compact_boundary`` and ``file-history-snapshot``, ``queue-operation`` and
  ``summary`` records.

What becomes an edge (every edge is a dependency): each event depends on the nearest record up
its ``parentUuid`` chain that gave events (skipped records are walked through;
``logicalParentUuid`` stands in for a missing ``parentUuid``; a sub-agent record carried by an
``agent_progress`` record has no ``parentUuid`` and follows the previous block of the same
response, else the previous record). A ``tool_result`` depends on its ``tool_call``
(``tool_dependency``, mode ``blocking``); the first event of a sub-agent depends on its spawn
(``spawn``, mode ``blocking``, ``async`` for ``run_in_background``); a ``return`` depends on
every event of the sub-agent that no other event of it depends on (its sinks), and what follows
the return depends on it (``return``). A model response needs every tool result it was sent, so
the first event of each response also depends on every result of that agent that arrived since
its previous response (``causal``), which the ``parentUuid`` chain keeps for only one of several
parallel calls. A message to an agent joins that agent's next event by a ``message`` edge; the
rest are ``causal``. A record whose ``parentUuid`` names no record of the session starts a new
chain (a counted repair).

Times: ``t`` is seconds since the earliest event (``provenance.time_origin``). Records written
a few milliseconds before the record they follow have their ``t`` raised to it (counted repair).
Events are instantaneous: the log has times of records, not durations.

Tokens: each response's usage is repeated (as streamed so far) on every record of the response,
so the importer takes, per ``message.id``, the largest value of each field, and puts on the
response's last event ``x_model_call`` (the ``message.id``), ``tokens`` = ``x_usage.input`` +
``x_usage.output``, where ``input`` = ``input_tokens`` + ``cache_creation_input_tokens`` +
``cache_read_input_tokens`` (every prompt-side token) with those three as the parts
``uncached_input``, ``cache_creation`` and ``cache_read``, and ``output`` = ``output_tokens``;
the model goes in ``x_model``. Messages whose model is ``<synthetic>`` are written by the
harness itself ("No response requested."): events, but no model call. A sub-agent's last response is
often logged before its output is complete; the ``Task`` result's ``usage`` is that response's
final usage, so it is merged in when its input counts match the last logged response, and is put
on the ``return`` event when they do not (the response is then missing from the log; that event's
``x_model_call`` is the Task result's ``FILE:LINE``). A response with no mapped block keeps its
tokens in ``costs.tokens`` only (counted, skipped usage). No money is recorded.

Account (:mod:`.accounting`): the unit is the ``line``; every line of every file read is mapped
(it gives events, or the event of another line carries it: a sub-agent's prompt, a compaction
summary) or skipped for the reason given above (an ``agent_progress`` line whose Task call is not
among its agent's is skipped as such); a line holding only a thinking block is a skipped line,
a thinking block beside other blocks a skipped part. The tokens the source states are stated once
per model response (see Tokens), so that stated = carried by events + skipped.

Run level: ``trace_id`` ``claude-code:<sessionId>``, ``task_id`` the ``sessionId``, ``system``
``Claude Code <version>``, ``topology`` ``harness``, no rewards; ``costs`` total tokens,
``wall_clock_s`` (the last event's ``t``), ``tool_calls`` and ``messages``.

What is lost: all text (hashed), thinking blocks, hook and command output, file snapshots, the
todo list, permission modes and working directories.

A record of a type the importer does not know (later versions add some) is skipped as
``unknown record type: <type>`` and counted.

Errors (exit 1), each naming the file and line: a line that is not a JSON object (a truncated
line), an unknown content block type, a field of the wrong JSON type (``message``
and content blocks must be objects, ``message.content`` a string or an array, ids strings, a
``tool_use`` input an object: the message names the field, e.g. ``message.content[0].id``), a
mapped record without a timestamp or with an unreadable one, ``parentUuid`` links that form a
loop (the message lists it; walking it would never end), a compaction file without its prompt,
and a sub-agent log imported on its own (every record a sidechain record).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from masrl.traces import strict_json
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    read_jsonl,
    read_text,
)
from masrl.traces.importers._kit.detect import Sample

FORMAT = "claude-code"
MAIN = "main"
HUMAN = "user"
TASK_TOOLS = ("Task", "Agent")
WORKFLOW_TOOLS = ("Workflow",)  # a local tool that runs a script launching workflow agents
RUN_ID = re.compile(r"\bwf_[A-Za-z0-9_-]+")  # a workflow run id in a launch result's text


def workflow_metadata(path: str | Path) -> bool:
    """Whether ``path`` is Workflow metadata that a session's import reads, not a log of its own:
    a run's ``journal.jsonl``, an ``agent-<id>.meta.json`` or a run's manifest
    ``<session>/workflows/<runId>.json``."""
    path = Path(path)
    return (path.name == "journal.jsonl" or path.name.endswith(".meta.json")
            or (path.suffix == ".json" and path.parent.name == "workflows"))


COMPACTION_PREFIX = "acompact-"
SKIPPED_TYPES = ("system", "file-history-snapshot", "queue-operation", "summary")
KNOWN_TYPES = ("user", "assistant", "progress", *SKIPPED_TYPES)
HUMAN_BLOCKS = ("text", "image", "document")
THINKING_BLOCKS = ("thinking", "redacted_thinking")
USAGE_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                "output_tokens")
USAGE_NAMES = ("uncached_input", "cache_creation", "cache_read")  # parts of x_usage.input
SYNTHETIC = "<synthetic>"  # the model name of messages the harness writes itself
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass
class Record:
    """One source record (or one sub-agent record carried by an ``agent_progress`` record)."""

    data: dict
    file: Path
    tag: str  # "main" or the agentId: the prefix of event ids
    line: int
    where: str  # FILE:LINE for x_source and errors
    agent: str
    embedded: bool = False
    parent: str | None = None  # parent uuid (chained for embedded records)


@dataclass
class Agent:
    name: str
    spawner: str | None = None
    role: str | None = None
    records: list[Record] = field(default_factory=list)
    spawn_event: str | None = None
    spawn_mode: str | None = None
    task_id: str | None = None  # the tool_use id that spawned it
    prompt_uuid: str | None = None  # the record carried by the spawn event
    follows: str | None = None  # a compaction: the uuid of the record its prompt follows
    launched: bool = False  # a background Task whose result only says it was launched
    source: str = "none"  # where its records are: file, inline, progress, workflow or none
    workflow: dict | None = None  # a workflow agent: run_id, label, phase, workflow name
    launch: str | None = None  # a workflow agent: the tool_use id of the Workflow call


class Session:
    """Everything one import needs; see the module docstring for the rules."""

    def __init__(self, path: Path):
        self.path = path
        self.result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
        self.build = TraceBuilder()
        self.by_uuid: dict[str, Record] = {}
        self.produced: dict[str, list[str]] = {}  # record uuid -> its events' ids
        self.requests: list[tuple[str, str | None, Record]] = []  # (dst, parent uuid, record)
        self.call_event: dict[str, str] = {}  # tool_use id -> tool_call / spawn event id
        self.tool_name: dict[str, str] = {}  # tool_use id -> tool name
        self.agents: dict[str, Agent] = {}
        self.responses: dict[tuple[str, str], dict] = {}  # (agent, message id) -> usage, event
        self.final_usage: list[tuple[str, str, dict]] = []  # (child, return event, usage)
        self.direct_edges: list[tuple[str, str]] = []  # (src, dst) known without a walk
        self.returns: list[tuple[str, str]] = []  # (sub-agent, its return event)
        self.memo: dict[str, tuple] = {}  # uuid -> (anchor events, dangling) (see anchor)
        self.dangling = False  # whether the last anchor() walk ended at an unknown uuid
        self.answers: set[tuple[str, str]] = set()  # (tool_call, its tool_result) event ids
        self.session_id: str | None = None
        self.files: dict[str, Path] = {}  # agentId -> its sub-agent log (see sub_agent_files)
        self.inline: list[Sidechain] = []  # the main file's sidechains (v1.0.x)
        self._parsed: dict[str, list[Record]] = {}  # agentId -> its file's records, read once
        self.account = self.result.account
        self.account.unit = "line"
        self.counted: set[tuple[Path, int]] = set()  # lines mapped or skipped so far
        self.read_lines: list[tuple[Path, int, dict]] = []  # every line read, for the sweep
        self.failed: set[str] = set()  # Task calls that started no sub-agent (an error result)
        self.layout: str | None = None  # where the sub-agent logs lie (see recognise)
        self.side_runs: Counter = Counter()  # sub-agent logs no Task call spawns, by kind
        self.inline_compactions: dict[str, str] = {}  # compact summary uuid -> aggregate event
        self.workflow_runs: list[tuple[str, bool, int]] = []  # (run id, launch found, agents)
        self.workflow_meta = 0  # journal lines, meta files and manifests read as metadata
        self.workflow_left: list[str] = []  # files of run folders that are neither log nor meta

    # ------------------------------------------------------------------ reading and discovery

    def name_of(self, file: Path) -> str:
        try:
            return str(file.relative_to(self.path.parent))
        except ValueError:  # pragma: no cover - files are always beside the session
            return file.name

    def load(self, file: Path, tag: str, agent: str) -> list[Record]:
        """Read ``file`` (its records checked, see :func:`check_record`), register its uuids and
        list it among the files read."""
        records = self.parse(file, tag, agent)
        self.register(file, records)
        return records

    def parse(self, file: Path, tag: str, agent: str) -> list[Record]:
        records = []
        name = self.name_of(file)
        blanks: Counter = Counter()
        lines = read_jsonl(file, blanks)
        self.account.read(len(lines) + blanks["blank line"])
        if blanks["blank line"]:
            self.account.skip("blank line", blanks["blank line"])
        for line, data in lines:
            check_record(data, file, line)
            self.read_lines.append((file, line, data))
            records.append(Record(data, file, tag, line, f"{name}:{line}", agent,
                                  parent=data.get("parentUuid") or data.get("logicalParentUuid")))
        return records

    # ------------------------------------------------------------------ the account

    def mapped(self, record: Record) -> None:
        """The line of ``record`` gave events (or another record's event carries it)."""
        if (record.file, record.line) not in self.counted:
            self.counted.add((record.file, record.line))
            self.account.map()

    def skipped(self, record: Record, reason: str, usage: dict | None = None) -> None:
        """The line of ``record`` gave no event, for ``reason`` (``usage``: the tokens it states,
        already stated with ``state_usage``)."""
        if (record.file, record.line) not in self.counted:
            self.counted.add((record.file, record.line))
            self.account.skip(reason, usage=usage)

    def skip_run(self, records: list[Record], reason: str) -> None:
        """Every line of a run that is not part of the session's trace (a warm-up, say), and the
        tokens its responses state, skipped for ``reason``."""
        tokens_in = tokens_out = 0
        for usage in _responses(records):
            tokens_in += sum(usage.get(n, 0) for n in USAGE_FIELDS[:3])
            tokens_out += usage.get("output_tokens", 0)
        self.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
        for k, record in enumerate(records):
            self.skipped(record, reason, usage={"tokens_in": tokens_in, "tokens_out": tokens_out}
                         if k == 0 else None)

    def sweep(self) -> None:
        """Every line read is mapped or skipped: ``agent_progress`` records of no Task call of
        their agent are skipped (counted); any other line left is an importer bug."""
        for file, line, data in self.read_lines:
            if (file, line) in self.counted:
                continue
            progress = data.get("data") if data.get("type") == "progress" else None
            if isinstance(progress, dict) and progress.get("type") == "agent_progress":
                self.counted.add((file, line))
                self.account.skip("progress:agent_progress (of no Task call of its agent)")
                continue
            raise AssertionError(f"importer bug: {file}:{line} is neither mapped nor skipped")

    def register(self, file: Path, records: list[Record]) -> None:
        if str(file) not in self.result.files:
            self.result.files.append(str(file))
        for record in records:
            uuid = record.data.get("uuid")
            if isinstance(uuid, str):
                self.by_uuid.setdefault(uuid, record)

    def discover(self) -> None:
        main = Agent(MAIN, role="main")
        records = self.load(self.path, MAIN, MAIN)
        main.records = [r for r in records if r.data.get("isSidechain") is not True]
        sidechain = [r for r in records if r.data.get("isSidechain") is True]
        if sidechain and not any(r.data.get("type") in ("user", "assistant")
                                 for r in main.records):
            raise SourceError(self.path, None, "every record is a sidechain record: this is a "
                              "sub-agent log; import the session file whose Task call spawns it")
        self.agents[MAIN] = main
        self.session_id = next((r.data["sessionId"] for r in records
                                if isinstance(r.data.get("sessionId"), str)), None)
        self.files = self.sub_agent_files()
        self.inline = inline_sidechains(sidechain)
        claimed: set[str] = set()
        queue = [main]
        while queue:
            parent = queue.pop(0)
            for child in self.task_children(parent):
                claimed.add(child.name)
                queue.append(child)
        for group in self.inline:
            if not group.claimed:
                self.side_runs[_side_run(group.records, None)] += 1
                self.skip_run(group.records, _side_run(group.records, None))
        for agent_id, file in self.files.items():
            if f"agent-{agent_id}" in claimed:
                continue
            if agent_id.startswith(COMPACTION_PREFIX):
                self.compaction(agent_id, file)
                continue
            records = self.parsed(agent_id)
            if str(file) not in self.result.files:
                self.result.files.append(str(file))
            self.side_runs[_side_run(records, agent_id)] += 1
            self.skip_run(records, _side_run(records, agent_id))
        self.workflows()
        self.check_loops()
        self.check_spawners()

    def sub_agent_files(self) -> dict[str, Path]:
        """agentId -> sub-agent log: ``<session>/subagents/agent-<id>.jsonl`` when that folder
        exists (current layout), else the ``agent-<id>.jsonl`` files beside the session whose
        ``sessionId`` is this session's (v2.0.x layout; other sessions' files are left alone)."""
        folder = self.path.parent / self.path.stem / "subagents"
        if folder.is_dir():
            return {f.stem[len("agent-"):]: f for f in sorted(folder.glob("agent-*.jsonl"))}
        if self.session_id is None:
            return {}
        return {f.stem[len("agent-"):]: f for f in sorted(self.path.parent.glob("agent-*.jsonl"))
                if f != self.path and _session_of(f) == self.session_id}

    def workflows(self) -> None:
        """The agents of the session's workflow runs (2.1.x ``Workflow`` tool): every
        ``agent-<id>.jsonl`` under ``<session>/subagents/workflows/<runId>/`` (nested folders
        too) is a sub-agent, spawned (mode ``async``) by the agent whose ``Workflow`` call
        launched the run, else by ``main`` (a counted repair). The run's ``journal.jsonl``, the
        ``agent-<id>.meta.json`` files and the manifest ``<session>/workflows/<runId>.json`` are
        metadata: read for labels and phases, listed among the sources, skipped (counted)."""
        root = self.path.parent / self.path.stem / "subagents" / "workflows"
        if not root.is_dir():
            return
        launches = self.workflow_launches()
        for run in sorted(p for p in root.iterdir() if p.is_dir()):
            logs = sorted(f for f in run.rglob("agent-*.jsonl") if f.is_file())
            info = self.workflow_metadata(run)
            launch = launches.get(run.name)
            for other in sorted(f for f in run.rglob("*") if f.is_file()):
                if other not in logs and other.name != "journal.jsonl" \
                        and not other.name.endswith(".meta.json"):
                    self.workflow_left.append(self.name_of(other))
            count = 0
            for log in logs:
                agent_id = log.stem[len("agent-"):]
                name = f"agent-{agent_id}"
                if name in self.agents:
                    raise SourceError(log, None, f"workflow agent {agent_id} has a second log "
                                      "in the session (agent ids must be unique)")
                records = self.load(log, agent_id, name)
                if not records:
                    raise SourceError(log, None, "workflow agent log without a record")
                details = {"run_id": run.name, **info.get(agent_id, {})}
                if "workflow" in info.get("", {}):
                    details["workflow"] = info[""]["workflow"]
                agent = Agent(name, spawner=launch[1] if launch else MAIN,
                              role=details.get("label") or "workflow agent", records=records,
                              spawn_mode="async", source="workflow", workflow=details,
                              launch=launch[0] if launch else None)
                if launch is None:
                    self.result.repairs["workflow agent whose launching Workflow call is not in "
                                        "the log (spawned by main)"] += 1
                self.agents[name] = agent
                count += 1
            self.workflow_runs.append((run.name, launch is not None, count))

    def workflow_launches(self) -> dict[str, tuple[str, str]]:
        """run id -> (tool_use id, calling agent) of each ``Workflow`` call of the session whose
        result names its run: ``toolUseResult.runId`` (or its ``transcriptDir``), else a
        ``wf_...`` id in the result's text."""
        calls: dict[str, str] = {}
        for agent in list(self.agents.values()):
            for record in agent.records:
                if record.data.get("type") != "assistant":
                    continue
                for block in _blocks(record.data):
                    if block.get("type") == "tool_use" and block.get("name") in WORKFLOW_TOOLS:
                        calls[block.get("id")] = agent.name
        found: dict[str, tuple[str, str]] = {}
        for agent in list(self.agents.values()):
            for record in agent.records:
                if record.data.get("type") != "user":
                    continue
                outcome = record.data.get("toolUseResult")
                outcome = outcome if isinstance(outcome, dict) else {}
                for block in _blocks(record.data):
                    tool_id = block.get("tool_use_id")
                    if block.get("type") != "tool_result" or tool_id not in calls:
                        continue
                    named = [outcome.get("runId"), outcome.get("transcriptDir"),
                             block.get("content")]
                    for value in named:
                        match = RUN_ID.search(_text_of(value))
                        if match:
                            found.setdefault(match.group(0), (tool_id, calls[tool_id]))
                            break
        return found

    def workflow_metadata(self, run: Path) -> dict[str, dict]:
        """agentId -> {label, phase} from the run's manifest, journal and meta files (a meta
        file wins over the journal, the journal over the manifest); ``""`` -> {workflow: the
        manifest's ``workflowName``}. Each file is listed among the sources and each of its
        records (a journal line, a whole JSON file) counted as read and skipped."""
        info: dict[str, dict] = {}

        def note(agent_id, data: dict) -> None:
            if not isinstance(agent_id, str):
                return
            entry = info.setdefault(agent_id, {})
            for key in ("label", "phase"):
                if isinstance(data.get(key), str):
                    entry[key] = data[key]

        manifest = self.path.parent / self.path.stem / "workflows" / f"{run.name}.json"
        if manifest.is_file():
            data = self.metadata_file(manifest, "workflow manifest (metadata: run, agents, "
                                      "labels)")
            if isinstance(data.get("workflowName"), str):
                info[""] = {"workflow": data["workflowName"]}
            progress = data.get("workflowProgress")
            for item in progress if isinstance(progress, list) else []:
                if isinstance(item, dict):
                    note(item.get("agentId"), item)
        journal = run / "journal.jsonl"
        if journal.is_file():
            self.register(journal, [])
            blanks: Counter = Counter()
            lines = read_jsonl(journal, blanks)
            self.account.read(len(lines) + blanks["blank line"])
            if blanks["blank line"]:
                self.account.skip("blank line", blanks["blank line"])
            for _line, data in lines:
                self.workflow_meta += 1
                self.account.skip(f"workflow journal line: {data.get('type')} (metadata, "
                                  "not a transcript)")
                if data.get("type") == "started":
                    note(data.get("agentId"), data)
        for meta in sorted(run.rglob("agent-*.meta.json")):
            data = self.metadata_file(meta, "workflow agent meta file (metadata: label, phase, "
                                      "model)")
            note(meta.name[len("agent-"):-len(".meta.json")], data)
        return info

    def metadata_file(self, file: Path, reason: str) -> dict:
        """A JSON object file read as metadata: listed, counted as one record read and
        skipped for ``reason``; anything but a JSON object is an error naming the file."""
        data, findings = strict_json.parse(read_text(file))
        if findings or not isinstance(data, dict):
            raise SourceError(file, None, "not a JSON object (a workflow metadata file)")
        self.register(file, [])
        self.account.read()
        self.account.skip(reason)
        self.workflow_meta += 1
        return data

    def parsed(self, agent_id: str) -> list[Record]:
        """The records of the sub-agent file of ``agent_id``, read once (not yet registered)."""
        if agent_id not in self._parsed:
            self._parsed[agent_id] = self.parse(self.files[agent_id], agent_id,
                                                f"agent-{agent_id}")
        return self._parsed[agent_id]

    def task_children(self, parent: Agent) -> list[Agent]:
        """The sub-agents spawned by ``parent``'s Task calls, with their records. A Task call
        whose result is an error and that names no sub-agent nor has its records in the log
        started none: it stays a tool call (counted in :attr:`failed`)."""
        calls: list[tuple[str, dict, Record]] = []
        ids: dict[str, str] = {}
        embedded: dict[str, list[Record]] = {}
        results: dict[str, tuple[dict, Record]] = {}
        for record in parent.records:
            data = record.data
            if data.get("type") == "assistant":
                for block in _blocks(data):
                    if block.get("type") == "tool_use" and block.get("name") in TASK_TOOLS:
                        calls.append((block.get("id"), block, record))
            progress = data.get("data") if data.get("type") == "progress" else None
            if isinstance(progress, dict) and progress.get("type") == "agent_progress":
                tool_id = data.get("parentToolUseID")
                if isinstance(progress.get("agentId"), str):
                    ids.setdefault(tool_id, progress["agentId"])
                message = progress.get("message")
                if isinstance(message, dict):
                    embedded.setdefault(tool_id, []).append(
                        Record(message, record.file, record.tag, record.line,
                               f"{record.where} (agent_progress)", "", embedded=True))
            if data.get("type") == "user":
                for block in _blocks(data):
                    if block.get("type") == "tool_result":
                        results.setdefault(block.get("tool_use_id"), (block, record))
                result = data.get("toolUseResult")
                if isinstance(result, dict) and "agentId" in result:
                    for block in _blocks(data):
                        if block.get("type") == "tool_result":
                            ids.setdefault(block.get("tool_use_id"), str(result["agentId"]))
        sources = self.claim_all(calls, ids)
        children = []
        for tool_id, block, record in calls:
            params = block.get("input") if isinstance(block.get("input"), dict) else {}
            agent_id = ids.get(tool_id)
            source = sources.get(tool_id)
            answer = results.get(tool_id)
            if agent_id is None and source is None and not embedded.get(tool_id) \
                    and answer is not None and answer[0].get("is_error"):
                self.failed.add(tool_id)
                continue
            if agent_id is None and isinstance(source, str):
                agent_id = source
            elif agent_id is None and source is not None:
                agent_id = source.agent_id
            launch = answer[1].data.get("toolUseResult") if answer is not None else None
            launched = isinstance(launch, dict) and launch.get("status") == "async_launched"
            name = f"agent-{agent_id}" if agent_id else f"task-{tool_id}"
            child = Agent(name, spawner=parent.name, role=params.get("subagent_type"),
                          task_id=tool_id, launched=launched,
                          spawn_mode="async" if params.get("run_in_background") or launched
                          else "blocking")
            if isinstance(source, str):  # a sub-agent file
                child.records = self.parsed(source)
                child.source = "file"
                self.register(self.files[source], child.records)
            elif source is not None:  # sidechain records of the main file (v1.0.x)
                child.records = source.records
                child.source = "inline"
            for own in child.records:
                own.agent = name
            seen = {r.data.get("uuid") for r in child.records}
            previous, same_response = None, {}
            for record in embedded.get(tool_id, []):
                record.agent = name
                if record.data.get("uuid") in seen:
                    self.skipped(record, "progress:agent_progress (copy of a sub-agent file "
                                 "record)")
                    continue
                if child.source == "none":
                    child.source = "progress"
                record.tag = f"{record.tag}.{agent_id or name}"
                uuid = record.data.get("uuid")
                response = (record.data.get("message") or {}).get("id") \
                    if record.data.get("type") == "assistant" else None
                record.parent = same_response.get(response, previous) if response else previous
                if isinstance(uuid, str):
                    self.by_uuid.setdefault(uuid, record)
                    previous = uuid
                    if response:
                        same_response[response] = uuid
                child.records.append(record)
            self.agents[name] = child
            children.append(child)
        return children

    def claim_all(self, calls: list[tuple[str, dict, Record]], ids: dict[str, str]) -> dict:
        """tool_use id -> the records of the sub-agent each Task call spawns: the agentId of
        its file (``str``) or a :class:`Sidechain` of the main file. Found by the agentId the
        log names; then by the prompt (the sub-agent's first record repeats the Task call's
        ``prompt``), every call in turn, so that a call without a match cannot take another
        call's sub-agent; then, for the calls left that did not fail, the first unclaimed
        sidechain that starts after the call (a counted repair)."""
        found: dict[str, object] = {}
        taken = {name[len("agent-"):] for name in self.agents if name.startswith("agent-")}
        for tool_id, _block, _record in calls:
            agent_id = ids.get(tool_id)
            if agent_id is None:
                continue
            if agent_id in self.files and agent_id not in taken:
                found[tool_id] = agent_id
                taken.add(agent_id)
                continue
            for group in self.inline:
                if not group.claimed and group.agent_id == agent_id:
                    group.claimed = True
                    found[tool_id] = group
                    break
        for tool_id, block, _record in calls:
            if tool_id in found or ids.get(tool_id) is not None:
                continue
            params = block.get("input") if isinstance(block.get("input"), dict) else {}
            prompt = params.get("prompt")
            if not isinstance(prompt, str):
                continue
            for agent in self.files:
                if agent in taken or agent.startswith(COMPACTION_PREFIX):
                    continue
                first = next((r for r in self.parsed(agent) if r.data.get("type") == "user"),
                             None)
                if first is not None and _prompt_text(first.data) == prompt:
                    found[tool_id] = agent
                    taken.add(agent)
                    break
            else:
                for group in self.inline:
                    if not group.claimed and _prompt_text(group.records[0].data) == prompt:
                        group.claimed = True
                        found[tool_id] = group
                        break
        for tool_id, _block, record in calls:
            if tool_id in found or ids.get(tool_id) is not None \
                    or self.answered_with_error(tool_id):
                continue
            called = self.time(record)
            for group in self.inline:
                if not group.claimed and self.time(group.records[0]) >= called:
                    self.result.repairs["sidechain joined to the Task call before it (its "
                                        "prompt does not repeat the call's)"] += 1
                    group.claimed = True
                    found[tool_id] = group
                    break
        return found

    def answered_with_error(self, tool_id: str) -> bool:
        """Whether the tool result of ``tool_id`` in the session is an error."""
        for _file, _line, data in self.read_lines:
            if data.get("type") != "user":
                continue
            for block in _blocks(data):
                if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                    return bool(block.get("is_error"))
        return False

    def compaction(self, agent_id: str, file: Path) -> None:
        name = f"agent-{agent_id}"
        records = self.load(file, agent_id, name)
        prompt = next((r for r in records if r.data.get("type") == "user"
                       and not r.data.get("isMeta")), None)
        if prompt is None:
            raise SourceError(file, None,
                              "compaction run without its prompt (a non-meta user record)")
        agent = Agent(name, role="compaction", records=records, spawn_mode="blocking",
                      prompt_uuid=prompt.data.get("uuid"))
        agent.follows = self.compaction_follows(name, prompt)
        agent.spawner = self.compaction_spawner(agent.follows)
        self.agents[name] = agent

    def compaction_follows(self, name: str, prompt: Record) -> str | None:
        """The uuid of the record a compaction's prompt follows: the nearest record up the
        prompt's ``parentUuid`` chain that is not one of the compaction's own records (passing
        its own records is counted)."""
        current, seen = prompt.parent, set()
        while isinstance(current, str) and current not in seen:
            seen.add(current)
            record = self.by_uuid.get(current)
            if record is None or record.agent != name:
                return current
            self.result.repairs["compaction prompt that follows the compaction's own records "
                                "(the record they follow is used)"] += 1
            current = record.parent
        return None

    def compaction_spawner(self, follows: str | None) -> str:
        """The agent whose context a compaction run summarises: the agent whose log holds the
        ``compact_boundary`` record whose ``logicalParentUuid`` is the record the prompt follows
        (the compaction's return), else the agent of that record, else ``main``."""
        if follows is None:
            return MAIN
        for agent in self.agents.values():
            if agent.role == "compaction":
                continue
            for record in agent.records:
                data = record.data
                if (data.get("type") == "system" and data.get("subtype") == "compact_boundary"
                        and data.get("logicalParentUuid") == follows):
                    return agent.name
        record = self.by_uuid.get(follows)
        return record.agent if record is not None and record.agent in self.agents else MAIN

    def check_spawners(self) -> None:
        """A compaction run whose chain of spawners comes back to it (it would be spawned by its
        own descendant) is spawned by ``main`` instead (counted)."""
        for agent in self.agents.values():
            chain, current = {agent.name}, agent.spawner
            while current is not None and current not in chain:
                chain.add(current)
                current = self.agents[current].spawner if current in self.agents else None
            if current == agent.name:
                if agent.role != "compaction":  # pragma: no cover - Task children are a tree
                    raise AssertionError(f"importer bug: {agent.name} spawns itself")
                agent.spawner = MAIN
                self.result.repairs["compaction run that would be spawned by its own "
                                    "descendant (spawned by main instead)"] += 1

    def check_loops(self) -> None:
        """A ``parentUuid`` chain that comes back to a record it passed is an error naming the
        record where the loop closes (walking the chain would never end)."""
        done: set[str] = set()
        for uuid in self.by_uuid:
            path: list[str] = []
            on_path: set[str] = set()
            current = uuid
            while current is not None and current not in done:
                if current in on_path:
                    loop = path[path.index(current):]
                    record = self.by_uuid[loop[-1]]
                    raise SourceError(record.file, record.line,
                                      f"parentUuid chain loops: {' -> '.join([*loop, current])} "
                                      f"(each record names the next as its parent)")
                record = self.by_uuid.get(current)
                if record is None:
                    break
                path.append(current)
                on_path.add(current)
                current = record.parent if isinstance(record.parent, str) else None
            done.update(path)

    # ------------------------------------------------------------------ events

    def time(self, record: Record) -> int:
        """The record's timestamp in microseconds since 1970 (exact integers)."""
        stamp = record.data.get("timestamp")
        if not isinstance(stamp, str):
            raise SourceError(*_place(record), "record has no timestamp")
        try:
            moment = datetime.fromisoformat(stamp)
        except ValueError:
            raise SourceError(*_place(record), f"unreadable timestamp {stamp!r}") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        micro = (moment - EPOCH) // timedelta(microseconds=1)
        return micro

    def emit_all(self) -> None:
        """Every agent's events, with ``t`` in absolute microseconds (made relative later)."""
        compactions = {agent.follows: agent for agent in self.agents.values()
                       if agent.role == "compaction" and agent.follows is not None}
        for agent in self.agents.values():
            self.emit_agent(agent, compactions)
        if not self.build.events:
            raise SourceError(self.path, None, "no conversation record to import")

    def emit_agent(self, agent: Agent, compactions: dict) -> None:
        pending: list[str] = []  # results since the agent's last response began
        last_message = None
        first = True
        summaries = {r.data.get("parentUuid"): r for r in agent.records
                     if r.data.get("isCompactSummary")}
        for record in agent.records:
            data = record.data
            kind = data.get("type")
            uuid = data.get("uuid")
            if kind not in KNOWN_TYPES:
                self.skipped(record, f"unknown record type: {kind}")
                continue
            if kind == "progress":
                progress = data.get("data") if isinstance(data.get("data"), dict) else {}
                if progress.get("type") != "agent_progress":
                    self.skipped(record, f"progress:{progress.get('type')}")
                continue
            if kind == "system":
                boundary = compactions.get(data.get("logicalParentUuid"))
                if data.get("subtype") == "compact_boundary" and boundary is not None:
                    self.emit_compaction_return(record, boundary)
                    self.mapped(record)
                elif data.get("subtype") == "compact_boundary":
                    self.emit_inline_compaction(agent, record, summaries.get(uuid))
                    self.mapped(record)
                else:
                    self.skipped(record, f"system:{data.get('subtype')}")
                continue
            if kind in SKIPPED_TYPES:
                self.skipped(record, kind)
                continue
            if data.get("isCompactSummary"):
                carrier = self.inline_compactions.get(uuid)
                if carrier is not None:
                    self.produced[uuid] = [carrier]
                    self.mapped(record)
                else:
                    self.skipped(record, "user:isCompactSummary (the summary a compaction "
                                 "returns)")
                continue
            if data.get("isMeta"):
                self.skipped(record, "user:isMeta (context injected by the harness)")
                continue
            if first and agent.spawner is not None:
                first = False
                if kind == "user" and _is_prompt(data):
                    self.emit_spawn_prompt(agent, record)
                    self.mapped(record)
                    continue
                if agent.workflow is not None:  # a workflow agent that starts without a prompt
                    self.emit_workflow_spawn(agent, record, carried=False)
            first = False
            if kind == "assistant":
                message_id = (data.get("message") or {}).get("id")
                events = self.emit_assistant(agent, record)
                if events and message_id != last_message:
                    self.direct_edges.extend((result, events[0]) for result in pending)
                    pending = []
                if events:
                    last_message = message_id
            else:
                events = self.emit_user(agent, record)
                pending.extend(e for e in events
                               if self.build.by_id[e]["type"] in ("tool_result", "return"))
            if events:
                self.mapped(record)
            if isinstance(uuid, str):
                self.produced[uuid] = events

    def emit_inline_compaction(self, agent: Agent, record: Record, summary: Record | None
                               ) -> None:
        """A ``compact_boundary`` with no compaction log: the harness summarised the agent's
        context in place (2.0.x and later sessions without an ``agent-acompact-*`` file). The
        agent's ``aggregate`` event stands for it, at the boundary's time, with the hash of the
        summary it hands back (the ``isCompactSummary`` record that follows, carried by it) and
        ``x_compaction``: the trigger and the context size before (``preTokens``, a size, not a
        model call's usage)."""
        meta = record.data.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        details = {"trigger": meta.get("trigger"), "pre_tokens": meta.get("preTokens")}
        details = {k: v for k, v in details.items() if v is not None}
        event = self.build.event(**self.base(record), type="aggregate", agent=agent.name,
                                 content_ref=content_ref(_content(summary.data))
                                 if summary is not None else None,
                                 x_compaction=details or None)
        self.requests.append((event["id"], record.parent, record))
        uuid = record.data.get("uuid")
        if isinstance(uuid, str):
            self.produced[uuid] = [event["id"]]
        if summary is not None and isinstance(summary.data.get("uuid"), str):
            self.inline_compactions[summary.data["uuid"]] = event["id"]

    def base(self, record: Record, k: int | None = None) -> dict:
        suffix = "" if k is None else f".{k}"
        return {"id": f"{record.tag}:{record.line}{suffix}", "t": self.time(record),
                "x_source": record.where}

    def emit_spawn_prompt(self, agent: Agent, record: Record) -> None:
        """The sub-agent's prompt record: carried by the spawn event."""
        uuid = record.data.get("uuid")
        if agent.role == "compaction":
            event = self.build.event(**self.base(record), type="spawn", agent=agent.spawner,
                                     to=agent.name, role="compaction",
                                     content_ref=content_ref(_content(record.data)))
            agent.spawn_event = event["id"]
            self.requests.append((event["id"], agent.follows, record))
        elif agent.workflow is not None:
            self.emit_workflow_spawn(agent, record, carried=True)
        else:
            self.result.repairs["sub-agent prompt record carried by its spawn event"] += 1
        if isinstance(uuid, str) and agent.spawn_event is not None:
            self.produced[uuid] = [agent.spawn_event]
        elif isinstance(uuid, str):
            self.produced[uuid] = []

    def emit_workflow_spawn(self, agent: Agent, record: Record, carried: bool) -> None:
        """The spawn of a workflow agent by the agent whose ``Workflow`` call launched its run,
        at the time of the agent's first record (the runtime starts agents as the script
        reaches them), carrying its prompt when that record is one; ``x_workflow`` names the
        run, the label and the phase. It depends on the ``Workflow`` call's event."""
        base = self.base(record)
        if not carried:
            base["id"] = f"{base['id']}.spawn"
        event = self.build.event(**base, type="spawn", agent=agent.spawner, to=agent.name,
                                 role=agent.role, x_workflow=dict(sorted(agent.workflow.items())),
                                 content_ref=content_ref(_content(record.data)) if carried
                                 else None)
        agent.spawn_event = event["id"]
        call = self.call_event.get(agent.launch) if agent.launch is not None else None
        if call is not None:
            self.direct_edges.append((call, event["id"]))

    def emit_assistant(self, agent: Agent, record: Record) -> list[str]:
        message = record.data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            raise SourceError(*_place(record), "assistant record without a message content list")
        blocks = message["content"]
        events = []
        thinking = []
        numbered = len(blocks) > 1
        for k, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, dict) else None
            base = self.base(record, k if numbered else None)
            if kind in THINKING_BLOCKS:
                thinking.append(kind)
                continue
            if kind == "text":
                event = self.build.event(**base, type="message", agent=agent.name,
                                         to=HUMAN if agent.name == MAIN else None,
                                         content_ref=content_ref(block.get("text", "")))
            elif kind in ("tool_use", "server_tool_use"):
                tool_id, name = block.get("id"), block.get("name")
                if kind == "tool_use" and name in TASK_TOOLS and tool_id not in self.failed:
                    child = self.child_of(tool_id)
                    params = block.get("input") if isinstance(block.get("input"), dict) else {}
                    event = self.build.event(**base, type="spawn", agent=agent.name,
                                             to=child.name, role=child.role,
                                             content_ref=content_ref(params.get("prompt", "")))
                    child.spawn_event = event["id"]
                else:
                    event = self.build.event(**base, type="tool_call", agent=agent.name,
                                             tool=name, content_ref=content_ref(
                                                 block.get("input", {})))
                self.call_event[tool_id] = event["id"]
                self.tool_name[tool_id] = name
            elif isinstance(kind, str) and kind.endswith("_tool_result"):
                event = self.emit_result(agent, record, block, base)
            else:
                raise SourceError(*_place(record), f"unknown assistant content block {kind!r}")
            events.append(event["id"])
            if event["type"] != "tool_result":
                self.requests.append((event["id"], record.parent, record))
        for k, kind in enumerate(thinking):  # a record of thinking only is a skipped line
            if events or k:
                self.account.skip_part(f"assistant block: {kind}")
            else:
                self.skipped(record, f"assistant block: {kind}")
        self.note_usage(agent, record, events)
        return events

    def emit_user(self, agent: Agent, record: Record) -> list[str]:
        data = record.data
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            blocks = content
        else:
            raise SourceError(*_place(record), "user record without a message content")
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        rest = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        for block in rest:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind not in HUMAN_BLOCKS:
                raise SourceError(*_place(record), f"unknown user content block {kind!r}")
        numbered = len(results) + (1 if rest else 0) > 1
        events = []
        for k, block in enumerate(results):
            base = self.base(record, k if numbered else None)
            events.append(self.emit_result(agent, record, block, base)["id"])
        if rest:
            base = self.base(record, len(results) if numbered else None)
            sender, to = (HUMAN, agent.name) if agent.spawner is None else (agent.spawner,
                                                                            agent.name)
            payload = content if isinstance(content, str) else rest
            event = self.build.event(**base, type="message", agent=sender,
                                     role="human" if sender == HUMAN else None, to=to,
                                     content_ref=content_ref(payload))
            events.append(event["id"])
            self.requests.append((event["id"], record.parent, record))
        return events

    def emit_result(self, agent: Agent, record: Record, block: dict, base: dict) -> dict:
        tool_id = block.get("tool_use_id")
        name = self.tool_name.get(tool_id)
        child = self.child_of(tool_id) if name in TASK_TOOLS and tool_id not in self.failed \
            else None
        payload = block.get("content", "")
        if child is not None and child.launched:  # only the launch is reported
            self.result.repairs["background Task launch: its result is the call's tool_result, "
                                "the sub-agent's own return is not in the log"] += 1
            child = None
        if child is not None:
            event = self.build.event(**base, type="return", agent=child.name, to=agent.name,
                                     content_ref=content_ref(payload),
                                     x_error=True if block.get("is_error") else None)
            usage = _result_usage(record.data)
            if usage is not None:
                self.final_usage.append((child.name, event["id"], usage))
            self.returns.append((child.name, event["id"]))
            return event
        event = self.build.event(**base, type="tool_result", agent=agent.name,
                                 tool=name, trusted=False, content_ref=content_ref(payload),
                                 x_error=True if block.get("is_error") else None)
        call = self.call_event.get(tool_id)
        if call is None:
            self.result.repairs["tool result whose call is not in the log (joined to the record "
                                "it follows)"] += 1
            self.requests.append((event["id"], record.parent, record))
        else:
            self.direct_edges.append((call, event["id"]))
            self.answers.add((call, event["id"]))
        return event

    def emit_compaction_return(self, record: Record, agent: Agent) -> None:
        event = self.build.event(**self.base(record), type="return", agent=agent.name,
                                 to=agent.spawner)
        self.returns.append((agent.name, event["id"]))
        uuid = record.data.get("uuid")
        if isinstance(uuid, str):
            self.produced[uuid] = [event["id"]]

    def child_of(self, tool_id: str) -> Agent:
        return next(a for a in self.agents.values() if a.task_id == tool_id)

    def note_usage(self, agent: Agent, record: Record, events: list[str]) -> None:
        message = record.data["message"]
        usage = message.get("usage")
        if message.get("model") == SYNTHETIC:  # the harness's own text: no model call
            parts = _usage_parts(usage)
            tokens_in, tokens_out = sum(parts[n] for n in USAGE_FIELDS[:3]), parts[USAGE_FIELDS[3]]
            if tokens_in or tokens_out:
                self.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
                self.account.skip_part("usage stated on a <synthetic> message (no model call)",
                                       usage={"tokens_in": tokens_in, "tokens_out": tokens_out})
            return
        key = (agent.name, message.get("id") or f"{record.where}")
        entry = self.responses.setdefault(key, {"usage": {}, "event": None, "model": None,
                                                "order": len(self.responses)})
        if isinstance(usage, dict):
            for name in USAGE_FIELDS:
                value = usage.get(name)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    entry["usage"][name] = max(entry["usage"].get(name, 0), value)
        if events:
            entry["event"] = events[-1]
        if isinstance(message.get("model"), str):
            entry["model"] = message["model"]

    # ------------------------------------------------------------------ edges

    def anchor(self, uuid: str | None) -> list[str] | None:
        """Events of the nearest record up the chain from ``uuid`` that gave events."""
        walked = []
        current = uuid
        found: tuple[list[str] | None, bool] = (None, False)  # (events, chain is dangling)
        while current is not None:
            if self.produced.get(current):
                found = (self.produced[current], False)
                break
            if current in self.memo:
                found = self.memo[current]
                break
            record = self.by_uuid.get(current)
            if record is None:
                found = (None, True)
                break
            walked.append(current)
            current = record.parent
        for name in walked:
            self.memo[name] = found
        self.dangling = found[1]
        return found[0]

    def connect(self) -> None:
        for dst, parent, _record in self.requests:
            if parent is None:
                continue
            sources = self.anchor(parent)
            if self.dangling:
                self.result.repairs["record whose parentUuid names no record of the session "
                                    "(starts a new chain)"] += 1
            for src in sources or []:
                self.link(src, dst)
        for src, dst in self.direct_edges:
            self.link(src, dst)
        for agent in self.agents.values():
            if agent.spawner is None or agent.spawn_event is None:
                continue
            own = [e for e in self.build.events if e["agent"] == agent.name
                   and e["type"] != "return"]
            linked = {edge["dst"] for edge in self.build.edges
                      if self.build.by_id[edge["src"]]["agent"] == agent.name
                      or edge["src"] == agent.spawn_event}
            starts = [e["id"] for e in own if e["id"] not in linked]
            for start in starts or []:
                self.link(agent.spawn_event, start)
        for child, ret in self.returns:
            own = {e["id"] for e in self.build.events if e["agent"] == child
                   and e["type"] != "return"}
            inner = {edge["src"] for edge in self.build.edges
                     if edge["src"] in own and edge["dst"] in own}
            sinks = [e["id"] for e in self.build.events if e["id"] in own - inner]
            spawn = self.agents[child].spawn_event
            for src in sinks or ([spawn] if spawn is not None else []):
                self.link(src, ret)

    def link(self, src: str, dst: str) -> None:
        self.build.edge(src, dst, *self.kind(src, dst))

    def kind(self, src: str, dst: str) -> tuple[str, str | None]:
        a, b = self.build.by_id[src], self.build.by_id[dst]
        if a["type"] == "spawn" and b["agent"] == a.get("to"):
            return "spawn", self.agents[a["to"]].spawn_mode
        if a["type"] == "return" and b["agent"] == a.get("to"):
            return "return", None
        if (src, dst) in self.answers:
            return "tool_dependency", "blocking"
        if a["type"] == "message" and a.get("to") == b["agent"]:
            return "message", None
        return "causal", None

    # ------------------------------------------------------------------ tokens and document

    def attach_tokens(self) -> int:
        last: dict[str, tuple] = {}
        for key in self.responses:
            last[key[0]] = key  # responses are noted in record order
        for child, event_id, usage in self.final_usage:
            key = last.get(child)
            final = {n: usage[n] for n in USAGE_FIELDS
                     if isinstance(usage.get(n), (int, float)) and not isinstance(usage.get(n),
                                                                                   bool)}
            entry = self.responses.get(key) if key else None
            inputs = USAGE_FIELDS[:3]
            if entry is not None and all(entry["usage"].get(n) == final.get(n) for n in inputs):
                for n, value in final.items():
                    entry["usage"][n] = max(entry["usage"].get(n, 0), value)
            else:
                self.responses[(child, f"final response of {child}")] = {
                    "usage": final, "event": event_id, "model": None,
                    "order": len(self.responses), "id_is_source": True}
                self.result.repairs["sub-agent final response missing from the log (its usage "
                                    "put on the return event)"] += 1
        total = 0
        for key, entry in self.responses.items():
            usage = entry["usage"]
            tokens_in = sum(usage.get(n, 0) for n in USAGE_FIELDS[:3])
            tokens_out = usage.get(USAGE_FIELDS[3], 0)
            total += tokens_in + tokens_out
            self.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
            if entry["event"] is None:
                self.account.skip_part("model response with no mapped block (tokens kept in "
                                       "costs.tokens only)",
                                       usage={"tokens_in": tokens_in, "tokens_out": tokens_out})
                continue
            event = self.build.by_id[entry["event"]]
            event["tokens"] = tokens_in + tokens_out
            event["x_usage"] = {"input": tokens_in, "output": tokens_out,
                                **{name: usage.get(f, 0) for name, f in
                                   zip(USAGE_NAMES, USAGE_FIELDS[:3])}}
            event["x_model_call"] = key[1] if entry.get("id_is_source") is None else \
                event["x_source"]
            if entry["model"]:
                event["x_model"] = entry["model"]
        return total

    def recognise(self, version) -> dict:
        """Which layout the session's sub-agents have, told by where their records were found
        (a session can mix them: some sub-agents as progress copies, a background one as its
        Task result only), with the evidence; ``version`` is the ``version`` its records name."""
        tasks = [a for a in self.agents.values() if a.task_id is not None]
        files = [a for a in tasks if a.source == "file"]
        compactions = [a for a in self.agents.values() if a.role == "compaction"]
        folder = (self.path.parent / self.path.stem / "subagents").is_dir()
        shapes, evidence = [], []
        if files or (compactions and folder) or (folder and self.side_runs):
            where = f"{self.path.stem}/subagents/" if folder else "beside the session"
            shapes.append("2.1: sub-agent logs in <session>/subagents/" if folder
                          else "2.0: sub-agent logs agent-<id>.jsonl beside the session")
            evidence.append(f"{len(files)} Task sub-agent log(s) and {len(compactions)} "
                            f"compaction log(s) {where}")
        elif compactions:
            shapes.append("2.0: sub-agent logs agent-<id>.jsonl beside the session")
            evidence.append(f"{len(compactions)} compaction log(s) beside the session")
        elif self.side_runs and not folder:
            shapes.append("2.0: sub-agent logs agent-<id>.jsonl beside the session")
        for source, shape, what in (
                ("inline", "1.0: sidechain records inline in the session",
                 "sub-agent(s) as inline sidechain records"),
                ("progress", "sub-agents as agent_progress records only",
                 "sub-agent(s) only as agent_progress records"),
                ("none", "sub-agents as their Task results only",
                 "sub-agent(s) with no record in the log but their Task result")):
            mine = [a for a in tasks if a.source == source]
            if mine:
                shapes.append(shape)
                evidence.append(f"{len(mine)} {what}")
        if self.workflow_runs:
            shapes.append("2.1: workflow agent logs in <session>/subagents/workflows/<runId>/")
            agents = sum(n for _run, _found, n in self.workflow_runs)
            lost = [run for run, found, _n in self.workflow_runs if not found]
            evidence.append(f"{len(self.workflow_runs)} workflow run(s) with {agents} agent "
                            f"log(s), {self.workflow_meta} metadata record(s) (journal lines, "
                            "meta files, manifests)")
            if lost:
                evidence.append(f"{len(lost)} workflow run(s) whose Workflow call is not in the "
                                f"log: {', '.join(lost)}")
        if self.workflow_left:
            evidence.append(f"{len(self.workflow_left)} file(s) of workflow run folders not "
                            f"read (neither agent log nor metadata): "
                            f"{', '.join(self.workflow_left)}")
        for kind, n in sorted(self.side_runs.items()):
            evidence.append(f"{n} skipped: {kind}")
        aggregates = len(self.inline_compactions) + sum(
            1 for e in self.build.events if e["type"] == "aggregate" and "content_ref" not in e)
        if aggregates:
            evidence.append(f"{aggregates} compaction(s) in place (compact_boundary, no log)")
        if self.failed:
            evidence.append(f"{len(self.failed)} Task call(s) that failed to start a sub-agent")
        return {"system": "Claude Code", "version": str(version) if version else "unknown",
                "shape": " + ".join(shapes) or "no sub-agents",
                "evidence": "; ".join(evidence) or "no Task call, no sub-agent log"}

    def run(self) -> ImportResult:
        self.discover()
        self.emit_all()
        self.connect()
        tokens = self.attach_tokens()
        self.sweep()
        raised = self.build.raise_times()
        if raised:
            self.result.repairs["event time raised to the time of an event it depends on"] += raised
        start = min(e["t"] for e in self.build.events)
        self.result.time_origin = iso_from_ns(start * 1000)
        for event in self.build.events:
            event["t"] = (event["t"] - start) / 1_000_000
        first = next((r.data for r in self.agents[MAIN].records if r.data.get("sessionId")), {})
        session = str(first.get("sessionId") or self.path.stem)
        version = next((r.data["version"] for r in self.agents[MAIN].records
                        if isinstance(r.data.get("version"), str)), None)
        self.result.recognised = self.recognise(version)
        build = self.build
        self.result.trace = build.document(
            trace_id=f"claude-code:{session}",
            task_id=session,
            system=f"Claude Code {version}" if version else "Claude Code",
            topology="harness",
            rewards={},
            costs={"tokens": tokens,
                   "wall_clock_s": max(e["t"] for e in build.events),
                   "tool_calls": build.count("tool_call"),
                   "messages": build.count("message")},
        )
        return self.result.with_provenance()


@dataclass
class Sidechain:
    """Sidechain records of the main file that chain to one root: one sub-agent (v1.0.x)."""

    records: list[Record]
    agent_id: str | None = None
    claimed: bool = False


def inline_sidechains(records: list[Record]) -> list[Sidechain]:
    """The main file's sidechain records grouped by the root their ``parentUuid`` chain starts
    from (a record whose parent is not a sidechain record starts a group), in file order."""
    groups: list[Sidechain] = []
    group_of: dict[str, Sidechain] = {}
    for record in records:
        group = group_of.get(record.parent) if isinstance(record.parent, str) else None
        if group is None:
            agent_id = record.data.get("agentId")
            group = Sidechain([], agent_id if isinstance(agent_id, str) else None)
            groups.append(group)
        group.records.append(record)
        uuid = record.data.get("uuid")
        if isinstance(uuid, str):
            group_of[uuid] = group
    return groups


def _session_of(file: Path) -> str | None:
    """The ``sessionId`` of the first record of ``file`` that has one (lines that are not JSON
    objects are passed over here; reading the file for the import reports them)."""
    for line in read_text(file).split("\n"):
        data, findings = strict_json.parse(line)
        if findings:
            continue
        if isinstance(data, dict) and isinstance(data.get("sessionId"), str):
            return data["sessionId"]
    return None


def _prompt_text(data: dict):
    """The text of a user record: its string content, or the text of its one text block."""
    content = _content(data)
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) \
            and content[0].get("type") == "text":
        return content[0].get("text")
    return content if isinstance(content, str) else None


# ---------------------------------------------------------------------------------- shapes

ID_FIELDS = ("uuid", "parentUuid", "logicalParentUuid", "sessionId", "agentId",
             "parentToolUseID", "timestamp")
BLOCK_STRINGS = ("id", "tool_use_id", "name", "type")


def json_kind(value) -> str:
    """The JSON name of a parsed value's type (object, array, string, number, boolean, null)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string"}.get(type(value), "number")


def check_record(data: dict, file: Path, line: int, prefix: str = "") -> None:
    """Every container and id the importer reads has the type it needs; else a
    :class:`SourceError` naming the file, the line and the field (``message.content[1].id``)."""
    def fail(field: str, wanted: str, value) -> None:
        raise SourceError(file, line, f"{prefix}{field} must be {wanted}, not "
                          f"{json_kind(value)}")

    for key in ID_FIELDS:
        if data.get(key) is not None and not isinstance(data[key], str):
            fail(key, "a string", data[key])
    if data.get("type") in ("user", "assistant") and "message" in data:
        message = data["message"]
        if not isinstance(message, dict):
            fail("message", "an object", message)
        for key in ("id", "model", "role"):
            if message.get(key) is not None and not isinstance(message[key], str):
                fail(f"message.{key}", "a string", message[key])
        if message.get("usage") is not None and not isinstance(message["usage"], dict):
            fail("message.usage", "an object", message["usage"])
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            fail("message.content", "a string or an array", content)
        for k, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                fail(f"message.content[{k}]", "an object", block)
            for key in BLOCK_STRINGS:
                if block.get(key) is not None and not isinstance(block[key], str):
                    fail(f"message.content[{k}].{key}", "a string", block[key])
            if block.get("type") == "tool_use" and block.get("input") is not None \
                    and not isinstance(block["input"], dict):
                fail(f"message.content[{k}].input", "an object", block["input"])
    if data.get("type") == "progress" and data.get("data") is not None:
        progress = data["data"]
        if not isinstance(progress, dict):
            fail("data", "an object", progress)
        if progress.get("agentId") is not None and not isinstance(progress["agentId"], str):
            fail("data.agentId", "a string", progress["agentId"])
        if progress.get("type") == "agent_progress" and progress.get("message") is not None:
            if not isinstance(progress["message"], dict):
                fail("data.message", "an object", progress["message"])
            check_record(progress["message"], file, line, f"{prefix}data.message.")


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Claude Code session (see the module docstring for the mapping)."""
    return Session(Path(path)).run()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def _usage_parts(usage) -> dict:
    """The four token counts of a usage object (0 for a missing or non-numeric one)."""
    usage = usage if isinstance(usage, dict) else {}
    return {n: usage[n] if isinstance(usage.get(n), (int, float))
            and not isinstance(usage.get(n), bool) else 0 for n in USAGE_FIELDS}


def _responses(records: list[Record]) -> list[dict]:
    """The usage of each model response among ``records`` (one per ``message.id``, the largest
    value of each count, as the session's own responses are read); ``<synthetic>`` messages are
    not model calls."""
    found: dict[str, dict] = {}
    for record in records:
        message = record.data.get("message") if record.data.get("type") == "assistant" else None
        if not isinstance(message, dict) or message.get("model") == SYNTHETIC:
            continue
        entry = found.setdefault(message.get("id") or record.where, {})
        for name, value in _usage_parts(message.get("usage")).items():
            entry[name] = max(entry.get(name, 0), value)
    return list(found.values())


def _side_run(records: list[Record], agent_id: str | None) -> str:
    """Why a sub-agent log (or an inline sidechain) that no Task call spawns is skipped: a
    warm-up (its prompt is ``Warmup``: 2.0.x primes the cache with one), a prompt-suggestion run
    (2.1.x ``agent-aprompt_suggestion-*``), or a log the session's Task calls do not explain."""
    first = next((r for r in records if r.data.get("type") == "user"), None)
    if first is not None and _prompt_text(first.data) == "Warmup":
        return "warm-up run (prompt 'Warmup'; no Task call spawns it)"
    if agent_id is not None and agent_id.startswith("aprompt_suggestion"):
        return "prompt-suggestion run (no Task call spawns it)"
    return "sub-agent log that no Task call of the session spawns"


def _text_of(value) -> str:
    """A string, or the text of the text blocks of a content list (else empty)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(b["text"] for b in value if isinstance(b, dict)
                         and isinstance(b.get("text"), str))
    return ""


def _blocks(data: dict) -> list[dict]:
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _content(data: dict):
    message = data.get("message")
    return message.get("content", "") if isinstance(message, dict) else ""


def _is_prompt(data: dict) -> bool:
    """A user record of text only: the prompt a sub-agent starts from."""
    content = _content(data)
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") in HUMAN_BLOCKS for b in content)


def _result_usage(data: dict) -> dict | None:
    result = data.get("toolUseResult")
    usage = result.get("usage") if isinstance(result, dict) else None
    return usage if isinstance(usage, dict) else None


def _place(record: Record) -> tuple[Path, int]:
    return record.file, record.line


def sniff(sample: Sample) -> str | None:
    """JSON Lines records with ``sessionId`` and ``uuid`` (see
    :mod:`masrl.traces.importers._kit.detect`)."""
    records = sample.lines
    if any("sessionId" in r and "uuid" in r for r in records):
        return "JSON Lines records with sessionId and uuid"
    return None


def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return 'looks for: JSON Lines records with sessionId and uuid'
