"""Import a Gemini CLI session (its chat recording, JSON or JSON Lines, with the sessions of its
sub-agents) as an orchestration trace. A JSON Lines recording is read as it stands at its end
(rewrites, updates and rewinds applied). Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from masrl import wording as words
from masrl.traces import strict_json
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    json_type,
    latest_end,
    read_session_lines,
    read_text,
)
from masrl.traces.importers._kit.numbers import count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.timestamps import moment_ns

FORMAT = "gemini-cli"
MAIN = "main"
HUMAN = "user"
NOTES = ("info", "error", "warning")
FINAL = ("success", "error", "cancelled")


@dataclass
class Message:
    data: dict
    where: str  # FILE:LINE or messages[k] (x_source)
    place: object = None  # the line, or messages[k] (errors)
    file: Path | None = None  # the session file it is read from
    counted: bool = True  # whether its own record is still to be accounted (see emit)


@dataclass
class Conversation:
    """One session file, read to the conversation it ends with."""

    file: Path
    meta: dict
    messages: list[Message]
    shape: str
    agent: str = MAIN
    tag: str = MAIN
    spawner: str | None = None
    spawn: str | None = None
    events: list[str] = field(default_factory=list)
    rewinds: int = 0
    copies: int = 0


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Gemini CLI session and its sub-agent sessions."""
    return _Session(Path(path)).run()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def _micro(stamp, file: Path, where, field: str = "timestamp") -> int:
    """Microseconds since 1970 of an ISO 8601 time (UTC when it names no zone)."""
    if stamp is None:
        raise SourceError(file, where, "message has no timestamp")
    return moment_ns(stamp, file, where, field, numbers=False) // 1000


TOKEN_KEYS = ("input", "output", "cached", "thoughts", "tool")


def _tokens(tokens, file: Path, where, repairs: Counter) -> dict | None:
    """The counts of a message's ``tokens`` by the kit's rule (a part the log leaves out is
    none: 0), or ``None`` when it states no input and no output."""
    if tokens is None:
        return None
    if not isinstance(tokens, dict):
        raise SourceError(file, where, f"tokens must be an object, found {json_type(tokens)}")
    found = {k: count(tokens.get(k), file, where, f"tokens.{k}", repairs) for k in TOKEN_KEYS}
    if found["input"] is None and found["output"] is None:
        return None
    return {k: 0 if v is None else v for k, v in found.items()}


def _stated(tokens: dict | None) -> tuple[float, float]:
    if tokens is None:
        return 0, 0
    return tokens["input"] + tokens["tool"], tokens["output"] + tokens["thoughts"]


DELEGATION = re.compile(r"Delegating to agent '(?P<name>[^']+)'\Z")
"""The description Gemini CLI gives a call that runs a sub-agent."""
DELEGATE = "delegate_to_agent"
"""The one tool through which earlier versions ran every sub-agent, named by ``agent_name``."""


def _sub_agent(call: dict, base: str) -> tuple[str, str] | None:
    """``(agent, role)`` of a call that runs a sub-agent, told by the call itself (its
    ``agentId``, a ``resultDisplay`` of sub-agent progress, the description Gemini CLI gives
    such a call, or a ``delegate_to_agent`` call naming its ``agent_name``), else ``None``: the
    agent is named by its id, else by the call."""
    shown = call.get("resultDisplay")
    progress = isinstance(shown, dict) and shown.get("isSubagentProgress") is True
    described = DELEGATION.match(call.get("description") or "") \
        if isinstance(call.get("description"), str) else None
    args = call.get("args")
    delegated = args.get("agent_name") if call.get("name") == DELEGATE \
        and isinstance(args, dict) and isinstance(args.get("agent_name"), str) else None
    ident = call.get("agentId")
    if not (progress or described or delegated or isinstance(ident, str)):
        return None
    role = (shown.get("agentName") if progress and isinstance(shown.get("agentName"), str)
            else described["name"] if described else delegated or call.get("name"))
    role = role if isinstance(role, str) and role else "sub-agent"
    if isinstance(ident, str) and ident:
        return f"agent-{ident}", role
    made = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else base
    return f"agent-{role}:{made}", role


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict)
                       and isinstance(p.get("text"), str) and not p.get("thought"))
    return ""


class _Session:
    def __init__(self, path: Path):
        self.path = path
        self.result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
        self.account = self.result.account
        self.build = TraceBuilder()
        self.answers: set[tuple[str, str]] = set()
        self.spawned: dict[str, Conversation] = {}  # tool call id -> sub-agent session
        self.spawn_events: dict[str, str] = {}  # tool call id -> its spawn event
        self.unrecorded = 0  # sub-agents run by a call, with no session of their own

    # ------------------------------------------------------------------ reading

    def read(self, file: Path) -> Conversation:
        """A session file as the conversation it ends with (chapter 23 of the book)."""
        text = read_text(file, cut_last=True)  # JSON Lines may still be being written
        document, findings = strict_json.parse_fast(text)
        if not findings and isinstance(document, dict) and "messages" in document \
                and "$set" not in document:
            return self.read_json(file, document)
        if not findings and isinstance(document, list):  # a JSON array, whatever its lines
            raise SourceError(file, None, _LOGS if _prompts_only(document) else
                              "a JSON array, not a Gemini CLI session (an object with "
                              "sessionId and messages, or JSON Lines)")
        return self.read_jsonl(file)

    def read_json(self, file: Path, document: dict) -> Conversation:
        self.account.unit = self.account.unit or "message"
        if not isinstance(document.get("sessionId"), str):
            raise SourceError(file, "sessionId", "a session must have a sessionId string")
        messages = document.get("messages")
        if not isinstance(messages, list):
            raise SourceError(file, "messages", "messages must be a list")
        kept = []
        for k, data in enumerate(messages):
            self.account.read()
            if not isinstance(data, dict) or not isinstance(data.get("id"), str):
                raise SourceError(file, f"messages[{k}]", "a message must be an object with an id")
            kept.append(Message(data, f"messages[{k}]", f"messages[{k}]", file))
        meta = {k: v for k, v in document.items() if k != "messages"}
        return Conversation(file, meta, kept, "JSON session file (earlier recording)")

    def read_jsonl(self, file: Path) -> Conversation:
        self.account.unit = self.account.unit or "line"
        lines = read_session_lines(file, self.account)
        name = file.name if file.parent == self.path.parent else \
            f"{file.parent.name}/{file.name}"
        meta: dict = {}
        order: list[str] = []  # message ids in conversation order
        at: dict[str, int] = {}  # message id -> its place in ``order`` (no scan per rewind)
        latest: dict[str, tuple[int, dict]] = {}  # id -> (line, last copy)
        outcome: dict[int, str | None] = {}  # line -> skip reason (None: mapped)
        conversation = Conversation(file, meta, [], "JSON Lines session file (current "
                                    "recording)")
        replaced_at = None
        for line, record in lines:
            if "$rewindTo" in record:
                target = record["$rewindTo"]
                conversation.rewinds += 1
                outcome[line] = "$rewindTo record (a rewind of the conversation)"
                if isinstance(target, str) and target in at:  # the ids in order are texts
                    removed = order[at[target]:]
                    del order[at[target]:]
                else:
                    removed, order = order, []
                for gone in removed:
                    del at[gone]
                    gone_line = latest.pop(gone)[0]
                    outcome[gone_line] = "message removed by a later $rewindTo"
            elif isinstance(record.get("$set"), dict):
                updates = record["$set"]
                meta.update({k: v for k, v in updates.items() if k != "messages"})
                outcome[line] = "metadata update ($set)"
                if isinstance(updates.get("messages"), list):
                    for gone in order:
                        outcome[latest.pop(gone)[0]] = ("message replaced by a later $set of "
                                                        "the conversation")
                    order, at = [], {}
                    for m in updates["messages"]:
                        if isinstance(m, dict) and isinstance(m.get("id"), str):
                            if m["id"] not in at:
                                at[m["id"]] = len(order)
                                order.append(m["id"])
                            latest[m["id"]] = (line, m)
                    replaced_at = line
                    outcome[line] = None
            elif isinstance(record.get("id"), str):
                ident = record["id"]
                if ident in latest:
                    outcome[latest[ident][0]] = ("earlier copy of a message written again (the "
                                                 "last copy is read)")
                    conversation.copies += 1
                else:
                    at[ident] = len(order)
                    order.append(ident)
                latest[ident] = (line, record)
                outcome[line] = None
            elif isinstance(record.get("sessionId"), str) and "projectHash" in record:
                meta.update(record)
                outcome[line] = "session metadata"
            else:
                outcome[line] = f"unknown record type: {sorted(record)[:3]}"
        if not isinstance(meta.get("sessionId"), str):
            raise SourceError(file, 1, "no session metadata line (sessionId, projectHash)")
        records = dict(lines)  # line -> record, for the usage of removed messages
        for line, reason in sorted(outcome.items()):
            if line == replaced_at:
                self.account.map()  # its messages are the conversation
            if reason is None:
                continue  # a message read: accounted when its events are made (emit)
            usage = None
            if reason.startswith("message removed") or reason.startswith("message replaced"):
                data = records[line]
                tokens_in, tokens_out = _stated(_tokens(data.get("tokens"), file, line,
                                                        self.result.repairs))
                if tokens_in or tokens_out:
                    self.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
                    usage = {"tokens_in": tokens_in, "tokens_out": tokens_out}
            self.account.skip(reason, usage=usage)
        conversation.messages = [Message(latest[i][1], f"{name}:{latest[i][0]}", latest[i][0],
                                         file, counted=latest[i][0] != replaced_at)
                                 for i in order]
        return conversation

    def sub_sessions(self, main: Conversation) -> list[Conversation]:
        """The sub-agent sessions recorded under ``chats/<sessionId>/`` beside the session."""
        folder = self.path.parent / str(main.meta["sessionId"])
        found = []
        for file in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            self.result.files.append(str(file))
            sub = self.read(file)
            sub.agent = f"agent-{sub.meta['sessionId']}"
            sub.tag = str(sub.meta["sessionId"])
            found.append(sub)
        return found

    # ------------------------------------------------------------------ events

    def run(self) -> ImportResult:
        main = self.read(self.path)
        subs = self.sub_sessions(main)
        self.link_subs(main, subs)
        self.emit(main)
        returns: dict[str, list[str]] = {}  # agent -> its return events, in emission order
        indexed = 0  # events already in ``returns``: each event is looked at once
        for sub in subs:
            if sub.spawner is None:
                self.result.repairs["sub-agent session matched to no tool call (spawned by main "
                                    "at its start)"] += 1
                sub.spawner = MAIN
                event = self.build.event(
                    id=f"{sub.tag}:spawn", t=_micro(sub.meta.get("startTime"), sub.file, None,
                                                    "startTime"),
                    type="spawn", agent=MAIN, to=sub.agent, x_source=f"{sub.file.name}:1")
                sub.spawn = event["id"]
            self.emit(sub)
            for event in self.build.events[indexed:]:
                if event["type"] == "return":
                    returns.setdefault(event["agent"], []).append(event["id"])
            indexed = len(self.build.events)
            for ret in returns.get(sub.agent, []):
                if sub.events:
                    self.link(sub.events[-1], ret)
        if not self.build.events:
            raise SourceError(self.path, None, "no message to import")
        raised = self.build.raise_times()
        if raised:
            self.result.repairs["event time raised to the time of an event it depends on"] += \
                raised
        start = min(e["t"] for e in self.build.events)
        self.result.time_origin = iso_from_ns(start * 1000)
        for event in self.build.events:
            event["t"] = (event["t"] - start) / 1_000_000
            if "t_end" in event:  # a tool call that lasts until its result
                event["t_end"] = (event["t_end"] - start) / 1_000_000
        session = str(main.meta["sessionId"])
        evidence = [f"{len(main.messages)} messages in the conversation"]
        if main.copies:
            evidence.append(f"{main.copies} earlier copies of rewritten messages")
        if main.rewinds:
            evidence.append(words.count(main.rewinds, "rewind"))
        if subs:
            evidence.append(f"{words.count(len(subs), 'sub-agent session')} under {session}/")
        if self.unrecorded:
            their = "its" if self.unrecorded == 1 else "their"
            evidence.append(f"{words.count(self.unrecorded, 'sub-agent')} with no session of "
                            f"{their} own, only {their} call and result")
        self.result.recognised = {"system": "Gemini CLI", "shape": main.shape,
                                  "evidence": "; ".join(evidence)}
        build = self.build
        self.result.trace = build.document(
            trace_id=f"gemini-cli:{session}", task_id=session, system="Gemini CLI",
            topology="harness", rewards={},
            costs={"tokens": sum(e.get("tokens", 0) for e in build.events),
                   "wall_clock_s": latest_end(build.events),
                   "tool_calls": build.count("tool_call"), "messages": build.count("message")})
        return self.result.with_provenance()

    def link_subs(self, main: Conversation, subs: list[Conversation]) -> None:
        """Which tool call of ``main`` each sub-agent session answers (chapter 23 of the book)."""
        calls = []
        for message in main.messages:
            tool_calls = message.data.get("toolCalls")
            for call in tool_calls if isinstance(tool_calls, list) else []:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    calls.append((message, call))
        by_agent: dict[str, list[dict]] = {}  # agentId -> its calls, in order
        for _, call in calls:
            if isinstance(call.get("agentId"), str):
                by_agent.setdefault(call["agentId"], []).append(call)
        for sub in subs:
            match = next((c for c in by_agent.get(sub.meta["sessionId"], [])
                          if c["id"] not in self.spawned), None)
            if match is None:
                start = sub.meta.get("startTime")
                begun = None if start is None else _micro(start, sub.file, None, "startTime")
                for message, call in calls:
                    if call["id"] in self.spawned or begun is None:
                        continue
                    made = _micro(message.data.get("timestamp"), main.file, message.place)
                    done = call.get("timestamp")
                    done = made if done is None else _micro(done, main.file, message.place,
                                                            "toolCalls[].timestamp")
                    if made <= begun <= done:
                        match = call
                        break
            if match is not None:
                self.spawned[match["id"]] = sub
                sub.spawner = MAIN

    def emit(self, conversation: Conversation) -> None:
        state = {"previous": conversation.spawn, "pending": []}
        file = conversation.file
        for k, message in enumerate(conversation.messages):
            data = message.data
            kind = data.get("type")
            base = f"{conversation.tag}:m{k}"
            if kind in NOTES or kind not in ("user", "gemini"):
                self.unmap(message, f"{kind} message (an interface note)" if kind in NOTES
                           else f"unknown message type: {kind}")
                continue
            t = _micro(data.get("timestamp"), file, message.place)
            if message.counted:
                self.account.map()
            if kind == "user":
                if conversation.spawn is not None and k == 0:
                    self.result.repairs["sub-agent task (its first user message) carried by "
                                        "its spawn event"] += 1
                    continue
                sender = HUMAN if conversation.spawner is None else conversation.spawner
                event = self.build.event(id=base, t=t, type="message", agent=sender,
                                         role="human" if sender == HUMAN else None,
                                         to=conversation.agent,
                                         content_ref=content_ref(data.get("content", "")),
                                         x_source=message.where)
                self.follow(state, event["id"], incoming=True)
            else:
                self.gemini(conversation, state, message, base, t)

    def unmap(self, message: Message, reason: str) -> None:
        """A message of the conversation that gives no event, skipped with its tokens (a
        message of a replaced conversation is a part of its mapped line)."""
        tokens_in, tokens_out = _stated(_tokens(message.data.get("tokens"), message.file,
                                                message.place, self.result.repairs))
        if tokens_in or tokens_out:
            self.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
        usage = {"tokens_in": tokens_in, "tokens_out": tokens_out} \
            if tokens_in or tokens_out else None
        if message.counted:
            self.account.skip(reason, usage=usage)
        else:
            self.account.skip_part(reason, usage=usage)

    def gemini(self, conversation, state, message, base, t) -> None:
        data = message.data
        calls = data.get("toolCalls")
        if calls is not None and not isinstance(calls, list):
            raise SourceError(conversation.file, message.place, "toolCalls must be a list")
        calls = [c for c in calls or [] if isinstance(c, dict)]
        says = bool(_text(data.get("content")).strip())
        events = len(calls) + (1 if says or not calls else 0)
        ids = iter([base] if events == 1 else [f"{base}.{j}" for j in range(events)])
        actions = []
        if says or not calls:
            actions.append(self.build.event(
                id=next(ids), t=t, type="message", agent=conversation.agent,
                to=HUMAN if conversation.spawner is None else None,
                content_ref=content_ref(data.get("content", "")), x_source=message.where))
        made = []
        for call in calls:
            sub = self.spawned.get(call.get("id")) if conversation.agent == MAIN else None
            unrecorded = None if sub is not None else _sub_agent(call, base)
            if sub is not None:
                event = self.build.event(id=next(ids), t=t, type="spawn",
                                         agent=conversation.agent, to=sub.agent,
                                         content_ref=content_ref(call.get("args", {})),
                                         x_source=message.where)
                sub.spawn = event["id"]
                self.spawn_events[call["id"]] = event["id"]
            elif unrecorded is not None:  # a sub-agent whose own session is not in the log
                agent, role = unrecorded
                sub = Conversation(conversation.file, {}, [], conversation.shape, agent=agent,
                                   tag=agent, spawner=MAIN)  # its result is its return
                event = self.build.event(id=next(ids), t=t, type="spawn",
                                         agent=conversation.agent, to=agent, role=role,
                                         content_ref=content_ref(call.get("args", {})),
                                         x_source=message.where)
                self.unrecorded += 1
            else:
                event = self.build.event(id=next(ids), t=t, type="tool_call",
                                         agent=conversation.agent, tool=call.get("name"),
                                         content_ref=content_ref(call.get("args", {})),
                                         x_source=message.where)
            actions.append(event)
            made.append((call, event, sub))
        for event in actions:
            self.follow(state, event["id"])
            conversation.events.append(event["id"])
        thoughts = data.get("thoughts")
        if isinstance(thoughts, list) and thoughts:
            self.account.skip_part("thoughts of a gemini message", n=len(thoughts))
        tokens = _tokens(data.get("tokens"), conversation.file, message.place,
                         self.result.repairs)
        last = actions[-1]
        last["x_model_call"] = data["id"]
        if isinstance(data.get("model"), str):
            last["x_model"] = data["model"]
        if tokens is not None:
            tokens_in, tokens_out = _stated(tokens)
            self.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
            last["tokens"] = tokens_in + tokens_out
            last["x_usage"] = {"input": tokens_in, "output": tokens_out,
                               "cached_input": tokens["cached"],
                               "tool_use_input": tokens["tool"],
                               "reasoning_output": tokens["thoughts"]}
        for j, (call, event, sub) in enumerate(made):
            status = call.get("status")
            if call.get("result") is None and status not in FINAL:
                continue
            stamp = call.get("timestamp")
            when = t if stamp is None else max(t, _micro(stamp, conversation.file, message.place,
                                                         "toolCalls[].timestamp"))
            ident = f"{base}.r{j}"
            if sub is not None:
                result = self.build.event(id=ident, t=when, type="return", agent=sub.agent,
                                          to=conversation.agent,
                                          content_ref=content_ref(call.get("result") or ""),
                                          x_error=True if status == "error" else None,
                                          x_source=message.where)
            else:
                result = self.build.event(id=ident, t=when, type="tool_result",
                                          agent=conversation.agent, tool=call.get("name"),
                                          trusted=False,
                                          content_ref=content_ref(call.get("result") or ""),
                                          x_error=True if status == "error" else None,
                                          x_status=status if status == "cancelled" else None,
                                          x_source=message.where)
                self.answers.add((event["id"], result["id"]))
            self.link(event["id"], result["id"])
            state["pending"].append(result["id"])

    def follow(self, state: dict, event: str, incoming: bool = False) -> None:
        """``event`` depends on what arrived since the previous event, else on that event; a
        message from outside (the user's) waits in ``pending`` for the next event."""
        sources = state["pending"] or ([state["previous"]] if state["previous"] else [])
        for src in sources:
            self.link(src, event)
        if incoming:
            state["pending"] = [event]
            state["previous"] = None
        else:
            state["pending"], state["previous"] = [], event

    def link(self, src: str, dst: str) -> None:
        self.build.link(src, dst, self.answers, spawn_mode="blocking")


def sniff(sample: Sample) -> str | None:
    """A Gemini CLI session: a JSON object with ``sessionId``, ``projectHash`` and
    ``messages``, or JSON Lines whose first record has ``sessionId`` and ``projectHash``."""
    keys = sample.keys
    if {"sessionId", "projectHash", "messages"} <= keys:
        return "Gemini CLI session file (sessionId, projectHash, messages)"
    records = sample.records or []
    if records and "sessionId" in records[0] and "projectHash" in records[0]:
        return "Gemini CLI JSON Lines session (a metadata line with sessionId, projectHash)"
    return None


_LOGS = ("Gemini CLI's logs.json: the user's prompts only, no model turn or tool call; "
         "import the session file under chats/ instead")


def _prompts_only(document) -> bool:
    """Whether a JSON document is Gemini CLI's ``logs.json`` (a list of the user's prompts)."""
    return isinstance(document, list) and bool(document) and all(
        isinstance(r, dict) and {"sessionId", "messageId", "type", "message"} <= set(r)
        for r in document[:20])


def refusal(sample: Sample) -> str:
    """Why a file is not a Gemini CLI session (for ``import auto``)."""
    if _prompts_only(sample.document):
        return _LOGS
    return "looks for a session file with sessionId and projectHash (chats/session-*.json[l])"
