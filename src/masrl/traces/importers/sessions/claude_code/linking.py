"""Who spawns whom in a session: each Task call's sub-agent (by the agentId the log names, else
by its prompt, else the next unclaimed sidechain), the compactions' spawners, the workflow
agents and their launching calls; the logs no call explains are skipped."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from masrl.traces import strict_json
from masrl.traces.importers._kit.common import SourceError, read_session_lines, read_text
from masrl.traces.importers.sessions.claude_code.discovery import SessionFiles, WorkflowRun
from masrl.traces.importers.sessions.claude_code.ledger import Ledger
from masrl.traces.importers.sessions.claude_code.messaging import LEAD, envelopes, teammate_spawn
from masrl.traces.importers.sessions.claude_code.records import (
    COMPACTION_PREFIX,
    HUMAN,
    MAIN,
    RUN_ID,
    TASK_TOOLS,
    WORKFLOW_TOOLS,
    Agent,
    Record,
    Sidechain,
    blocks_of,
    micros,
    prompt_text,
    side_run_reason,
    text_of,
)


@dataclass(frozen=True)
class Cast:
    """The session's agents, in the order their events are emitted, and what linking found."""

    agents: dict[str, Agent]
    failed: frozenset[str]  # Task calls that started no sub-agent (an error result)
    side_runs: Counter  # sub-agent logs no Task call spawns, by kind
    workflow_runs: tuple[tuple[str, bool, int], ...]  # (run id, launch found, agents)
    workflow_meta: int  # journal lines, meta files and manifests read as metadata


def link(files: SessionFiles, ledger: Ledger) -> Cast:
    """The agents of the session described by ``files`` and who spawns each."""
    return _Linker(files, ledger).run()


class _Linker:
    def __init__(self, files: SessionFiles, ledger: Ledger):
        self.files, self.ledger = files, ledger
        self.agents: dict[str, Agent] = {}
        self.failed: set[str] = set()
        self.side_runs: Counter = Counter()
        self.claimed: set[int] = set()  # positions of the inline sidechains a call has taken
        self.parsed_files: dict[str, list[Record]] = {}  # agentId -> its file's records
        self.workflow_runs: list[tuple[str, bool, int]] = []
        self.workflow_meta = 0
        self.boundaries: dict[str, str] | None = None  # see compact_boundaries

    def run(self) -> Cast:
        main = Agent(MAIN, role="main", records=self.files.main)
        self.agents[MAIN] = main
        claimed: set[str] = set()
        queue = [main]
        while queue:
            parent = queue.pop(0)
            for child in self.task_children(parent):
                claimed.add(child.name)
                queue.append(child)
        for k, group in enumerate(self.files.sidechains):
            if k not in self.claimed:
                self.side_runs[side_run_reason(group.records, None)] += 1
                self.ledger.skip_run(group.records, side_run_reason(group.records, None))
        for agent_id, file in self.files.sub_agent_files.items():
            if f"agent-{agent_id}" in claimed:
                continue
            if agent_id.startswith(COMPACTION_PREFIX):
                self.compaction(agent_id, file)
                continue
            records = self.parsed(agent_id)
            self.ledger.list_file(file)
            self.side_runs[side_run_reason(records, agent_id)] += 1
            self.ledger.skip_run(records, side_run_reason(records, agent_id))
        if self.files.workflow_runs:
            launches = self.workflow_launches()
            for run in self.files.workflow_runs:
                self.workflow(run, launches.get(run.folder.name))
        self.check_loops()
        self.check_spawners()
        return Cast(self.agents, frozenset(self.failed), self.side_runs,
                    tuple(self.workflow_runs), self.workflow_meta)

    def parsed(self, agent_id: str) -> list[Record]:
        """The records of the sub-agent file of ``agent_id``, read once (not yet registered)."""
        if agent_id not in self.parsed_files:
            self.parsed_files[agent_id] = self.ledger.parse(
                self.files.sub_agent_files[agent_id], agent_id, f"agent-{agent_id}")
        return self.parsed_files[agent_id]

    # ------------------------------------------------------------------ Task calls

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
                for block in blocks_of(data):
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
                for block in blocks_of(data):
                    if block.get("type") == "tool_result":
                        results.setdefault(block.get("tool_use_id"), (block, record))
                result = data.get("toolUseResult")
                if isinstance(result, dict) and "agentId" in result:
                    for block in blocks_of(data):
                        if block.get("type") == "tool_result":
                            ids.setdefault(block.get("tool_use_id"), str(result["agentId"]))
        sources = self.claim_all(calls, ids)
        children = []
        for tool_id, block, _record in calls:
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
            elif agent_id is None and isinstance(source, Sidechain):
                agent_id = source.agent_id
            launch = answer[1].data.get("toolUseResult") if answer is not None else None
            launched = isinstance(launch, dict) and launch.get("status") == "async_launched"
            teammate = teammate_spawn(params)
            name = teammate or (f"agent-{agent_id}" if agent_id else f"task-{tool_id}")
            if teammate is not None and name in self.agents:  # a teammate spawned again
                name = next(f"{teammate}~{n}" for n in range(2, len(self.agents) + 3)
                            if f"{teammate}~{n}" not in self.agents)
                self.ledger.repairs["teammate name spawned again (the later one named "
                                    "NAME~N; messages to the name go to the latest)"] += 1
            if teammate in (HUMAN, MAIN, LEAD):
                raise SourceError(_record.file, _record.line, (
                    f"Task call {tool_id} names its teammate {teammate!r}, the name of "
                    "another party of the session: its messages could not be told apart"))
            if name in self.agents:  # one sub-agent for two calls: a spawner could be its own
                raise SourceError(_record.file, _record.line, (
                    f"Task call {tool_id} of {parent.name} names {name} itself as the sub-agent "
                    "it starts: an agent never spawns itself") if name == parent.name else (
                    f"Task call {tool_id} names sub-agent {agent_id or tool_id}, which another "
                    "call already spawns: a sub-agent has one spawner"))
            records: list[Record] = []
            where = "none"
            if isinstance(source, str):  # a sub-agent file
                records = self.parsed(source)
                where = "file"
                self.ledger.register(self.files.sub_agent_files[source], records)
            elif isinstance(source, Sidechain):  # sidechain records of the main file (v1.0.x)
                records = source.records
                where = "inline"
            for own in records:
                own.agent = name
            where = self.carried(tool_id, agent_id or name, name, records,
                                 embedded.get(tool_id, []), where)
            child = Agent(name, spawner=parent.name, role=params.get("subagent_type"),
                          records=records, task_id=tool_id, launched=launched, source=where,
                          spawn_mode="async" if params.get("run_in_background") or launched
                          or teammate else "blocking", teammate=teammate is not None)
            self.agents[name] = child
            children.append(child)
        return children

    def carried(self, tool_id: str, label: str, name: str, records: list[Record],
                copies: list[Record], where: str) -> str:
        """Add to ``records`` the sub-agent records that ``agent_progress`` records carry and
        its log lacks (a copy of a record of its log is skipped), chained in order; returns
        where the sub-agent's records are (``progress`` when only there)."""
        seen = {r.data.get("uuid") for r in records}
        previous, same_response = None, {}
        for record in copies:
            record.agent = name
            if record.data.get("uuid") in seen:
                self.ledger.skipped(record, "progress:agent_progress (copy of a sub-agent file "
                                    "record)")
                continue
            if where == "none":
                where = "progress"
            record.tag = f"{record.tag}.{label}"
            uuid = record.data.get("uuid")
            response = (record.data.get("message") or {}).get("id") \
                if record.data.get("type") == "assistant" else None
            record.parent = same_response.get(response, previous) if response else previous
            if isinstance(uuid, str):
                known = self.ledger.by_uuid.setdefault(uuid, record)
                if known is not record:  # a copy's uuid that another record of the log has
                    raise SourceError(record.file, record.line, f"data.message.uuid {uuid} "
                                      f"is also the uuid of {known.where}: the copied record "
                                      "cannot be chained")
                previous = uuid
                if response:
                    same_response[response] = uuid
            records.append(record)
        return where

    def claim_all(self, calls: list[tuple[str, dict, Record]], ids: dict[str, str]) -> dict:
        """tool_use id -> the records of the sub-agent each Task call spawns: the agentId of
        its file (``str``) or a :class:`Sidechain` of the main file. Found by the agentId the
        log names; then by the prompt (the sub-agent's first record repeats the Task call's
        ``prompt``), every call in turn, so that a call without a match cannot take another
        call's sub-agent; then, for the calls left that did not fail, the first unclaimed
        sidechain that starts after the call (a counted repair)."""
        found: dict[str, object] = {}
        files = self.files.sub_agent_files
        groups = list(enumerate(self.files.sidechains))
        taken = {name[len("agent-"):] for name in self.agents if name.startswith("agent-")}
        for tool_id, _block, _record in calls:
            agent_id = ids.get(tool_id)
            if agent_id is None:
                continue
            if agent_id in files and agent_id not in taken:
                found[tool_id] = agent_id
                taken.add(agent_id)
                continue
            for k, group in groups:
                if k not in self.claimed and group.agent_id == agent_id:
                    self.claimed.add(k)
                    found[tool_id] = group
                    break
        for tool_id, block, _record in calls:
            if tool_id in found or ids.get(tool_id) is not None:
                continue
            params = block.get("input") if isinstance(block.get("input"), dict) else {}
            prompt = params.get("prompt")
            if not isinstance(prompt, str):
                continue
            for agent in files:
                if agent in taken or agent.startswith(COMPACTION_PREFIX):
                    continue
                first = next((r for r in self.parsed(agent) if r.data.get("type") == "user"),
                             None)
                if first is not None and prompt in _prompts(prompt_text(first.data)):
                    found[tool_id] = agent
                    taken.add(agent)
                    break
            else:
                for k, group in groups:
                    if k not in self.claimed and prompt_text(group.records[0].data) == prompt:
                        self.claimed.add(k)
                        found[tool_id] = group
                        break
        for tool_id, _block, record in calls:
            if tool_id in found or ids.get(tool_id) is not None \
                    or self.answered_with_error(tool_id):
                continue
            called = micros(record)
            for k, group in groups:
                if k not in self.claimed and micros(group.records[0]) >= called:
                    self.ledger.repairs["sidechain joined to the Task call before it (its "
                                        "prompt does not repeat the call's)"] += 1
                    self.claimed.add(k)
                    found[tool_id] = group
                    break
        return found

    def answered_with_error(self, tool_id: str) -> bool:
        """Whether the tool result of ``tool_id`` in the lines read so far is an error."""
        for _file, _line, data in self.ledger.read_lines:
            if data.get("type") != "user":
                continue
            for block in blocks_of(data):
                if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                    return bool(block.get("is_error"))
        return False

    # ------------------------------------------------------------------ compactions

    def compaction(self, agent_id: str, file: Path) -> None:
        name = f"agent-{agent_id}"
        records = self.ledger.load(file, agent_id, name)
        prompt = next((r for r in records if r.data.get("type") == "user"
                       and not r.data.get("isMeta")), None)
        if prompt is None:
            raise SourceError(file, None,
                              "compaction run without its prompt (a non-meta user record)")
        follows = self.compaction_follows(name, prompt)
        self.agents[name] = Agent(name, spawner=self.compaction_spawner(follows),
                                  role="compaction", records=records, spawn_mode="blocking",
                                  prompt_uuid=prompt.data.get("uuid"), follows=follows)

    def compaction_follows(self, name: str, prompt: Record) -> str | None:
        """The uuid of the record a compaction's prompt follows: the nearest record up the
        prompt's ``parentUuid`` chain that is not one of the compaction's own records (passing
        its own records is counted)."""
        current, seen = prompt.parent, set()
        while isinstance(current, str) and current not in seen:
            seen.add(current)
            record = self.ledger.by_uuid.get(current)
            if record is None or record.agent != name:
                return current
            self.ledger.repairs["compaction prompt that follows the compaction's own records "
                                "(the record they follow is used)"] += 1
            current = record.parent
        return None

    def compaction_spawner(self, follows: str | None) -> str:
        """The agent whose context a compaction run summarises: the agent whose log holds the
        ``compact_boundary`` record whose ``logicalParentUuid`` is the record the prompt follows
        (the compaction's return), else the agent of that record, else ``main``."""
        if follows is None:
            return MAIN
        if self.boundaries is None:
            self.boundaries = self.compact_boundaries()
        if follows in self.boundaries:
            return self.boundaries[follows]
        record = self.ledger.by_uuid.get(follows)
        return record.agent if record is not None and record.agent in self.agents else MAIN

    def compact_boundaries(self) -> dict[str, str]:
        """``logicalParentUuid`` of each ``compact_boundary`` record -> the first agent (not a
        compaction) whose log holds one: an index built once, when the first compaction is
        linked (the agents it covers are all known by then; a rescan per compaction made a
        session of many compactions quadratic)."""
        found: dict[str, str] = {}
        for agent in self.agents.values():
            if agent.role == "compaction":
                continue
            for record in agent.records:
                data = record.data
                follows = data.get("logicalParentUuid")
                if (isinstance(follows, str) and data.get("type") == "system"
                        and data.get("subtype") == "compact_boundary"):
                    found.setdefault(follows, agent.name)
        return found

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
                self.agents[agent.name] = replace(agent, spawner=MAIN)
                self.ledger.repairs["compaction run that would be spawned by its own "
                                    "descendant (spawned by main instead)"] += 1

    def check_loops(self) -> None:
        """A ``parentUuid`` chain that comes back to a record it passed is an error naming the
        record where the loop closes (walking the chain would never end)."""
        by_uuid = self.ledger.by_uuid
        done: set[str] = set()
        for uuid in by_uuid:
            path: list[str] = []
            on_path: set[str] = set()
            current = uuid
            while current is not None and current not in done:
                if current in on_path:
                    loop = path[path.index(current):]
                    record = by_uuid[loop[-1]]
                    raise SourceError(record.file, record.line,
                                      f"parentUuid chain loops: {' -> '.join([*loop, current])} "
                                      f"(each record names the next as its parent)")
                record = by_uuid.get(current)
                if record is None:
                    break
                path.append(current)
                on_path.add(current)
                current = record.parent if isinstance(record.parent, str) else None
            done.update(path)

    # ------------------------------------------------------------------ workflow runs

    def workflow(self, run: WorkflowRun, launch: tuple[str, str] | None) -> None:
        """The agents of one workflow run (2.1.x ``Workflow`` tool): each log is a sub-agent,
        spawned (mode ``async``) by the agent whose ``Workflow`` call launched the run, else by
        ``main`` (a counted repair); the run's metadata gives labels and phases."""
        info = self.workflow_metadata(run.folder)
        count = 0
        for log in run.logs:
            agent_id = log.stem[len("agent-"):]
            name = f"agent-{agent_id}"
            if name in self.agents:
                raise SourceError(log, None, f"workflow agent {agent_id} has a second log "
                                  "in the session (agent ids must be unique)")
            records = self.ledger.load(log, agent_id, name)
            if not records:
                raise SourceError(log, None, "workflow agent log without a record")
            details = {"run_id": run.folder.name, **info.get(agent_id, {})}
            if "workflow" in info.get("", {}):
                details["workflow"] = info[""]["workflow"]
            agent = Agent(name, spawner=launch[1] if launch else MAIN,
                          role=details.get("label") or "workflow agent", records=records,
                          spawn_mode="async", source="workflow", workflow=details,
                          launch=launch[0] if launch else None)
            if launch is None:
                self.ledger.repairs["workflow agent whose launching Workflow call is not in "
                                    "the log (spawned by main)"] += 1
            self.agents[name] = agent
            count += 1
        self.workflow_runs.append((run.folder.name, launch is not None, count))

    def workflow_launches(self) -> dict[str, tuple[str, str]]:
        """run id -> (tool_use id, calling agent) of each ``Workflow`` call of the session whose
        result names its run: ``toolUseResult.runId`` (or its ``transcriptDir``), else a
        ``wf_...`` id in the result's text."""
        calls: dict[str, str] = {}
        for agent in list(self.agents.values()):
            for record in agent.records:
                if record.data.get("type") != "assistant":
                    continue
                for block in blocks_of(record.data):
                    if block.get("type") == "tool_use" and block.get("name") in WORKFLOW_TOOLS:
                        calls[block.get("id")] = agent.name
        found: dict[str, tuple[str, str]] = {}
        for agent in list(self.agents.values()):
            for record in agent.records:
                if record.data.get("type") != "user":
                    continue
                outcome = record.data.get("toolUseResult")
                outcome = outcome if isinstance(outcome, dict) else {}
                for block in blocks_of(record.data):
                    tool_id = block.get("tool_use_id")
                    if block.get("type") != "tool_result" or tool_id not in calls:
                        continue
                    named = [outcome.get("runId"), outcome.get("transcriptDir"),
                             block.get("content")]
                    for value in named:
                        match = RUN_ID.search(text_of(value))
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

        path = self.files.path
        manifest = path.parent / path.stem / "workflows" / f"{run.name}.json"
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
            self.ledger.register(journal, [])
            lines = read_session_lines(journal, self.ledger.account)
            for _line, data in lines:
                self.workflow_meta += 1
                self.ledger.account.skip(f"workflow journal line: {data.get('type')} (metadata, "
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
        data, findings = strict_json.parse_fast(read_text(file))
        if findings or not isinstance(data, dict):
            raise SourceError(file, None, "not a JSON object (a workflow metadata file)")
        self.ledger.register(file, [])
        self.ledger.account.read()
        self.ledger.account.skip(reason)
        self.workflow_meta += 1
        return data


def _prompts(text) -> tuple:
    """The prompts a sub-agent's first record can hold: its text, and for a teammate the body
    of the one envelope from its team lead that its text may be."""
    if not isinstance(text, str):
        return ()
    found = envelopes(text)
    if found is not None and len(found[0]) == 1 and found[0][0][0] == LEAD and not found[1]:
        return text, found[0][0][1]
    return (text,)
