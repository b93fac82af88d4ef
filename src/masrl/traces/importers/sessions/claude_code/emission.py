"""The events and edges of a session: each agent's records in turn become events (absolute
microseconds, made relative later), then the edges join them along the ``parentUuid`` chains,
tool calls to their results, spawns to sub-agents and sub-agents to their returns."""

from __future__ import annotations

from masrl.traces.importers._kit.common import SourceError, TraceBuilder, content_ref
from masrl.traces.importers.sessions.claude_code.ledger import Ledger
from masrl.traces.importers.sessions.claude_code.linking import Cast
from masrl.traces.importers.sessions.claude_code.messaging import (
    ENDING_NOTICES,
    LEAD,
    MESSAGE_TOOLS,
    SKIPPED_NOTICES,
    envelopes,
    is_notification,
    notice,
    notified,
    sent,
)
from masrl.traces.importers.sessions.claude_code.records import (
    HUMAN,
    HUMAN_BLOCKS,
    KNOWN_TYPES,
    MAIN,
    SKIPPED_TYPES,
    TASK_TOOLS,
    THINKING_BLOCKS,
    Agent,
    Record,
    blocks_of,
    content_of,
    is_prompt,
    micros,
    place,
    result_usage,
)
from masrl.traces.importers.sessions.claude_code.tokens import Responses


class Emitter:
    """Writes the events and edges of the agents of ``cast`` into :attr:`build`."""

    def __init__(self, cast: Cast, ledger: Ledger):
        self.cast, self.ledger = cast, ledger
        self.agents = cast.agents
        self.failed = cast.failed
        self.build = TraceBuilder()
        self.responses = Responses(ledger)
        self.produced: dict[str, list[str]] = {}  # record uuid -> its events' ids
        self.requests: list[tuple[str, str | None, Record]] = []  # (dst, parent uuid, record)
        self.call_event: dict[str, str] = {}  # tool_use id -> tool_call / spawn event id
        self.tool_name: dict[str, str] = {}  # tool_use id -> tool name
        self.spawn_events: dict[str, str] = {}  # agent -> the event that spawns it
        self.direct_edges: list[tuple[str, str]] = []  # (src, dst) known without a walk
        self.returns: list[tuple[str, str]] = []  # (sub-agent, its return event)
        self.memo: dict[str, tuple] = {}  # uuid -> (anchor events, dangling) (see anchor)
        self.dangling = False  # whether the last anchor() walk ended at an unknown uuid
        self.answers: set[tuple[str, str]] = set()  # (tool_call, its tool_result) event ids
        self.inline_compactions: dict[str, str] = {}  # compact summary uuid -> aggregate event
        self.by_task: dict | None = None  # Task call id -> the agent it spawns (see child_of)
        self.resumed: set[str] = set()  # sub-agents that return again after a resume
        self.carried_calls: set[str] = set()  # SendMessage calls that became messages
        self.sent: dict[str, list[tuple[str, str]]] = {}  # addressee -> (message event, text)
        self.relayed: dict[str, list[str]] = {}  # uuid of a record a message carries -> events
        self.last_event: dict[str, str] = {}  # agent -> its latest event so far
        self.launched: list[str] = []  # background sub-agents whose Task result is the launch
        self.background: set[tuple[str, str]] = set()  # (call, its notified result) event ids
        self.shells: dict[str, str] = {}  # background task id -> the tool_use id that started it
        self.errors = {b.get("tool_use_id") for a in self.agents.values() for r in a.records
                       if r.data.get("type") == "user" for b in blocks_of(r.data)
                       if b.get("type") == "tool_result" and b.get("is_error")}
        self.teammates = {a.name.split("~")[0]: a.name for a in self.agents.values()
                          if a.teammate}  # a teammate's name -> its agent (the latest spawned)
        self.lead = next((a.spawner for a in self.agents.values() if a.teammate), None)

    def emit(self) -> TraceBuilder:
        """Every agent's events, then the edges between them."""
        compactions = {agent.follows: agent for agent in self.agents.values()
                       if agent.role == "compaction" and agent.follows is not None}
        for agent in self.agents.values():
            self.emit_agent(agent, compactions)
        returned = {child for child, _event in self.returns}
        for name in self.launched:  # the notice of a launch that a notification answers
            if name not in returned:  # is not needed: its return is in the log
                self.ledger.repairs["background Task launch: its result is the call's "
                                    "tool_result, the sub-agent's own return is not in the "
                                    "log"] += 1
        if not self.build.events:
            raise SourceError(self.ledger.path, None, "no conversation record to import")
        self.connect()
        self.responses.resumed = self.resumed
        return self.build

    # ------------------------------------------------------------------ events

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
                self.ledger.skipped(record, f"unknown record type: {kind}")
                continue
            if kind == "progress":
                progress = data.get("data") if isinstance(data.get("data"), dict) else {}
                if progress.get("type") != "agent_progress":
                    self.ledger.skipped(record, f"progress:{progress.get('type')}")
                continue
            if kind == "system":
                boundary = compactions.get(data.get("logicalParentUuid"))
                if data.get("subtype") == "compact_boundary" and boundary is not None:
                    self.emit_compaction_return(record, boundary)
                    self.ledger.mapped(record)
                elif data.get("subtype") == "compact_boundary":
                    self.emit_inline_compaction(agent, record, summaries.get(uuid))
                    self.ledger.mapped(record)
                else:
                    self.ledger.skipped(record, f"system:{data.get('subtype')}")
                continue
            if kind == "attachment":
                held = data.get("attachment") or {}
                self.ledger.skipped(record, f"attachment:{held.get('type')}" + (
                    f" from a {held['origin']}" if held.get("origin") else ""))
                continue
            if kind in SKIPPED_TYPES:
                self.ledger.skipped(record, kind)
                continue
            if data.get("isCompactSummary"):
                carrier = self.inline_compactions.get(uuid)
                if carrier is not None:
                    self.produced[uuid] = [carrier]
                    self.ledger.mapped(record)
                else:
                    self.ledger.skipped(record, "user:isCompactSummary (the summary a "
                                        "compaction returns)")
                continue
            if data.get("isMeta"):
                self.ledger.skipped(record, "user:isMeta (context injected by the harness)")
                continue
            if first and agent.spawner is not None:
                first = False
                if kind == "user" and is_prompt(data):
                    self.emit_spawn_prompt(agent, record)
                    self.ledger.mapped(record)
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
                self.ledger.mapped(record)
                self.last_event[agent.name] = events[-1]
            if isinstance(uuid, str):
                self.produced[uuid] = self.relayed.pop(uuid, events)

    def emit_inline_compaction(self, agent: Agent, record: Record, summary: Record | None
                               ) -> None:
        """A ``compact_boundary`` with no compaction log: the agent's ``aggregate`` event, with
        the hash of the summary that follows (carried by it) and ``x_compaction``."""
        meta = record.data.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        details = {"trigger": meta.get("trigger"), "pre_tokens": meta.get("preTokens")}
        details = {k: v for k, v in details.items() if v is not None}
        event = self.build.event(**self.base(record), type="aggregate", agent=agent.name,
                                 content_ref=content_ref(content_of(summary.data))
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
        return {"id": f"{record.tag}:{record.line}{suffix}", "t": micros(record),
                "x_source": record.where}

    def emit_spawn_prompt(self, agent: Agent, record: Record) -> None:
        """The sub-agent's prompt record: carried by the spawn event."""
        uuid = record.data.get("uuid")
        if agent.role == "compaction":
            event = self.build.event(**self.base(record), type="spawn", agent=agent.spawner,
                                     to=agent.name, role="compaction",
                                     content_ref=content_ref(content_of(record.data)))
            self.spawn_events[agent.name] = event["id"]
            self.requests.append((event["id"], agent.follows, record))
        elif agent.workflow is not None:
            self.emit_workflow_spawn(agent, record, carried=True)
        else:
            self.ledger.repairs["sub-agent prompt record carried by its spawn event"] += 1
        spawn = self.spawn_events.get(agent.name)
        if isinstance(uuid, str) and spawn is not None:
            self.produced[uuid] = [spawn]
        elif isinstance(uuid, str):
            self.produced[uuid] = []

    def emit_workflow_spawn(self, agent: Agent, record: Record, carried: bool) -> None:
        """The spawn of a workflow agent, at the time of its first record (carrying its prompt
        when that record is one), depending on the ``Workflow`` call's event."""
        base = self.base(record)
        if not carried:
            base["id"] = f"{base['id']}.spawn"
        workflow = agent.workflow or {}
        event = self.build.event(**base, type="spawn", agent=agent.spawner, to=agent.name,
                                 role=agent.role, x_workflow=dict(sorted(workflow.items())),
                                 content_ref=content_ref(content_of(record.data)) if carried
                                 else None)
        self.spawn_events[agent.name] = event["id"]
        call = self.call_event.get(agent.launch) if agent.launch is not None else None
        if call is not None:
            self.direct_edges.append((call, event["id"]))

    def emit_assistant(self, agent: Agent, record: Record) -> list[str]:
        message = record.data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            raise SourceError(*place(record), "assistant record without a message content list")
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
                params = block.get("input") if isinstance(block.get("input"), dict) else {}
                message = sent(params) if kind == "tool_use" and name in MESSAGE_TOOLS \
                    and tool_id not in self.errors else None
                if message is not None:
                    event = self.emit_sent(agent, base, message)
                    self.carried_calls.add(tool_id)
                elif kind == "tool_use" and name in TASK_TOOLS and tool_id not in self.failed:
                    child = self.child_of(tool_id)
                    event = self.build.event(**base, type="spawn", agent=agent.name,
                                             to=child.name, role=child.role,
                                             content_ref=content_ref(params.get("prompt", "")))
                    self.spawn_events[child.name] = event["id"]
                else:
                    event = self.build.event(**base, type="tool_call", agent=agent.name,
                                             tool=name, content_ref=content_ref(
                                                 block.get("input", {})))
                self.call_event[tool_id] = event["id"]
                self.tool_name[tool_id] = name
            elif isinstance(kind, str) and kind.endswith("_tool_result"):
                event = self.emit_result(agent, record, block, base)
                if event is None:
                    continue
            else:
                raise SourceError(*place(record), f"unknown assistant content block {kind!r}")
            events.append(event["id"])
            if event["type"] != "tool_result":
                self.requests.append((event["id"], record.parent, record))
        for k, kind in enumerate(thinking):  # a record of thinking only is a skipped line
            if events or k:
                self.ledger.account.skip_part(f"assistant block: {kind}")
            else:
                self.ledger.skipped(record, f"assistant block: {kind}")
        self.responses.note(agent, record, events)
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
            raise SourceError(*place(record), "user record without a message content")
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        rest = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        for block in rest:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind not in HUMAN_BLOCKS:
                raise SourceError(*place(record), f"unknown user content block {kind!r}")
        text = content if isinstance(content, str) else \
            rest[0].get("text") if len(rest) == 1 and rest[0].get("type") == "text" else None
        started = data.get("toolUseResult")  # a background shell: its id, for its notification
        started = started.get("backgroundTaskId") if isinstance(started, dict) else None
        if isinstance(started, str) and len(results) == 1:
            self.shells.setdefault(started, results[0].get("tool_use_id"))
        heard = self.heard(agent, record, text) if isinstance(text, str) else None
        carried = [b for b in results if b.get("tool_use_id") in self.carried_calls]
        results = [b for b in results if b.get("tool_use_id") not in self.carried_calls]
        parts = [p for p in heard or [] if isinstance(p, dict)]
        numbered = len(results) + (len(parts) if heard is not None else 1 if rest else 0) > 1
        events = []
        for k, block in enumerate(results):
            base = self.base(record, k if numbered else None)
            events.append(self.emit_result(agent, record, block, base)["id"])
        skips = ["tool_result of SendMessage (carried by its message event)"] * len(carried) + \
            [p for p in heard or [] if isinstance(p, str)]
        for k, fields in enumerate(parts):
            base = self.base(record, len(results) + k if numbered else None)
            call = fields.pop("call", None)  # a background call this notified result answers
            event = self.build.event(**base, **fields)
            events.append(event["id"])
            if call is not None:
                self.direct_edges.append((call, event["id"]))
                self.background.add((call, event["id"]))
            if event["type"] == "return":
                self.returns.append((event["agent"], event["id"]))
            self.requests.append((event["id"], record.parent, record))
        for k, reason in enumerate(skips):
            if events or k < len(skips) - 1:
                self.ledger.account.skip_part(reason)
            else:
                self.ledger.skipped(record, reason)
        if rest and heard is None:
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

    def emit_sent(self, agent: Agent, base: dict, message: tuple) -> dict:
        """A ``SendMessage`` call: a ``message`` from ``agent`` to its addressee (none for a
        broadcast), its type kept when it is not a plain message."""
        to, text, kind = message
        to = self.addressee(to) if to is not None else None
        event = self.build.event(**base, type="message", agent=agent.name, to=to,
                                 content_ref=content_ref(text if text is not None else ""),
                                 x_message_type=kind if kind not in (None, "message") else None)
        if to is not None:
            self.sent.setdefault(to, []).append((event["id"], text))
        return event

    def addressee(self, name: str) -> str:
        """The agent a name in a message stands for: a teammate by its name, a sub-agent by
        its agent id, the team's lead as ``team-lead``; else the name as the log gives it."""
        if name in self.teammates:
            return self.teammates[name]
        if f"agent-{name}" in self.agents:
            return f"agent-{name}"
        if name == LEAD and self.lead is not None:
            return self.lead
        return name

    def heard(self, agent: Agent, record: Record, text: str) -> list | None:
        """What a user record's text says when another agent or the harness, not the person,
        wrote it: the events (as fields) and the skip reasons of its teammate envelopes, what a
        ``<task-notification>`` stands for (:meth:`notification`), or nothing for the copy of a
        message an earlier ``SendMessage`` event carries; None for anything else (read as
        before)."""
        copy = self.copy_of(agent, record, text)
        if copy is not None:
            return ["user record: a message another agent sent (carried by its SendMessage "
                    "event)"]
        if is_notification(text):
            return self.notification(agent, text)
        found = envelopes(text)
        if found is None:
            return None
        parts: list = []
        for sender, body in found[0]:
            sender = self.addressee(sender)
            kind = notice(body)
            if kind in SKIPPED_NOTICES:
                parts.append(SKIPPED_NOTICES[kind])
            elif kind in ENDING_NOTICES:
                parts.append({"type": "despawn", "agent": sender, "x_message_type": kind})
            else:
                parts.append({"type": "message", "agent": sender, "to": agent.name,
                              "content_ref": content_ref(body), "x_message_type": kind})
        if found[1]:  # words outside the envelopes: the person's, or the spawner's
            sender = HUMAN if agent.spawner is None else agent.spawner
            parts.append({"type": "message", "agent": sender, "to": agent.name,
                          "role": "human" if sender == HUMAN else None,
                          "content_ref": content_ref(found[1])})
        return parts

    def notification(self, agent: Agent, text: str) -> list:
        """A ``<task-notification>``: the harness telling ``agent`` that a background task it
        started finished. A sub-agent's (``<task-id>`` its agent id, or ``<tool-use-id>`` the
        Task call that spawned it) is its return; a background shell command's or workflow's
        (``<tool-use-id>`` a call of ``agent``, or, in a notice without that field (2.1.39),
        the ``<task-id>`` its launch result gave as ``backgroundTaskId``) is a second result of
        that call, joined to it as an ``async`` dependency; one whose task is not in the log is
        a skipped record. Never a message of the person."""
        task, tool_id = notified(text), notified(text, "tool-use-id")
        if tool_id is None and task is not None:
            tool_id = self.shells.get(task)
        child = self.agents.get(f"agent-{task}") if task is not None else None
        if child is None and tool_id in self.tool_name and self.tool_name[tool_id] in \
                TASK_TOOLS and tool_id not in self.failed:
            child = self.child_of(tool_id)
        if child is not None and child.spawner == agent.name:
            self.resumed.add(child.name)
            return [{"type": "return", "agent": child.name, "to": agent.name,
                     "content_ref": content_ref(text)}]
        call = self.call_event.get(tool_id) if tool_id is not None else None
        if call is not None and child is None and tool_id not in self.carried_calls \
                and self.build.by_id[call]["agent"] == agent.name \
                and self.build.by_id[call]["type"] == "tool_call":
            return [{"type": "tool_result", "agent": agent.name, "tool": self.tool_name[tool_id],
                     "trusted": False, "content_ref": content_ref(text), "call": call}]
        return ["user record: <task-notification> of a background task whose call is not in "
                "the agent's log (the harness's notice, not the person's words)"]

    def copy_of(self, agent: Agent, record: Record, text: str) -> str | None:
        """The message event of an earlier ``SendMessage`` to ``agent`` whose text ``text``
        repeats (the receiving end of it in the agent's own log), taken once; the record is
        then carried by that message (and follows the agent's previous event)."""
        waiting = self.sent.get(agent.name, [])
        if not waiting:
            return None
        found = envelopes(text)
        bodies = [body for _sender, body in found[0]] if found is not None else None
        for k, (event_id, said) in enumerate(waiting):
            if said == text or (isinstance(said, str) and bodies == [said]):
                del waiting[k]
                uuid = record.data.get("uuid")
                if isinstance(uuid, str):
                    before = self.last_event.get(agent.name)
                    self.relayed[uuid] = [event_id, *([before] if before else [])]
                return event_id
        return None

    def emit_result(self, agent: Agent, record: Record, block: dict, base: dict) -> dict | None:
        tool_id = block.get("tool_use_id")
        name = self.tool_name.get(tool_id)
        if tool_id in self.carried_calls:  # a server result of a SendMessage: carried too
            self.ledger.account.skip_part("tool_result of SendMessage (carried by its message "
                                          "event)")
            return None
        child = self.child_of(tool_id) if name in TASK_TOOLS and tool_id not in self.failed \
            else None
        payload = block.get("content", "")
        if child is not None and child.teammate:  # a teammate reports by message, later
            self.ledger.repairs["teammate spawn: its result is the call's tool_result (a "
                                "teammate reports by message, not by return)"] += 1
            child = None
        if child is not None and child.launched:  # only the launch is reported; the return is
            self.launched.append(child.name)  # a later notification's, when there is one
            child = None
        if child is not None:
            event = self.build.event(**base, type="return", agent=child.name, to=agent.name,
                                     content_ref=content_ref(payload),
                                     x_error=True if block.get("is_error") else None)
            usage = result_usage(record.data)
            if usage is not None:
                self.responses.final(child.name, event["id"], usage)
            self.returns.append((child.name, event["id"]))
            return event
        event = self.build.event(**base, type="tool_result", agent=agent.name,
                                 tool=name, trusted=False, content_ref=content_ref(payload),
                                 x_error=True if block.get("is_error") else None)
        call = self.call_event.get(tool_id)
        if call is None:
            self.ledger.repairs["tool result whose call is not in the log (joined to the "
                                "record it follows)"] += 1
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
        if self.by_task is None:  # the first agent of each Task call id, indexed once
            self.by_task = {}
            for agent in self.agents.values():
                self.by_task.setdefault(agent.task_id, agent)
        return self.by_task[tool_id]

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
            record = self.ledger.by_uuid.get(current)
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
                self.ledger.repairs["record whose parentUuid names no record of the session "
                                    "(starts a new chain)"] += 1
            for src in sources or []:
                self.link(src, dst)
        for src, dst in self.direct_edges:
            self.link(src, dst)
        own, entered = self.own_events(), self.entered()
        for agent in self.agents.values():
            spawn = self.spawn_events.get(agent.name)
            if agent.spawner is None or spawn is None:
                continue
            linked = entered.get(agent.name, set())
            for start in [e for e in own.get(agent.name, []) if e not in linked]:
                self.link(spawn, start)
        inner = self.inner_sources()
        resumed = self.resumed_sinks(own)
        for child, ret in self.returns:
            # each return of a resumed sub-agent ends the work done since the one before
            sinks = resumed[ret] if ret in resumed else [e for e in own.get(child, [])
                                                         if e not in inner]
            spawn = self.spawn_events.get(child)
            for src in sinks or ([spawn] if spawn is not None else []):
                self.link(src, ret)

    def resumed_sinks(self, own: dict[str, list[str]]) -> dict[str, list[str]]:
        """For a sub-agent resumed after it returned: return event -> the sub-agent's events
        after its previous return and not after this one (by time) that no other event of that
        stretch depends on, in emission order: the work that return ends."""
        by_id = self.build.by_id
        found: dict[str, list[str]] = {}
        for child in self.resumed:
            rets = sorted((by_id[r]["t"], r) for c, r in self.returns if c == child)
            start = None
            for t, ret in rets:
                stretch = {e for e in own.get(child, []) if by_id[e]["t"] <= t
                           and (start is None or by_id[e]["t"] > start)}
                fed = {edge["src"] for edge in self.build.edges
                       if edge["src"] in stretch and edge["dst"] in stretch}
                found[ret] = [e for e in own.get(child, []) if e in stretch and e not in fed]
                start = t
        return found

    def own_events(self) -> dict[str, list[str]]:
        """agent -> the ids of its events other than returns, in emission order (an index
        built once: scanning every event per agent made a session of many sub-agents and
        compactions quadratic)."""
        own: dict[str, list[str]] = {}
        for event in self.build.events:
            if event["type"] != "return":
                own.setdefault(event["agent"], []).append(event["id"])
        return own

    def entered(self) -> dict[str, set[str]]:
        """agent -> its events that an event of its own, or its spawn, precedes (edges made
        for one agent's spawn enter only that agent's events: one index serves them all)."""
        by_id = self.build.by_id
        spawns = {(event, name) for name, event in self.spawn_events.items()}
        entered: dict[str, set[str]] = {}
        for edge in self.build.edges:
            a, b = by_id[edge["src"]], by_id[edge["dst"]]
            if a["agent"] == b["agent"] or (edge["src"], b["agent"]) in spawns:
                entered.setdefault(b["agent"], set()).add(edge["dst"])
        return entered

    def inner_sources(self) -> set[str]:
        """The events (returns aside) that precede another event of their own agent."""
        by_id = self.build.by_id
        inner = set()
        for edge in self.build.edges:
            a, b = by_id[edge["src"]], by_id[edge["dst"]]
            if a["agent"] == b["agent"] and a["type"] != "return" and b["type"] != "return":
                inner.add(edge["src"])
        return inner

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
        if (src, dst) in self.background:
            return "tool_dependency", "async"
        if a["type"] == "message" and a.get("to") == b["agent"]:
            return "message", None
        return "causal", None
