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

A ``Task`` call finds its sub-agent by the ``agentId`` the log names (``agent_progress``
records, the call's ``toolUseResult``); without one, by its prompt (the sub-agent's first record
repeats the call's ``prompt``); an inline sidechain matching no prompt joins the earliest Task
call before it that has none (a counted repair).

Agents: ``main`` (the session's agent), ``user`` (the human), and one agent per sub-agent:
``agent-<agentId>`` for a ``Task`` tool call (named ``Agent`` in later versions), or
``task-<tool_use id>`` when the log names no ``agentId`` (v1.0.x), and ``agent-acompact-<id>``
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

Times: ``t`` is seconds since the earliest event. Records written a few milliseconds
before the record they follow have their ``t`` raised to it (counted repair). Events are
instantaneous: the log has times of records, not durations.

Tokens: each response's usage is repeated (as streamed so far) on every record of the response,
so the importer takes, per ``message.id``, the largest value of each field, and puts on the
response's last event ``tokens`` = input + cache-creation input + cache-read input + output
tokens, the breakdown in ``x_usage`` and the model in ``x_model``. A sub-agent's last response is
often logged before its output is complete; the ``Task`` result's ``usage`` is that response's
final usage, so it is merged in when its input counts match the last logged response, and is put
on the ``return`` event when they do not (the response is then missing from the log). A response
with no mapped block keeps its tokens in ``costs.tokens`` only (counted). No money is recorded.

Run level: ``trace_id`` ``claude-code:<sessionId>``, ``task_id`` the ``sessionId``, ``system``
``Claude Code <version>``, ``topology`` ``harness``, no rewards; ``costs`` total tokens,
``wall_clock_s`` (the last event's ``t``), ``tool_calls`` and ``messages``.

What is lost: all text (hashed), thinking blocks, hook and command output, file snapshots, the
todo list, permission modes and working directories.

Errors (exit 1), each naming the file and line: a line that is not a JSON object (a truncated
line), an unknown record type or content block type, a field of the wrong JSON type (``message``
and content blocks must be objects, ``message.content`` a string or an array, ids strings, a
``tool_use`` input an object: the message names the field, e.g. ``message.content[0].id``), a
mapped record without a timestamp or with an unreadable one, ``parentUuid`` links that form a
loop (the message lists it; walking it would never end), inline sidechain records or a sub-agent
file that no ``Task`` call spawns, a compaction file without its prompt, and a sub-agent log
imported on its own (every record a sidechain record).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from masrl.traces import strict_json
from masrl.traces.importers.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    read_jsonl,
    read_text,
)

FORMAT = "claude-code"
MAIN = "main"
HUMAN = "user"
TASK_TOOLS = ("Task", "Agent")
COMPACTION_PREFIX = "acompact-"
SKIPPED_TYPES = ("system", "file-history-snapshot", "queue-operation", "summary")
KNOWN_TYPES = ("user", "assistant", "progress", *SKIPPED_TYPES)
HUMAN_BLOCKS = ("text", "image", "document")
THINKING_BLOCKS = ("thinking", "redacted_thinking")
USAGE_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                "output_tokens")
USAGE_NAMES = ("input", "cache_creation", "cache_read", "output")
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
        for line, data in read_jsonl(file, self.result.skipped):
            kind = data.get("type")
            if kind not in KNOWN_TYPES:
                raise SourceError(file, line, f"unknown record type {kind!r} (expected one of "
                                  f"{', '.join(KNOWN_TYPES)})")
            check_record(data, file, line)
            records.append(Record(data, file, tag, line, f"{name}:{line}", agent,
                                  parent=data.get("parentUuid") or data.get("logicalParentUuid")))
        return records

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
                raise SourceError(self.path, group.records[0].line,
                                  f"sidechain records (a sub-agent, from here on) that no Task "
                                  f"tool call of {self.path.name} spawns")
        for agent_id, file in self.files.items():
            if f"agent-{agent_id}" in claimed:
                continue
            if not agent_id.startswith(COMPACTION_PREFIX):
                raise SourceError(file, None,
                                  f"no Task tool call of {self.path.name} spawns agent {agent_id}")
            self.compaction(agent_id, file)
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

    def parsed(self, agent_id: str) -> list[Record]:
        """The records of the sub-agent file of ``agent_id``, read once (not yet registered)."""
        if agent_id not in self._parsed:
            self._parsed[agent_id] = self.parse(self.files[agent_id], agent_id,
                                                f"agent-{agent_id}")
        return self._parsed[agent_id]

    def task_children(self, parent: Agent) -> list[Agent]:
        """The sub-agents spawned by ``parent``'s Task calls, with their records."""
        calls: list[tuple[str, dict, Record]] = []
        ids: dict[str, str] = {}
        embedded: dict[str, list[Record]] = {}
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
            result = data.get("toolUseResult")
            if data.get("type") == "user" and isinstance(result, dict) and "agentId" in result:
                for block in _blocks(data):
                    if block.get("type") == "tool_result":
                        ids.setdefault(block.get("tool_use_id"), str(result["agentId"]))
        children = []
        for tool_id, block, record in calls:
            params = block.get("input") if isinstance(block.get("input"), dict) else {}
            agent_id = ids.get(tool_id)
            source = self.claim(agent_id, params.get("prompt"), self.time(record))
            if agent_id is None and isinstance(source, str):
                agent_id = source
            elif agent_id is None and source is not None:
                agent_id = source.agent_id
            name = f"agent-{agent_id}" if agent_id else f"task-{tool_id}"
            child = Agent(name, spawner=parent.name, role=params.get("subagent_type"),
                          task_id=tool_id,
                          spawn_mode="async" if params.get("run_in_background") else "blocking")
            if isinstance(source, str):  # a sub-agent file
                child.records = self.parsed(source)
                self.register(self.files[source], child.records)
            elif source is not None:  # sidechain records of the main file (v1.0.x)
                child.records = source.records
            for own in child.records:
                own.agent = name
            seen = {r.data.get("uuid") for r in child.records}
            previous, same_response = None, {}
            for record in embedded.get(tool_id, []):
                record.agent = name
                if record.data.get("uuid") in seen:
                    self.result.skipped["progress:agent_progress (copy of a sub-agent file "
                                        "record)"] += 1
                    continue
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

    def claim(self, agent_id: str | None, prompt, called: int):
        """The records of the sub-agent a Task call spawns: the agentId of the file (``str``) or
        a :class:`Sidechain` of the main file, else ``None`` (its records are then only those
        of its ``agent_progress`` records). Found by agentId when the log names it; otherwise
        by the prompt (the sub-agent's first record repeats the Task call's ``prompt``); else
        the first unclaimed sidechain that starts after the call."""
        taken = {name[len("agent-"):] for name in self.agents if name.startswith("agent-")}
        if agent_id is not None:
            if agent_id in self.files and agent_id not in taken:
                return agent_id
            for group in self.inline:
                if not group.claimed and group.agent_id == agent_id:
                    group.claimed = True
                    return group
            return None
        for agent in self.files:
            if agent in taken or agent.startswith(COMPACTION_PREFIX):
                continue
            first = next((r for r in self.parsed(agent) if r.data.get("type") == "user"), None)
            if first is not None and _prompt_text(first.data) == prompt:
                return agent
        for group in self.inline:
            if not group.claimed and _prompt_text(group.records[0].data) == prompt:
                group.claimed = True
                return group
        for group in self.inline:
            if not group.claimed and self.time(group.records[0]) >= called:
                self.result.repairs["sidechain joined to the Task call before it (its prompt "
                                    "does not repeat the call's)"] += 1
                group.claimed = True
                return group
        return None

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
        for record in agent.records:
            data = record.data
            kind = data.get("type")
            uuid = data.get("uuid")
            if kind == "progress":
                progress = data.get("data") if isinstance(data.get("data"), dict) else {}
                if progress.get("type") != "agent_progress":
                    self.result.skipped[f"progress:{progress.get('type')}"] += 1
                continue
            if kind == "system":
                boundary = compactions.get(data.get("logicalParentUuid"))
                if data.get("subtype") == "compact_boundary" and boundary is not None:
                    self.emit_compaction_return(record, boundary)
                else:
                    self.result.skipped[f"system:{data.get('subtype')}"] += 1
                continue
            if kind in SKIPPED_TYPES:
                self.result.skipped[kind] += 1
                continue
            if data.get("isCompactSummary"):
                self.result.skipped["user:isCompactSummary (the summary a compaction returns)"] += 1
                continue
            if data.get("isMeta"):
                self.result.skipped["user:isMeta (context injected by the harness)"] += 1
                continue
            if first and agent.spawner is not None:
                first = False
                if kind == "user" and _is_prompt(data):
                    self.emit_spawn_prompt(agent, record)
                    continue
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
            if isinstance(uuid, str):
                self.produced[uuid] = events

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
        else:
            self.result.repairs["sub-agent prompt record carried by its spawn event"] += 1
        if isinstance(uuid, str) and agent.spawn_event is not None:
            self.produced[uuid] = [agent.spawn_event]
        elif isinstance(uuid, str):
            self.produced[uuid] = []

    def emit_assistant(self, agent: Agent, record: Record) -> list[str]:
        message = record.data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            raise SourceError(*_place(record), "assistant record without a message content list")
        blocks = message["content"]
        events = []
        numbered = len(blocks) > 1
        for k, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, dict) else None
            base = self.base(record, k if numbered else None)
            if kind in THINKING_BLOCKS:
                self.result.skipped[f"assistant block: {kind}"] += 1
                continue
            if kind == "text":
                event = self.build.event(**base, type="message", agent=agent.name,
                                         to=HUMAN if agent.name == MAIN else None,
                                         content_ref=content_ref(block.get("text", "")))
            elif kind in ("tool_use", "server_tool_use"):
                tool_id, name = block.get("id"), block.get("name")
                if kind == "tool_use" and name in TASK_TOOLS:
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
        child = self.child_of(tool_id) if name in TASK_TOOLS else None
        payload = block.get("content", "")
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
                    "order": len(self.responses)}
                self.result.repairs["sub-agent final response missing from the log (its usage "
                                    "put on the return event)"] += 1
        total = 0
        for entry in self.responses.values():
            tokens = sum(entry["usage"].values())
            total += tokens
            if entry["event"] is None:
                self.result.skipped["model response with no mapped block (tokens kept in "
                                    "costs.tokens only)"] += 1
                continue
            event = self.build.by_id[entry["event"]]
            event["tokens"] = tokens
            event["x_usage"] = {name: entry["usage"].get(f, 0)
                                for name, f in zip(USAGE_NAMES, USAGE_FIELDS)}
            if entry["model"]:
                event["x_model"] = entry["model"]
        return total

    def run(self) -> ImportResult:
        self.discover()
        self.emit_all()
        self.connect()
        tokens = self.attach_tokens()
        raised = self.build.raise_times()
        if raised:
            self.result.repairs["event time raised to the time of an event it depends on"] += raised
        start = min(e["t"] for e in self.build.events)
        for event in self.build.events:
            event["t"] = (event["t"] - start) / 1_000_000
        first = next((r.data for r in self.agents[MAIN].records if r.data.get("sessionId")), {})
        session = str(first.get("sessionId") or self.path.stem)
        version = first.get("version")
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


def sniff(sample) -> str | None:
    """JSON Lines records with ``sessionId`` and ``uuid`` (see
    :mod:`masrl.traces.importers.detect`)."""
    records = sample.lines
    if any("sessionId" in r and "uuid" in r for r in records):
        return "JSON Lines records with sessionId and uuid"
    return None
